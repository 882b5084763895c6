//! Exhaustive identities: every encoding of the small formats, converted to its exact value and
//! correctly rounded back in every direction, is the same encoding. The exact values come from
//! independent decoders (`half` for fp16/bf16, a formula written here for fp8/fp6/fp4), not from
//! the code under test; the decoders are also checked against `Format::decode` on the way.

use half::{bf16, f16};
use mma_core::format::{BF16, E2M1, E2M3, E3M2, E4M3, E5M2, FP16};
use mma_core::{Format, Rounding};
use mma_oracle::{correctly_rounded, ExactResult};

/// `(-1)^s · 2^(e − bias) · (1 + m/2^M)`, or `· (m/2^M) · 2^(1 − bias)` for subnormals, with
/// NaN/Inf per the OCP definitions; computed in f64 (exact for these widths).
fn ocp_value(fmt: &Format, bits: u64) -> f64 {
    let (eb, mb) = (fmt.exp_bits, fmt.man_bits);
    let s = if bits >> (eb + mb) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (bits >> mb) & ((1 << eb) - 1);
    let m = bits & ((1 << mb) - 1);
    let bias = (1i32 << (eb - 1)) - 1;
    match fmt.name {
        "e5m2" if e == 31 => return if m == 0 { s * f64::INFINITY } else { f64::NAN },
        "e4m3" if e == 15 && m == 7 => return f64::NAN,
        _ => {}
    }
    let frac = m as f64 / (1u64 << mb) as f64;
    if e == 0 {
        s * frac * 2f64.powi(1 - bias)
    } else {
        s * (1.0 + frac) * 2f64.powi(e as i32 - bias)
    }
}

fn round_trip(fmt: &Format, bits: u64, x: f64) {
    let exact = ExactResult::from_f64(x);
    for mode in Rounding::ALL {
        let got = correctly_rounded(&exact, fmt, mode);
        if x.is_nan() {
            assert!(fmt.decode(got).is_nan(), "{} {bits:#x}", fmt.name);
        } else {
            assert_eq!(got, bits, "{} {bits:#x} = {x:e} {mode:?}", fmt.name);
        }
    }
}

#[test]
fn fp16_all() {
    for bits in 0..=u16::MAX {
        let x = f16::from_bits(bits).to_f64();
        let d = FP16.decode(bits as u64).to_f64();
        assert!(
            d.to_bits() == x.to_bits() || (d.is_nan() && x.is_nan()),
            "decode {bits:#x}"
        );
        round_trip(&FP16, bits as u64, x);
    }
}

#[test]
fn bf16_all() {
    for bits in 0..=u16::MAX {
        let x = bf16::from_bits(bits).to_f64();
        round_trip(&BF16, bits as u64, x);
    }
}

#[test]
fn fp8_fp6_fp4_all() {
    for fmt in [E5M2, E4M3, E3M2, E2M3, E2M1] {
        let n = 1u64 << fmt.width();
        let mut finite = 0;
        for bits in 0..n {
            let x = ocp_value(&fmt, bits);
            let d = fmt.decode(bits).to_f64();
            assert!(
                d.to_bits() == x.to_bits() || (d.is_nan() && x.is_nan()),
                "{} decode {bits:#x}: {d} vs {x}",
                fmt.name
            );
            finite += x.is_finite() as u32;
            round_trip(&fmt, bits, x);
        }
        // Hand counts of the non-finite codes.
        let specials = match fmt.name {
            "e5m2" => 8, // ±Inf, 6 NaNs
            "e4m3" => 2, // ±NaN
            _ => 0,
        };
        assert_eq!(finite, n as u32 - specials, "{}", fmt.name);
    }
}

/// The largest finite values, by hand: 57344 (e5m2), 448 (e4m3), 28 (e3m2), 7.5 (e2m3), 6 (e2m1).
#[test]
fn max_values_by_hand() {
    use mma_oracle::max_finite;
    for (fmt, want) in [
        (E5M2, 57344.0),
        (E4M3, 448.0),
        (E3M2, 28.0),
        (E2M3, 7.5),
        (E2M1, 6.0),
    ] {
        assert_eq!(max_finite(&fmt).to_f64(), want, "{}", fmt.name);
    }
    // e4m3: 464 is a tie between 448 and the (NaN) code 480: RNE goes to even 448;
    // 465 rounds past it and overflows to NaN (no Inf, not saturating).
    let r = |x: f64, m| correctly_rounded(&ExactResult::from_f64(x), &E4M3, m);
    assert_eq!(r(464.0, Rounding::NearestEven), 0x7e);
    assert!(E4M3.decode(r(465.0, Rounding::NearestEven)).is_nan());
    assert_eq!(r(1e9, Rounding::TowardZero), 0x7e);
    // e2m1 (no NaN): overflow saturates to ±6.
    assert_eq!(
        correctly_rounded(&ExactResult::from_f64(-100.0), &E2M1, Rounding::NearestEven),
        0xf
    );
}
