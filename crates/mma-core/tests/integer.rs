//! The integer formats and I-DPA, the integer dot product: expected words derived by hand,
//! the arithmetic written beside each case.

use mma_core::catalog::{Layout, Misfit};
use mma_core::format::{self, B1, FP32, S32, S4, S8, U4, U8};
use mma_core::models::int_dpa::{IDpa, IntOp};
use mma_core::unit_file::UnitFile;
use mma_core::{DotUnit, Formats, Model, Value};

fn unit(a: format::Format, b: format::Format, k: usize, op: IntOp, saturate: bool) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c: S32,
            d: S32,
            scale: None,
        },
        block: k,
        model: Model::IDpa(IDpa { op, saturate }),
    }
}

#[test]
fn twos_complement_words_decode_and_encode() {
    // s8: 0x7f = 127, 0x80 = -128, 0xff = -1; u8: 0xff = 255.
    assert_eq!(S8.int_value(0x7f), Some(127));
    assert_eq!(S8.int_value(0x80), Some(-128));
    assert_eq!(S8.int_value(0xff), Some(-1));
    assert_eq!(U8.int_value(0xff), Some(255));
    // s4: 0x8 = -8, 0x7 = 7; u4: 0xf = 15; b1: 1.
    assert_eq!(S4.int_value(0x8), Some(-8));
    assert_eq!(S4.int_value(0x7), Some(7));
    assert_eq!(U4.int_value(0xf), Some(15));
    assert_eq!(B1.int_value(1), Some(1));
    // s32: 0x80000000 = -2^31.
    assert_eq!(S32.int_value(0x8000_0000), Some(-(1 << 31)));
    assert_eq!(FP32.int_value(0x3f80_0000), None);
    assert_eq!(
        S8.decode(0x80),
        Value::Finite {
            neg: true,
            sig: 128,
            exp: 0
        }
    );
    assert_eq!(S8.decode(0), Value::POS_ZERO);
    // Words of values, and none outside the range or off the integers.
    assert_eq!(S8.int_word(-1), Some(0xff));
    assert_eq!(S8.int_word(128), None);
    assert_eq!(U8.int_word(-1), None);
    assert_eq!(S4.int_word(-8), Some(0x8));
    assert_eq!(S4.int_word(8), None);
    assert_eq!(S8.encode_exact(Value::from_f64(-128.0)), Some(0x80));
    assert_eq!(S8.encode_exact(Value::from_f64(0.5)), None);
    assert_eq!(S8.encode_exact(Value::from_f64(-0.0)), Some(0));
    assert_eq!(S8.encode_exact(Value::Nan), None);
    assert_eq!(S8.encode_exact(Value::Inf { neg: false }), None);
    // 2^40 = sig 1, exp 40: an integer, far outside s32.
    assert_eq!(S32.encode_exact(Value::from_f64(1099511627776.0)), None);
    // Valid words: no bits above the width.
    assert!(S4.is_valid_encoding(0xf) && !S4.is_valid_encoding(0x10));
    assert!(B1.is_valid_encoding(1) && !B1.is_valid_encoding(2));
    for name in ["s8", "int8", "u8", "s4", "u4", "b1", "s32", "int32"] {
        assert!(format::by_name(name).is_some_and(|f| f.integer), "{name}");
    }
}

#[test]
fn s8_wraps_or_saturates_once() {
    // 16 products 127·127 = 16129 each: 258064; plus C = 2^31 - 1 = 2147483647 gives
    // 2147741711, which is 2^31 + 258063 = 0x8003_F00F as a 32-bit word (wrapped: the s32
    // value -2147225585); saturated: 0x7fff_ffff.
    let a = [0x7f; 16];
    let wrap = unit(S8, S8, 16, IntOp::Mul, false);
    let sat = unit(S8, S8, 16, IntOp::Mul, true);
    assert_eq!(wrap.dot(&a, &a, 0x7fff_ffff), 0x8003_f00f);
    assert_eq!(sat.dot(&a, &a, 0x7fff_ffff), 0x7fff_ffff);
    // Below: 16 products 127·(-128) = -16256 each: -260096; plus C = -2^31 gives
    // -2147743744 = -2^31 - 260096; wrapped: 2^32 - 2^31 - 260096 = 2147223552 = 0x7FFC_0800;
    // saturated: 0x8000_0000.
    let b = [0x80; 16];
    assert_eq!(wrap.dot(&a, &b, 0x8000_0000), 0x7ffc_0800);
    assert_eq!(sat.dot(&a, &b, 0x8000_0000), 0x8000_0000);
    // The exact sum decides, not a partial one: 127·127 + (-127)·127 cancels exactly, so
    // C = 2^31 - 1 comes back unchanged even saturating.
    assert_eq!(
        sat.dot(&[0x7f, 0x81], &[0x7f, 0x7f], 0x7fff_ffff),
        0x7fff_ffff
    );
    // Chained over K = 32 in blocks of 16 (two instructions): the first block saturates
    // at 2^31 - 1, the second adds -16 (16 products 1·(-1)) to it: 0x7FFF_FFEF.
    let mut a2 = vec![0x7f; 16];
    a2.extend([0x01; 16]);
    let mut b2 = vec![0x7f; 16];
    b2.extend([0xff; 16]);
    assert_eq!(sat.dot(&a2, &b2, 0x7fff_ffff), 0x7fff_ffef);
}

#[test]
fn mixed_signedness_and_extremes() {
    // u8 × s8: 255·(-128) = -32640 = 0xFFFF_8080; plus C = 0: as it is.
    let u = unit(U8, S8, 1, IntOp::Mul, false);
    assert_eq!(u.dot(&[0xff], &[0x80], 0), 0xffff_8080);
    // s8 × s8: (-128)·(-128) = 16384 = 0x4000.
    let s = unit(S8, S8, 1, IntOp::Mul, false);
    assert_eq!(s.dot(&[0x80], &[0x80], 0), 0x4000);
    // u8 × u8: 255·255 = 65025 = 0xFE01, plus C = -1 (0xffffffff): 65024 = 0xFE00.
    let uu = unit(U8, U8, 1, IntOp::Mul, false);
    assert_eq!(uu.dot(&[0xff], &[0xff], 0xffff_ffff), 0xfe00);
    // s4 × u4: (-8)·15 = -120 = 0xFFFF_FF88; 7·15 = 105 = 0x69.
    let s4 = unit(S4, U4, 1, IntOp::Mul, false);
    assert_eq!(s4.dot(&[0x8], &[0xf], 0), 0xffff_ff88);
    assert_eq!(s4.dot(&[0x7], &[0xf], 0), 0x69);
}

#[test]
fn b1_counts_and_or_xor_bits() {
    // AND: 64 ones against 64 ones: 64 set bits; plus C = 5: 69 = 0x45.
    let and = unit(B1, B1, 64, IntOp::Mul, false);
    assert_eq!(and.dot(&[1; 64], &[1; 64], 5), 0x45);
    // XOR of complementary patterns (1010… against 0101…): every bit differs, 64; AND: 0.
    let a: Vec<u64> = (0..64).map(|i| (i % 2) as u64).collect();
    let b: Vec<u64> = (0..64).map(|i| 1 - (i % 2) as u64).collect();
    let xor = unit(B1, B1, 64, IntOp::Xor, false);
    assert_eq!(xor.dot(&a, &b, 0), 64);
    assert_eq!(and.dot(&a, &b, 0), 0);
    // K = 128 in blocks of 64 (the engine's largest): 128 + C; C = -1 gives 127 = 0x7f.
    assert_eq!(and.dot(&[1; 128], &[1; 128], 0xffff_ffff), 0x7f);
}

#[test]
fn packed_int4_and_bit_layouts() {
    // s4 elements -8 (0x8), 7 (0x7), -1 (0xf), 0: element 2i in the low nibble,
    // so the bytes are 0x78 (7 high, 8 low) and 0x0f.
    assert_eq!(
        Layout::PackedInt4.pack(&S4, &[0x8, 0x7, 0xf, 0x0]),
        [0x78, 0x0f]
    );
    assert_eq!(
        Layout::PackedInt4.unpack(&S4, &[0x78, 0x0f]),
        Ok(vec![0x8, 0x7, 0xf, 0x0])
    );
    // Bits: elements 1,0,1,1,0,0,0,0, 0,0,0,0,0,0,0,1: bit i of byte 0 is element i,
    // 0b0000_1101 = 0x0d; byte 1 holds element 15 in bit 7: 0x80.
    let e = [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    assert_eq!(Layout::Bits.pack(&B1, &e), [0x0d, 0x80]);
    assert_eq!(Layout::Bits.unpack(&B1, &[0x0d, 0x80]), Ok(e.to_vec()));
    assert_eq!(Layout::Bits.per_word(), 8);
    assert_eq!(
        Layout::Bits.unpack(&B1, &[0x100]).map_err(|e| e.why),
        Err(Misfit::NotAByte)
    );
    // Which formats each layout takes.
    assert!(Layout::PackedInt4.check(&S4, &U4, 32).is_ok());
    assert!(Layout::PackedInt4.check(&S8, &S8, 32).is_err());
    assert!(Layout::PackedInt4.check(&S4, &S4, 3).is_err());
    assert!(Layout::Bits.check(&B1, &B1, 128).is_ok());
    assert!(Layout::Bits.check(&S4, &S4, 128).is_err());
    // s4 in a plain byte is fine (it is no fp4); fp4 stays refused there.
    assert!(Layout::Plain.check(&S4, &S4, 8).is_ok());
    assert!(Layout::Plain
        .check(&format::E2M1, &format::E2M1, 8)
        .is_err());
}

#[test]
fn unit_files_round_trip_and_refuse_mixing() {
    let u = unit(S8, U8, 16, IntOp::Mul, true);
    let file = UnitFile::from(&u);
    assert_eq!(file.model, "I-DPA");
    assert_eq!(DotUnit::try_from(&file).unwrap(), u);
    let json = r#"{"a":"b1","b":"b1","c":"s32","d":"s32","L_max":64,"model":"I-DPA","params":{"op":"xor","saturate":false}}"#;
    let x: UnitFile = serde_json::from_str(json).unwrap();
    assert!(DotUnit::try_from(&x).is_ok());
    // An integer model on float words, and a float model on integer words: refused.
    let bad = r#"{"a":"f16","b":"s8","c":"s32","d":"s32","L_max":4,"model":"I-DPA","params":{"op":"mul","saturate":false}}"#;
    let e = DotUnit::try_from(&serde_json::from_str::<UnitFile>(bad).unwrap()).unwrap_err();
    assert!(e.to_string().contains("\"a\" is f16"), "{e}");
    let bad = r#"{"a":"s8","b":"s8","c":"f32","d":"f32","L_max":4,"model":"E-FDPA","params":{"rho":"RNE-FP32","overflow":"ieee","nan":"default","neg_zero_to_pos":false}}"#;
    let e = DotUnit::try_from(&serde_json::from_str::<UnitFile>(bad).unwrap()).unwrap_err();
    assert!(e.to_string().contains("integer format s8"), "{e}");
    let bad = r#"{"a":"s8","b":"s8","c":"s8","d":"s8","L_max":4,"model":"I-DPA","params":{"op":"mul","saturate":false}}"#;
    let e = DotUnit::try_from(&serde_json::from_str::<UnitFile>(bad).unwrap()).unwrap_err();
    assert!(e.to_string().contains("must be s32"), "{e}");
}

#[test]
fn explain_shows_the_exact_sum_and_the_wrap() {
    let a = [0x7f; 16];
    let e = unit(S8, S8, 16, IntOp::Mul, false).explain(&a, &a, 0x7fff_ffff);
    assert_eq!(e.d, 0x8003_f00f);
    assert_eq!(e.model, "I-DPA");
    let text = format!("{:?}", e.steps);
    assert!(text.contains("Integer") && text.contains("wrap"), "{text}");
}

#[test]
fn the_exact_value_of_an_xor_unit_counts_xors() {
    use mma_core::ExactDot;
    // a = 1,1,0,0 and b = 1,0,1,0: AND counts 1, XOR counts 2; plus C = 3: 4 and 5.
    let (a, b) = ([1, 1, 0, 0], [1, 0, 1, 0]);
    let and = unit(B1, B1, 4, IntOp::Mul, false);
    let xor = unit(B1, B1, 4, IntOp::Xor, false);
    let exact = |u: &DotUnit| match ExactDot::of_unit(u, &a, &b, 3, &[], &[]) {
        ExactDot::Finite { neg, mag, exp, .. } => (neg, mag, exp),
        other => panic!("{other:?}"),
    };
    let value = |(neg, mag, exp): (bool, Vec<u64>, i32)| {
        assert!(!neg && mag.len() == 1 && exp <= 0, "{mag:?} {exp}");
        mag[0] >> -exp
    };
    assert_eq!(value(exact(&and)), 4);
    assert_eq!(value(exact(&xor)), 5);
    assert_eq!(and.dot(&a, &b, 3), 4);
    assert_eq!(xor.dot(&a, &b, 3), 5);
}
