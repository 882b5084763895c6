//! The per-dot FTZ-MulAdd block (CDNA2) in native `f32`.
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

use crate::model::{BlockIn, MAX_BLOCK};
use crate::models::ftz_mul_add::FtzMulAdd;

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
