//! Exact products and the special-value rules shared by the fused models.

use crate::format::Format;
use crate::value::Value;

/// One exact summand of a fused dot product: `(-1)^neg · sig · 2^lsb`, with the scientific
/// exponent `e` the models align on. For a product `a·b` of inputs `s_a·2^{e_a}` and
/// `s_b·2^{e_b}` (1 <= s < 2, subnormals at `e_sub` with s < 1), `e = e_a + e_b` and the
/// significand product lies in [0, 4): the product is not renormalised. A zero term keeps
/// `sig = 0` and gets the model's `e_zero`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub neg: bool,
    pub sig: u64,
    pub lsb: i32,
    pub e: i32,
}

impl Term {
    pub const ZERO: Term = Term {
        neg: false,
        sig: 0,
        lsb: 0,
        e: i32::MIN,
    };

    /// The term of a finite or zero input `v` of format `fmt` (C, or a single operand).
    #[inline]
    pub fn of_value(v: Value, fmt: &Format, e_zero: i32) -> Term {
        match v {
            Value::Finite { neg, sig, exp } => Term {
                neg,
                sig,
                lsb: exp,
                e: exp + fmt.man_bits as i32,
            },
            Value::Zero { neg } => Term {
                neg,
                sig: 0,
                lsb: e_zero,
                e: e_zero,
            },
            _ => Term {
                e: e_zero,
                lsb: e_zero,
                ..Term::ZERO
            },
        }
    }

    /// The exponent [`Term::product`] gives the product of two finite inputs whose least
    /// significant bits weigh `2^xa` (format `fa`) and `2^xb` (`fb`): the weight of the product
    /// of two normal significands' leading bits. For callers that need the exponent without the
    /// significands' product (which overflows `u64` for fp64 operands).
    #[inline]
    pub const fn product_exponent(xa: i32, fa: &Format, xb: i32, fb: &Format) -> i32 {
        xa + xb + (fa.man_bits + fb.man_bits) as i32
    }

    /// The exact product of two finite-or-zero inputs.
    #[inline]
    pub fn product(a: Value, fa: &Format, b: Value, fb: &Format, e_zero: i32) -> Term {
        match (a, b) {
            (
                Value::Finite {
                    neg: na,
                    sig: sa,
                    exp: xa,
                },
                Value::Finite {
                    neg: nb,
                    sig: sb,
                    exp: xb,
                },
            ) => Term {
                neg: na != nb,
                sig: sa * sb,
                lsb: xa + xb,
                e: Term::product_exponent(xa, fa, xb, fb),
            },
            _ => Term {
                neg: a.is_neg() != b.is_neg(),
                sig: 0,
                lsb: e_zero,
                e: e_zero,
            },
        }
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        self.sig == 0
    }

    /// Truncates the term toward zero to a multiple of `2^quantum` and returns it as a signed
    /// multiple of that quantum. `quantum >= lsb - 63` keeps the shift in range for every term
    /// the models build (their significands are at most 2^F·4 after alignment).
    #[inline]
    pub fn truncated(&self, quantum: i32) -> i128 {
        let shift = self.lsb - quantum;
        let mag = if shift >= 0 {
            (self.sig as i128) << shift.min(100)
        } else if shift > -64 {
            (self.sig >> -shift) as i128
        } else {
            0
        };
        if self.neg {
            -mag
        } else {
            mag
        }
    }
}

/// Outcome of the special-value scan that every fused model does first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// All inputs finite: compute.
    Finite,
    Nan,
    Inf {
        neg: bool,
    },
}

/// IEEE semantics for a fused sum of products plus `c`: any NaN operand, `0·Inf`, or Inf terms
/// of both signs give NaN; otherwise an Inf term gives Inf of its sign.
#[inline]
pub fn scan_specials(a: &[Value], b: &[Value], c: Value) -> Special {
    let mut pos_inf = false;
    let mut neg_inf = false;
    for (x, y) in a.iter().zip(b) {
        match (x, y) {
            (Value::Nan, _) | (_, Value::Nan) => return Special::Nan,
            (Value::Inf { .. }, Value::Zero { .. }) | (Value::Zero { .. }, Value::Inf { .. }) => {
                return Special::Nan
            }
            (Value::Inf { .. }, _) | (_, Value::Inf { .. }) => {
                if x.is_neg() != y.is_neg() {
                    neg_inf = true;
                } else {
                    pos_inf = true;
                }
            }
            _ => {}
        }
    }
    match c {
        Value::Nan => return Special::Nan,
        Value::Inf { neg: true } => neg_inf = true,
        Value::Inf { neg: false } => pos_inf = true,
        _ => {}
    }
    match (pos_inf, neg_inf) {
        (true, true) => Special::Nan,
        (true, false) => Special::Inf { neg: false },
        (false, true) => Special::Inf { neg: true },
        (false, false) => Special::Finite,
    }
}
