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
//! [`exact_dot`] computes `sum_k a_k·b_k·sa_{k/n}·sb_{k/n} + c` from raw storage words with these
//! rules and the IEEE invalid cases (any NaN operand, `0·Inf`, `Inf − Inf`; a NaN scale gives NaN).
//! Nothing here rounds: the only inexact step of the oracle is [`crate::correctly_rounded`].

use mma_core::{Format, Formats, Value};
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
/// (no rational arithmetic, whose every step reduces by a gcd); 0 for no terms.
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

/// One summand of a dot product, `a·b` (times the block scales) or `C`, from its decoded
/// factors: the IEEE product rules decide the specials (a NaN factor, or an infinite one with a
/// zero one, is NaN), the sign of an infinite or zero product is the exclusive-or of the
/// factors' signs (as [`ExactResult::mul`] gives it), and a finite non-zero product is the
/// integer `±prod sig` at the exponent `sum exp`.
pub(crate) enum Summand {
    Nan,
    Inf { neg: bool },
    Zero { neg: bool },
    Finite { m: Integer, e: i32 },
}

impl Summand {
    pub(crate) fn product(factors: &[Value]) -> Summand {
        let mut neg = false;
        let (mut inf, mut zero) = (false, false);
        for v in factors {
            match *v {
                Value::Nan => return Summand::Nan,
                Value::Inf { neg: n } => (inf, neg) = (true, neg ^ n),
                Value::Zero { neg: n } => (zero, neg) = (true, neg ^ n),
                // A zero significand is +0 as a value (`from_value` makes it a finite zero).
                Value::Finite { sig: 0, .. } => zero = true,
                Value::Finite { neg: n, .. } => neg ^= n,
            }
        }
        if inf && zero {
            return Summand::Nan;
        }
        if inf {
            return Summand::Inf { neg };
        }
        if zero {
            return Summand::Zero { neg };
        }
        let mut m = Integer::from(1);
        let mut e = 0i32;
        for v in factors {
            if let Value::Finite { sig, exp, .. } = *v {
                m *= sig;
                e += exp;
            }
        }
        Summand::Finite {
            m: if neg { -m } else { m },
            e,
        }
    }
}

/// The exact value of `sum_k a_k·b_k + c` for the storage words of `formats` (`formats.c` for
/// `c`), formats without scale factors ([`exact_dot_scaled`] takes them).
///
/// # Panics
/// If `a` and `b` differ in length, or `formats` has scale factors.
pub fn exact_dot(formats: &Formats, a: &[u64], b: &[u64], c: u64) -> ExactResult {
    exact_dot_scaled(formats, a, b, c, &[], &[])
}

/// The exact value of `sum_k a_k·b_k·scale_a[k/n]·scale_b[k/n] + c` for the storage words of
/// `formats` (`formats.c` for `c`), where `formats.scale = Some((fmt, n))` gives the scale format
/// and the number of elements one scale covers (without it the scales are ignored).
///
/// The value is what folding [`ExactResult::mul`] and [`ExactResult::add`] over the summands
/// in order gives ([`exact_sum`] of the products and C; the oracle's tests compare the two),
/// computed without rational arithmetic: any NaN summand, or infinite ones of both signs, give
/// NaN, any other infinite one gives it; otherwise the finite summands are integers at their
/// exponents, added exactly ([`dyadic_sum`]). Zero signs as the fold gives them: summands all
/// zero give -0 where every one is -0 (RD: where any is), a zero sum of non-zero summands
/// +0 (RD: -0), and C alone keeps its own sign.
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
    assert_eq!(a.len(), b.len(), "A and B lengths differ");
    if let Some((_, per)) = formats.scale {
        let need = a.len().div_ceil(per);
        assert!(
            scale_a.len() >= need && scale_b.len() >= need,
            "{need} scale factors needed per operand"
        );
    }
    let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
    let (mut zeros_all_neg, mut zeros_any_neg) = (true, false);
    let mut finite: Vec<(Integer, i32)> = Vec::with_capacity(a.len() + 1);
    let mut take = |s: Summand| match s {
        Summand::Nan => nan = true,
        Summand::Inf { neg } => *(if neg { &mut neg_inf } else { &mut pos_inf }) = true,
        Summand::Zero { neg } => {
            zeros_all_neg &= neg;
            zeros_any_neg |= neg;
        }
        Summand::Finite { m, e } => finite.push((m, e)),
    };
    for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
        let (va, vb) = (formats.a.decode(x), formats.b.decode(y));
        take(match &formats.scale {
            Some((sf, per)) => {
                let (sa, sb) = (sf.decode(scale_a[k / per]), sf.decode(scale_b[k / per]));
                Summand::product(&[va, vb, sa, sb])
            }
            None => Summand::product(&[va, vb]),
        });
    }
    take(Summand::product(&[formats.c.decode(c)]));
    if nan || (pos_inf && neg_inf) {
        return ExactResult::Nan;
    }
    if pos_inf || neg_inf {
        return ExactResult::Inf { neg: neg_inf };
    }
    if finite.is_empty() {
        return ExactResult::Finite {
            value: Rational::new(),
            zero_neg: zeros_all_neg,
            zero_neg_rd: zeros_any_neg,
        };
    }
    let value = dyadic_sum(&finite);
    if a.is_empty() {
        // C alone, as `from_value` gives it.
        return ExactResult::finite(value);
    }
    ExactResult::Finite {
        value,
        zero_neg: false,
        zero_neg_rd: true,
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
