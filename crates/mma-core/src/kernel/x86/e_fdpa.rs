//! E-FDPA (AMD CDNA1's exact fused dot-product adder) for eight dot products at a time: the
//! block's products and C summed in `f64` lanes and rounded once to fp32 by the conversion
//! instruction, where that sum is exact or brackets the exact one closely enough.
//!
//! Steps, as `models/e_fdpa.rs`, per block of `N` elements and per lane:
//! 1. decode the elements to `f32` (fp16 through `vcvtph2ps`, bf16 by a shift: exact, subnormals
//!    included) and widen them to `f64`; form each product in `f64`: exact, since a product of
//!    two such values has at most 22 significant bits and an exponent within `2^±270`;
//! 2. add the products and C (fp32, widened) in `f64`, and check that every partial sum was
//!    exact (below);
//! 3. round the sum to fp32 with `vcvtpd2ps`: round to nearest even, IEEE subnormals, overflow
//!    to Inf, what `Output::round_encode` does for these units (the plan admits only RNE to
//!    fp32 with signed zeros kept). An exact zero has the sign IEEE addition gives it, `-0` only
//!    when every term is `-0`: the rule of `ZeroSigns` for round to nearest.
//!
//! Why the sum is exact where it is taken: a non-zero product `v` with exponent
//! `E = floor(log2 |v|)` is a multiple of `2^(E - ma - mb - 1)` (its significand is below
//! `2^(ma + mb + 2)`), and a non-zero C a multiple of `2^(E_c - 23)`. With `q` the least of
//! those places, every term and partial sum is a multiple of `2^q` and at most
//! `(N + 1) · 2^(E_max + 1)` in magnitude; when that is below `2^(q + 53)` every addition is
//! exact in `f64`.
//!
//! An infinite C with every product finite is passed on (IEEE: Inf plus finite terms is that
//! Inf, what the plain model's special scan gives), so that a chain whose first block overflowed
//! fp32 stays in the lanes: the sum is then taken over the products alone and only its
//! finiteness is checked.
//!
//! Beyond that bound (terms far apart in magnitude, as random exponents give) the `f64` sum `s`
//! may be rounded, and the lane brackets the exact sum `T` instead: every exact partial sum is
//! below `2^(E_max + carry + 1)` (`carry` = `ceil(log2(N + 1))`), so every computed one, whose
//! error is far smaller, is below `2^(E_max + carry + 2)`; each of the `N` additions errs by at
//! most half its ulp, `2^(E_max + carry - 52)`, and `|s - T| <= δ = 2^(E_max + 2·carry - 52)`.
//! `s - 2δ` and `s + 2δ`, each rounded in `f64` by at most half an ulp of a value below
//! `2^(E_max + carry + 3)`, at most `δ`, still satisfy `lo <= T <= hi`. Rounding to
//! fp32 is monotone, so where `lo` and `hi` convert to the same non-zero fp32 word, that word is
//! `T`'s rounding (a Ziv test). A lane where they differ (`T` near a rounding boundary, or
//! heavy cancellation), where the bracket holds a zero, or whose sum is not finite (an Inf or
//! NaN input: the sum of finite products cannot overflow `f64`), is flagged and the caller
//! recomputes it with the per-dot kernel (`kernel/scalar/e_fdpa.rs`), which also handles every
//! special.

use super::batch::{Rows, Word};
use super::rows::{lanes, store};
use super::stage::{pack, WDec};
use core::arch::x86_64::*;

/// `ceil(log2(n + 1))`: the bits the sum of `n` products and C may carry above the largest.
const fn carry_bits(n: usize) -> i64 {
    (usize::BITS - n.leading_zeros()) as i64
}

/// The biased `f64` exponent field of four non-negative lanes.
#[inline(always)]
fn exp_field(x: __m256d) -> __m256i {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe { _mm256_srli_epi64::<52>(_mm256_castpd_si256(x)) }
}

/// One E-FDPA block of `N` elements (2, 4 or a multiple of 8) from `k0` for eight dot products,
/// C an fp32 word in each lane of `c`: the fp32 results and the bit mask of flagged lanes.
#[inline(always)]
fn block<const N: usize, A: WDec, B: WDec, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    k0: usize,
    c: __m256i,
) -> (__m256i, u32) {
    // SAFETY: register-only AVX2/F16C arithmetic.
    unsafe {
        let abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
        let abs = |x: __m256d| _mm256_and_pd(x, abs_mask);
        let inf = _mm256_set1_pd(f64::INFINITY);
        let zero = _mm256_setzero_pd();
        // A zero as +Inf, so that the least non-zero magnitude ignores it.
        let nonzero =
            |x: __m256d| _mm256_blendv_pd(abs(x), inf, _mm256_cmp_pd::<_CMP_EQ_OQ>(x, zero));
        let halves = |x: __m256| {
            [
                _mm256_cvtps_pd(_mm256_castps256_ps128(x)),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)),
            ]
        };
        let cv = halves(_mm256_castsi256_ps(c));
        // An infinite C leaves the sum (taken as if C were 0) and gives the lane its value.
        // (Plain arrays, not `map`: see `Rows::columns`.)
        let is_inf = |x: __m256d| _mm256_cmp_pd::<_CMP_EQ_OQ>(abs(x), inf);
        let c_inf = [is_inf(cv[0]), is_inf(cv[1])];
        let cv = [
            _mm256_andnot_pd(c_inf[0], cv[0]),
            _mm256_andnot_pd(c_inf[1], cv[1]),
        ];
        let c_half = [_mm256_castsi256_si128(c), _mm256_extracti128_si256::<1>(c)];
        let mut sum = cv;
        let mut max = [abs(cv[0]), abs(cv[1])];
        let mut min = [inf, inf];
        for j in (0..N).step_by(8) {
            let ca = a.block_columns::<N>(k0 + j);
            let cb = b.block_columns::<N>(k0 + j);
            for e in (0..N.min(8)).step_by(2) {
                let (a0, a1) = A::values(pack(ca[e], ca[e + 1]));
                let (b0, b1) = B::values(pack(cb[e], cb[e + 1]));
                for (x, y) in [(a0, b0), (a1, b1)] {
                    let (x, y) = (halves(x), halves(y));
                    for h in 0..2 {
                        let p = _mm256_mul_pd(x[h], y[h]);
                        sum[h] = _mm256_add_pd(sum[h], p);
                        max[h] = _mm256_max_pd(max[h], abs(p));
                        min[h] = _mm256_min_pd(min[h], nonzero(p));
                    }
                }
            }
        }
        let set = _mm256_set1_epi64x;
        let wp = (A::MAN_BITS + B::MAN_BITS + 1) as i64;
        let mut bad = 0u32;
        let mut out = [_mm_setzero_ps(); 2];
        for h in 0..2 {
            // q = the least place of the non-zero terms (C's: E_c - 23).
            let qp = _mm256_sub_epi64(exp_field(min[h]), set(wp));
            let qc = _mm256_sub_epi64(exp_field(nonzero(cv[h])), set(23));
            let q = _mm256_blendv_epi8(qp, qc, _mm256_cmpgt_epi64(qp, qc));
            // Exact while E_max + 1 + carry <= q + 52 + 1, i.e. not (E_max + carry - 52 > q).
            let top = _mm256_add_epi64(exp_field(max[h]), set(carry_bits(N) - 52));
            let beyond = _mm256_cmpgt_epi64(top, q);
            let not_finite = _mm256_cmpeq_epi64(exp_field(abs(sum[h])), set(0x7ff));
            // Beyond the bound, the bracket (module docs): s -+ 2δ with 2δ =
            // 2^(E_max + 2·carry - 51), built from its exponent field (positive: E_max is at
            // least fp16/bf16's least product exponent, far above f64's subnormals).
            let two_delta = _mm256_slli_epi64::<52>(_mm256_add_epi64(
                exp_field(max[h]),
                set(2 * carry_bits(N) - 51),
            ));
            let two_delta = _mm256_castsi256_pd(two_delta);
            let lo = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_sub_pd(sum[h], two_delta)));
            let hi = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_add_pd(sum[h], two_delta)));
            let is_zero = _mm_cmpeq_epi32(
                _mm_and_si128(lo, _mm_set1_epi32(i32::MAX)),
                _mm_setzero_si128(),
            );
            let agree = _mm_andnot_si128(is_zero, _mm_cmpeq_epi32(lo, hi));
            let agree = _mm_movemask_ps(_mm_castsi128_ps(agree)) as u32;
            let beyond_bits = _mm256_movemask_pd(_mm256_castsi256_pd(beyond)) as u32;
            let not_finite_bits = _mm256_movemask_pd(_mm256_castsi256_pd(not_finite)) as u32;
            let c_inf_bits = _mm256_movemask_pd(c_inf[h]) as u32;
            bad |= (not_finite_bits | (beyond_bits & !agree & !c_inf_bits & 0xf)) << (4 * h);
            // The 64-bit `beyond` lanes as four 32-bit masks: the bracket's value there.
            let pick =
                _mm256_permutevar8x32_epi32(beyond, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
            let exact = _mm256_cvtpd_ps(sum[h]);
            let rounded = _mm_blendv_ps(
                exact,
                _mm_castsi128_ps(lo),
                _mm_castsi128_ps(_mm256_castsi256_si128(pick)),
            );
            // C's own word where it is infinite.
            let pick_inf = _mm256_permutevar8x32_epi32(
                _mm256_castpd_si256(c_inf[h]),
                _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6),
            );
            out[h] = _mm_blendv_ps(
                rounded,
                _mm_castsi128_ps(c_half[h]),
                _mm_castsi128_ps(_mm256_castsi256_si128(pick_inf)),
            );
        }
        (_mm256_castps_si256(_mm256_set_m128(out[1], out[0])), bad)
    }
}

/// A chain of E-FDPA blocks of `N` over eight rows of `k` words (a multiple of `N`): writes the
/// eight D words (fp32; a block's D is the next block's C) and returns the bit mask of the
/// lanes the caller must recompute.
#[inline(always)]
pub fn chain<const N: usize, A: WDec, B: WDec, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64; 8],
    out: &mut [u64; 8],
) -> u32 {
    let mut acc = lanes(c);
    let mut bad = 0;
    for k0 in (0..a.k()).step_by(N) {
        let (d, flag) = block::<N, A, B, W>(a, b, k0, acc);
        acc = d;
        bad |= flag;
    }
    store(acc, out);
    bad
}
