//! The one rounding routine: an exact value (sign, integer magnitude, exponent, sticky bit) to
//! a format, with an explicit rounding mode, optional flush-to-zero and an overflow rule.

use crate::format::Format;
use crate::value::Value;

/// IEEE 754 rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Round to nearest, ties to even (RNE).
    NearestEven,
    /// Round toward zero (RZ, truncation of the magnitude).
    TowardZero,
    /// Round toward negative infinity (RD).
    Down,
    /// Round toward positive infinity (RU).
    Up,
    /// Round to nearest, ties away from zero (RNA).
    NearestAway,
}

impl Rounding {
    pub const ALL: [Rounding; 5] = [
        Rounding::NearestEven,
        Rounding::TowardZero,
        Rounding::Down,
        Rounding::Up,
        Rounding::NearestAway,
    ];

    pub fn short_name(self) -> &'static str {
        match self {
            Rounding::NearestEven => "rne",
            Rounding::TowardZero => "rz",
            Rounding::Down => "rd",
            Rounding::Up => "ru",
            Rounding::NearestAway => "rna",
        }
    }
}

/// What a result beyond the largest finite value becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overflow {
    /// IEEE 754: Inf or the largest finite value, as the rounding direction says. Formats without
    /// Inf give NaN where IEEE would give Inf (OCP conversion without `.satfinite`).
    Ieee,
    /// Always ±Inf, whatever the direction: NVIDIA's fused paths truncate after normalisation but
    /// still return Inf on overflow (first paper; the hardware records agree).
    Infinity,
    /// Clamp to ±largest finite value (`.satfinite`).
    Saturate,
}

/// Rounding options besides the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundOpts {
    pub overflow: Overflow,
    /// Flush results below the smallest normal number to zero (keeping the sign) after rounding.
    pub ftz: bool,
}

impl RoundOpts {
    pub const IEEE: RoundOpts = RoundOpts {
        overflow: Overflow::Ieee,
        ftz: false,
    };
    pub const INF_ON_OVERFLOW: RoundOpts = RoundOpts {
        overflow: Overflow::Infinity,
        ftz: false,
    };
}

/// An exact finite value `(-1)^neg · (mag + δ) · 2^exp` with `0 <= δ < 1`, and `δ > 0` exactly
/// when `sticky` is set.
///
/// Contract for `sticky`: `δ` is only known to lie strictly between 0 and 1, so for the
/// round-to-nearest modes `mag` must extend at least one bit below the result's last place
/// (the half bit then comes from `mag`, and `δ` can only break a tie). Every producer in the
/// crate keeps that guard bit: [`crate::wide::WideSum::to_exact`] keeps 128 significant bits,
/// and the FMA's far-operand case shifts its operand left by two before setting `sticky`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    pub neg: bool,
    pub mag: u128,
    pub exp: i32,
    pub sticky: bool,
}

/// Whether to add one unit in the last place, given the discarded part.
#[inline]
pub(crate) fn round_up(mode: Rounding, neg: bool, odd: bool, half: bool, rest: bool) -> bool {
    match mode {
        Rounding::NearestEven => half && (rest || odd),
        Rounding::NearestAway => half,
        Rounding::TowardZero => false,
        Rounding::Up => !neg && (half || rest),
        Rounding::Down => neg && (half || rest),
    }
}

/// What decides a rounding of `x` to `fmt`: the result's quantum `2^quantum`, the magnitude
/// kept above it (before any increment), the half bit just below it (the guard bit) and
/// whether anything below that is non-zero (the sticky bit, `x.sticky` included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub quantum: i32,
    pub kept: u128,
    pub half: bool,
    pub rest: bool,
}

/// The [`Decision`] of rounding `x` to `fmt` (the first half of [`round`]).
#[inline]
pub fn decide(fmt: &Format, x: Exact) -> Decision {
    let Exact {
        mag, exp, sticky, ..
    } = x;
    if mag == 0 {
        // Only a sticky remainder: a positive amount below any representable quantum.
        return Decision {
            quantum: fmt.min_lsb_exp(),
            kept: 0,
            half: false,
            rest: sticky,
        };
    }
    let len = 128 - mag.leading_zeros() as i32;
    let e = exp + len - 1;
    // Quantum of the result: man_bits below the leading bit, but not below the subnormal quantum.
    let q = (e - fmt.man_bits as i32).max(fmt.min_lsb_exp());
    let shift = q - exp;
    if shift <= 0 {
        // Exact: the value already sits on the result's grid (a sticky bit then lies below
        // the last place, never at its half).
        debug_assert!(!sticky || shift == 0, "sticky below an exact grid point");
        return Decision {
            quantum: q,
            kept: mag << (-shift) as u32,
            half: false,
            rest: sticky,
        };
    }
    let (kept, half, rest) = if shift >= 129 {
        (0u128, false, true)
    } else if shift == 128 {
        (0u128, mag >> 127 == 1, mag << 1 != 0 || sticky)
    } else {
        let kept = mag >> shift;
        let half = (mag >> (shift - 1)) & 1 == 1;
        let below = if shift == 1 {
            0
        } else {
            mag & ((1u128 << (shift - 1)) - 1)
        };
        (kept, half, below != 0 || sticky)
    };
    Decision {
        quantum: q,
        kept,
        half,
        rest,
    }
}

/// Rounds `x` to `fmt`. A zero magnitude (with no sticky bit) gives a zero of `x`'s sign; the
/// caller decides what sign an exact-zero sum carries.
#[inline]
pub fn round(fmt: &Format, x: Exact, mode: Rounding, opts: RoundOpts) -> Value {
    if x.mag == 0 && !x.sticky {
        return Value::Zero { neg: x.neg };
    }
    let d = decide(fmt, x);
    let up = round_up(mode, x.neg, d.kept & 1 == 1, d.half, d.rest);
    finish(fmt, x.neg, d.kept as u64 + up as u64, d.quantum, mode, opts)
}

/// Applies carry-out renormalisation, overflow and flush-to-zero to a rounded significand.
#[inline]
fn finish(
    fmt: &Format,
    neg: bool,
    mut sig: u64,
    mut q: i32,
    mode: Rounding,
    opts: RoundOpts,
) -> Value {
    if sig >> (fmt.man_bits + 1) != 0 {
        // The increment carried into a new binade.
        sig >>= 1;
        q += 1;
    }
    if sig == 0 {
        return Value::Zero { neg };
    }
    let max_q = fmt.emax() - fmt.man_bits as i32;
    if q > max_q || (q == max_q && sig > fmt.max_sig()) {
        return overflow(fmt, neg, mode, opts.overflow);
    }
    if opts.ftz && sig >> fmt.man_bits == 0 && fmt.subnormals {
        return Value::Zero { neg };
    }
    Value::Finite { neg, sig, exp: q }
}

fn overflow(fmt: &Format, neg: bool, mode: Rounding, rule: Overflow) -> Value {
    let max = Value::Finite {
        neg,
        sig: fmt.max_sig(),
        exp: fmt.emax() - fmt.man_bits as i32,
    };
    let to_inf = match rule {
        Overflow::Saturate => return max,
        Overflow::Infinity => true,
        Overflow::Ieee => match mode {
            Rounding::NearestEven | Rounding::NearestAway => true,
            Rounding::TowardZero => false,
            Rounding::Up => !neg,
            Rounding::Down => neg,
        },
    };
    if !to_inf {
        max
    } else if fmt.has_inf() {
        Value::Inf { neg }
    } else if fmt.has_nan() {
        Value::Nan
    } else {
        max
    }
}

/// Rounds an already decoded value to `fmt` (format conversion). Zeros, Inf and NaN pass
/// through (Inf of a format without Inf follows the overflow rule).
pub fn convert(fmt: &Format, v: Value, mode: Rounding, opts: RoundOpts) -> Value {
    match v {
        Value::Finite { neg, sig, exp } => round(
            fmt,
            Exact {
                neg,
                mag: sig as u128,
                exp,
                sticky: false,
            },
            mode,
            opts,
        ),
        Value::Inf { neg } if !fmt.has_inf() => overflow(fmt, neg, mode, opts.overflow),
        Value::Zero { neg } if opts.ftz => Value::Zero { neg },
        other => other,
    }
}
