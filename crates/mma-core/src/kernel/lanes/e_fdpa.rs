//! E-FDPA (AMD CDNA1's exact fused dot-product adder) for a group of dot products at a
//! time (one per lane of a [`Vector`]): the
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
//!
//! The chain of blocks over a group's rows is `e_fdpa_chain.rs`. Blocks of two (CDNA1 bf16)
//! take none of this: `e_fdpa_sum3.rs` sums C and two products in
//! `f32` lanes, twice as many per vector, rounded correctly without a bracket; they come in
//! pairs from one four-column transpose.
//!
//! Under AVX-512 a block of up to eight first goes through `e_fdpa_directed.rs`
//! (`Steps::efdpa_block`, `steps.rs`: the sum bracketed by additions rounded down and up), which hands
//! a block with an undecided lane back to [`short_block`] here.

use super::dec::WDec;
use super::vector::Vector;

/// `ceil(log2(n + 1))`: the bits the sum of `n` products and C may carry above the largest.
const fn carry_bits(n: usize) -> i64 {
    (usize::BITS - n.leading_zeros()) as i64
}

/// The biased `f64` exponent field of non-negative lanes.
#[inline(always)]
fn exp_field<V: Vector>(x: V::D) -> V::Q {
    V::q_shr(V::as_q(x), 52)
}

/// A non-zero magnitude as itself, a zero as +Inf (so that the least non-zero magnitude
/// ignores it).
#[inline(always)]
fn nonzero<V: Vector>(x: V::D) -> V::D {
    let zero = V::d_splat(0.0);
    V::d_select(V::d_eq(x, zero), V::d_abs(x), V::d_splat(f64::INFINITY))
}

/// [`bracket`]'s answer for half of the lanes.
struct Bracket<V: Vector> {
    /// The sum lies beyond the exact window.
    beyond: V::MQ,
    /// The `f64` sum is not finite.
    not_finite: V::MQ,
    /// The sum minus and plus the bracket's `2δ`, and the sum itself, each converted to fp32.
    lo: V::Fh,
    hi: V::Fh,
    sum: V::Fh,
}

/// For half of the lanes, from the least non-zero product magnitude, the largest term
/// magnitude, the `f64` sum and C (`carry` and `wp` as in [`finish`]): the [`Bracket`].
#[inline(always)]
fn bracket<V: Vector>(
    carry: i64,
    wp: i64,
    (min, max, sum, c): (V::D, V::D, V::D, V::D),
) -> Bracket<V> {
    let set = V::q_splat;
    // q = the least place of the non-zero terms (C's: E_c - 23).
    let qp = V::q_sub(exp_field::<V>(min), set(wp));
    let qc = V::q_sub(exp_field::<V>(nonzero::<V>(c)), set(23));
    let q = V::q_select(V::q_gt(qp, qc), qp, qc);
    // Exact while E_max + 1 + carry <= q + 52 + 1, i.e. not (E_max + carry - 52 > q).
    let top = V::q_add(exp_field::<V>(max), set(carry - 52));
    let beyond = V::q_gt(top, q);
    let not_finite = V::q_eq(exp_field::<V>(V::d_abs(sum)), set(0x7ff));
    // Beyond the bound, the bracket (module docs): s -+ 2δ with 2δ = 2^(E_max + 2·carry - 51),
    // built from its exponent field (positive: E_max is at least fp16/bf16's least product
    // exponent, far above f64's subnormals).
    let two_delta = V::as_d(V::q_shl(
        V::q_add(exp_field::<V>(max), set(2 * carry - 51)),
        52,
    ));
    Bracket {
        beyond,
        not_finite,
        lo: V::narrow(V::d_sub(sum, two_delta)),
        hi: V::narrow(V::d_add(sum, two_delta)),
        sum: V::narrow(sum),
    }
}

/// One block's running state, per half of the lanes: C as an `f64` (zero where it is
/// infinite), where C is infinite, the running sum, the largest term magnitude and the least
/// non-zero product magnitude.
pub(in crate::kernel) struct Sums<V: Vector> {
    c: [V::D; 2],
    c_inf: [V::MQ; 2],
    sum: [V::D; 2],
    max: [V::D; 2],
    min: [V::D; 2],
}

/// A block's state before its products, from C (an fp32 word in each lane of `c`).
#[inline(always)]
pub(in crate::kernel) fn start<V: Vector>(c: V::I) -> Sums<V> {
    let (inf, zero) = (V::d_splat(f64::INFINITY), V::d_splat(0.0));
    let cv = [V::half_d(V::as_f(c), 0), V::half_d(V::as_f(c), 1)];
    // An infinite C leaves the sum (taken as if C were 0) and gives the lane its value.
    let c_inf = [V::d_eq(V::d_abs(cv[0]), inf), V::d_eq(V::d_abs(cv[1]), inf)];
    let cv = [
        V::d_select(c_inf[0], cv[0], zero),
        V::d_select(c_inf[1], cv[1], zero),
    ];
    Sums {
        c: cv,
        c_inf,
        sum: cv,
        max: [V::d_abs(cv[0]), V::d_abs(cv[1])],
        min: [inf, inf],
    }
}

/// Adds the products of the element columns in pairs `pa[m]` and `pb[m]` (each the
/// [`Vector::pack16`] of columns `2m` and `2m + 1`) to the block's state.
#[inline(always)]
pub(in crate::kernel) fn add_products<V: Vector, A: WDec, B: WDec>(
    s: &mut Sums<V>,
    pa: &[V::I],
    pb: &[V::I],
) {
    for (&wa, &wb) in pa.iter().zip(pb) {
        let (a0, a1) = A::values::<V>(wa);
        let (b0, b1) = B::values::<V>(wb);
        for (x, y) in [(a0, b0), (a1, b1)] {
            for h in 0..2 {
                let p = V::d_mul(V::half_d(x, h), V::half_d(y, h));
                s.sum[h] = V::d_add(s.sum[h], p);
                s.max[h] = V::d_max(s.max[h], V::d_abs(p));
                s.min[h] = V::d_min(s.min[h], nonzero::<V>(p));
            }
        }
    }
}

/// The block of `N` elements whose products `s` holds (C the word in each lane of `c`,
/// `wp` the products' last place below their leading bit): the fp32 results and the bit mask
/// of flagged lanes.
#[inline(always)]
pub(in crate::kernel) fn finish<V: Vector, const N: usize>(
    s: &Sums<V>,
    wp: i64,
    c: V::I,
) -> (V::I, u32) {
    let h0 = bracket::<V>(carry_bits(N), wp, (s.min[0], s.max[0], s.sum[0], s.c[0]));
    let h1 = bracket::<V>(carry_bits(N), wp, (s.min[1], s.max[1], s.sum[1], s.c[1]));
    let (lo, hi) = (
        V::as_i(V::join(h0.lo, h1.lo)),
        V::as_i(V::join(h0.hi, h1.hi)),
    );
    let exact = V::as_i(V::join(h0.sum, h1.sum));
    let beyond = V::m_join(h0.beyond, h1.beyond);
    let not_finite = V::m_join(h0.not_finite, h1.not_finite);
    let c_inf = V::m_join(s.c_inf[0], s.c_inf[1]);
    let is_zero = V::eq(V::and(lo, V::splat(i32::MAX)), V::zero());
    let agree = V::m_andnot(is_zero, V::eq(lo, hi));
    // Flagged: a sum that is not finite, or one beyond the exact window whose bracket does not
    // decide (unless C is infinite: the lane takes C).
    let undecided = V::m_andnot(c_inf, V::m_andnot(agree, beyond));
    let bad = V::bits(V::m_or(not_finite, undecided));
    // The bracket's value beyond the window, C's own word where it is infinite.
    let rounded = V::select(beyond, exact, lo);
    (V::select(c_inf, rounded, c), bad)
}

/// One block of `N <= 8` elements from its columns in pairs `pa` and `pb` (`N / 2` of each, as
/// [`add_products`] takes them), C the fp32 word in each lane of `c`: the results and the
/// flagged lanes.
#[inline(always)]
pub(in crate::kernel) fn short_block<V: Vector, const N: usize, A: WDec, B: WDec>(
    (pa, pb): (&[V::I], &[V::I]),
    wp: i64,
    c: V::I,
) -> (V::I, u32) {
    let mut s = start::<V>(c);
    add_products::<V, A, B>(&mut s, pa, pb);
    finish::<V, N>(&s, wp, c)
}
