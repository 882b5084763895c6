//! The error tolerances of the model family, in one place (the first paper's Table V:
//! Xie et al., arXiv 2511.10909), as absolute bounds for specific inputs.
//!
//! | model | bound on |model − exact| for one block |
//! | --- | --- |
//! | FMA (one product) | 0.5 ulp (RNE/RNA) or 1 ulp (directed) of the output |
//! | FMA chain of L products | (L−1)·u·ulp(2·Σ|t|) + u ulp, `u` the per-rounding ulps above |
//! | E-FDPA | one output rounding: 0.5 or 1 ulp |
//! | T-FDPA (and ST-FDPA) | (L+1)·2^(e_max−F) for the truncated summation, plus 0.5 or 1 ulp |
//! | FTZ-MulAdd | flushed inputs/products/C exactly, plus per add 0.5 ulp(fp32) + 2^−126 |
//!
//! The output-rounding ulp is taken in the binade of `|exact| + abs` (the rounded quantity may
//! have moved up a binade by the summation error), with the subnormal quantum as the floor.
//! `e_max` is computed as the model does: each operand has the exponent `e` of `x = s·2^e`
//! (`1 <= |s| < 2`, subnormals at the format's `e_sub`), a product's exponent is the sum of its
//! operands' (and scales') exponents, and zero terms get `e_zero`. Bounds are per block: call
//! [`bound_for`] with one block's operands (L = `a.len()`).

use crate::exact::{dyadic, dyadic_sum, pow2, signed_integer, ExactResult};
use crate::rounding::{max_finite, quantum};
use mma_core::exact_dot::Product;
use mma_core::format::FP32;
use mma_core::{Format, Formats, Rounding, Value};
use rug::{Integer, Rational};

/// A model of the family with the parameters its error bound depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// A chain of IEEE fused multiply-adds in the output precision.
    Fma { mode: Rounding },
    /// Exact fused dot product, rounded once.
    EFdpa { mode: Rounding },
    /// Truncated fused dot product: `f` fraction bits below `e_max`, zero terms at `e_zero`,
    /// output rounding `mode`.
    TFdpa { f: u32, e_zero: i32, mode: Rounding },
    /// AMD CDNA2 FTZ-MulAdd: flushes, fp32 products, fp32 RNE adds with flushed results.
    FtzMulAdd,
}

/// Error allowed in output-format ulps by one rounding in `mode`: 0.5 to nearest, 1 directed.
pub fn rounding_ulps(mode: Rounding) -> f64 {
    match mode {
        Rounding::NearestEven | Rounding::NearestAway => 0.5,
        Rounding::TowardZero | Rounding::Down | Rounding::Up => 1.0,
    }
}

/// A bound `abs + out_ulps · ulp_out(|exact| + abs)` on |model − exact|.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub abs: Rational,
    pub out_ulps: f64,
}

impl Bound {
    /// The bound as one absolute number for the exact value `x` in output format `out`.
    pub fn limit(&self, x: &Rational, out: &Format) -> Rational {
        let reach = x.clone().abs() + &self.abs;
        let q = quantum(out, &reach);
        let u = Rational::from_f64(self.out_ulps).expect("finite ulps");
        &self.abs + u * q
    }

    /// Whether the model's output word `model` (format `out`) is within the bound of `exact`.
    /// Specials must match (NaN for NaN, Inf of the same sign); an infinite model result is
    /// admitted for a finite exact value only where the bound reaches past the largest finite.
    pub fn admits(&self, model: u64, exact: &ExactResult, out: &Format) -> bool {
        let mv = out.decode(model);
        match exact {
            ExactResult::Nan => mv.is_nan(),
            ExactResult::Inf { neg } => mv == Value::Inf { neg: *neg },
            ExactResult::Finite { value, .. } => match mv {
                Value::Nan => false,
                Value::Inf { neg } => {
                    neg == value.is_negative()
                        && value.clone().abs() + self.limit(value, out) > max_finite(out)
                }
                _ => {
                    let m = ExactResult::from_value(mv);
                    let err = Rational::from(m.value().expect("finite") - value).abs();
                    err <= self.limit(value, out)
                }
            },
        }
    }
}

/// One summand of a block: its exact value and the exponent the model aligns it on (`None`
/// for zeros and specials), with the value's magnitude as an integer at an exponent
/// (`|value| = mag · 2^at`) for the exact sum of magnitudes.
struct Summand {
    value: Rational,
    exp: Option<i32>,
    mag: (Integer, i32),
}

/// The summand whose factors are these storage words: their product (0 where any is zero or
/// special: [`Product::of`]), and the sum of their exponents `e` of `x = s·2^e` (`1 <= |s| < 2`,
/// subnormals at the format's `e_sub`).
fn summand<const N: usize>(ops: [(Format, u64); N]) -> Summand {
    let values = ops.map(|(fmt, bits)| fmt.decode(bits));
    match Product::of(values) {
        Product::Finite { neg, mag, exp: e } => {
            // floor(log2 (sig · 2^exp)) of each factor, at least its format's smallest normal
            // exponent.
            let exp = ops
                .iter()
                .zip(values)
                .map(|((fmt, _), v)| match v {
                    Value::Finite { sig, exp, .. } => {
                        (exp + 63 - sig.leading_zeros() as i32).max(fmt.emin())
                    }
                    // (Every factor of a finite product is finite.)
                    _ => 0,
                })
                .sum();
            let m = signed_integer(neg, &mag);
            Summand {
                value: dyadic(m.clone(), e),
                exp: Some(exp),
                mag: (m.abs(), e),
            }
        }
        // Zero products and specials count as zero here.
        _ => Summand {
            value: Rational::new(),
            exp: None,
            mag: (Integer::new(), 0),
        },
    }
}

fn summands(f: &Formats, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> Vec<Summand> {
    let mut out = Vec::with_capacity(a.len() + 1);
    for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
        out.push(match f.scale {
            Some((sf, per)) => summand([(f.a, x), (f.b, y), (sf, sa[k / per]), (sf, sb[k / per])]),
            None => summand([(f.a, x), (f.b, y)]),
        });
    }
    out.push(summand([(f.c, c)]));
    out
}

/// The Table V bound of `kind` for one block with these operands (storage words of `formats`,
/// without scale factors: [`bound_for_scaled`] takes them).
pub fn bound_for(kind: &ModelKind, formats: &Formats, a: &[u64], b: &[u64], c: u64) -> Bound {
    bound_for_scaled(kind, formats, a, b, c, &[], &[])
}

/// The Table V bound of `kind` for one block with these operands and scale factors (storage
/// words of `formats`).
pub fn bound_for_scaled(
    kind: &ModelKind,
    formats: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    scale_a: &[u64],
    scale_b: &[u64],
) -> Bound {
    let terms = summands(formats, a, b, c, scale_a, scale_b);
    let mags: Vec<(Integer, i32)> = terms.iter().map(|t| t.mag.clone()).collect();
    let sum_abs = dyadic_sum(&mags);
    let twice = Rational::from(&sum_abs * 2u32);
    match *kind {
        ModelKind::EFdpa { mode } => Bound {
            abs: Rational::new(),
            out_ulps: rounding_ulps(mode),
        },
        ModelKind::Fma { mode } => {
            let u = rounding_ulps(mode);
            let steps = a.len().saturating_sub(1) as u32;
            let q = quantum(&formats.d, &twice);
            Bound {
                abs: q * Rational::from_f64(u).expect("finite") * steps,
                out_ulps: u,
            }
        }
        ModelKind::TFdpa { f, e_zero, mode } => {
            let e_max = terms
                .iter()
                .map(|t| t.exp.unwrap_or(e_zero))
                .max()
                .unwrap_or(e_zero);
            let l_plus_1 = terms.len() as u32;
            Bound {
                abs: pow2(e_max - f as i32) * l_plus_1,
                out_ulps: rounding_ulps(mode),
            }
        }
        ModelKind::FtzMulAdd => {
            let mut abs = Rational::new();
            let (np, nc) = (terms.len() - 1, terms.len() - 1);
            for (k, t) in terms.iter().enumerate() {
                let flushed = if k < np {
                    let sub = |fmt: &Format, bits: u64| matches!(fmt.decode(bits), Value::Finite { sig, .. } if sig >> fmt.man_bits == 0);
                    sub(&formats.a, a[k])
                        || sub(&formats.b, b[k])
                        || (!t.value.is_zero() && t.value.clone().abs() < pow2(FP32.emin()))
                } else {
                    debug_assert_eq!(k, nc);
                    matches!(formats.c.decode(c), Value::Finite { sig, .. } if sig >> formats.c.man_bits == 0)
                };
                if flushed {
                    abs += t.value.clone().abs();
                }
            }
            let per_add = quantum(&FP32, &twice) / 2u32 + pow2(FP32.emin());
            abs += per_add * (np as u32).max(1);
            Bound { abs, out_ulps: 0.0 }
        }
    }
}
