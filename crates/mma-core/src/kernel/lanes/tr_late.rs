//! The late-C steps of a TR-FDPA or GTR-FDPA block in lanes ([`super::batch::tr`] calls them
//! through [`Steps::tr_late`](super::steps::Steps::tr_late)): what [`crate::kernel::scalar::tr_fdpa`]'s `late_c` computes from
//! the block's product sum `dot · 2^(e_dot - F)` and C (fp32), for every lane at once.
//!
//! Step by step, as `late_c`:
//!
//! 1. C's scientific exponent `c_e` (its exponent field, a subnormal at -126, a zero at the
//!    unit's `e_zero_c`), `e_max = max(e_dot, c_e)` and the grid `q2 = e_max - (F2 + 1)`.
//! 2. The product sum on that grid, floored, and C floored to `F` fraction bits below `e_max`
//!    (GTR-FDPA: zero where `c_e < e_max - c_drop`), moved to the grid: their sum `total` is an
//!    integer below 2^40 in magnitude.
//! 3. `total` floored to `F2` fraction bits (relative to its leading bit), the grid not below
//!    the exponent `e_norm_min`, and rounded to fp32 (RNE, IEEE subnormals, overflow to Inf).
//!
//! Two formulations give the same bits. [`int`] (`Ymm`'s `Steps::tr_late`, used with
//! AVX2) decodes C into a signed significand and exponent in 32-bit lanes, aligns both terms by
//! shifts in 64-bit integer lanes and does step 3 in f64, with powers of two built from the
//! exponent bits. `x86/tr_late.rs`'s `scalef` (AVX-512, `Zmm`'s) keeps every value in f64 from
//! the start: `vscalefpd` multiplies by `2^n` for an `n` held in f64 lanes, `vgetexppd` gives
//! `floor(log2 |x|)` and `vrndscalepd` the floor, so C needs no decoding beyond its exponent
//! and no step needs a 64-bit integer shift. Every f64 value there is exact: the products'
//! sum below 2^31 scaled by at most 2^(F2 + 1 - F), C below 2^(F + 1) on its grid, their sum
//! below 2^53, and powers of two inside f64's normal range; only the floors and the final
//! narrowing to fp32 round. `tests/fast_paths.rs` and `tests/gemm.rs` run both (AVX-512 and
//! AVX2) against the plain model.

use super::vector::Vector;
use crate::kernel::plan::TrParams;

/// The late-C steps in 32-bit and 64-bit integer lanes (see the module docs).
#[inline(always)]
pub fn int<V: Vector>(t: &TrParams, dot: V::I, e_dot: V::I, c: V::I) -> V::I {
    let set = V::splat;
    let zero = V::zero();
    // C (fp32): signed significand, lsb exponent, scientific exponent.
    let ef = V::and(V::shr(c, 23), set(0xff));
    let c_neg = V::sar(c, 31);
    let c_man = V::and(c, set(0x7f_ffff));
    let c_mag = V::or(c_man, V::keep(V::gt(ef, zero), set(1 << 23)));
    let c_sig = V::sub(V::xor(c_mag, c_neg), c_neg);
    let ef1 = V::max(ef, set(1));
    let c_lsb = V::sub(ef1, set(150));
    let c_e = V::select(V::eq(c_mag, zero), V::sub(ef1, set(127)), set(t.e_zero_c));
    let e_max = V::max(e_dot, c_e);
    let up = t.f2 + 1 - t.f;
    // The product sum on the grid q2 = e_max - (F2 + 1): a right shift (floor) here, a left
    // shift of at most F2 + 1 - F bits in 64-bit lanes below.
    let sd = V::sub(V::sub(e_max, e_dot), set(up as i32));
    let dot_r = V::sar_v(dot, V::max(sd, zero));
    let dot_l = V::max(V::sub(zero, sd), zero);
    // C floored to F fraction bits below e_max (then moved to q2 by `up` bits).
    let sc = V::sub(V::sub(e_max, set(t.f as i32)), c_lsb);
    let mut c_fl = V::shl_v(
        V::sar_v(c_sig, V::max(sc, zero)),
        V::max(V::sub(zero, sc), zero),
    );
    if let Some(cd) = t.c_drop {
        let dropped = V::gt(V::sub(e_max, set(cd as i32)), c_e);
        c_fl = V::clear(dropped, c_fl);
    }
    let q2 = V::sub(e_max, set(t.f2 as i32 + 1));
    let grid = (dot_r, dot_l, c_fl, q2);
    let (lo, hi) = (
        int_round::<V>(t, grid, up, 0),
        int_round::<V>(t, grid, up, 1),
    );
    V::as_i(V::join(lo, hi))
}

/// 2^x for integer lanes x within the normal range of f64.
#[inline(always)]
fn pow2<V: Vector>(x: V::Q) -> V::D {
    V::as_d(V::q_shl(V::q_add(x, V::q_splat(1023)), 52))
}

/// Steps 2 (the sum) and 3 of [`int`] on half `h` of the lanes, in 64-bit lanes: the product
/// sum (`dot_r << dot_l`) and C (`c_fl << up`) on the grid `2^q2`, their sum floored to `F2`
/// fraction bits and rounded to fp32.
#[inline(always)]
fn int_round<V: Vector>(
    t: &TrParams,
    (dot_r, dot_l, c_fl, q2): (V::I, V::I, V::I, V::I),
    up: u32,
    h: usize,
) -> V::Fh {
    // The total on the grid 2^q2: below 2^40 in magnitude, so exact in f64 (converted by the
    // 2^52 + 2^51 bias trick, valid below 2^51).
    let magic = V::q_splat(0x4338_0000_0000_0000);
    let dot = V::q_shl_v(V::half_q(dot_r, h), V::half_q(dot_l, h));
    let cp = V::q_shl(V::half_q(c_fl, h), up);
    let total = V::q_add(dot, cp);
    let x = V::d_sub(V::as_d(V::q_add(total, magic)), V::as_d(magic));
    let q2 = V::half_q(q2, h);
    // floor(log2 |total|) from the exponent field (-1023 for a zero total, whose floor is 0
    // whatever the grid).
    let top = V::q_sub(
        V::q_shr(V::q_and(V::as_q(x), V::q_splat(i64::MAX)), 52),
        V::q_splat(1023),
    );
    // The floor to F2 fraction bits, not below the exponent e_norm_min: the grid 2^(q2 + r)
    // with r = max(top - F2, e_norm_min - F2 - q2). Where r <= 0, x · 2^-r is already an
    // integer and the floor changes nothing.
    let r_top = V::q_sub(top, V::q_splat(t.f2 as i64));
    let r_min = V::q_sub(V::q_splat((t.e_norm_min - t.f2 as i32) as i64), q2);
    let r = V::q_select(V::q_gt(r_min, r_top), r_top, r_min);
    let v = V::d_floor(V::d_mul(x, pow2::<V>(V::q_sub(V::q_splat(0), r))));
    // v · 2^(q2 + r) is exact in f64 (at most 33 significant bits, exponent in range); its
    // conversion to fp32 rounds to nearest even with IEEE subnormals and overflow to Inf, as
    // the scalar `FastRound` does. An exact zero is +0 in both.
    V::narrow(V::d_mul(v, pow2::<V>(V::q_add(q2, r))))
}
