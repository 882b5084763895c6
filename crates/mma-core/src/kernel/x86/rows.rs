//! Operand rows into vector lanes: [`Rows::columns`] transposes eight elements of eight rows
//! so that vector `e` holds element `e` of every row (lane `j` = row `j`), reading the words in
//! the width the rows come in (`u64`, or the storage width `u8`/`u16`/`u32`, each compiled
//! to its own load); [`lanes`] and [`store`] move eight C and D words. Soundness:
//! `x86/mod.rs`; every pointer read here is argued where it happens.

use crate::kernel::dots::{Rows, Word};
use core::arch::x86_64::*;

/// Position, in a [`row8`] vector, of word `e` (the permutation is its own inverse).
const POS: [usize; 8] = [0, 1, 4, 5, 2, 3, 6, 7];

/// Low 32 bits of the eight `u64` words at `p`, in the lane order `w0 w1 w4 w5 w2 w3 w6 w7`.
///
/// # Safety
/// `p` must point to eight readable `u64`.
#[inline(always)]
unsafe fn row8(p: *const u64) -> __m256i {
    let lo = _mm256_loadu_si256(p.cast());
    let hi = _mm256_loadu_si256(p.add(4).cast());
    _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
        _mm256_castsi256_ps(lo),
        _mm256_castsi256_ps(hi),
    ))
}

/// Low 32 bits of eight `u64` words, lane `j` = word `j`.
#[inline(always)]
pub(super) fn lanes(w: &[u64; 8]) -> __m256i {
    // SAFETY: `w` has eight words; the permute is register-only.
    unsafe { _mm256_permute4x64_epi64::<0b11_01_10_00>(row8(w.as_ptr())) }
}

/// Stores eight 32-bit lanes as eight zero-extended `u64` words.
#[inline(always)]
pub(super) fn store(v: __m256i, out: &mut [u64; 8]) {
    // SAFETY: `out` has eight words, written unaligned; the rest is register-only.
    unsafe {
        let lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
        let hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v));
        _mm256_storeu_si256(out.as_mut_ptr().cast(), lo);
        _mm256_storeu_si256(out.as_mut_ptr().add(4).cast(), hi);
    }
}

/// 8×8 transpose of 32-bit lanes: lane `j` of `out[p]` is lane `p` of `r[j]`.
#[inline(always)]
fn transpose8(r: &[__m256i; 8]) -> [__m256i; 8] {
    // SAFETY: register-only AVX2 shuffles.
    unsafe {
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
        let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
        let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
        let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
        let u0 = _mm256_unpacklo_epi64(t0, t2);
        let u1 = _mm256_unpackhi_epi64(t0, t2);
        let u2 = _mm256_unpacklo_epi64(t1, t3);
        let u3 = _mm256_unpackhi_epi64(t1, t3);
        let u4 = _mm256_unpacklo_epi64(t4, t6);
        let u5 = _mm256_unpackhi_epi64(t4, t6);
        let u6 = _mm256_unpacklo_epi64(t5, t7);
        let u7 = _mm256_unpackhi_epi64(t5, t7);
        [
            _mm256_permute2x128_si256::<0x20>(u0, u4),
            _mm256_permute2x128_si256::<0x20>(u1, u5),
            _mm256_permute2x128_si256::<0x20>(u2, u6),
            _mm256_permute2x128_si256::<0x20>(u3, u7),
            _mm256_permute2x128_si256::<0x31>(u0, u4),
            _mm256_permute2x128_si256::<0x31>(u1, u5),
            _mm256_permute2x128_si256::<0x31>(u2, u6),
            _mm256_permute2x128_si256::<0x31>(u3, u7),
        ]
    }
}

/// Eight words at `p` zero-extended to 32-bit lanes: the low 32 bits of `u64` words in the lane
/// order `w0 w1 w4 w5 w2 w3 w6 w7` ([`row8`]), narrower words in order.
///
/// # Safety
/// `p` must point to eight readable `W`.
#[inline(always)]
unsafe fn load8<W: Word>(p: *const W) -> __m256i {
    // A constant after monomorphisation: each width compiles to its one load.
    match W::BYTES {
        1 => _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast())),
        2 => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
        4 => _mm256_loadu_si256(p.cast()),
        _ => row8(p.cast()),
    }
}

/// Four words at `p` zero-extended to the 32-bit lanes of a 128-bit vector (the low 32 bits of
/// `u64` words), in order.
///
/// # Safety
/// `p` must point to four readable `W`.
#[inline(always)]
unsafe fn load4<W: Word>(p: *const W) -> __m128i {
    // A constant after monomorphisation, as in `load8`.
    match W::BYTES {
        1 => _mm_cvtepu8_epi32(_mm_cvtsi32_si128(p.cast::<i32>().read_unaligned())),
        2 => _mm_cvtepu16_epi32(_mm_loadl_epi64(p.cast())),
        4 => _mm_loadu_si128(p.cast()),
        _ => {
            // The even 32-bit halves of four `u64`: their low words.
            let v = _mm256_loadu_si256(p.cast());
            let low = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
            _mm256_castsi256_si128(low)
        }
    }
}

impl<W: Word> Rows<'_, W> {
    /// Elements `k0 .. k0 + 8`: `out[e]` holds, in lane `j`, the low 32 bits of element
    /// `k0 + e` of row `j`.
    #[inline(always)]
    pub(super) fn columns(&self, k0: usize) -> [__m256i; 8] {
        assert!(self.n() >= 8 && k0 + 8 <= self.k());
        let (words, stride) = (self.words, self.stride);
        let p = words.as_ptr();
        // SAFETY: row `j < 8 <= n` reads words `j·stride + k0 .. j·stride + k0 + 8`, below
        // `(n - 1)·stride + k <= words.len()` (checked by `Rows::new` and kept by
        // `Rows::group`; `n >= 8` and `k0 + 8 <= k` asserted).
        // Plain loops, not `core::array::from_fn`: its internal adapter is compiled without
        // the caller's target features and would keep these intrinsics out of line.
        // SAFETY: `_mm256_setzero_si256` only needs AVX, part of the callers' features.
        let mut r = [unsafe { _mm256_setzero_si256() }; 8];
        for (j, rj) in r.iter_mut().enumerate() {
            *rj = unsafe { load8(p.add(j * stride + k0)) };
        }
        let t = transpose8(&r);
        if W::BYTES != 8 {
            return t;
        }
        let mut out = r;
        for (e, oe) in out.iter_mut().enumerate() {
            *oe = t[POS[e]];
        }
        out
    }

    /// Elements `k0 .. k0 + 4` as [`Rows::columns`] gives eight: `out[e]` for `e < 4`, lane
    /// `j` = row `j`; `out[4..]` zero. For blocks of four elements, whose rows may end after
    /// them.
    #[inline(always)]
    pub(super) fn columns4(&self, k0: usize) -> [__m256i; 8] {
        assert!(self.n() >= 8 && k0 + 4 <= self.k());
        let (words, stride) = (self.words, self.stride);
        let p = words.as_ptr();
        // SAFETY: row `j < 8 <= n` reads words `j·stride + k0 .. j·stride + k0 + 4`, below
        // `(n - 1)·stride + k <= words.len()` (as in `columns`; `k0 + 4 <= k` asserted). The
        // rest is register-only.
        unsafe {
            let mut r = [_mm_setzero_si128(); 8];
            for (j, rj) in r.iter_mut().enumerate() {
                *rj = load4(p.add(j * stride + k0));
            }
            // Rows j and j + 4 in the two halves, then a 4×4 transpose within each half.
            let x = |j: usize| _mm256_set_m128i(r[j + 4], r[j]);
            let (x0, x1, x2, x3) = (x(0), x(1), x(2), x(3));
            let t0 = _mm256_unpacklo_epi32(x0, x1);
            let t1 = _mm256_unpackhi_epi32(x0, x1);
            let t2 = _mm256_unpacklo_epi32(x2, x3);
            let t3 = _mm256_unpackhi_epi32(x2, x3);
            let z = _mm256_setzero_si256();
            [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
                z,
                z,
                z,
                z,
            ]
        }
    }

    /// Elements `k0` and `k0 + 1` as [`Rows::columns`] gives eight: `out[0]` and `out[1]`,
    /// lane `j` = row `j`; `out[2..]` zero. For blocks of two elements (CDNA1 bf16), read
    /// word by word.
    #[inline(always)]
    pub(super) fn columns2(&self, k0: usize) -> [__m256i; 8] {
        assert!(self.n() >= 8 && k0 + 2 <= self.k());
        let w = |j: usize, e: usize| -> i32 {
            let x: u64 = self.row(j)[k0 + e].into();
            x as i32
        };
        // SAFETY: register-only AVX2 arithmetic; the words were read through checked slices.
        unsafe {
            let col = |e: usize| {
                _mm256_setr_epi32(
                    w(0, e),
                    w(1, e),
                    w(2, e),
                    w(3, e),
                    w(4, e),
                    w(5, e),
                    w(6, e),
                    w(7, e),
                )
            };
            let z = _mm256_setzero_si256();
            [col(0), col(1), z, z, z, z, z, z]
        }
    }

    /// The columns of a block of `N` elements from `k0`: eight ([`Rows::columns`]), or the
    /// four of a block of four ([`Rows::columns4`]), or the two of a block of two
    /// ([`Rows::columns2`]).
    #[inline(always)]
    pub(super) fn block_columns<const N: usize>(&self, k0: usize) -> [__m256i; 8] {
        if N <= 2 {
            self.columns2(k0)
        } else if N < 8 {
            self.columns4(k0)
        } else {
            self.columns(k0)
        }
    }

    /// `f` of row `j` as `u64` words (zero-extended from a narrower width): how the lanes a
    /// routine flags reach [`crate::kernel::Kernel::dot`].
    #[inline]
    pub(super) fn with_row<R>(&self, j: usize, f: impl FnOnce(&[u64]) -> R) -> R {
        let row = self.row(j);
        if let Some(row) = W::as_u64(row) {
            return f(row);
        }
        // Instruction-sized rows on the stack; longer chained rows (rare: only flagged lanes
        // come here) on the heap.
        const STACK: usize = 128;
        if row.len() <= STACK {
            let mut buf = [0u64; STACK];
            crate::kernel::widen_words(row, &mut buf[..row.len()]);
            return f(&buf[..row.len()]);
        }
        let buf: Vec<u64> = row.iter().map(|&w| w.into()).collect();
        f(&buf)
    }
}
