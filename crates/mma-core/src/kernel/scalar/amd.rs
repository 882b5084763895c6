//! Fast paths of the AMD models: FTZ-MulAdd (CDNA2), TR-FDPA and GTR-FDPA (CDNA3); and the
//! fp32/fp64 FMA chains (AMD MFMA, NVIDIA DMMA).
//!
//! # FTZ-MulAdd in native `f32`
//!
//! [`ftz_block`] computes [`FtzMulAdd`] with the machine's own fp32 multiply and add. This is
//! bit-exact (NaN payloads aside, which both paths replace by the unit's NaN pattern):
//!
//! - Rust `f32` arithmetic is IEEE 754 binary32 with round-to-nearest-even and gradual underflow:
//!   Rust never enables FTZ/DAZ, and x86-64 SSE/AVX arithmetic is IEEE in the default MXCSR.
//!   The plain model's [`crate::models::ftz_mul_add::ftz_mul`] and [`crate::models::ftz_mul_add::ftz_add`] round
//!   the exact result with [`crate::round::round`] (RNE, subnormal grid, IEEE overflow to Inf)
//!   and then flush a result whose rounded significand has no hidden bit to a zero of its sign.
//!   The native operation rounds identically, so flushing its result when the biased exponent
//!   field is 0 (`|r| < 2^-126`, [`flush`]) gives the same value. Both flush *after* rounding,
//!   so a product or sum that rounds up to `2^-126` survives in both.
//! - The special cases agree with IEEE: NaN operands, `0·Inf` and `Inf - Inf` give NaN, Inf
//!   otherwise dominates, `x·0` is a zero with the xor of the signs, an exact zero sum of
//!   non-zero operands is `+0` and the sum of two zeros is `-0` only when both are.
//! - The input flush ("subnormals and both zeros become +0") is done on the storage bits of the
//!   16-bit operands and of the fp32 C: a zero exponent field gives `+0.0`; other finite words
//!   convert to `f32` exactly (fp16 and bf16 are subsets of fp32), Inf and NaN to Inf and a NaN.
//! - The order of the operations (products, a pairwise tree per group of `P` with an odd
//!   element carried up a level, `c = c + group_sum`) is the plain model's, operation by
//!   operation, with the same flush after each.
//!
//! So the path has no fallback; `tests/fast_paths.rs` compares it with the plain model.
//!
//! # TR-FDPA and GTR-FDPA in `i64`
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
use crate::model::{BlockIn, Output, MAX_BLOCK};
use crate::models::ftz_mul_add::FtzMulAdd;

/// Exponent of "no non-zero product": far below any real exponent, without overflowing the
/// differences taken from it.
pub(in crate::kernel) const NONE: i32 = -(1 << 20);

// ---------------------------------------------------------------------------------------------
// FTZ-MulAdd
// ---------------------------------------------------------------------------------------------

/// A 16-bit IEEE format decoded to `f32` with the input flush.
pub trait H16: Copy {
    fn ftz_f32(bits: u64) -> f32;
}

/// fp16 operands.
#[derive(Clone, Copy, Debug)]
pub struct F16In;

/// bf16 operands.
#[derive(Clone, Copy, Debug)]
pub struct Bf16In;

impl H16 for F16In {
    #[inline(always)]
    fn ftz_f32(bits: u64) -> f32 {
        let h = bits as u32 & 0xffff;
        let sign = (h & 0x8000) << 16;
        let em = h & 0x7fff;
        let e = em >> 10;
        // Normal: rebias 15 -> 127 (add 112 to the exponent field); Inf/NaN: the exponent
        // field becomes 255 (add 112 twice); zero and subnormals: +0.
        let mut body = (em << 13) + (112 << 23);
        if e == 31 {
            body += 112 << 23;
        }
        f32::from_bits(if e == 0 { 0 } else { sign | body })
    }
}

impl H16 for Bf16In {
    #[inline(always)]
    fn ftz_f32(bits: u64) -> f32 {
        let x = (bits as u32 & 0xffff) << 16;
        f32::from_bits(if x & 0x7f80_0000 == 0 { 0 } else { x })
    }
}

/// The input flush of an fp32 word: subnormals and zeros become +0.
#[inline(always)]
fn ftz_in32(bits: u64) -> f32 {
    let x = bits as u32;
    f32::from_bits(if x & 0x7f80_0000 == 0 { 0 } else { x })
}

/// The output flush: a result below the smallest normal number becomes a zero of its sign.
#[inline(always)]
pub fn flush(x: f32) -> f32 {
    let b = x.to_bits();
    f32::from_bits(if b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    })
}

/// `flush(x + y)`: [`crate::models::ftz_mul_add::ftz_add`] in fp32.
#[inline(always)]
fn add(x: f32, y: f32) -> f32 {
    flush(x + y)
}

/// The pairwise tree of the plain model (an odd element is carried up a level), in place.
#[inline(always)]
fn tree(group: &mut [f32]) -> f32 {
    let mut len = group.len();
    while len > 1 {
        let half = len / 2;
        for i in 0..half {
            group[i] = add(group[2 * i], group[2 * i + 1]);
        }
        if len % 2 == 1 {
            group[half] = group[len - 1];
            len = half + 1;
        } else {
            len = half;
        }
    }
    group.first().copied().unwrap_or(0.0)
}

/// The final encoding: the unit's NaN pattern, or the fp32 bits.
#[inline(always)]
fn ftz_out(c: f32, nan_bits: u64) -> u64 {
    if c.is_nan() {
        nan_bits
    } else {
        c.to_bits() as u64
    }
}

/// FTZ-MulAdd over one block with 16-bit A and B and fp32 C and D (see the module docs).
#[inline(always)]
pub fn ftz_block<D: H16>(m: &FtzMulAdd, nan_bits: u64, x: &BlockIn<'_>) -> u64 {
    match (x.a.len(), m.p) {
        (4, 4) => ftz_n::<4, 4, D>(nan_bits, x),
        (8, 4) => ftz_n::<8, 4, D>(nan_bits, x),
        (16, 4) => ftz_n::<16, 4, D>(nan_bits, x),
        (2, 2) => ftz_n::<2, 2, D>(nan_bits, x),
        (4, 2) => ftz_n::<4, 2, D>(nan_bits, x),
        (8, 2) => ftz_n::<8, 2, D>(nan_bits, x),
        (16, 2) => ftz_n::<16, 2, D>(nan_bits, x),
        _ => ftz_any::<D>(m.p, nan_bits, x),
    }
}

/// A block of `N` products in groups of `P` (`P` divides `N`), lengths known at compile time.
#[inline(always)]
fn ftz_n<const N: usize, const P: usize, D: H16>(nan_bits: u64, x: &BlockIn<'_>) -> u64 {
    let (Ok(a), Ok(b)) = (
        <&[u64; N]>::try_from(x.a),
        <&[u64; N]>::try_from(&x.b[..x.b.len().min(N)]),
    ) else {
        return ftz_any::<D>(P, nan_bits, x);
    };
    let mut prod = [0f32; N];
    for k in 0..N {
        prod[k] = flush(D::ftz_f32(a[k]) * D::ftz_f32(b[k]));
    }
    let mut c = ftz_in32(x.c);
    for g in 0..N / P {
        let s = tree(&mut prod[g * P..(g + 1) * P]);
        c = add(c, s);
    }
    ftz_out(c, nan_bits)
}

/// Any length and group size: the plain model's loop, products padded with +0 to whole groups.
#[inline(never)]
fn ftz_any<D: H16>(p: usize, nan_bits: u64, x: &BlockIn<'_>) -> u64 {
    let n = x.a.len().min(x.b.len()).min(MAX_BLOCK);
    let p = p.clamp(1, MAX_BLOCK);
    let mut prod = [0f32; 2 * MAX_BLOCK];
    for ((pk, &a), &b) in prod.iter_mut().zip(&x.a[..n]).zip(&x.b[..n]) {
        *pk = flush(D::ftz_f32(a) * D::ftz_f32(b));
    }
    let mut c = ftz_in32(x.c);
    for g in 0..n.div_ceil(p) {
        let s = tree(&mut prod[g * p..(g + 1) * p]);
        c = add(c, s);
    }
    ftz_out(c, nan_bits)
}

// ---------------------------------------------------------------------------------------------
// FMA chains (fp32 and fp64, RNE)
// ---------------------------------------------------------------------------------------------

/// fp32 or fp64 words as the machine's float type, with its fused multiply-add.
pub trait NativeFloat: Copy {
    fn from_word(w: u64) -> Self;
    fn to_word(self) -> u64;
    fn fused(self, b: Self, c: Self) -> Self;
    fn nan(self) -> bool;
}

impl NativeFloat for f32 {
    #[inline(always)]
    fn from_word(w: u64) -> f32 {
        f32::from_bits(w as u32)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline(always)]
    fn fused(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl NativeFloat for f64 {
    #[inline(always)]
    fn from_word(w: u64) -> f64 {
        f64::from_bits(w)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn fused(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// [`crate::models::fma::Fma`] with RNE when A, B, C and D are all fp32 or all fp64: `c = fma(a_k,
/// b_k, c)` in the machine's fused multiply-add, which is the IEEE operation the plain model
/// computes exactly (Rust's `mul_add` is always fused: the FMA instruction in `x86-64-v3`
/// builds, a correctly rounded library call otherwise; the default MXCSR rounds to nearest
/// even with subnormals). Zero signs and Inf/NaN follow IEEE in both; a NaN result takes the
/// unit's NaN bits, as the plain model encodes it. No fallback; `tests/fast_paths.rs` compares
/// it with the plain model on words with every special.
#[inline(always)]
pub fn fma_block<F: NativeFloat>(nan_bits: u64, x: &BlockIn<'_>) -> u64 {
    let mut c = F::from_word(x.c);
    for (&a, &b) in x.a.iter().zip(x.b) {
        c = F::from_word(a).fused(F::from_word(b), c);
    }
    if c.nan() {
        nan_bits
    } else {
        c.to_word()
    }
}

// ---------------------------------------------------------------------------------------------
// TR-FDPA and GTR-FDPA
// ---------------------------------------------------------------------------------------------

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
