//! FMA chains across lanes: eight fp32 dot products per vector, or eight fp64 dot products in
//! two vectors of four, each lane running `acc = fma(a_k, b_k, acc)` over K exactly as the
//! scalar [`crate::kernel::scalar::amd::fma_block`] does.
//!
//! Why it is bit-exact: the vector `vfmadd` is the same IEEE fused multiply-add as the scalar
//! one (one rounding, to nearest even under the default MXCSR, subnormals kept), applied in
//! the same order to the same operands; the unit's blocks are a plain continuation of the
//! chain (a block's result, in the common format, is the next block's C), so block lengths do
//! not matter. A NaN result takes the unit's NaN bits, as in the scalar routine. There is no
//! fallback: every input, specials included, is handled by the lanes.
//!
//! The instructions of this class have small K (1 to 4). Where the eight rows follow each
//! other (`stride == k`, a batch of [`crate::kernel::Kernel::dots`]) and K is 1, 2 or 4, the
//! rows are read by contiguous loads and transposed in registers ([`rows32`], [`rows64`]);
//! otherwise (a matrix row of A shared by eight columns, other K) element `e` of the eight rows
//! is fetched with one gather.

use crate::kernel::{Rows, Word};
use core::arch::x86_64::*;

/// Largest row stride for which the gather indices (`7 · stride + k`, in 32-bit units) fit
/// in `i32`.
const MAX_STRIDE: usize = (i32::MAX as usize) / 16;

/// Whether [`fma32`] and [`fma64`] can gather from these rows.
pub fn fits<W: Word>(r: &Rows<'_, W>) -> bool {
    r.stride.max(r.k()) <= MAX_STRIDE
}

/// Element `e` of the eight rows, the low 32 bits of each word (`u32` or `u64` words).
#[inline(always)]
fn elem32<W: Word>(r: &Rows<'_, W>, e: usize) -> __m256i {
    assert!(r.n() >= 8 && e < r.k() && fits(r) && W::BYTES >= 4);
    let words = r.words;
    // 32-bit units per word: 1 or 2.
    let u = (W::BYTES / 4) as i32;
    let (s, e) = (u * r.stride as i32, u * e as i32);
    // SAFETY: lane `j` reads the low 32 bits of word `j·stride + e < (n - 1)·stride + k <=
    // words.len()` (`Rows::new`; `n >= 8` and `e < k` asserted); on little-endian x86-64 that
    // is `i32` number `u(j·stride + e)` of the words, an index that fits `i32` (asserted).
    unsafe {
        let idx = _mm256_setr_epi32(
            e,
            s + e,
            2 * s + e,
            3 * s + e,
            4 * s + e,
            5 * s + e,
            6 * s + e,
            7 * s + e,
        );
        _mm256_i32gather_epi32::<4>(words.as_ptr().cast(), idx)
    }
}

/// Element `e` of rows `4h .. 4h + 4` as `f64`.
#[inline(always)]
fn elem64<W: Word>(r: &Rows<'_, W>, e: usize, h: usize) -> __m256d {
    assert!(r.n() >= 8 && e < r.k() && h < 2 && fits(r) && W::BYTES == 8);
    let words = r.words;
    let s = r.stride as i32;
    let at = |j: i32| (4 * h as i32 + j) * s + e as i32;
    // SAFETY: as in `elem32`, whole words of rows `4h + j < 8 <= n`.
    unsafe {
        let idx = _mm_setr_epi32(at(0), at(1), at(2), at(3));
        _mm256_i32gather_pd::<8>(words.as_ptr().cast(), idx)
    }
}

/// Elements `0 .. k` of eight rows that follow each other (`stride == k`) as [`elem32`] gives
/// them, by contiguous loads: K of 4 (any word), or of 1 and 2 (`u32` words); `None` for other
/// rows.
#[inline(always)]
fn rows32<W: Word>(r: &Rows<'_, W>) -> Option<[__m256i; 4]> {
    let k = r.k();
    if r.stride != k || r.n() < 8 {
        return None;
    }
    if k == 4 {
        let c = r.columns4(0);
        return Some([c[0], c[1], c[2], c[3]]);
    }
    if W::BYTES != 4 || !(k == 1 || k == 2) {
        return None;
    }
    // The eight rows: the first `8k` words (`8k <= (n - 1)·k + k <= words.len()`, `Rows::new`).
    let p = r.words[..8 * k].as_ptr().cast::<i32>();
    // SAFETY: `p` points to `8k` words of `u32` of a checked slice: one load of eight for K =
    // 1, two for K = 2; the shuffles are register-only.
    unsafe {
        let z = _mm256_setzero_si256();
        if k == 1 {
            return Some([_mm256_loadu_si256(p.cast()), z, z, z]);
        }
        let (lo, hi) = (_mm256_loadu_ps(p.cast()), _mm256_loadu_ps(p.add(8).cast()));
        // Even and odd words of rows 0,1,4,5 | 2,3,6,7, then in row order.
        let fix = |x: __m256| _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(x));
        let e0 = fix(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi));
        let e1 = fix(_mm256_shuffle_ps::<0b11_01_11_01>(lo, hi));
        Some([e0, e1, z, z])
    }
}

/// Elements `0 .. k` of rows `4h .. 4h + 4` as [`elem64`] gives them, by contiguous loads, for
/// rows that follow each other (`stride == k`) with K of 1, 2 or 4 (`u64` words); `None`
/// otherwise.
#[inline(always)]
fn rows64<W: Word>(r: &Rows<'_, W>, h: usize) -> Option<[__m256d; 4]> {
    let k = r.k();
    if r.stride != k || r.n() < 8 || W::BYTES != 8 || !(k == 1 || k == 2 || k == 4) || h > 1 {
        return None;
    }
    // Rows 4h .. 4h + 4: the 4k words from 4hk.
    let p = r.words[4 * h * k..4 * h * k + 4 * k].as_ptr().cast::<f64>();
    // SAFETY: `p` points to `4k` words of a checked slice: one load for K = 1, two for K = 2,
    // four for K = 4; the rest is register-only.
    unsafe {
        let z = _mm256_setzero_pd();
        let ld = |i: usize| _mm256_loadu_pd(p.add(4 * i));
        match k {
            1 => Some([ld(0), z, z, z]),
            2 => {
                let (lo, hi) = (ld(0), ld(1));
                // [r0 r2 | r1 r3] of each element, then in row order.
                let fix = |x: __m256d| _mm256_permute4x64_pd::<0b11_01_10_00>(x);
                Some([
                    fix(_mm256_unpacklo_pd(lo, hi)),
                    fix(_mm256_unpackhi_pd(lo, hi)),
                    z,
                    z,
                ])
            }
            _ => {
                let (r0, r1, r2, r3) = (ld(0), ld(1), ld(2), ld(3));
                let (t0, t1) = (_mm256_unpacklo_pd(r0, r1), _mm256_unpackhi_pd(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_pd(r2, r3), _mm256_unpackhi_pd(r2, r3));
                Some([
                    _mm256_permute2f128_pd::<0x20>(t0, t2),
                    _mm256_permute2f128_pd::<0x20>(t1, t3),
                    _mm256_permute2f128_pd::<0x31>(t0, t2),
                    _mm256_permute2f128_pd::<0x31>(t1, t3),
                ])
            }
        }
    }
}

/// Eight fp32 FMA chains over the rows' K, C and D as fp32 words; a NaN result is `nan`.
#[inline(always)]
pub fn fma32<W: Word>(a: Rows<'_, W>, b: Rows<'_, W>, c: &[u64; 8], nan: u64, out: &mut [u64; 8]) {
    assert!(a.k() == b.k());
    // SAFETY: register-only AVX2/FMA arithmetic; the loads and stores are `rows`'.
    unsafe {
        let mut acc = _mm256_castsi256_ps(super::rows::lanes(c));
        if let (Some(x), Some(y)) = (rows32(&a), rows32(&b)) {
            for e in 0..a.k() {
                let (x, y) = (_mm256_castsi256_ps(x[e]), _mm256_castsi256_ps(y[e]));
                acc = _mm256_fmadd_ps(x, y, acc);
            }
        } else {
            for e in 0..a.k() {
                let x = _mm256_castsi256_ps(elem32(&a, e));
                let y = _mm256_castsi256_ps(elem32(&b, e));
                acc = _mm256_fmadd_ps(x, y, acc);
            }
        }
        let is_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(acc, acc);
        let nan = _mm256_set1_epi32(nan as u32 as i32);
        let d = _mm256_blendv_epi8(_mm256_castps_si256(acc), nan, _mm256_castps_si256(is_nan));
        super::rows::store(d, out);
    }
}

/// Eight fp64 FMA chains over the rows' K, C and D as fp64 words; a NaN result is `nan`.
#[inline(always)]
pub fn fma64<W: Word>(a: Rows<'_, W>, b: Rows<'_, W>, c: &[u64; 8], nan: u64, out: &mut [u64; 8]) {
    assert!(a.k() == b.k());
    for h in 0..2 {
        // SAFETY: register-only AVX2/FMA arithmetic; an unaligned load of four words of `c`
        // and a store of four words of `out`, both of eight words.
        unsafe {
            let mut acc = _mm256_loadu_pd(c.as_ptr().add(4 * h).cast());
            if let (Some(x), Some(y)) = (rows64(&a, h), rows64(&b, h)) {
                for e in 0..a.k() {
                    acc = _mm256_fmadd_pd(x[e], y[e], acc);
                }
            } else {
                for e in 0..a.k() {
                    acc = _mm256_fmadd_pd(elem64(&a, e, h), elem64(&b, e, h), acc);
                }
            }
            let is_nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(acc, acc);
            let d = _mm256_blendv_pd(
                acc,
                _mm256_castsi256_pd(_mm256_set1_epi64x(nan as i64)),
                is_nan,
            );
            _mm256_storeu_pd(out.as_mut_ptr().add(4 * h).cast(), d);
        }
    }
}
