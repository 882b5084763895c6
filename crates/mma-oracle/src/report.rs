//! Error of a model result against the exact result.
//!
//! For a model's output word and the [`ExactResult`] of the same inputs, [`error_report`] gives
//! the error in units in the last place of the output format *at the exact value's binade*
//! (with the subnormal quantum as the floor, so errors near zero are not inflated), the relative
//! error, whether the model equals the correctly rounded (RNE) result, how many representable
//! steps it lies from it, and the exact error as a rational.
//!
//! Specials: a NaN model result against a NaN exact result, or an infinity of the right sign
//! against an exact infinity, is error 0; any other mismatch involving NaN or Inf is an infinite
//! error (`exact_error = None`). Zeros compare equal whatever their sign (the NVIDIA paths return
//! +0 for -0 by design).

use crate::exact::ExactResult;
use crate::rounding::{correctly_rounded, quantum};
use mma_core::{Format, Rounding, Value};
use rug::Rational;

/// Error metrics of one model result.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorReport {
    /// |model − exact| in ulps of the output format at the exact value's binade.
    pub ulps: f64,
    /// |model − exact| / |exact| (0 when both are zero, Inf when only the exact value is).
    pub rel: f64,
    /// Whether the model result equals the round-to-nearest-even result (±0 equal, NaN = NaN).
    pub correctly_rounded: bool,
    /// Model result minus the RNE result, in representable steps of the output format
    /// (`i32::MAX` when exactly one of them is NaN).
    pub neighbour: i32,
    /// Exact model − exact value; `None` when the error is infinite (a special mismatch).
    pub exact_error: Option<Rational>,
}

impl ErrorReport {
    fn zero() -> ErrorReport {
        ErrorReport {
            ulps: 0.0,
            rel: 0.0,
            correctly_rounded: true,
            neighbour: 0,
            exact_error: Some(Rational::new()),
        }
    }
}

/// Position of a storage word in the value order of `fmt` (sign-magnitude to two's complement):
/// consecutive finite values differ by one, ±0 are both 0, Inf is one past the largest finite.
pub fn ordinal(fmt: &Format, bits: u64) -> i64 {
    let field = fmt.exp_bits + fmt.man_bits;
    let mag = ((bits >> fmt.lsb) & ((1u64 << field) - 1)) as i64;
    let neg = fmt.signed && (bits >> (fmt.lsb + field)) & 1 == 1;
    if neg {
        -mag
    } else {
        mag
    }
}

/// Compares `model` (a storage word of `out`) with `exact`.
pub fn error_report(model: u64, exact: &ExactResult, out: &Format) -> ErrorReport {
    let rne = correctly_rounded(exact, out, Rounding::NearestEven);
    let mv = out.decode(model);
    let rv = out.decode(rne);
    let correctly_rounded = match (mv, rv) {
        (Value::Nan, Value::Nan) => true,
        (Value::Zero { .. }, Value::Zero { .. }) => true,
        (a, b) => a == b,
    };
    let neighbour = match (mv.is_nan(), rv.is_nan()) {
        (true, true) => 0,
        // i128: two f64 ordinals of opposite sign differ by more than i64 holds.
        (false, false) => (ordinal(out, model) as i128 - ordinal(out, rne) as i128)
            .clamp(-(i32::MAX as i128), i32::MAX as i128) as i32,
        _ => i32::MAX,
    };
    let infinite = ErrorReport {
        ulps: f64::INFINITY,
        rel: f64::INFINITY,
        correctly_rounded,
        neighbour,
        exact_error: None,
    };
    match (exact, mv) {
        (ExactResult::Nan, Value::Nan) => ErrorReport::zero(),
        (ExactResult::Inf { neg }, Value::Inf { neg: m }) if *neg == m => ErrorReport::zero(),
        (ExactResult::Finite { value, .. }, Value::Zero { .. } | Value::Finite { .. }) => {
            let model_value = crate::exact::ExactResult::from_value(mv);
            let mx = model_value.value().expect("finite model value");
            let err = Rational::from(mx - value);
            let abs = err.clone().abs();
            let ulps = to_f64(&(&abs / quantum(out, value)));
            let rel = if value.is_zero() {
                if abs.is_zero() {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                to_f64(&(&abs / value.clone().abs()))
            };
            ErrorReport {
                ulps,
                rel,
                correctly_rounded,
                neighbour,
                exact_error: Some(err),
            }
        }
        _ => infinite,
    }
}

/// A rational rounded to the nearest `f64` (ties to even; `Rational::to_f64` truncates).
fn to_f64(x: &Rational) -> f64 {
    rug::Float::with_val(53, x).to_f64()
}
