//! The portable per-dot kernels, one file per model family: T-FDPA (`t_fdpa.rs`), GST-FDPA
//! (`gst.rs`), E-FDPA (`e_fdpa.rs`), Sliced-FDPA through the T-FDPA kernel (`sliced.rs`),
//! FTZ-MulAdd (`ftz_mul_add.rs`), TR-FDPA and GTR-FDPA (`tr_fdpa.rs`), the fp32/fp64 FMA
//! chains (`fma.rs`), and I-DPA, the integer dot product (`int_dpa.rs`, exact: it never hands
//! a block back). Each computes one block in the common case (finite inputs, sums within the
//! integer widths its header proves) and returns `None` otherwise, so that the kernel hands the
//! block to the plain model. The AVX2 copies of `kernel/x86/` inline this code unchanged. Below:
//! the decoding of C and the final rounding they share.

pub(in crate::kernel) mod e_fdpa;
pub(in crate::kernel) mod fma;
pub(in crate::kernel) mod ftz_mul_add;
pub(in crate::kernel) mod gst;
pub(in crate::kernel) mod int_dpa;
pub(in crate::kernel) mod sliced;
pub(in crate::kernel) mod t_fdpa;
pub(in crate::kernel) mod tr_fdpa;

use super::round::{self, FastRound};
use crate::format::{self, Format};
use crate::model::{BlockIn, Output};
use crate::value::Value;

/// Decoded C: significand, scientific exponent (`e_zero` for a zero), sign; `None` for Inf/NaN.
/// IEEE formats (fp32, fp16, bf16) are decoded from their bits directly, the rest through
/// [`Format::decode`].
#[inline(always)]
pub(in crate::kernel) fn c_term(x: &BlockIn<'_>, e_zero: i32) -> Option<(u64, i32, bool)> {
    if is_ieee_word(x.c_fmt) {
        let (sig, e, neg) = ieee_word(x.c, x.c_fmt)?;
        return Some((sig, if sig == 0 { e_zero } else { e }, neg));
    }
    match x.c_fmt.decode(x.c) {
        Value::Finite { neg, sig, exp } => Some((sig, exp + x.c_fmt.man_bits as i32, neg)),
        Value::Zero { neg } => Some((0, e_zero, neg)),
        _ => None,
    }
}

/// Whether `f` is an IEEE format whose words [`ieee_word`] decodes from their bits: signed,
/// with subnormals and Inf/NaN, at most 32 bits, no ignored low bits.
#[inline(always)]
pub(in crate::kernel) fn is_ieee_word(f: &Format) -> bool {
    f.specials == format::Specials::Ieee
        && f.signed
        && f.subnormals
        && f.lsb == 0
        && f.storage_bits <= 32
}

/// A word of such a format ([`is_ieee_word`]): significand (0 for a zero), the exponent of its
/// leading place (`1 - bias` for zeros and subnormals) and sign; `None` for Inf/NaN.
#[inline(always)]
pub(in crate::kernel) fn ieee_word(w: u64, f: &Format) -> Option<(u64, i32, bool)> {
    let top = (1u64 << f.exp_bits) - 1;
    let ef = (w >> f.man_bits) & top;
    let man = w & ((1u64 << f.man_bits) - 1);
    let neg = (w >> (f.exp_bits + f.man_bits)) & 1 != 0;
    if ef == top {
        return None;
    }
    let sig = man | ((ef != 0) as u64) << f.man_bits;
    Some((sig, ef.max(1) as i32 - f.bias, neg))
}

/// C aligned to `f` fraction bits below `e_max`, truncated toward zero (magnitude).
#[inline(always)]
pub(in crate::kernel) fn c_aligned(sig: u64, e: i32, man_bits: u32, f: u32, e_max: i32) -> u64 {
    let d = (e_max - e) as u32;
    if f >= man_bits {
        (sig << (f - man_bits)) >> d.min(63)
    } else {
        sig >> (man_bits - f + d).min(63)
    }
}

/// Applies a sign bit (0 or 1) to a magnitude.
#[inline(always)]
pub(in crate::kernel) fn signed(mag: u64, neg: u32) -> i64 {
    let s = -(neg as i64);
    (mag as i64 ^ s) - s
}

/// Rounds and encodes a fast path's sum, through [`FastRound`] where the output allows.
#[inline(always)]
pub(in crate::kernel) fn finish(
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    sum: i64,
    exp: i32,
    zero_neg: bool,
) -> u64 {
    match fr {
        Some(r) => r.round(sum, exp, zero_neg),
        None => round::reference(out, d, sum, exp, zero_neg),
    }
}
