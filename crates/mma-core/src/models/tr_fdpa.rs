//! TR-FDPA: truncated fused dot product with a late, rounded-down C (AMD CDNA3 fp16, bf16 and
//! xf32 matrix cores).
//!
//! For one block of at most `L_max` products (8 for fp16/bf16, 4 for xf32):
//!
//! 1. Every product is exact. A product of magnitude at least `2^128` becomes ±Inf before
//!    summation (the AMD paper, CDNA3); zero products
//!    take no part in the alignment (mmasim gives them exponent -999).
//! 2. The non-zero products are aligned to their largest exponent `e_dot` and truncated toward
//!    zero to `F = 24` fraction bits, then summed exactly.
//! 3. C joins late: `e_max = max(e_dot, e_c)` where a zero C counts as exponent `e_zero_c =
//!    -126` (the AMD paper: "a zero C is treated as exponent -126"). The product sum is rounded
//!    down (toward -Inf) to `F2 + 1 = 32` fraction bits at `e_max`, C rounded down to `F = 24`.
//! 4. The two are added exactly, normalised (subnormal-aware: the exponent does not go below
//!    -126), rounded down to `F2 = 31` fraction bits, and finally rounded to fp32 with RNE.
//!
//! Sources: the AMD paper (Khattak, Mikaitis, Graziani, "Accurate Models of AMD Matrix Cores",
//! CDNA 3 section: "aligned with one extra bit ... C is added late ... rounded down to 24 ...
//! rounded down to 32, then rounded down again after a subnormal-aware normalize, then RNE"),
//! which also confirms that mmasim's widths (24/32/31) are right and the first paper's 31-bit
//! text is not; the AMD paper's CDNA3 section; mmasim 2.1.1 `MMA_TR_FDPA`.
//!
//! Signed zero: steps 2 to 4 are two's-complement fixed-point sums, which have no negative zero,
//! so an exact zero sum is +0 whatever the signs of the zero inputs (mmasim agrees). A negative
//! sum too small for fp32 still rounds to -0 in the final RNE step, as IEEE conversion does.
//! Rounding toward -Inf makes the unit asymmetric in sign: `a·b + c` and `-(−a·b − c)` differ.

use crate::format::{Format, Specials};
use crate::model::WHY_NAN;
use crate::model::{decode_into, special, untraced_block, BlockIn, Formats, Output, MAX_BLOCK};
use crate::round::{convert, round, Exact, RoundOpts, Rounding};
use crate::term::{Special, Term};
use crate::trace::{labelled, round_step, Labels, NoTrace, Step, TermInfo, Tracer};
use crate::value::Value;

/// Parameters of a TR-FDPA unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrFdpa {
    /// Fraction bits of the truncated product alignment and of the rounded-down C (24).
    pub f: u32,
    /// Fraction bits of the rounded-down normalised sum (31); the product sum is rounded down
    /// to `f2 + 1` bits before C is added.
    pub f2: u32,
    /// Exponent a zero C counts with (-126).
    pub e_zero_c: i32,
    /// Smallest exponent of the normalisation in step 4 (-126: fp32's subnormal exponent).
    pub e_norm_min: i32,
    /// Products of magnitude `>= 2^t` become Inf (`Some(128)` on CDNA3).
    pub product_inf_exp: Option<i32>,
    /// Final rounding (RNE to fp32), NaN pattern and zero convention.
    pub out: Output,
}

/// The first-stage product sum: `sum · 2^(e - f)`, the products aligned to exponent `e`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotSum {
    pub sum: i128,
    pub e: i32,
}

/// Floor of `x / 2^shift` for `shift >= 0` (arithmetic shift, saturating for huge shifts),
/// or `x · 2^-shift` for negative `shift` (the callers bound the left shifts to a few bits).
#[inline]
pub(crate) fn floor_shift(x: i128, shift: i32) -> i128 {
    if shift <= 0 {
        x << (-shift).min(64)
    } else if shift >= 127 {
        if x < 0 {
            -1
        } else {
            0
        }
    } else {
        x >> shift
    }
}

/// Aligns the non-zero terms to their largest exponent and truncates each toward zero to `f`
/// fraction bits; `None` when every term is zero.
#[inline]
pub fn truncated_dot(terms: &[Term], f: u32) -> Option<DotSum> {
    truncated_dot_traced(terms, f, &mut NoTrace)
}

/// [`truncated_dot`], telling `t` the aligned terms.
#[inline]
pub fn truncated_dot_traced<T: Tracer>(terms: &[Term], f: u32, t: &mut T) -> Option<DotSum> {
    let e = terms.iter().filter(|t| !t.is_zero()).map(|t| t.e).max()?;
    let quantum = e - f as i32;
    let sum = terms.iter().map(|t| t.truncated(quantum)).sum();
    t.step(|| Step::Align {
        terms: labelled(terms, Labels::Products),
        e_max: e,
        f,
        quantum,
        kept: terms.iter().map(|x| x.truncated(quantum)).collect(),
    });
    Some(DotSum { sum, e })
}

/// Why an Inf decides a TR-FDPA block.
const WHY_INF_PRODUCT: &str = "an Inf term or a product of magnitude >= 2^128 (all of one sign)";

/// Widths of the late C addition (see [`TrFdpa`]'s fields).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LateC {
    pub f: u32,
    pub f2: u32,
    pub e_zero_c: i32,
    pub e_norm_min: i32,
    pub c_drop: Option<u32>,
}

/// The late addition of C shared by TR-FDPA and GTR-FDPA (steps 3 and 4 above), returning the
/// rounded-down intermediate before the final rounding. `c_drop`: C is ignored when its
/// exponent is below `e_max - c_drop` (GTR-FDPA only).
#[inline]
pub(crate) fn late_c<T: Tracer>(
    dot: Option<DotSum>,
    c: Value,
    c_fmt: &Format,
    p: &LateC,
    t: &mut T,
) -> Value {
    let LateC {
        f,
        f2,
        e_zero_c,
        e_norm_min,
        c_drop,
    } = *p;
    let ct = Term::of_value(c, c_fmt, e_zero_c);
    let e_max = dot.map_or(ct.e, |d| d.e.max(ct.e));
    // The product sum is a multiple of 2^q2, C a multiple of 2^q3. On the hardware (F = 24,
    // F2 = 31) q3 > q2; a unit file may ask for F > F2 + 1, where C keeps finer bits than the
    // product sum. Both parts are counted in units of 2^q, the finer of the two grids, so
    // that the sum is exact either way (and unchanged where q3 >= q2).
    let q2 = e_max - (f2 as i32 + 1);
    let q3 = e_max - f as i32;
    let q = q2.min(q3);
    let dot_part = dot.map_or(0, |d| floor_shift(d.sum, q2 - (d.e - f as i32)) << (q2 - q));
    let c_signed = if ct.neg {
        -(ct.sig as i128)
    } else {
        ct.sig as i128
    };
    let dropped = c_drop.is_some_and(|d| ct.e < e_max - d as i32);
    let c_part = if ct.is_zero() || dropped {
        0
    } else {
        floor_shift(c_signed, q3 - ct.lsb) << (q3 - q)
    };
    t.step(|| Step::LateC {
        c: TermInfo::of(crate::trace::Source::C, &ct),
        e_dot: dot.map(|d| d.e),
        e_max,
        q2,
        dot_part,
        q3,
        c_part,
        c_dropped: dropped,
    });
    let total = dot_part + c_part;
    let exact = Exact {
        neg: total < 0,
        mag: total.unsigned_abs(),
        exp: q,
        sticky: false,
    };
    t.step(|| Step::Sum {
        exact: exact.into(),
    });
    if total == 0 {
        return Value::POS_ZERO;
    }
    let fmt = intermediate(f2, e_norm_min);
    let v = round(&fmt, exact, Rounding::Down, RoundOpts::IEEE);
    t.step(|| round_step(&fmt, exact, Rounding::Down, v));
    v
}

/// The normalised intermediate of step 4: `f2` fraction bits, exponents from `e_norm_min` up
/// with room to spare (10 exponent bits), so that only the final rounding can overflow.
fn intermediate(f2: u32, e_norm_min: i32) -> Format {
    Format {
        name: "tr-intermediate",
        exp_bits: 10,
        man_bits: f2,
        bias: 1 - e_norm_min,
        signed: true,
        specials: Specials::Ieee,
        subnormals: true,
        storage_bits: 64,
        lsb: 0,
        integer: false,
    }
}

/// IEEE-style special scan in which a finite product of magnitude `>= 2^inf_exp` counts as an
/// infinity of its sign.
#[inline]
pub(crate) fn scan_with_product_overflow(
    a: &[Value],
    fa: &Format,
    b: &[Value],
    fb: &Format,
    c: Value,
    inf_exp: Option<i32>,
) -> Special {
    let (mut pos, mut neg) = (false, false);
    for (x, y) in a.iter().zip(b) {
        let inf = match (x, y) {
            (Value::Nan, _) | (_, Value::Nan) => return Special::Nan,
            (Value::Inf { .. }, Value::Zero { .. }) | (Value::Zero { .. }, Value::Inf { .. }) => {
                return Special::Nan
            }
            (Value::Inf { .. }, _) | (_, Value::Inf { .. }) => true,
            (Value::Finite { .. }, Value::Finite { .. }) => inf_exp.is_some_and(|t| {
                // The leading bit of the product has weight 2^(lsb + bit length - 1).
                let p = Term::product(*x, fa, *y, fb, 0);
                let top = p.lsb + (63 - p.sig.leading_zeros() as i32);
                top >= t
            }),
            _ => false,
        };
        if inf {
            if x.is_neg() != y.is_neg() {
                neg = true;
            } else {
                pos = true;
            }
        }
    }
    match c {
        Value::Nan => return Special::Nan,
        Value::Inf { neg: true } => neg = true,
        Value::Inf { neg: false } => pos = true,
        _ => {}
    }
    match (pos, neg) {
        (true, true) => Special::Nan,
        (true, false) => Special::Inf { neg: false },
        (false, true) => Special::Inf { neg: true },
        (false, false) => Special::Finite,
    }
}

impl TrFdpa {
    /// Final rounding of the intermediate and encoding.
    #[inline]
    pub(crate) fn finish<T: Tracer>(out: &Output, d: &Format, v: Value, t: &mut T) -> u64 {
        let (fmt, mode) = (&out.rho.fmt, out.rho.mode);
        let r = convert(fmt, v, mode, out.rho.opts);
        if let Value::Finite { neg, sig, exp } = v {
            let x = Exact {
                neg,
                mag: sig as u128,
                exp,
                sticky: false,
            };
            t.step(|| round_step(fmt, x, mode, r));
        }
        out.encode(d, r)
    }
}

untraced_block!(TrFdpa);

impl TrFdpa {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let n = x.a.len().min(x.b.len()).min(MAX_BLOCK);
        let mut av = [Value::Nan; MAX_BLOCK];
        let mut bv = [Value::Nan; MAX_BLOCK];
        let a = decode_into(&f.a, &x.a[..n], &mut av);
        let b = decode_into(&f.b, &x.b[..n], &mut bv);
        let c = x.c_fmt.decode(x.c);
        match scan_with_product_overflow(a, &f.a, b, &f.b, c, self.product_inf_exp) {
            Special::Finite => {}
            Special::Nan => return special(f, &self.out, Value::Nan, WHY_NAN, t),
            Special::Inf { neg } => {
                let v = Value::Inf { neg };
                return special(f, &self.out, v, WHY_INF_PRODUCT, t);
            }
        }
        let mut terms = [Term::ZERO; MAX_BLOCK];
        for k in 0..n {
            terms[k] = Term::product(a[k], &f.a, b[k], &f.b, 0);
        }
        let dot = truncated_dot_traced(&terms[..n], self.f, t);
        let p = LateC {
            f: self.f,
            f2: self.f2,
            e_zero_c: self.e_zero_c,
            e_norm_min: self.e_norm_min,
            c_drop: None,
        };
        let v = late_c(dot, c, x.c_fmt, &p, t);
        Self::finish(&self.out, &f.d, v, t)
    }
}

/// Checks of this module's private steps, run by `tests/internal_checks.rs` (compiled only with
/// the `internal-checks` feature, which the crate's own tests turn on: the library is then
/// compiled once for the tests instead of a second time as a unit-test harness).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks {
    use super::*;
    use crate::format::FP32;

    pub fn floor_shift_rounds_toward_minus_infinity() {
        // -5 / 4 = -1.25 -> -2; 5 / 4 -> 1; shifts past the width give 0 or -1.
        assert_eq!(floor_shift(-5, 2), -2);
        assert_eq!(floor_shift(5, 2), 1);
        assert_eq!(floor_shift(3, -3), 24);
        assert_eq!(floor_shift(-1, 500), -1);
        assert_eq!(floor_shift(7, 500), 0);
    }

    pub fn zero_c_counts_at_its_e_zero() {
        // One product -2^-140 (sig 1, exponent -140) and C = +0 with e_zero_c = -126: e_max is
        // -126, the product is a multiple of 2^-158 and survives: -2^-140 rounded down at 31
        // fraction bits is exact. With e_zero_c = -100, e_max = -100 and the product floors to
        // -2^-132 (the quantum 2^(-100-32)); the intermediate is then -2^-132.
        let dot = Some(DotSum {
            sum: -(1 << 24),
            e: -140,
        });
        let p = |e_zero_c| LateC {
            f: 24,
            f2: 31,
            e_zero_c,
            e_norm_min: -126,
            c_drop: None,
        };
        let v = late_c(dot, Value::POS_ZERO, &FP32, &p(-126), &mut NoTrace);
        assert_eq!(v.to_f64(), -(2f64.powi(-140)));
        let v = late_c(dot, Value::POS_ZERO, &FP32, &p(-100), &mut NoTrace);
        assert_eq!(v.to_f64(), -(2f64.powi(-132)));
    }

    pub fn exact_cancellation_is_positive_zero() {
        // Product sum 1 and C = -1: two's-complement zero, +0.
        let dot = Some(DotSum { sum: 1 << 24, e: 0 });
        let p = LateC {
            f: 24,
            f2: 31,
            e_zero_c: -126,
            e_norm_min: -126,
            c_drop: None,
        };
        let c = FP32.decode(0xbf80_0000);
        assert_eq!(late_c(dot, c, &FP32, &p, &mut NoTrace), Value::POS_ZERO);
    }
}
