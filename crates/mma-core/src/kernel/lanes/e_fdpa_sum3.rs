//! An E-FDPA block of two (CDNA1 bf16) in `f32` lanes: C plus two products, rounded once to
//! fp32, as the correctly rounded sum of three `f32` numbers (Boldo and Melquiond's algorithm
//! with rounding to odd: S. Boldo, G. Melquiond, "Emulation of a FMA and correctly rounded
//! sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008). It
//! takes every lane of a [`Vector`] in single precision, twice the lanes of the `f64` forms
//! (`e_fdpa.rs`, `e_fdpa_directed.rs`), and settles every finite lane in range: the ties that
//! those forms leave to the per-dot kernel are decided here.
//!
//! Per lane, all operations rounded to nearest even (`TwoSum(x, y)` is Knuth's: `s = x + y`
//! rounded and the exact error `e = x + y - s`, six additions):
//! 1. decode the elements to `f32` and form the products `p0`, `p1`: exact, since fp16 and
//!    bf16 significands have at most 11 bits (22 for a product) and the range check of step 5
//!    leaves only products that are zero or normal (bf16); an fp16 product is always normal
//!    or zero, at most `2^32`.
//! 2. `(uh, ul) = TwoSum(p0, p1)`, `(th, tl) = TwoSum(C, uh)`: `T = th + tl + ul` exactly.
//! 3. `v` = `tl + ul` rounded to odd: `(x, r) = TwoSum(tl, ul)`; where `r != 0` and `x` has an
//!    even last significand bit, `x` moved one place toward `r` (its magnitude bits plus or
//!    minus one). Otherwise `v = x`.
//! 4. `z = th + v`, rounded to nearest even: `T`'s rounding. Why: where `tl = 0`, `v = ul`
//!    and `z = RN(th + ul) = RN(T)`. Where `tl != 0` the addition `C + uh` was inexact, so no
//!    cancellation (Sterbenz): `|th| >= |uh| / 2`, hence `|ul| <= ulp(uh) / 2 <= ulp(th)` and
//!    `|tl + ul| < 2 ulp(th)`. Then `v`'s places reach `2^-23 ulp(th)`, far below the grid of
//!    `th + tl + ul`'s rounding (multiples of `ulp(th) / 4`: its result's places, their
//!    midpoints and the powers of two between binades), and rounding to odd keeps the
//!    exact sum off every point of that grid it was not on: `th + v` and `T` round alike.
//!    A zero `T` is `-0` only when every term is: then `th` is `-0`, and that sign is kept
//!    (`th + v` alone would give `+0`).
//! 5. Lanes left to the caller (its per-dot kernel, `kernel/scalar/e_fdpa.rs`): a product
//!    below `2^-126` from non-zero elements (possibly inexact in `f32`), a product or C of
//!    magnitude `2^125` or more (so that no sum above can overflow), any Inf or NaN. An
//!    infinite C with products in range is passed on, as in `e_fdpa.rs`: its word is the
//!    result (the sums take C as 0).
//!
//! `tests/fast_paths.rs` (`efdpa_*`: random and special words, chained K, the ties at fp32's
//! half ulp with a third term far below) runs it against the plain model under AVX2 and
//! AVX-512.

use super::dec::WDec;
use super::vector::Vector;

/// `2^125`'s bits: products and C at or above it are left to the caller.
const BIG: i32 = (125 + 127) << 23;
/// `2^-126`'s bits: the least normal `f32`.
const NORMAL: i32 = 1 << 23;

/// `(s, e)` with `s = x + y` rounded and `e = x + y - s` exactly.
#[inline(always)]
fn two_sum<V: Vector>(x: V::F, y: V::F) -> (V::F, V::F) {
    let s = V::f_add(x, y);
    let y_part = V::f_sub(s, x);
    let x_part = V::f_sub(s, y_part);
    (s, V::f_add(V::f_sub(x, x_part), V::f_sub(y, y_part)))
}

/// Lanes where the product `p` of `x` and `y` may be inexact: below `2^-126` with neither
/// factor zero.
#[inline(always)]
fn tiny_product<V: Vector>(p: V::F, x: V::F, y: V::F) -> V::M {
    let mag = V::splat(i32::MAX);
    let some_zero = V::eq(
        V::min(V::and(V::as_i(x), mag), V::and(V::as_i(y), mag)),
        V::zero(),
    );
    V::m_andnot(some_zero, V::gt(V::splat(NORMAL), V::and(V::as_i(p), mag)))
}

/// One block of two: the column pairs `pa`, `pb` ([`Vector::pack16`] layout: element 0 in the
/// low columns, element 1 in the high), C the fp32 word in each lane of `c`. Returns the fp32
/// results and the bit mask of the lanes the caller must recompute.
#[inline(always)]
pub(in crate::kernel) fn block<V: Vector, A: WDec, B: WDec>(
    pa: V::I,
    pb: V::I,
    c: V::I,
) -> (V::I, u32) {
    // Products exact in f32 (22 significant bits at most).
    const { assert!(A::MAN_BITS + B::MAN_BITS + 2 <= 24) };
    let (a0, a1) = A::values::<V>(pa);
    let (b0, b1) = B::values::<V>(pb);
    let (p0, p1) = (V::f_mul(a0, b0), V::f_mul(a1, b1));
    let mag = V::splat(i32::MAX);
    let c_mag = V::and(c, mag);
    let c_inf = V::eq(c_mag, V::splat(0x7f80_0000));
    let (uh, ul) = two_sum::<V>(p0, p1);
    let (th, tl) = two_sum::<V>(V::as_f(V::clear(c_inf, c)), uh);
    let (x, r) = two_sum::<V>(tl, ul);
    // Rounding to odd: an inexact x with an even last bit moves one place toward r.
    let (xi, ri) = (V::as_i(x), V::as_i(r));
    let exact = V::eq(V::and(ri, mag), V::zero());
    let even = V::eq(V::and(xi, V::splat(1)), V::zero());
    let toward_r = V::or(V::sar(V::xor(xi, ri), 31), V::splat(1));
    let v = V::select(V::m_andnot(exact, even), xi, V::add(xi, toward_r));
    let z = V::as_i(V::f_add(th, V::as_f(v)));
    // -0 only from -0 terms, where th is -0 (and z a zero).
    let neg_zero = V::eq(V::as_i(th), V::splat(i32::MIN));
    let z = V::or(z, V::keep(neg_zero, V::splat(i32::MIN)));
    // Range: products and C below 2^125 (Inf and NaN included), products exact.
    let p_max = V::max(V::and(V::as_i(p0), mag), V::and(V::as_i(p1), mag));
    let mut bad = V::m_or(
        V::gt(p_max, V::splat(BIG - 1)),
        V::m_andnot(c_inf, V::gt(c_mag, V::splat(BIG - 1))),
    );
    // fp16 products (both exponents of 5 bits or fewer) are normal or zero.
    if A::EXP_BITS > 5 || B::EXP_BITS > 5 {
        bad = V::m_or(bad, tiny_product::<V>(p0, a0, b0));
        bad = V::m_or(bad, tiny_product::<V>(p1, a1, b1));
    }
    (V::select(c_inf, z, c), V::bits(bad))
}
