//! The exact result of a dot product, `Σ a_k·b_k·scale_a[k/n]·scale_b[k/n] + c` over the
//! decoded operands (the core's [`ExactDot`]), as one big integer times a power of two for its
//! digits (`num-bigint`; no MPFR needed), and the error of a model's D against it in ulps of D's
//! format.

use mma_core::format::FP64;
use mma_core::round::{round, Exact, RoundOpts, Rounding};
use mma_core::{ExactDot, Formats, Value};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Signed, ToPrimitive, Zero};

/// An exact dot-product result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactSum {
    Nan,
    Inf {
        neg: bool,
    },
    /// `value · 2^exp` (zero when `value` is 0).
    Finite {
        value: BigInt,
        exp: i64,
    },
}

/// The exact sum of the products of `a` and `b` and `c`, for storage words of `formats`
/// (`formats.c` for `c`), formats without block scales ([`exact_dot_scaled`] takes them).
pub fn exact_dot(f: &Formats, a: &[u64], b: &[u64], c: u64) -> ExactSum {
    ExactSum::from(&ExactDot::of(f, a, b, c))
}

/// The exact sum of the products of `a` and `b` with their block scales (`sa`, `sb`: one per
/// `n` elements of `formats.scale = Some((fmt, n))`) and `c`, for storage words of `formats`
/// (`formats.c` for `c`): the core's [`ExactDot`] as one big integer.
pub fn exact_dot_scaled(
    f: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    sa: &[u64],
    sb: &[u64],
) -> ExactSum {
    ExactSum::from(&ExactDot::of_scaled(f, a, b, c, sa, sb))
}

/// The exact result of `unit`'s dot product: the core's exact sum of what the unit sums
/// ([`ExactDot::of_unit`]: products, or for a `.xor.popc` unit the XORs of the bits).
pub fn exact_unit(
    unit: &mma_core::DotUnit,
    a: &[u64],
    b: &[u64],
    c: u64,
    sa: &[u64],
    sb: &[u64],
) -> ExactSum {
    ExactSum::from(&ExactDot::of_unit(unit, a, b, c, sa, sb))
}

impl From<&ExactDot> for ExactSum {
    fn from(x: &ExactDot) -> ExactSum {
        match x {
            ExactDot::Nan => ExactSum::Nan,
            ExactDot::Inf { neg } => ExactSum::Inf { neg: *neg },
            ExactDot::Finite { neg, mag, exp, .. } => {
                let digits = mag.iter().flat_map(|l| [*l as u32, (*l >> 32) as u32]);
                let mag = BigUint::new(digits.collect());
                ExactSum::Finite {
                    value: BigInt::from_biguint(if *neg { Sign::Minus } else { Sign::Plus }, mag),
                    exp: *exp as i64,
                }
            }
        }
    }
}

impl ExactSum {
    /// The exact value as a decimal (`nan`, `inf`, or every digit).
    pub fn decimal(&self) -> String {
        match self {
            ExactSum::Nan => "nan".into(),
            ExactSum::Inf { neg } => if *neg { "-inf" } else { "inf" }.into(),
            ExactSum::Finite { value, exp } => {
                super::decimal::exact_decimal(value.is_negative(), value.magnitude(), *exp)
            }
        }
    }

    /// The exact value as a C99 hex-float.
    pub fn hex(&self) -> String {
        match self {
            ExactSum::Finite { value, exp } => {
                super::decimal::hex_float(value.is_negative(), value.magnitude(), *exp)
            }
            other => other.decimal(),
        }
    }
}

/// `x·2^e` as the nearest `f64` (ties to even), rounded once by the core's rounding routine
/// from the top 120 bits and a sticky bit for the rest; beyond `f64`'s range, ±Inf or ±0.
fn scaled(x: &BigInt, e: i64) -> f64 {
    let neg = x.is_negative();
    let mag = x.magnitude();
    let bits = mag.bits() as i64;
    if bits == 0 {
        return 0.0;
    }
    // Far outside f64's exponents (2^-1074 to 2^1024), the answer is a zero or an infinity
    // whatever the digits; the bound keeps the exponent below in an `i32`.
    let top_exp = bits + e;
    if !(-2000..=2000).contains(&top_exp) {
        let v = if top_exp > 0 { f64::INFINITY } else { 0.0 };
        return if neg { -v } else { v };
    }
    let drop = (bits - 120).max(0);
    let top = (mag >> drop as u64).to_u128().unwrap_or(u128::MAX);
    let sticky = drop > 0 && mag.trailing_zeros().unwrap_or(0) < drop as u64;
    let exact = Exact {
        neg,
        mag: top,
        exp: (e + drop) as i32,
        sticky,
    };
    round(&FP64, exact, Rounding::NearestEven, RoundOpts::IEEE).to_f64()
}

/// `(D − exact)` in ulps of D's format at the exact value's binade (the subnormal quantum at
/// the bottom), signed. Zeros are equal whatever their sign; NaN against NaN and an infinity
/// against the same infinity are 0; any other mismatch with a special is infinite (`None`).
///
/// The one ulp error outside the oracle (`mma dot`, `mma compare`; the Python package keeps
/// [`ulps_exact`] exact): [`ulps_exact`] rounded once to the nearest `f64`. The oracle's
/// `error_report` measures the same quantum over MPFR rationals, below this crate, and rounds
/// to the nearest `f64` as well, so the two agree to the bit.
pub fn ulp_error(d_fmt: &mma_core::Format, d: u64, exact: &ExactSum) -> Option<f64> {
    match (exact, d_fmt.decode(d)) {
        (ExactSum::Nan, Value::Nan) => Some(0.0),
        (ExactSum::Inf { neg }, Value::Inf { neg: m }) if *neg == m => Some(0.0),
        (ExactSum::Finite { value, exp }, _) => {
            ulps_exact(d_fmt, d, value, *exp).map(|(m, e)| scaled(&m, e))
        }
        _ => None,
    }
}

/// [`ulp_error`] of a finite exact value `value·2^exp`, exactly: the error in ulps as
/// `m·2^e`, `(m, e)`, before any rounding to `f64` (for callers that keep it exact). `None`
/// where D is not finite (an infinite error).
pub fn ulps_exact(
    d_fmt: &mma_core::Format,
    d: u64,
    value: &BigInt,
    exp: i64,
) -> Option<(BigInt, i64)> {
    let (dm, de) = match d_fmt.decode(d) {
        Value::Finite { neg, sig, exp } => {
            let s = BigInt::from(sig);
            (if neg { -s } else { s }, exp as i64)
        }
        Value::Zero { .. } => (BigInt::zero(), exp),
        Value::Nan | Value::Inf { .. } => return None,
    };
    let lo = de.min(exp);
    let diff = (dm << (de - lo) as usize) - (value << (exp - lo) as usize);
    // Quantum exponent: floor(log2 |exact|) - m, at least emin - m.
    let floor_log2 = if value.is_zero() {
        i64::MIN
    } else {
        value.bits() as i64 - 1 + exp
    };
    // An integer format's quantum is 1 everywhere.
    let q = if d_fmt.integer {
        0
    } else {
        floor_log2.max(d_fmt.emin() as i64) - d_fmt.man_bits as i64
    };
    Some((diff, lo - q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mma_core::format::{E4M3, FP16, FP32, UE8M0};

    #[test]
    fn scaled_rounds_once_to_the_nearest_f64() {
        let one = || BigInt::from(1);
        // 2^70 + 2^17 + 1: f64's ulp at 2^70 is 2^18 and the part below it, 2^17 + 1, is
        // above half an ulp, so the nearest f64 is 2^70 + 2^18. (Cutting to the top 64 bits
        // first loses the final 1, and the tie then goes down to 2^70.)
        let x = (one() << 70u32) + (one() << 17u32) + 1;
        assert_eq!(
            scaled(&x, 0).to_bits(),
            (2f64.powi(70) + 2f64.powi(18)).to_bits()
        );
        // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: ties to even, 2^53.
        assert_eq!(scaled(&((one() << 53u32) + 1), 0), 2f64.powi(53));
        // 3·2^-1076 = 0.75 of the least subnormal 2^-1074: rounds up to it (word 1).
        assert_eq!(scaled(&BigInt::from(3), -1076).to_bits(), 1);
        // 2^1024 is past f64's largest finite value: -Inf for the negative.
        assert_eq!(scaled(&-(one() << 1024u32), 0), f64::NEG_INFINITY);
        // -2^-3000: below every subnormal, a negative zero.
        assert_eq!(
            scaled(&BigInt::from(-1), -3000).to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(scaled(&BigInt::from(0), 5).to_bits(), 0);
    }

    fn f(a: mma_core::Format, c: mma_core::Format) -> Formats {
        Formats {
            a,
            b: a,
            c,
            d: c,
            scale: None,
        }
    }

    #[test]
    fn sums_are_exact() {
        // 1·1 + 2^-24·1 + f32 2^24 (0x4b800000) = 2^24 + 1 + 2^-24: 49 bits, no rounding.
        let x = exact_dot(
            &f(FP16, FP32),
            &[0x3c00, 0x0001],
            &[0x3c00, 0x3c00],
            0x4b80_0000,
        );
        assert_eq!(x.hex(), "0x1.000001000001p+24");
        assert_eq!(x.decimal(), "16777217.000000059604644775390625");
        // Inf·0 is NaN; +Inf and -Inf together are NaN; one Inf wins over finite terms.
        let ff = f(FP16, FP32);
        assert_eq!(exact_dot(&ff, &[0x7c00], &[0x0000], 0), ExactSum::Nan);
        assert_eq!(
            exact_dot(&ff, &[0x7c00, 0xfc00], &[0x3c00, 0x3c00], 0),
            ExactSum::Nan
        );
        assert_eq!(
            exact_dot(&ff, &[0xfc00], &[0x3c00], 0x3f80_0000),
            ExactSum::Inf { neg: true }
        );
        // Scales: e4m3 1.0 (0x38) times ue8m0 2^1 (0x80) and 2^-1 (0x7e): 1.
        let sc = Formats {
            scale: Some((UE8M0, 32)),
            ..f(E4M3, FP32)
        };
        let x = exact_dot_scaled(&sc, &[0x38], &[0x38], 0, &[0x80], &[0x7e]);
        assert_eq!(x.decimal(), "1");
    }

    #[test]
    fn ulps_at_the_exact_binade() {
        // exact 1 + 2^-30; f32 D = 1 (0x3f800000): error -2^-30 / 2^-23 = -2^-7.
        let x = ExactSum::Finite {
            value: BigInt::from((1u64 << 30) + 1),
            exp: -30,
        };
        assert_eq!(ulp_error(&FP32, 0x3f80_0000, &x), Some(-1.0 / 128.0));
        // D one ulp up (0x3f800001 = 1 + 2^-23): (2^-23 - 2^-30)/2^-23 = 1 - 2^-7.
        assert_eq!(ulp_error(&FP32, 0x3f80_0001, &x), Some(1.0 - 1.0 / 128.0));
        assert_eq!(ulp_error(&FP32, 0x7f80_0000, &x), None);
        // Exactly: D − exact = (2^23 + 1)·2^-23 − (2^30 + 1)·2^-30 = (2^7 − 1)·2^-30, over the
        // quantum 2^-23: 127·2^-7.
        let one_up = ulps_exact(&FP32, 0x3f80_0001, &BigInt::from((1u64 << 30) + 1), -30);
        assert_eq!(one_up, Some((BigInt::from(127), -7)));
        let z = ExactSum::Finite {
            value: BigInt::zero(),
            exp: 0,
        };
        // Zero exact: the quantum is the subnormal one, 2^-149; D = +0 is 0 ulps.
        assert_eq!(ulp_error(&FP32, 0x8000_0000, &z), Some(0.0));
        assert_eq!(ulp_error(&FP32, 0x0000_0001, &z), Some(1.0));
    }
}
