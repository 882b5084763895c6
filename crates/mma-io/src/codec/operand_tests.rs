//! Expected bits derived by hand: sign | biased exponent | mantissa, as written beside each.

use super::*;
use mma_core::format::{
    BF16, E2M1, E2M3, E3M2, E4M3, E4M3_FNUZ, E5M2, E5M2_FNUZ, FP16, FP32, FP64, TF32, UE4M3, UE8M0,
};

fn num(s: &str) -> Number {
    parse_number(s).expect("parses").expect("a number")
}

fn exact(fmt: &Format, s: &str) -> Result<u64, OperandError> {
    encode(fmt, &num(s), None)
}

fn rounded(fmt: &Format, s: &str, m: Rounding) -> u64 {
    encode(fmt, &num(s), Some(m)).expect("rounds")
}

#[test]
fn exact_decimals_and_hex_floats() {
    // -0.75 = -1.1b × 2^-1: f16 sign 1, exponent -1+15 = 14 (01110), mantissa 1000000000
    // → 1 01110 1000000000 = 0xba00.
    assert_eq!(exact(&FP16, "-0.75"), Ok(0xba00));
    // 0x1.8p-3 = 1.1b × 2^-3 = 0.1875: f16 exponent 12 (01100) → 0 01100 1000000000 = 0x3200.
    assert_eq!(exact(&FP16, "0x1.8p-3"), Ok(0x3200));
    assert_eq!(exact(&FP16, "0.1875"), Ok(0x3200));
    assert_eq!(exact(&FP16, "1875e-4"), Ok(0x3200));
    // 1 in f32: exponent 127 (0x7f) → 0x3f800000; in bf16 the top half 0x3f80.
    assert_eq!(exact(&FP32, "1"), Ok(0x3f80_0000));
    assert_eq!(exact(&BF16, "+1.0"), Ok(0x3f80));
    // f64 0.5: exponent 1022 = 0x3fe → 0x3fe0000000000000.
    assert_eq!(exact(&FP64, ".5"), Ok(0x3fe0_0000_0000_0000));
    // tf32 lives in fp32's word with the low 13 bits zero: 1 + 2^-10 = 0x3f800000 | 1<<13.
    assert_eq!(exact(&TF32, "1.0009765625"), Ok(0x3f80_2000));
    // 1 + 2^-11 needs 11 mantissa bits: not a tf32 value.
    assert!(exact(&TF32, "1.00048828125").is_err());
}

#[test]
fn signed_zero_inf_nan() {
    assert_eq!(exact(&FP16, "0"), Ok(0x0000));
    assert_eq!(exact(&FP16, "-0"), Ok(0x8000)); // sign bit only
    assert_eq!(exact(&FP16, "-0.0e5"), Ok(0x8000));
    assert_eq!(exact(&FP16, "inf"), Ok(0x7c00)); // 0 11111 0000000000
    assert_eq!(exact(&FP16, "-Infinity"), Ok(0xfc00));
    assert_eq!(exact(&FP16, "nan"), Ok(0x7e00)); // quiet NaN: mantissa MSB set
    assert_eq!(exact(&E5M2, "-inf"), Ok(0xfc)); // 1 11111 00
                                                // FNUZ has no -0 (its code 0x80 is the NaN): -0 is the number 0, code 0x00.
    assert_eq!(exact(&E4M3_FNUZ, "-0"), Ok(0x00));
    assert_eq!(exact(&E4M3_FNUZ, "nan"), Ok(0x80));
    assert_eq!(exact(&E4M3, "nan"), Ok(0x7f)); // S.1111.111
                                               // No infinity in e4m3/FNUZ/fp6/fp4, no NaN in fp6/fp4: errors without --round.
    for (f, w) in [
        (E4M3, "inf"),
        (E5M2_FNUZ, "-inf"),
        (E2M1, "inf"),
        (E2M1, "nan"),
        (E3M2, "nan"),
    ] {
        assert!(
            matches!(exact(&f, w), Err(OperandError::NotInFormat { .. })),
            "{} {w}",
            f.name
        );
    }
    // With a mode, e4m3 follows the OCP rule without .satfinite (NaN, 0x7f); fp4 has no NaN
    // and saturates to its largest value 6 = 1.1b × 2^2 → 0 11 1 = 0x7.
    assert_eq!(rounded(&E4M3, "inf", Rounding::NearestEven), 0x7f);
    assert_eq!(rounded(&E2M1, "inf", Rounding::NearestEven), 0x7);
    assert!(encode(&E2M1, &Number::Nan, Some(Rounding::NearestEven)).is_err());
}

#[test]
fn subnormals() {
    // f16's least subnormal 2^-24 = 5.9604644775390625e-8 → 0x0001; as a hex-float 0x1p-24.
    assert_eq!(exact(&FP16, "5.9604644775390625e-8"), Ok(0x0001));
    assert_eq!(exact(&FP16, "0x1p-24"), Ok(0x0001));
    // 2^-25 is half of it: inexact; RNE ties to even → 0, RU → 0x0001, RNA → 0x0001.
    assert!(matches!(
        exact(&FP16, "0x1p-25"),
        Err(OperandError::Inexact { .. })
    ));
    assert_eq!(rounded(&FP16, "0x1p-25", Rounding::NearestEven), 0x0000);
    assert_eq!(rounded(&FP16, "0x1p-25", Rounding::NearestAway), 0x0001);
    assert_eq!(rounded(&FP16, "-0x1p-25", Rounding::NearestEven), 0x8000);
    // 3·2^-25 = 1.5 subnormal quanta: tie between 1 and 2 → even 2 → 0x0002.
    assert_eq!(rounded(&FP16, "0x3p-25", Rounding::NearestEven), 0x0002);
    // e4m3 least subnormal 2^-9 (emin -6, 3 mantissa bits) → 0x01; 0.875·2^-6 = 7·2^-9 → 0x07.
    assert_eq!(exact(&E4M3, "0.001953125"), Ok(0x01));
    assert_eq!(exact(&E4M3, "0x7p-9"), Ok(0x07));
    // Far below every format: the sticky bit alone; RU gives the least subnormal.
    assert_eq!(rounded(&FP32, "1e-99999", Rounding::Up), 0x0000_0001);
    assert_eq!(rounded(&FP32, "1e-99999", Rounding::Down), 0);
}

#[test]
fn inexact_is_an_error_naming_neighbours_and_rounds_once() {
    // 0.1 in f16: 0.1·2^14 = 1638.4 → between 1638 (0x2e66: 0 01011 1001100110) and 1639.
    let e = exact(&FP16, "0.1").unwrap_err().to_string();
    assert!(
        e.contains("0x2e66") && e.contains("0x2e67") && e.contains("f16"),
        "{e}"
    );
    assert_eq!(rounded(&FP16, "0.1", Rounding::NearestEven), 0x2e66);
    assert_eq!(rounded(&FP16, "0.1", Rounding::Up), 0x2e67);
    assert_eq!(rounded(&FP16, "-0.1", Rounding::Down), 0xae67);
    // No double rounding: 1 + 2^-11 + 2^-60 lies just above the tie between 1 (0x3c00) and
    // 1 + 2^-10 (0x3c01), so RNE goes up. Through f64 (53 bits) it would first become
    // 1 + 2^-11, an exact tie, and then go to even 0x3c00.
    assert_eq!(
        rounded(
            &FP16,
            "1.000488281250000000867361737988403547205962240695953369140625",
            Rounding::NearestEven
        ),
        0x3c01
    );
    // An exact tie ties to even: 1 + 2^-11 → 0x3c00; 1 + 3·2^-11 → 1 + 2^-9 (0x3c02).
    assert_eq!(
        rounded(&FP16, "1.00048828125", Rounding::NearestEven),
        0x3c00
    );
    assert_eq!(rounded(&FP16, "0x1.006p0", Rounding::NearestEven), 0x3c02);
    assert_eq!(
        rounded(&FP16, "1.00048828125", Rounding::NearestAway),
        0x3c01
    );
    assert_eq!(
        rounded(&FP16, "1.00048828125", Rounding::TowardZero),
        0x3c00
    );
}

#[test]
fn overflow_by_format() {
    // f16 max 65504 = 0x7bff; 65520 is the midpoint to 2^16: RNE goes to Inf, 65519 stays.
    assert_eq!(exact(&FP16, "65504"), Ok(0x7bff));
    assert_eq!(rounded(&FP16, "65519", Rounding::NearestEven), 0x7bff);
    assert_eq!(rounded(&FP16, "65520", Rounding::NearestEven), 0x7c00);
    assert_eq!(rounded(&FP16, "1e300000", Rounding::TowardZero), 0x7bff);
    let e = exact(&FP16, "1e5").unwrap_err().to_string();
    assert!(e.contains("0x7bff") && e.contains("0x7c00"), "{e}");
    // e4m3 max 448 = 1.110b × 2^8 → 0 1111 110 = 0x7e; beyond, RNE gives its NaN 0x7f.
    assert_eq!(exact(&E4M3, "448"), Ok(0x7e));
    assert_eq!(rounded(&E4M3, "500", Rounding::NearestEven), 0x7f);
    assert_eq!(rounded(&E4M3, "500", Rounding::TowardZero), 0x7e);
    let e = exact(&E4M3, "500").unwrap_err().to_string();
    assert!(e.contains("0x7e") && e.contains("no infinity"), "{e}");
    // e4m3fnuz (bias 8) max 240 = 1.111b × 2^7 → 0 1111 111 = 0x7f; its NaN is 0x80.
    assert_eq!(exact(&E4M3_FNUZ, "240"), Ok(0x7f));
    assert_eq!(rounded(&E4M3_FNUZ, "1000", Rounding::NearestEven), 0x80);
    // e5m2fnuz (bias 16) max 57344 = 1.11b × 2^15 → 0 11111 11 = 0x7f.
    assert_eq!(exact(&E5M2_FNUZ, "57344"), Ok(0x7f));
    // fp6 e3m2 max 28 = 1.11b × 2^4 → 0 111 11 = 0x1f; e2m3 max 7.5 = 1.111b × 2^2 → 0x1f.
    assert_eq!(exact(&E3M2, "28"), Ok(0x1f));
    assert_eq!(exact(&E2M3, "-7.5"), Ok(0x3f));
    // fp4 e2m1: 6 = 0x7, -0.5 (subnormal 1·2^-1) = 1 00 1 = 0x9; no NaN: saturates.
    assert_eq!(exact(&E2M1, "6"), Ok(0x7));
    assert_eq!(exact(&E2M1, "-0.5"), Ok(0x9));
    assert_eq!(rounded(&E2M1, "100", Rounding::NearestEven), 0x7);
    // Without a mode, a value above fp4's 6 is an error although RD and RU both give 6.
    let e = exact(&E2M1, "22").unwrap_err().to_string();
    assert!(
        e.contains("0x07 (6)") && e.contains("no infinity or NaN"),
        "{e}"
    );
    let e = exact(&E3M2, "-29").unwrap_err().to_string();
    assert!(
        e.contains("0x3f (-28)") && e.contains("no infinity or NaN"),
        "{e}"
    );
    assert!(exact(&E2M1, "0.25").is_err());
}

#[test]
fn scale_formats() {
    // ue8m0: 2^(e-127), no sign, no zero: 1 → 127 = 0x7f, 2^-127 → 0x00, 2^127 → 0xfe.
    assert_eq!(exact(&UE8M0, "1"), Ok(0x7f));
    assert_eq!(exact(&UE8M0, "0x1p-127"), Ok(0x00));
    assert_eq!(exact(&UE8M0, "0x1p127"), Ok(0xfe));
    assert_eq!(exact(&UE8M0, "nan"), Ok(0xff));
    for bad in ["3", "0", "-1", "0x1p-128"] {
        assert!(exact(&UE8M0, bad).is_err(), "{bad}");
    }
    // 3 with RD → 2 (0x80), RU → 4 (0x81).
    assert_eq!(rounded(&UE8M0, "3", Rounding::Down), 0x80);
    assert_eq!(rounded(&UE8M0, "3", Rounding::Up), 0x81);
    // ue4m3: unsigned e4m3: 1 → 0111 000 = 0x38; 448 → 0x7e; -0 is 0; -1 is an error.
    assert_eq!(exact(&UE4M3, "1"), Ok(0x38));
    assert_eq!(exact(&UE4M3, "448"), Ok(0x7e));
    assert_eq!(exact(&UE4M3, "-0"), Ok(0x00));
    assert!(exact(&UE4M3, "-1").is_err());
}

#[test]
fn words_bits_and_ambiguity() {
    let plain = |b: u64| Some(b);
    let c = |w: &str| classify(w, &FP16, 4, plain, None);
    assert_eq!(c("3c00"), Ok(Operand::Word("3c00".into())));
    assert_eq!(c("0x3c00"), Ok(Operand::Word("0x3c00".into())));
    assert_eq!(c("bits:3c00"), Ok(Operand::Bits(0x3c00)));
    assert_eq!(c("bits:1"), Ok(Operand::Bits(1)));
    assert!(c("bits:13c00").is_err()); // five digits
    assert_eq!(c("0x1.8p-3"), Ok(Operand::Number(num("0x1.8p-3"))));
    assert_eq!(c("1.5"), Ok(Operand::Number(num("1.5"))));
    assert_eq!(c("15"), Ok(Operand::Number(num("15"))));
    // Both a decimal and a storage word, giving different bits: an error naming both.
    for w in ["1000", "3e00", "1e10"] {
        assert!(matches!(c(w), Err(OperandError::Ambiguous { .. })), "{w}");
    }
    // Readings that agree: 0000 is +0 either way.
    assert_eq!(c("0000"), Ok(Operand::Word("0000".into())));
    // 0x without p and not all hex digits; a word that is neither.
    assert!(c("0x1.8").is_err());
    assert!(c("1.2.3").is_err());
    assert!(c("").is_err());
    // Wrong-width hex words go to the case-file reader, which names the width.
    assert_eq!(c("3f80a"), Ok(Operand::Word("3f80a".into())));
    // fp8: `40` is e4m3 2.0 as a word (0 1000 000) and 40 = 1.01b × 2^5 as a decimal
    // (0 1100 010 = 0x62): ambiguous. `38` is ambiguous too (38 itself needs --round).
    let e = classify("40", &E4M3, 2, plain, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("0x62") && e.contains("0x40"), "{e}");
    assert!(classify("38", &E4M3, 2, plain, None).is_err());
    // bits: of a sub-byte format must be a valid encoding of it: e2m1 has 4 bits.
    assert_eq!(
        classify("bits:f", &E2M1, 2, plain, None),
        Ok(Operand::Bits(0xf))
    );
    assert!(classify("bits:1f", &E2M1, 2, plain, None).is_err());
    // Overlong words are refused without slicing inside a character.
    assert!(parse_number(&"é".repeat(3000)).is_err());
    assert_eq!(rounding("RNE"), Ok(Rounding::NearestEven));
    assert!(rounding("nearest").is_err());
}
