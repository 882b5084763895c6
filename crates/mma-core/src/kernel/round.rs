//! Rounding of a fast path's `i64` sum straight to the destination's bits, for the common
//! outputs (RZ or RNE to an IEEE binary format, overflow to Inf, no flush to zero), without the
//! `u128` [`Exact`] and the [`crate::Value`] round trip of [`Output::round_encode`].

use crate::format::{Format, Specials};
use crate::model::Output;
use crate::round::{Exact, Overflow, Rounding};

/// Precomputed constants of one output; see [`FastRound::new`] for when it exists.
#[derive(Clone, Copy, Debug)]
pub struct FastRound {
    nearest: bool,
    man: u32,
    bias: i32,
    min_lsb: i32,
    max_q: i32,
    max_sig: u64,
    /// Shift from the rounding format's mantissa to the destination's.
    widen: u32,
    sign_bit: u64,
    inf: u64,
    zero_keeps_sign: bool,
}

impl FastRound {
    /// The fast rounding of `out` into `d`, when `out` rounds RZ or RNE to a signed IEEE format
    /// with subnormals, overflowing to Inf (`Overflow::Infinity`, or `Overflow::Ieee` with RNE,
    /// which is the same) without flush to zero, and `d` has the same exponent
    /// field with at least as many mantissa bits (fp32 from fp32 or E8M13, fp16 from fp16).
    pub fn new(out: &Output, d: &Format) -> Option<FastRound> {
        let r = &out.rho.fmt;
        let nearest = match out.rho.mode {
            Rounding::NearestEven => true,
            Rounding::TowardZero => false,
            _ => return None,
        };
        let ieee =
            |f: &Format| f.specials == Specials::Ieee && f.signed && f.subnormals && f.lsb == 0;
        if !ieee(r)
            || !ieee(d)
            || out.rho.opts.ftz
            || !(out.rho.opts.overflow == Overflow::Infinity
                || (out.rho.opts.overflow == Overflow::Ieee && nearest))
            || r.exp_bits != d.exp_bits
            || r.bias != d.bias
            || r.man_bits > d.man_bits
            || d.storage_bits > 64
        {
            return None;
        }
        Some(FastRound {
            nearest,
            man: r.man_bits,
            bias: r.bias,
            min_lsb: r.min_lsb_exp(),
            max_q: r.emax() - r.man_bits as i32,
            max_sig: r.max_sig(),
            widen: d.man_bits - r.man_bits,
            sign_bit: 1u64 << (d.exp_bits + d.man_bits),
            inf: ((1u64 << d.exp_bits) - 1) << d.man_bits,
            zero_keeps_sign: !out.neg_zero_to_pos,
        })
    }

    /// `(round to nearest, mantissa bits)` where the destination is an IEEE format of `exp`
    /// exponent and `man` mantissa bits stored in at most 32 bits (fp32, fp16): the parameters
    /// of the lane-wise rounding of `super::batch`.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(crate) fn lanes(&self, d: &Format) -> Option<(bool, u32)> {
        (self.bias == d.bias
            && self.man + self.widen == d.man_bits
            && self.sign_bit == 1 << (d.exp_bits + d.man_bits)
            && d.storage_bits <= 32)
            .then_some((self.nearest, self.man))
    }

    /// Bits of `sum · 2^exp` rounded; `zero_neg` is the sign an exact zero sum takes.
    #[inline(always)]
    pub fn round(&self, sum: i64, exp: i32, zero_neg: bool) -> u64 {
        let neg = sum < 0;
        let mag = sum.unsigned_abs();
        let sign = if neg { self.sign_bit } else { 0 };
        if mag == 0 {
            return if zero_neg && self.zero_keeps_sign {
                self.sign_bit
            } else {
                0
            };
        }
        let len = 64 - mag.leading_zeros() as i32;
        let e = exp + len - 1;
        let mut q = (e - self.man as i32).max(self.min_lsb);
        let shift = q - exp;
        let mut sig = if shift <= 0 {
            mag << -shift
        } else if shift >= 64 {
            // Below half of the smallest quantum: RZ and RNE both give zero.
            0
        } else {
            let kept = mag >> shift;
            if self.nearest {
                let half = (mag >> (shift - 1)) & 1;
                let rest = mag & ((1u64 << (shift - 1)) - 1) != 0;
                kept + (half & (rest as u64 | kept & 1))
            } else {
                kept
            }
        };
        if sig >> (self.man + 1) != 0 {
            sig >>= 1;
            q += 1;
        }
        if sig == 0 {
            return if self.zero_keeps_sign { sign } else { 0 };
        }
        if q > self.max_q || (q == self.max_q && sig > self.max_sig) {
            return sign | self.inf;
        }
        let hidden = 1u64 << self.man;
        let body = if sig >= hidden {
            (((q + self.man as i32 + self.bias) as u64) << self.man) | (sig - hidden)
        } else {
            sig
        };
        sign | body << self.widen
    }
}

/// The reference: the same result through [`Output::round_encode`].
pub fn reference(out: &Output, d: &Format, sum: i64, exp: i32, zero_neg: bool) -> u64 {
    let x = Exact {
        neg: sum < 0,
        mag: sum.unsigned_abs() as u128,
        exp,
        sticky: false,
    };
    out.round_encode(d, x, zero_neg)
}
