//! An E-FDPA block of at most eight elements in AVX-512 `f64` lanes, with the sum bracketed
//! by directed roundings instead of an a priori error bound: [`Zmm`]'s form of
//! [`Steps::efdpa_block`](crate::kernel::lanes::steps::Steps::efdpa_block) (`Ymm`'s is
//! `e_fdpa.rs`'s `short_block`).
//!
//! Per lane, as `e_fdpa.rs` (whose module docs give why each product is exact in `f64`):
//! 1. C widened to `f64` (an infinite C as 0, its word kept for the result); the products
//!    formed in `f64`, exact.
//! 2. Two running sums of C and the products in the elements' order: `lo` with every addition
//!    rounded toward -Inf, `hi` toward +Inf (AVX-512's per-instruction rounding, so the
//!    rounding mode register is never touched). Rounding down and up are monotone and
//!    `RD(x) <= x <= RU(x)`, so by induction over the additions `lo <= T <= hi` for the exact
//!    sum `T`.
//! 3. Both narrowed to fp32 (round to nearest even, IEEE subnormals, overflow to Inf: the
//!    output `e_fdpa.rs` admits). Rounding to fp32 is monotone, so where the two words are the
//!    same, that word is `T`'s rounding; where `lo == hi` as numbers every addition was exact
//!    and `hi` is `T` itself, its zero sign included (an exact zero sum is -0 only from -0
//!    terms when rounding up, as when rounding to nearest; `lo`, rounded down, would give -0
//!    for `x + (-x)`, which is why the result is taken from `hi`). A partial sum never
//!    underflows to zero without being an exact zero: the products lie far above `f64`'s
//!    subnormals.
//!
//! The bracket is never wider than `e_fdpa.rs`'s (an interval, not a bound for the worst
//! case), and costs two additions per product instead of an addition and the largest and
//! least term magnitudes: about half the operations per block. A block with a lane that the
//! two words leave undecided (a sum near an fp32 rounding boundary, about one lane in 150 on
//! random bf16 data: C and a product meeting at half an ulp), or whose sum is not finite (an
//! Inf or NaN input), is computed again by `short_block`, whose flags take it from there; a
//! lane with an infinite C and finite products keeps C, as there. Blocks of two come neither
//! here nor there: `e_fdpa_sum3.rs` rounds them in `f32` lanes.
//! `tests/fast_paths.rs` (`efdpa_*`) runs both forms against the plain model.

#![allow(unused_unsafe)]

use super::zmm::Zmm;
use crate::kernel::lanes::dec::WDec;
use crate::kernel::lanes::e_fdpa::short_block;
use crate::kernel::lanes::vector::Vector;
use core::arch::x86_64::*;

/// Rounding toward -Inf, exceptions suppressed.
const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
/// Rounding toward +Inf, exceptions suppressed.
const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

/// One block of `N <= 8` elements (an even number) from its columns in pairs `pa` and `pb`
/// (`N / 2` of each, [`Vector::pack16`] layout), C the fp32 word in each lane of `c` (`wp` as
/// in `short_block`): the results and the lanes the caller must recompute.
#[inline(always)]
pub fn block<const N: usize, A: WDec, B: WDec>(
    (pa, pb): (&[__m512i], &[__m512i]),
    wp: i64,
    c: __m512i,
) -> (__m512i, u32) {
    // SAFETY: register-only AVX-512 F/DQ intrinsics, reached only from the entry points
    // compiled for AVX-512 (module docs of `vector.rs`).
    unsafe {
        let c_inf = _mm512_cmpeq_epi32_mask(
            _mm512_and_si512(c, _mm512_set1_epi32(i32::MAX)),
            _mm512_set1_epi32(0x7f80_0000),
        );
        let c0 = _mm512_castsi512_ps(_mm512_maskz_mov_epi32(!c_inf, c));
        let mut lo = [Zmm::half_d(c0, 0), Zmm::half_d(c0, 1)];
        let mut hi = lo;
        for (&wa, &wb) in pa.iter().zip(pb) {
            let (a0, a1) = A::values::<Zmm>(wa);
            let (b0, b1) = B::values::<Zmm>(wb);
            for (x, y) in [(a0, b0), (a1, b1)] {
                for h in 0..2 {
                    let p = _mm512_mul_pd(Zmm::half_d(x, h), Zmm::half_d(y, h));
                    lo[h] = _mm512_add_round_pd::<DOWN>(lo[h], p);
                    hi[h] = _mm512_add_round_pd::<UP>(hi[h], p);
                }
            }
        }
        // (Written out: a closure need not be inlined into the AVX-512 entry point.)
        let w_lo = Zmm::as_i(Zmm::join(Zmm::narrow(lo[0]), Zmm::narrow(lo[1])));
        let w_hi = Zmm::as_i(Zmm::join(Zmm::narrow(hi[0]), Zmm::narrow(hi[1])));
        // QNaN, +Inf, -Inf, SNaN.
        let not_finite = Zmm::m_join(
            _mm512_fpclass_pd_mask::<0x99>(hi[0]),
            _mm512_fpclass_pd_mask::<0x99>(hi[1]),
        );
        let exact = Zmm::m_join(
            _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(lo[0], hi[0]),
            _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(lo[1], hi[1]),
        );
        let decided = _mm512_cmpeq_epi32_mask(w_lo, w_hi) | exact | c_inf;
        if (not_finite | !decided) != 0 {
            return short_block::<Zmm, N, A, B>((pa, pb), wp, c);
        }
        (_mm512_mask_mov_epi32(w_hi, c_inf, c), 0)
    }
}
