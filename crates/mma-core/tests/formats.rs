//! Formats: every pattern of every format of 16 bits or fewer decoded and re-encoded, decoded
//! values checked against an independent formula and against `half`; rounding checked against
//! Berkeley SoftFloat and `half` in every mode.

use mma_core::format::{self, Format, Specials};
use mma_core::round::{convert, round, Exact};
use mma_core::{RoundOpts, Rounding, Value};
use rand::{Rng, SeedableRng};
use softfloat_wrapper::{Float, RoundingMode, F16, F32, F64};

/// The value of a pattern by the textbook formula, written independently of `Format::decode`:
/// `(-1)^s · 2^(e - bias) · (1 + m / 2^M)` for normal codes, `2^(1 - bias) · m / 2^M` for
/// subnormal ones. `None` for NaN; Inf as f64 infinity.
fn textbook(f: &Format, bits: u64) -> Option<f64> {
    let m_bits = f.man_bits;
    let e_bits = f.exp_bits;
    let m = (bits >> f.lsb) & ((1 << m_bits) - 1);
    let e = (bits >> (f.lsb + m_bits)) & ((1 << e_bits) - 1);
    let s = f.signed && (bits >> (f.lsb + m_bits + e_bits)) & 1 == 1;
    let top = (1 << e_bits) - 1;
    let nan = match f.specials {
        Specials::Ieee => e == top && m != 0,
        Specials::NanAllOnes | Specials::NanMax => e == top && m == (1 << m_bits) - 1,
        Specials::NanNegZero => s && e == 0 && m == 0,
        Specials::None => false,
    };
    if nan {
        return None;
    }
    if f.specials == Specials::Ieee && e == top {
        return Some(if s { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    let frac = m as f64 / (1u64 << m_bits) as f64;
    let v = if e == 0 && f.subnormals {
        2f64.powi(1 - f.bias) * frac
    } else {
        2f64.powi(e as i32 - f.bias) * (1.0 + frac)
    };
    Some(if s { -v } else { v })
}

fn small_formats() -> Vec<Format> {
    format::ALL
        .iter()
        .copied()
        .filter(|f| f.storage_bits <= 16)
        .collect()
}

#[test]
fn every_small_pattern_decodes_to_its_textbook_value_and_re_encodes() {
    for f in small_formats() {
        let codes = 1u64 << f.width();
        let mut nans = 0;
        for bits in 0..codes {
            let v = f.decode(bits);
            match textbook(&f, bits) {
                None => {
                    assert!(
                        v.is_nan(),
                        "{} {bits:#x} should be NaN, decoded {v:?}",
                        f.name
                    );
                    nans += 1;
                }
                Some(x) => {
                    assert_eq!(v.to_f64(), x, "{} {bits:#x}", f.name);
                    assert_eq!(
                        v.to_f64().is_sign_negative(),
                        x.is_sign_negative(),
                        "{} {bits:#x} sign",
                        f.name
                    );
                    assert_eq!(
                        f.encode(v, f.default_nan()),
                        bits,
                        "{} {bits:#x} re-encode",
                        f.name
                    );
                }
            }
        }
        // NaN counts by the format definitions (IEEE 754 for f16/bf16/f32, the OCP 8-bit
        // and MX specifications and AMD's FNUZ variants for the narrow formats).
        let expected_nans = match f.name {
            "f16" => 2 * 1023,
            "bf16" => 2 * 127,
            "e5m2" => 2 * 3,
            "e4m3" => 2,
            "e4m3fnuz" | "e5m2fnuz" => 1,
            "ue8m0" | "ue4m3" => 1,
            _ => 0,
        };
        assert_eq!(nans, expected_nans, "{} NaN count", f.name);
        if f.has_nan() {
            assert!(f.decode(f.default_nan()).is_nan(), "{} default NaN", f.name);
        }
    }
}

#[test]
fn largest_finite_values_match_the_standards() {
    // OCP MX spec and AMD FNUZ: e4m3 448, e5m2 57344, fnuz e4m3 240, fnuz e5m2 57344,
    // e3m2 28, e2m3 7.5, e2m1 6, ue8m0 2^127, ue4m3 448; IEEE f16 65504, bf16 ~3.39e38.
    let want = [
        ("e4m3", 448.0),
        ("e5m2", 57344.0),
        ("e4m3fnuz", 240.0),
        ("e5m2fnuz", 57344.0),
        ("e3m2", 28.0),
        ("e2m3", 7.5),
        ("e2m1", 6.0),
        ("ue8m0", 2f64.powi(127)),
        ("ue4m3", 448.0),
        ("f16", 65504.0),
        ("bf16", f64::from(half::bf16::MAX)),
    ];
    for (name, max) in want {
        let f = format::by_name(name).unwrap();
        let v = Value::Finite {
            neg: false,
            sig: f.max_sig(),
            exp: f.emax() - f.man_bits as i32,
        };
        assert_eq!(v.to_f64(), max, "{name}");
    }
}

#[test]
fn f16_and_bf16_decode_like_half() {
    for bits in 0..=u16::MAX {
        let h = half::f16::from_bits(bits).to_f64();
        let b = half::bf16::from_bits(bits).to_f64();
        let vh = format::FP16.decode(bits as u64).to_f64();
        let vb = format::BF16.decode(bits as u64).to_f64();
        assert!(vh == h || (vh.is_nan() && h.is_nan()), "f16 {bits:#x}");
        assert!(vb == b || (vb.is_nan() && b.is_nan()), "bf16 {bits:#x}");
    }
}

#[test]
fn fp4_packing_and_tf32_truncation() {
    // tf32 ignores the low 13 bits of its fp32 word: 0x3f800fff is 1.0.
    assert_eq!(format::TF32.decode(0x3f80_0fff).to_f64(), 1.0);
    // A NaN whose payload sits only in the dropped bits becomes Inf, as on the tensor cores.
    assert!(format::TF32.decode(0x7f80_0001).is_inf());
    assert_eq!(
        format::TF32.encode(format::TF32.decode(0x3fff_ffff), 0),
        0x3fff_e000
    );
    // ue4m3 ignores its sign bit: 0xb8 is 0x38 = 1.0.
    assert_eq!(format::UE4M3.decode(0xb8).to_f64(), 1.0);
    // e2m1 code 0b0111 is 6.0 and 0b1111 is -6.0.
    assert_eq!(format::E2M1.decode(0x7).to_f64(), 6.0);
    assert_eq!(format::E2M1.decode(0xf).to_f64(), -6.0);
    assert!(!format::E2M1.is_valid_encoding(0x10));
}

fn sf_mode(m: Rounding) -> RoundingMode {
    match m {
        Rounding::NearestEven => RoundingMode::TiesToEven,
        Rounding::TowardZero => RoundingMode::TowardZero,
        Rounding::Down => RoundingMode::TowardNegative,
        Rounding::Up => RoundingMode::TowardPositive,
        Rounding::NearestAway => RoundingMode::TiesToAway,
    }
}

/// Random f64 patterns biased toward the f32/f16 ranges, ties and subnormals.
fn sample_f64(rng: &mut impl Rng) -> u64 {
    let sign = (rng.random::<u64>() & 1) << 63;
    let exp: u64 = rng.random_range(1023 - 160..1023 + 132);
    let mant = match rng.random_range(0..4) {
        0 => rng.random::<u64>() & ((1 << 52) - 1),
        // A tie for f32 (bit 28 set, below zero) or for f16 (bit 41 set).
        1 => (rng.random::<u64>() & !((1 << 29) - 1) & ((1 << 52) - 1)) | (1 << 28),
        2 => (rng.random::<u64>() & !((1 << 42) - 1) & ((1 << 52) - 1)) | (1 << 41),
        _ => rng.random::<u64>() & ((1 << 52) - 1) & !((1 << 20) - 1),
    };
    sign | (exp << 52) | mant
}

#[test]
fn rounding_agrees_with_softfloat_in_every_mode() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..40_000 {
        let bits = sample_f64(&mut rng);
        let v = format::FP64.decode(bits);
        for mode in [
            Rounding::NearestEven,
            Rounding::TowardZero,
            Rounding::Down,
            Rounding::Up,
            Rounding::NearestAway,
        ] {
            let want32 = F64::from_bits(bits).to_f32(sf_mode(mode)).to_bits() as u64;
            let got32 = format::FP32.encode(
                convert(&format::FP32, v, mode, RoundOpts::IEEE),
                0x7fc0_0000,
            );
            assert_eq!(got32, want32, "f64 {bits:#018x} -> f32 {mode:?}");
            let want16 = F64::from_bits(bits).to_f16(sf_mode(mode)).to_bits() as u64;
            let got16 =
                format::FP16.encode(convert(&format::FP16, v, mode, RoundOpts::IEEE), 0x7e00);
            assert_eq!(got16, want16, "f64 {bits:#018x} -> f16 {mode:?}");
        }
    }
}

#[test]
fn f32_to_f16_and_bf16_round_like_half() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for i in 0..200_000u32 {
        let bits: u32 = if i < 100_000 {
            rng.random()
        } else {
            (rng.random::<u32>() & 0xffff_0000) | 0x8000
        };
        let x = f32::from_bits(bits);
        if x.is_nan() {
            continue;
        }
        let v = format::FP32.decode(bits as u64);
        let h = format::FP16.encode(
            convert(&format::FP16, v, Rounding::NearestEven, RoundOpts::IEEE),
            0,
        );
        assert_eq!(h, half::f16::from_f32(x).to_bits() as u64, "f16 {bits:#x}");
        let b = format::BF16.encode(
            convert(&format::BF16, v, Rounding::NearestEven, RoundOpts::IEEE),
            0,
        );
        assert_eq!(
            b,
            half::bf16::from_f32(x).to_bits() as u64,
            "bf16 {bits:#x}"
        );
        // And the f32 -> f16 conversion of SoftFloat in the directed modes.
        for mode in [Rounding::TowardZero, Rounding::Down, Rounding::Up] {
            let want = F32::from_bits(bits).to_f16(sf_mode(mode)).to_bits() as u64;
            let got = format::FP16.encode(convert(&format::FP16, v, mode, RoundOpts::IEEE), 0);
            assert_eq!(got, want, "f32 {bits:#x} -> f16 {mode:?}");
        }
    }
    let _ = F16::from_bits(0);
}

#[test]
fn hand_derived_rounding_cases() {
    let x = |neg, mag: u128, exp, sticky| Exact {
        neg,
        mag,
        exp,
        sticky,
    };
    let f16 = |v: Value| format::FP16.encode(v, 0x7e00);
    let rne = Rounding::NearestEven;
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1.0 (0x3c00).
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, (1 << 11) + 1, -11, false),
            rne,
            RoundOpts::IEEE
        )),
        0x3c00
    );
    // 1 + 3·2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9 (0x3c02).
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, (1 << 11) + 3, -11, false),
            rne,
            RoundOpts::IEEE
        )),
        0x3c02
    );
    // The same tie with a sticky bit below rounds up (0x3c01 for 1 + 2^-11 + tiny).
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, (1 << 12) + 2, -12, true),
            rne,
            RoundOpts::IEEE
        )),
        0x3c01
    );
    // 2^-25 is half the smallest f16 subnormal (2^-24): RNE gives +0, RU gives 2^-24 (0x0001),
    // RD of -2^-25 gives -2^-24 (0x8001).
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, 1, -25, false),
            rne,
            RoundOpts::IEEE
        )),
        0x0000
    );
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, 1, -25, false),
            Rounding::Up,
            RoundOpts::IEEE
        )),
        0x0001
    );
    assert_eq!(
        f16(round(
            &format::FP16,
            x(true, 1, -25, false),
            Rounding::Down,
            RoundOpts::IEEE
        )),
        0x8001
    );
    // 3·2^-25 = 1.5 subnormal quanta: ties to even gives 2 quanta (0x0002).
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, 3, -25, false),
            rne,
            RoundOpts::IEEE
        )),
        0x0002
    );
    // 65520 = 65504 + 16 is the f16 overflow threshold: RNE gives Inf (0x7c00), RZ truncates
    // it to the largest finite value (0x7bff), also under the NVIDIA rule, which only turns a
    // truncated value of 2^16 or more into Inf (mmasim's RZ path: truncate, then convert).
    let big = x(false, 65520, 0, false);
    assert_eq!(f16(round(&format::FP16, big, rne, RoundOpts::IEEE)), 0x7c00);
    assert_eq!(
        f16(round(
            &format::FP16,
            big,
            Rounding::TowardZero,
            RoundOpts::IEEE
        )),
        0x7bff
    );
    assert_eq!(
        f16(round(
            &format::FP16,
            big,
            Rounding::TowardZero,
            RoundOpts::INF_ON_OVERFLOW
        )),
        0x7bff
    );
    let huge = x(false, 65536, 0, false);
    assert_eq!(
        f16(round(
            &format::FP16,
            huge,
            Rounding::TowardZero,
            RoundOpts::IEEE
        )),
        0x7bff
    );
    assert_eq!(
        f16(round(
            &format::FP16,
            huge,
            Rounding::TowardZero,
            RoundOpts::INF_ON_OVERFLOW
        )),
        0x7c00
    );
    let sat = RoundOpts {
        overflow: mma_core::Overflow::Saturate,
        ftz: false,
    };
    assert_eq!(f16(round(&format::FP16, big, rne, sat)), 0x7bff);
    // 65519 is just below the threshold: RNE gives 65504.
    assert_eq!(
        f16(round(
            &format::FP16,
            x(false, 65519, 0, false),
            rne,
            RoundOpts::IEEE
        )),
        0x7bff
    );
    // e4m3 has no Inf. 464 is halfway between 448 (significand 1.110, even) and 480 (the NaN
    // code's place, 1.111): ties to even keeps 448 (0x7e). 465 rounds to 480, which does not
    // exist: NaN under IEEE rules (OCP conversion without .satfinite), 448 with saturation.
    let e4 = |v: Value| format::E4M3.encode(v, 0x7f);
    assert_eq!(
        e4(round(
            &format::E4M3,
            x(false, 464, 0, false),
            rne,
            RoundOpts::IEEE
        )),
        0x7e
    );
    assert_eq!(
        e4(round(
            &format::E4M3,
            x(false, 465, 0, false),
            rne,
            RoundOpts::IEEE
        )),
        0x7f
    );
    assert_eq!(
        e4(round(&format::E4M3, x(false, 465, 0, false), rne, sat)),
        0x7e
    );
    // Flush to zero: the smallest f32 subnormal becomes +0 and a negative one -0.
    let ftz = RoundOpts {
        overflow: mma_core::Overflow::Ieee,
        ftz: true,
    };
    assert_eq!(
        round(&format::FP32, x(false, 1, -149, false), rne, ftz),
        Value::Zero { neg: false }
    );
    assert_eq!(
        round(&format::FP32, x(true, 1, -149, false), rne, ftz),
        Value::Zero { neg: true }
    );
}

/// `Format::encode_exact`: every value a pattern of a format of 16 bits or fewer decodes to
/// comes back as a word that decodes to it (the pattern itself where it is the format's
/// spelling of the value: not ue4m3's ignored bit 7), NaN as the default NaN; then
/// hand-derived cases, each with its arithmetic.
#[test]
fn encode_exact_takes_every_value_a_format_holds_and_nothing_else() {
    for f in small_formats() {
        for w in 0..1u64 << f.storage_bits {
            if !f.is_valid_encoding(w) {
                continue;
            }
            let v = f.decode(w);
            let got = f.encode_exact(v);
            if v.is_nan() {
                assert_eq!(got, Some(f.default_nan()), "{} {w:#x}", f.name);
                continue;
            }
            let w2 = got.unwrap_or_else(|| panic!("{} {w:#x} ({v:?}) refused", f.name));
            assert_eq!(f.decode(w2), v, "{} {w:#x}", f.name);
            if f.encode(v, f.default_nan()) == w {
                assert_eq!(w2, w, "{} {w:#x}", f.name);
            }
        }
    }
    let fin = |neg, sig, exp| Value::Finite { neg, sig, exp };
    use format::{E2M1, E4M3, FP16, FP32, UE4M3, UE8M0};
    // f16: 1 + 2^-10 = 1025·2^-10 is 0x3c01 (the last mantissa bit); 1 + 2^-11 lies between two.
    assert_eq!(FP16.encode_exact(fin(false, 1025, -10)), Some(0x3c01));
    assert_eq!(FP16.encode_exact(fin(false, 2049, -11)), None);
    // 65504 = 2047·2^5 is the largest, 0x7bff; 65520 = 4095·2^4 lies past it (RNE: Inf).
    assert_eq!(FP16.encode_exact(fin(false, 2047, 5)), Some(0x7bff));
    assert_eq!(FP16.encode_exact(fin(false, 4095, 4)), None);
    // The smallest subnormal 2^-24 is 0x0001; 2^-25 lies below the quantum.
    assert_eq!(FP16.encode_exact(fin(false, 1, -24)), Some(0x0001));
    assert_eq!(FP16.encode_exact(fin(false, 1, -25)), None);
    assert_eq!(FP16.encode_exact(Value::Zero { neg: true }), Some(0x8000));
    assert_eq!(FP16.encode_exact(Value::Inf { neg: true }), Some(0xfc00));
    // A 40-bit significand: 2^39·2^-39 = 1 is f32 0x3f800000; (2^39 + 1)·2^-39 needs 40 bits.
    assert_eq!(
        FP32.encode_exact(fin(false, 1 << 39, -39)),
        Some(0x3f80_0000)
    );
    assert_eq!(FP32.encode_exact(fin(false, (1 << 39) + 1, -39)), None);
    // e4m3 (no Inf; NaN S.1111.111): 448 = 7·2^6 is 0x7e (exponent 15, mantissa 110); 480 =
    // 15·2^5 would be the NaN pattern.
    assert_eq!(E4M3.encode_exact(fin(false, 7, 6)), Some(0x7e));
    assert_eq!(E4M3.encode_exact(fin(false, 15, 5)), None);
    assert_eq!(E4M3.encode_exact(Value::Inf { neg: false }), None);
    assert_eq!(E4M3.encode_exact(Value::Nan), Some(0x7f));
    // e2m1 (bias 1): 6 = 3·2^1 is 0b0111; 5 lies between 4 and 6.
    assert_eq!(E2M1.encode_exact(fin(false, 3, 1)), Some(0x7));
    assert_eq!(E2M1.encode_exact(fin(false, 5, 0)), None);
    // ue8m0 (2^(e - 127)): 2^-127 is 0x00; no zero, no negative value.
    assert_eq!(UE8M0.encode_exact(fin(false, 1, -127)), Some(0x00));
    assert_eq!(UE8M0.encode_exact(Value::Zero { neg: false }), None);
    assert_eq!(UE8M0.encode_exact(fin(true, 1, 0)), None);
    // ue4m3 has a zero and no sign: -0 is +0, the same number; -1 is not a number of it.
    assert_eq!(UE4M3.encode_exact(Value::Zero { neg: true }), Some(0x00));
    assert_eq!(UE4M3.encode_exact(fin(true, 1, 0)), None);
}

/// `Value::same_number` compares numbers, not spellings: the same value at two scalings of
/// its significand, zeros of both signs; never a NaN; infinities by sign. And `from_f64` on
/// hand-picked doubles: 1.5 = 3·2^-1, -2^-1074 (the smallest subnormal), -0, Inf, NaN.
#[test]
fn same_number_compares_numbers_and_from_f64_reads_doubles() {
    assert_eq!(
        Value::from_f64(1.5),
        Value::Finite {
            neg: false,
            sig: 3 << 51,
            exp: -52
        }
    );
    assert!(Value::from_f64(1.5).same_number(&Value::Finite {
        neg: false,
        sig: 3,
        exp: -1
    }));
    assert_eq!(
        Value::from_f64(-f64::from_bits(1)),
        Value::Finite {
            neg: true,
            sig: 1,
            exp: -1074
        }
    );
    assert_eq!(Value::from_f64(-0.0), Value::Zero { neg: true });
    assert_eq!(Value::from_f64(f64::INFINITY), Value::Inf { neg: false });
    assert_eq!(Value::from_f64(f64::NAN), Value::Nan);
    let fin = |neg, sig, exp| Value::Finite { neg, sig, exp };
    assert!(fin(false, 2, 0).same_number(&fin(false, 1, 1)));
    assert!(!fin(true, 2, 0).same_number(&fin(false, 1, 1)));
    assert!(Value::Zero { neg: true }.same_number(&fin(false, 0, 5)));
    assert!(!Value::Nan.same_number(&Value::Nan));
    assert!(!Value::Inf { neg: true }.same_number(&Value::Inf { neg: false }));
}

/// `Value::from_f64` (defined in `format.rs`, beside FP64, so that `value.rs` names no format)
/// is `FP64.decode` of the same word: every special and boundary word, and 100,000 random ones.
/// And `encode_exact`'s grid test agrees with rounding to nearest-even being the identity (its
/// definition: a value a format holds is one that rounding leaves alone), on random f64 values
/// narrowed to f32, f16, bf16 and e4m3 and on their neighbours a few bits off the grid.
#[test]
fn from_f64_is_fp64_decode_and_encode_exact_is_the_identity_of_rounding() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(13);
    let edges = [
        0,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
    ];
    let specials = [
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
    ];
    let words = edges
        .into_iter()
        .chain(specials)
        .flat_map(|w| [w, w | 1 << 63])
        .chain((0..100_000).map(|_| rng.random::<u64>()));
    for w in words {
        assert_eq!(
            Value::from_f64(f64::from_bits(w)),
            format::FP64.decode(w),
            "{w:#x}"
        );
    }
    for f in [format::FP32, format::FP16, format::BF16, format::E4M3] {
        for _ in 0..20_000 {
            // A word of the format, decoded, then moved 0-3 bits off its grid.
            let w = rng.random::<u64>() & ((1u64 << f.storage_bits) - 1);
            let Value::Finite { neg, sig, exp } = f.decode(w) else {
                continue;
            };
            let shift = rng.random_range(0..4u32);
            let v = Value::Finite {
                neg,
                sig: (sig << shift) | rng.random_range(0..2u64),
                exp: exp - shift as i32,
            };
            let r = convert(&f, v, Rounding::NearestEven, RoundOpts::IEEE);
            let held = matches!(r, Value::Finite { .. }) && r.same_number(&v);
            let want = held.then(|| f.encode(r, f.default_nan()));
            assert_eq!(f.encode_exact(v), want, "{} {v:?}", f.name);
        }
    }
}
