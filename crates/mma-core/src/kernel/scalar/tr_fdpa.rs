//! The per-dot TR-FDPA and GTR-FDPA blocks (CDNA3) in `i64`: the two models share their
//! product alignment and the late C addition ([`late_c`]).
//!
//! [`tr_block`] and [`gtr_block`] decode through [`table`] entries, align the products to
//! `F` fraction bits with truncation toward zero (shifts of magnitudes), and round down with
//! arithmetic right shifts of two's-complement sums, which are floors. Blocks with a NaN or
//! Inf input, or (TR-FDPA) a product that may reach the Inf threshold `2^t` (any product with
//! scientific exponent `>= t - 1`), go to the plain model.
//!
//! In AVX2 builds the products of blocks of 8 or 16 fp16, bf16 or fp8 (FNUZ or OCP) operands
//! are decoded, aligned and summed by `super::simd` (`tr_v`, `gtr_v`), in the same
//! 32-bit lanes with the same integer operations as the scalar `aligned_sum`, and whole dot
//! products run through one monomorphised function per format pair and block length.
//!
//! Why the integer widths suffice: each aligned product is below `2^(F+2)`; the kernels are
//! only chosen for `F <= 25` and blocks of at most 16 products, so a product group sums to below
//! `2^31` in `i32` lanes. Aligned to `F2 + 1` bits the product sum is below `2^(F2+6)`, C below
//! `2^(F2+2)`: with `F2 <= 48` the total fits `i64`.

use crate::format::Format;
use crate::kernel::plan::TrParams;
use crate::kernel::round::FastRound;
use crate::kernel::table::{self, Dec, SPECIAL};
use crate::model::{BlockIn, Output};

/// Exponent of "no non-zero product": far below any real exponent, without overflowing the
/// differences taken from it.
pub(in crate::kernel) const NONE: i32 = -(1 << 20);

/// `floor(x / 2^s)` for `s >= 0`, `x · 2^-s` for `s < 0` (the callers bound `-s` to a few bits).
#[inline(always)]
pub(in crate::kernel) fn floor_shift(x: i64, s: i32) -> i64 {
    if s <= 0 {
        x << (-s) as u32
    } else {
        x >> (s as u32).min(63)
    }
}

/// Applies a sign bit (0 or 1) to a magnitude.
#[inline(always)]
fn signed(mag: u64, neg: u32) -> i64 {
    let s = -(neg as i64);
    (mag as i64 ^ s) - s
}

/// An fp32 C as `(signed significand, lsb exponent, scientific exponent)`; a zero counts at
/// `e_zero`; `None` for Inf and NaN.
#[inline(always)]
fn c32(bits: u64, e_zero: i32) -> Option<(i64, i32, i32)> {
    let x = bits as u32;
    let ef = (x >> 23) & 0xff;
    let man = x & 0x7f_ffff;
    let neg = x >> 31;
    match ef {
        255 => None,
        0 if man == 0 => Some((0, e_zero, e_zero)),
        0 => Some((signed(man as u64, neg), -149, -126)),
        _ => Some((
            signed((man | 1 << 23) as u64, neg),
            ef as i32 - 150,
            ef as i32 - 127,
        )),
    }
}

/// Steps 3 and 4 of [`crate::models::tr_fdpa`] from the product sum `dot · 2^(e_dot - F)` (`e_dot =
/// NONE` when every product is zero) and the fp32 C word: the late C, the rounding down to
/// `F2` fraction bits after a subnormal-aware normalisation, the final rounding and encoding.
#[inline(always)]
pub(in crate::kernel) fn late_c(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    dot: i64,
    e_dot: i32,
    c: u64,
) -> Option<u64> {
    let (c_sig, c_lsb, c_e) = c32(c, p.e_zero_c)?;
    let has_dot = e_dot != NONE;
    let e_max = if has_dot { e_dot.max(c_e) } else { c_e };
    let f = p.f as i32;
    let q2 = e_max - (p.f2 as i32 + 1);
    let dot_part = if has_dot {
        floor_shift(dot, q2 - (e_dot - f))
    } else {
        0
    };
    let q3 = e_max - f;
    let dropped = p.c_drop.is_some_and(|cd| c_e < e_max - cd as i32);
    let c_part = if dropped {
        0
    } else {
        floor_shift(c_sig, q3 - c_lsb) << (q3 - q2) as u32
    };
    let total = dot_part + c_part;
    // Round down to f2 fraction bits, not below the exponent e_norm_min.
    let (v, exp) = if total == 0 {
        (0, q2)
    } else {
        let len = 64 - total.unsigned_abs().leading_zeros() as i32;
        let e = q2 + len - 1;
        let q = (e - p.f2 as i32).max(p.e_norm_min - p.f2 as i32);
        if q > q2 {
            (floor_shift(total, q - q2), q)
        } else {
            (total, q2)
        }
    };
    // Every zero here is +0: an exact two's-complement zero, or a positive value rounded down.
    Some(super::finish(out, d, fr, v, exp, false))
}

/// TR-FDPA over one block, all inputs finite and every product below the Inf threshold.
#[inline(always)]
pub fn tr_block<DA: Dec, DB: Dec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match x.a.len() {
        8 => tr_n::<8, DA, DB>(p, out, d, fr, da, db, x),
        4 => tr_n::<4, DA, DB>(p, out, d, fr, da, db, x),
        16 => tr_n::<16, DA, DB>(p, out, d, fr, da, db, x),
        _ => None,
    }
}

/// Decodes `N` pairs: product significands, scientific exponents (`NONE` for zero products)
/// and signs, with the OR of the entries (for the special flag).
#[inline(always)]
fn products<const N: usize, DA: Dec, DB: Dec>(
    da: DA,
    db: DB,
    a: &[u64; N],
    b: &[u64; N],
) -> ([u32; N], [i32; N], [u32; N], u32) {
    let mut ea = [0u32; N];
    let mut eb = [0u32; N];
    for k in 0..N {
        ea[k] = da.get(a[k]);
        eb[k] = db.get(b[k]);
    }
    let mut any = 0u32;
    let mut s = [0u32; N];
    let mut e = [0i32; N];
    let mut neg = [0u32; N];
    for k in 0..N {
        any |= ea[k] | eb[k];
        s[k] = table::sig(ea[k]) * table::sig(eb[k]);
        let sum_e = table::exp(ea[k]) + table::exp(eb[k]);
        e[k] = if s[k] == 0 { NONE } else { sum_e };
        neg[k] = table::neg(ea[k] ^ eb[k]);
    }
    (s, e, neg, any)
}

/// The products aligned to `F` fraction bits below `e_top` (`F - ma - mb = shift`), each
/// truncated toward zero, summed. In 32-bit lanes (one AVX2 vector of variable shifts for 8
/// products): each aligned product is below `2^(F+2) <= 2^27` and there are at most 16.
#[inline(always)]
fn aligned_sum<const N: usize>(
    s: &[u32; N],
    e: &[i32; N],
    neg: &[u32; N],
    e_top: i32,
    shift: u32,
) -> i32 {
    let mut dk = [0u32; N];
    for k in 0..N {
        dk[k] = ((e_top - e[k]) as u32).min(31);
    }
    let mut t = [0i32; N];
    for k in 0..N {
        let mag = ((s[k] << shift) >> dk[k]) as i32;
        t[k] = if neg[k] != 0 { -mag } else { mag };
    }
    let mut sum = 0i32;
    for v in t {
        sum = sum.wrapping_add(v);
    }
    sum
}

#[inline(always)]
fn tr_n<const N: usize, DA: Dec, DB: Dec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let (s, e, neg, any) = products::<N, DA, DB>(da, db, a, b);
    let mut e_dot = NONE;
    for &ek in &e {
        e_dot = e_dot.max(ek);
    }
    if any & SPECIAL != 0 || e_dot >= p.e_prod_limit {
        return None;
    }
    let dot = aligned_sum(&s, &e, &neg, e_dot, p.shift) as i64;
    late_c(p, out, d, fr, dot, e_dot, x.c)
}

/// GTR-FDPA over one block, all inputs finite.
#[inline(always)]
pub fn gtr_block<DA: Dec, DB: Dec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match x.a.len() {
        16 => gtr_n::<16, 8, DA, DB>(p, out, d, fr, da, db, x),
        8 => gtr_n::<8, 4, DA, DB>(p, out, d, fr, da, db, x),
        4 => gtr_n::<4, 2, DA, DB>(p, out, d, fr, da, db, x),
        _ => None,
    }
}

/// `H = N / 2` products per group; even-indexed products are group 0.
#[inline(always)]
fn gtr_n<const N: usize, const H: usize, DA: Dec, DB: Dec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let (s, e, neg, any) = products::<N, DA, DB>(da, db, a, b);
    if any & SPECIAL != 0 {
        return None;
    }
    let (mut e0, mut e1) = (NONE, NONE);
    for j in 0..H {
        e0 = e0.max(e[2 * j]);
        e1 = e1.max(e[2 * j + 1]);
    }
    let mut s0 = [0u32; H];
    let mut e0v = [0i32; H];
    let mut n0 = [0u32; H];
    let mut s1 = [0u32; H];
    let mut e1v = [0i32; H];
    let mut n1 = [0u32; H];
    for j in 0..H {
        (s0[j], e0v[j], n0[j]) = (s[2 * j], e[2 * j], neg[2 * j]);
        (s1[j], e1v[j], n1[j]) = (s[2 * j + 1], e[2 * j + 1], neg[2 * j + 1]);
    }
    let s0 = aligned_sum(&s0, &e0v, &n0, e0, p.shift) as i64;
    let s1 = aligned_sum(&s1, &e1v, &n1, e1, p.shift) as i64;
    // Each group sum (zero for a group without non-zero products) floored to F bits at the
    // larger exponent.
    let e_dot = e0.max(e1);
    let dot = floor_shift(s0, e_dot - e0) + floor_shift(s1, e_dot - e1);
    late_c(p, out, d, fr, dot, e_dot, x.c)
}
