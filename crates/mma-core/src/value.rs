//! A decoded floating-point datum: the common currency between formats and models.

/// A decoded value. Finite values are `(-1)^neg · sig · 2^exp` with an integer significand and
/// the exponent of its least significant bit, so that products and alignments are plain integer
/// operations. A decoded normal number of a format with `m` mantissa bits has
/// `2^m <= sig < 2^(m+1)`; its scientific exponent (the papers' `e`) is `exp + m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Zero { neg: bool },
    Finite { neg: bool, sig: u64, exp: i32 },
    Inf { neg: bool },
    Nan,
}

impl Value {
    pub const POS_ZERO: Value = Value::Zero { neg: false };

    pub fn is_nan(&self) -> bool {
        matches!(self, Value::Nan)
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        matches!(self, Value::Zero { .. })
    }

    pub fn is_inf(&self) -> bool {
        matches!(self, Value::Inf { .. })
    }

    /// The sign bit; NaN counts as positive.
    pub fn is_neg(&self) -> bool {
        match *self {
            Value::Zero { neg } | Value::Finite { neg, .. } | Value::Inf { neg } => neg,
            Value::Nan => false,
        }
    }

    /// The same value with the opposite sign (NaN stays NaN).
    pub fn negate(self) -> Value {
        match self {
            Value::Zero { neg } => Value::Zero { neg: !neg },
            Value::Finite { neg, sig, exp } => Value::Finite {
                neg: !neg,
                sig,
                exp,
            },
            Value::Inf { neg } => Value::Inf { neg: !neg },
            Value::Nan => Value::Nan,
        }
    }

    /// Whether two values are the same number: NaN is no number (never the same), zeros are the
    /// same whatever their signs, finite values compare as `sig·2^exp` exactly (however the
    /// significand is scaled), infinities by sign.
    pub fn same_number(&self, other: &Value) -> bool {
        // (sig, exp) with an odd significand: one spelling of each finite value.
        let canon = |sig: u64, exp: i32| {
            (
                sig >> sig.trailing_zeros(),
                exp + sig.trailing_zeros() as i32,
            )
        };
        let zero = |v: &Value| matches!(v, Value::Zero { .. } | Value::Finite { sig: 0, .. });
        match (*self, *other) {
            (Value::Nan, _) | (_, Value::Nan) => false,
            _ if zero(self) || zero(other) => zero(self) && zero(other),
            (Value::Inf { neg: a }, Value::Inf { neg: b }) => a == b,
            (
                Value::Finite {
                    neg: na,
                    sig: sa,
                    exp: ea,
                },
                Value::Finite {
                    neg: nb,
                    sig: sb,
                    exp: eb,
                },
            ) => na == nb && canon(sa, ea) == canon(sb, eb),
            _ => false,
        }
    }

    /// Lossless conversion to `f64` where the value fits (tests and display only; the models
    /// never compute in `f64`).
    pub fn to_f64(&self) -> f64 {
        match *self {
            Value::Zero { neg } => {
                if neg {
                    -0.0
                } else {
                    0.0
                }
            }
            Value::Finite { neg, sig, exp } => {
                // In two steps: `2^exp` alone is no f64 below 2^-1022 (nor its reciprocal
                // above 2^1023), so one power would turn f64's subnormals into 0; each half
                // is a normal power and the product rounds once, at the end.
                let e = exp.clamp(-1100, 1100);
                let m = sig as f64 * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
                let m = if exp < -1100 { 0.0 } else { m };
                if neg {
                    -m
                } else {
                    m
                }
            }
            Value::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Value::Nan => f64::NAN,
        }
    }
}
