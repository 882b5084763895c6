//! Correct rounding of exact results to any format, computed with MPFR.
//!
//! A finite value is rounded by MPFR to the format's precision `p = man_bits + 1` with an
//! unbounded exponent (`mpfr_set_q`, correctly rounded, with its ternary value), then
//! subnormalised with `mpfr_subnormalize` — which needs MPFR's exponent convention: MPFR writes
//! `x = 0.1b…·2^E`, one above IEEE's `1.b…·2^e`, so the smallest normal exponent passed is
//! `emin + 1` (fp32: −125, fp16: −13, fp64: −1021). The ternary value of the first rounding makes
//! the second one exact-as-if-once (no double rounding). Ties-away (RNA), which MPFR lacks, is
//! derived from the toward-zero result and an exact comparison with the midpoint. IEEE overflow
//! then applies against the format's largest finite value: RNE/RNA give Inf, RZ the largest
//! finite value, RU/RD Inf on their side and the largest finite value on the other. A format
//! without Inf gives NaN where IEEE gives Inf (OCP conversion without `.satfinite`), or its
//! largest value when it has no NaN either; the same convention as `mma_core::round`.
//!
//! Encoding to storage bits is done here again, independently of `Format::encode`.

use crate::exact::{dyadic, pow2, ExactResult};
use mma_core::{Format, Rounding, Value};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// The correctly rounded storage word of `exact` in `out` (a signed format with subnormals).
/// NaN becomes `out.default_nan()`; -0 of a format without negative zero becomes +0.
pub fn correctly_rounded(exact: &ExactResult, out: &Format, mode: Rounding) -> u64 {
    out.encode(round_value(exact, out, mode), out.default_nan())
}

/// The correctly rounded value of `exact` in `out`, as a [`Value`] whose significand and
/// exponent sit on `out`'s grid.
pub fn round_value(exact: &ExactResult, out: &Format, mode: Rounding) -> Value {
    match exact {
        ExactResult::Nan => Value::Nan,
        ExactResult::Inf { neg } => {
            if out.has_inf() {
                Value::Inf { neg: *neg }
            } else {
                overflow(out, *neg, Rounding::NearestEven)
            }
        }
        ExactResult::Finite {
            value,
            zero_neg,
            zero_neg_rd,
        } => {
            if value.is_zero() {
                let neg = if mode == Rounding::Down {
                    *zero_neg_rd
                } else {
                    *zero_neg
                };
                return Value::Zero { neg };
            }
            round_rational(value, out, mode)
        }
    }
}

/// The largest finite magnitude of `fmt`.
pub fn max_finite(fmt: &Format) -> Rational {
    dyadic(
        Integer::from(fmt.max_sig()),
        fmt.emax() - fmt.man_bits as i32,
    )
}

/// The quantum (unit in the last place) of `fmt` in the binade of `|x|`: `2^(max(e, emin) - m)`
/// with `e = floor(log2 |x|)`; the subnormal quantum for `x = 0`.
pub fn quantum(fmt: &Format, x: &Rational) -> Rational {
    let e = if x.is_zero() {
        fmt.emin()
    } else {
        floor_log2(x).max(fmt.emin())
    };
    pow2(e - fmt.man_bits as i32)
}

/// `floor(log2 |x|)` of a non-zero rational.
pub fn floor_log2(x: &Rational) -> i32 {
    debug_assert!(!x.is_zero());
    let (n, d) = (x.numer().as_abs(), x.denom());
    let e = n.significant_bits() as i32 - d.significant_bits() as i32;
    // 2^(e-1) < |x| < 2^(e+1): step down once if |x| = n/d < 2^e, compared as integers.
    let below = if e >= 0 {
        *n < Integer::from(d << e.unsigned_abs())
    } else {
        Integer::from(&*n << e.unsigned_abs()) < *d
    };
    e - i32::from(below)
}

fn mpfr_round(mode: Rounding) -> Round {
    match mode {
        Rounding::NearestEven => Round::Nearest,
        Rounding::TowardZero | Rounding::NearestAway => Round::Zero,
        Rounding::Down => Round::Down,
        Rounding::Up => Round::Up,
    }
}

/// Rounds a non-zero rational to `out` with MPFR, subnormals and IEEE overflow.
fn round_rational(x: &Rational, out: &Format, mode: Rounding) -> Value {
    let neg = x.is_negative();
    let prec = out.man_bits + 1;
    let rnd = mpfr_round(mode);
    let (mut f, ord) = Float::with_val_round(prec, x, rnd);
    if out.subnormals {
        f.subnormalize_round(out.emin() + 1, ord, rnd);
    }
    let mut r = f
        .to_rational()
        .expect("rounding a finite value stays finite");
    if mode == Rounding::NearestAway {
        // r is the toward-zero neighbour; the other one is a quantum further out.
        let q = quantum(out, &r);
        let gap = Rational::from(x - &r).abs();
        if Rational::from(&gap * 2u32) >= q {
            r = if neg { r - q } else { r + q };
        }
    }
    if r.is_zero() {
        return Value::Zero { neg };
    }
    if r.clone().abs() > max_finite(out) {
        return overflow(out, neg, mode);
    }
    finite_value(&r, out)
}

/// What IEEE overflow gives in `out` for a result of sign `neg`.
fn overflow(out: &Format, neg: bool, mode: Rounding) -> Value {
    let to_inf = match mode {
        Rounding::NearestEven | Rounding::NearestAway => true,
        Rounding::TowardZero => false,
        Rounding::Up => !neg,
        Rounding::Down => neg,
    };
    if to_inf && out.has_inf() {
        Value::Inf { neg }
    } else if to_inf && out.has_nan() {
        Value::Nan
    } else {
        finite_value(
            &(if neg {
                -max_finite(out)
            } else {
                max_finite(out)
            }),
            out,
        )
    }
}

/// A representable non-zero rational as a [`Value`] on `out`'s grid (significand of
/// `man_bits + 1` bits for normals, quantum `2^min_lsb_exp` for subnormals).
fn finite_value(r: &Rational, out: &Format) -> Value {
    let q = quantum(out, r);
    let sig = Rational::from(r / &q);
    debug_assert!(sig.denom() == &1, "{r} is not on the {} grid", out.name);
    let q_exp = floor_log2(&q);
    Value::Finite {
        neg: r.is_negative(),
        sig: sig
            .numer()
            .clone()
            .abs()
            .to_u64()
            .expect("significand fits"),
        exp: q_exp,
    }
}
