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
//! The instructions of this class have small K (1 to 4), so element `e` of the eight rows is
//! fetched with one gather rather than transposed from whole rows.

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

/// Eight fp32 FMA chains over the rows' K, C and D as fp32 words; a NaN result is `nan`.
#[inline(always)]
pub fn fma32<W: Word>(a: Rows<'_, W>, b: Rows<'_, W>, c: &[u64; 8], nan: u64, out: &mut [u64; 8]) {
    assert!(a.k() == b.k());
    // SAFETY: register-only AVX2/FMA arithmetic; the loads and stores are `rows`'.
    unsafe {
        let mut acc = _mm256_castsi256_ps(super::rows::lanes(c));
        for e in 0..a.k() {
            let x = _mm256_castsi256_ps(elem32(&a, e));
            let y = _mm256_castsi256_ps(elem32(&b, e));
            acc = _mm256_fmadd_ps(x, y, acc);
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
            for e in 0..a.k() {
                acc = _mm256_fmadd_pd(elem64(&a, e, h), elem64(&b, e, h), acc);
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
