//! Exact values and exact (block-scaled) dot products.
//!
//! An [`ExactResult`] is what an infinitely precise IEEE 754 computation gives before the final
//! rounding: NaN, ±Inf, or a finite rational number (every binary floating-point value is a
//! dyadic rational, so sums and products of them are exact in [`Rational`]). A finite result
//! also carries the sign an exact zero takes, which IEEE 754 §6.3 fixes and which depends on
//! the rounding direction:
//!
//! - a sum whose terms are all zeros is -0 when every term is -0 (any direction but RD), and -0
//!   in RD unless every term is +0;
//! - an exact cancellation of non-zero terms is +0, and -0 in RD;
//! - a product of zeros has the exclusive-or of the operands' signs.
//!
//! [`exact_dot`] gives `sum_k a_k·b_k·sa_{k/n}·sb_{k/n} + c` from raw storage words with these
//! rules and the IEEE invalid cases (any NaN operand, `0·Inf`, `Inf − Inf`; a NaN scale gives
//! NaN): the core's exact sum ([`ExactDot`], which the command line prints without GMP) as a
//! rational.
//! Nothing here rounds: the only inexact step of the oracle is [`crate::correctly_rounded`].

use mma_core::{ExactDot, Format, Formats, Value};
use rug::integer::Order;
use rug::{Integer, Rational};

/// An exact result: NaN, an infinity, or a finite rational with its exact-zero signs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactResult {
    Nan,
    Inf {
        neg: bool,
    },
    Finite {
        value: Rational,
        /// Sign of the value when it is zero, for every rounding direction except RD.
        zero_neg: bool,
        /// Sign of the value when it is zero, in RD (round toward -Inf).
        zero_neg_rd: bool,
    },
}

impl ExactResult {
    /// A finite non-zero (or +0 when `value` is 0) exact result.
    pub fn finite(value: Rational) -> ExactResult {
        ExactResult::Finite {
            value,
            zero_neg: false,
            zero_neg_rd: false,
        }
    }

    /// A signed zero.
    pub fn zero(neg: bool) -> ExactResult {
        ExactResult::Finite {
            value: Rational::new(),
            zero_neg: neg,
            zero_neg_rd: neg,
        }
    }

    /// The exact value of a decoded datum.
    pub fn from_value(v: Value) -> ExactResult {
        match v {
            Value::Nan => ExactResult::Nan,
            Value::Inf { neg } => ExactResult::Inf { neg },
            Value::Zero { neg } => ExactResult::zero(neg),
            Value::Finite { neg, sig, exp } => {
                let m = Integer::from(sig);
                let m = if neg { -m } else { m };
                ExactResult::finite(dyadic(m, exp))
            }
        }
    }

    /// The core's exact dot product as a rational, with its zero signs.
    pub fn from_exact_dot(x: &ExactDot) -> ExactResult {
        match x {
            ExactDot::Nan => ExactResult::Nan,
            ExactDot::Inf { neg } => ExactResult::Inf { neg: *neg },
            ExactDot::Finite {
                neg,
                mag,
                exp,
                zero_neg,
                zero_neg_rd,
            } => ExactResult::Finite {
                value: dyadic(signed_integer(*neg, mag), *exp),
                zero_neg: *zero_neg,
                zero_neg_rd: *zero_neg_rd,
            },
        }
    }

    /// The exact value of a storage word of `fmt`.
    pub fn from_bits(fmt: &Format, bits: u64) -> ExactResult {
        ExactResult::from_value(fmt.decode(bits))
    }

    /// The exact value of an `f64` (for tests against host arithmetic).
    pub fn from_f64(x: f64) -> ExactResult {
        ExactResult::from_bits(&mma_core::format::FP64, x.to_bits())
    }

    pub fn is_nan(&self) -> bool {
        matches!(self, ExactResult::Nan)
    }

    /// The finite value, if any.
    pub fn value(&self) -> Option<&Rational> {
        match self {
            ExactResult::Finite { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The sign bit this result has in a rounding direction (`rd`: round toward -Inf).
    fn sign(&self, rd: bool) -> bool {
        match self {
            ExactResult::Nan => false,
            ExactResult::Inf { neg } => *neg,
            ExactResult::Finite {
                value,
                zero_neg,
                zero_neg_rd,
            } => {
                if value.is_zero() {
                    if rd {
                        *zero_neg_rd
                    } else {
                        *zero_neg
                    }
                } else {
                    value.is_negative()
                }
            }
        }
    }

    fn is_zero(&self) -> bool {
        matches!(self, ExactResult::Finite { value, .. } if value.is_zero())
    }

    /// Exact IEEE product: NaN for a NaN operand or `0·Inf`.
    pub fn mul(&self, other: &ExactResult) -> ExactResult {
        use ExactResult::*;
        match (self, other) {
            (Nan, _) | (_, Nan) => Nan,
            (Inf { .. }, x) | (x, Inf { .. }) if x.is_zero() => Nan,
            (Inf { .. }, _) | (_, Inf { .. }) => Inf {
                neg: self.sign(false) != other.sign(false),
            },
            (Finite { value: x, .. }, Finite { value: y, .. }) => {
                let value = Rational::from(x * y);
                Finite {
                    value,
                    zero_neg: self.sign(false) != other.sign(false),
                    zero_neg_rd: self.sign(true) != other.sign(true),
                }
            }
        }
    }

    /// Exact IEEE sum: NaN for a NaN operand or `Inf − Inf`; the zero signs follow §6.3.
    pub fn add(&self, other: &ExactResult) -> ExactResult {
        use ExactResult::*;
        match (self, other) {
            (Nan, _) | (_, Nan) => Nan,
            (Inf { neg: a }, Inf { neg: b }) if a != b => Nan,
            (Inf { neg }, _) | (_, Inf { neg }) => Inf { neg: *neg },
            (Finite { value: x, .. }, Finite { value: y, .. }) => {
                let value = Rational::from(x + y);
                let (zero_neg, zero_neg_rd) = if self.is_zero() && other.is_zero() {
                    (
                        self.sign(false) && other.sign(false),
                        self.sign(true) || other.sign(true),
                    )
                } else {
                    // Exact cancellation of non-zero terms (only used when value == 0).
                    (false, true)
                };
                Finite {
                    value,
                    zero_neg,
                    zero_neg_rd,
                }
            }
        }
    }
}

/// `m · 2^exp` as a rational. The factors of two are taken out of `m` first, so that the
/// canonical form (odd numerator or a denominator of one) costs GMP no real gcd.
pub fn dyadic(m: Integer, exp: i32) -> Rational {
    let mut m = m;
    let mut exp = exp;
    if exp < 0 {
        if let Some(tz) = m.find_one(0) {
            let take = tz.min(exp.unsigned_abs());
            m >>= take;
            exp += take as i32;
        }
    }
    if exp >= 0 {
        Rational::from(m << exp.unsigned_abs())
    } else {
        Rational::from((m, Integer::from(1) << exp.unsigned_abs()))
    }
}

/// `2^exp` as a rational.
pub fn pow2(exp: i32) -> Rational {
    dyadic(Integer::from(1), exp)
}

/// The exact sum of `m_k · 2^(e_k)`: the integers aligned at the smallest exponent and added
/// (no rational arithmetic, whose every step reduces by a gcd); 0 for no terms. The bounds
/// sum the summands' magnitudes with it (a dot product's own sum is the core's [`ExactDot`]).
pub fn dyadic_sum(terms: &[(Integer, i32)]) -> Rational {
    let Some(low) = terms.iter().map(|t| t.1).min() else {
        return Rational::new();
    };
    let mut sum = Integer::new();
    for (m, e) in terms {
        sum += Integer::from(m << (e - low).unsigned_abs());
    }
    dyadic(sum, low)
}

/// The exact value of `sum_k a_k·b_k + c` for the storage words of `formats` (`formats.c` for
/// `c`), formats without scale factors ([`exact_dot_scaled`] takes them).
///
/// # Panics
/// If `a` and `b` differ in length.
pub fn exact_dot(formats: &Formats, a: &[u64], b: &[u64], c: u64) -> ExactResult {
    ExactResult::from_exact_dot(&ExactDot::of(formats, a, b, c))
}

/// The exact value of `sum_k a_k·b_k·scale_a[k/n]·scale_b[k/n] + c` for the storage words of
/// `formats` (`formats.c` for `c`), where `formats.scale = Some((fmt, n))` gives the scale format
/// and the number of elements one scale covers (without it the scales are ignored).
///
/// The sum is the core's ([`ExactDot::of_scaled`]: the summands' specials by the IEEE rules,
/// the finite ones added as integers at their exponents, the signs of exact zeros by §6.3), as
/// a rational: what folding [`ExactResult::mul`] and [`ExactResult::add`] over the summands in
/// order gives ([`exact_sum`] of the products and C; the oracle's tests compare the two).
///
/// # Panics
/// If `a` and `b` differ in length or a scale slice is too short for `a`.
pub fn exact_dot_scaled(
    formats: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    scale_a: &[u64],
    scale_b: &[u64],
) -> ExactResult {
    ExactResult::from_exact_dot(&ExactDot::of_scaled(formats, a, b, c, scale_a, scale_b))
}

/// `(-1)^neg · mag · 2^0` for little-endian 64-bit limbs `mag`, as an integer.
pub(crate) fn signed_integer(neg: bool, mag: &[u64]) -> Integer {
    let m = Integer::from_digits(mag, Order::Lsf);
    if neg {
        -m
    } else {
        m
    }
}

/// The exact value of `sum_k terms_k` (each an exact result), folded with [`ExactResult::add`].
/// An empty list gives +0.
pub fn exact_sum(terms: &[ExactResult]) -> ExactResult {
    let mut it = terms.iter();
    let Some(first) = it.next() else {
        return ExactResult::zero(false);
    };
    it.fold(first.clone(), |s, t| s.add(t))
}
