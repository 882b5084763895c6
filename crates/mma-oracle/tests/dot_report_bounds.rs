//! Exact dot products with block scales and specials, error reports, and the Table V bounds,
//! with hand-derived expectations; then the core's fused models checked against the oracle:
//! E-FDPA (one RNE rounding) must be correctly rounded, T-FDPA must stay within its bound, and a
//! T-FDPA with fewer fraction bits than the bound assumes must be caught.

use crate::common;

use common::rng;
use mma_core::format::{BF16, E4M3, FP16, FP32, UE4M3, UE8M0};
use mma_core::model::{BlockIn, BlockModel};
use mma_core::models::e_fdpa::EFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{Formats, NanStyle, Output, OutputRounding, RoundOpts, Rounding};
use mma_oracle::exact::pow2;
use mma_oracle::{
    bound_for, correctly_rounded, error_report, exact_dot, exact_dot_scaled, ExactResult, ModelKind,
};
use rand::Rng;
use rug::Rational;

fn fmts(a: mma_core::Format, c: mma_core::Format) -> Formats {
    Formats {
        a,
        b: a,
        c,
        d: c,
        scale: None,
    }
}

fn val(x: &ExactResult) -> f64 {
    x.value().expect("finite").to_f64()
}

#[test]
fn block_scaled_by_hand() {
    // e4m3: 1.0 = 0x38, 2.0 = 0x40, 1.5 = 0x3c, -1.0 = 0xb8. ue8m0: 2^(e-127).
    let f = Formats {
        scale: Some((UE8M0, 2)),
        ..fmts(E4M3, FP32)
    };
    let a = [0x38, 0x40, 0x3c, 0xb8];
    let b = [0x38; 4];
    let (sa, sb) = ([128, 126], [127, 129]);
    // 1·2 + 2·2 + 1.5·2^-1·2^2 − 1·2^-1·2^2 + 0.5 = 2 + 4 + 3 − 2 + 0.5 = 7.5
    let x = exact_dot_scaled(&f, &a, &b, 0x3f00_0000, &sa, &sb);
    assert_eq!(val(&x), 7.5);
    assert!(exact_dot_scaled(&f, &a, &b, 0, &[0xff, 126], &sb).is_nan());
    // ue4m3 ignores the sign bit: 0xb8 and 0x38 are both 1.0.
    let f = Formats {
        scale: Some((UE4M3, 4)),
        ..fmts(E4M3, FP32)
    };
    let x1 = exact_dot_scaled(&f, &a, &b, 0, &[0xb8], &[0x40]);
    assert_eq!(val(&x1), 2.0 * (1.0 + 2.0 + 1.5 - 1.0));
    // Zero scale (ue4m3 0x00) times Inf is invalid.
    let f16 = fmts(FP16, FP32);
    let inf = 0x7c00;
    let f8 = Formats {
        scale: Some((UE4M3, 1)),
        ..fmts(FP16, FP32)
    };
    assert!(exact_dot_scaled(&f8, &[inf], &[0x3c00], 0, &[0x00], &[0x38]).is_nan());
    assert!(exact_dot(&f16, &[inf], &[0], 0).is_nan());
    assert!(exact_dot(&f16, &[inf, inf], &[0x3c00, 0xbc00], 0).is_nan());
    assert_eq!(
        exact_dot(&f16, &[inf, 0x3c00], &[0xbc00, 0x3c00], 0x3f80_0000),
        ExactResult::Inf { neg: true }
    );
    assert!(exact_dot(&f16, &[0x3c00], &[0x3c00], 0x7fc0_0000).is_nan());
}

/// `exact_dot_scaled` adds integers at a common exponent and settles specials and zero signs
/// by counting; its definition is the fold of `ExactResult::mul` and `ExactResult::add` over
/// the summands in order (`exact_sum`). The two agree, exactly (value and both zero signs), on
/// random words with every kind of special, zero and cancellation, fp64 exponent spreads, and
/// block scales (NaN scales included).
#[test]
fn exact_dot_is_the_fold_of_exact_products() {
    use mma_core::format::{E2M1, FP64};
    use mma_oracle::exact_sum;
    let cases = [
        (fmts(FP16, FP32), None),
        (fmts(BF16, FP32), None),
        (fmts(FP64, FP64), None),
        (fmts(E4M3, FP16), Some((UE8M0, 2))),
        (fmts(E2M1, FP32), Some((UE4M3, 4))),
    ];
    let mut r = rng(41);
    let (mut nan, mut inf, mut zero, mut neg_zero, mut finite) = (0, 0, 0, 0, 0);
    for (f, scale) in cases {
        let f = Formats { scale, ..f };
        for round in 0..3000 {
            let k = r.random_range(0..=12usize);
            let any = |r: &mut rand_xoshiro::Xoshiro256PlusPlus, fmt: &mma_core::Format| match r
                .random_range(0..8)
            {
                // Signed zeros, so that all-zero sums and their signs come up.
                0 | 1 => (r.random::<u64>() & 1) << (fmt.storage_bits - 1),
                _ if fmt.storage_bits > 8 => common::ieee_bits(r, fmt.exp_bits, fmt.man_bits, 0),
                _ => r.random::<u64>() & fmt.storage_mask(),
            };
            let mut a: Vec<u64> = (0..k).map(|_| any(&mut r, &f.a)).collect();
            let mut b: Vec<u64> = (0..k).map(|_| any(&mut r, &f.b)).collect();
            if round % 2 == 0 {
                // Pairs that cancel exactly.
                for i in (1..k).step_by(2) {
                    a[i] = a[i - 1];
                    b[i] = b[i - 1] ^ (1 << (f.b.storage_bits - 1));
                }
            }
            let c = any(&mut r, &f.c);
            let n = f.scale.map_or(0, |(_, per)| k.div_ceil(per));
            let sf = f.scale.map_or(UE8M0, |(sf, _)| sf);
            let scale = |r: &mut rand_xoshiro::Xoshiro256PlusPlus| {
                if r.random_range(0..50) == 0 {
                    r.random::<u64>() & sf.storage_mask()
                } else {
                    // Mostly finite, non-zero scales, near 1.
                    sf.encode(
                        mma_core::Value::Finite {
                            neg: false,
                            sig: 1,
                            exp: r.random_range(-3..=3),
                        },
                        0,
                    )
                }
            };
            let sa: Vec<u64> = (0..n).map(|_| scale(&mut r)).collect();
            let sb: Vec<u64> = (0..n).map(|_| scale(&mut r)).collect();
            let mut terms: Vec<ExactResult> = (0..k)
                .map(|i| {
                    let p =
                        ExactResult::from_bits(&f.a, a[i]).mul(&ExactResult::from_bits(&f.b, b[i]));
                    match f.scale {
                        Some((sf, per)) => p.mul(
                            &ExactResult::from_bits(&sf, sa[i / per])
                                .mul(&ExactResult::from_bits(&sf, sb[i / per])),
                        ),
                        None => p,
                    }
                })
                .collect();
            terms.push(ExactResult::from_bits(&f.c, c));
            let want = exact_sum(&terms);
            let got = exact_dot_scaled(&f, &a, &b, c, &sa, &sb);
            assert_eq!(
                got, want,
                "{f:?}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}"
            );
            match &want {
                ExactResult::Nan => nan += 1,
                ExactResult::Inf { .. } => inf += 1,
                ExactResult::Finite {
                    value, zero_neg, ..
                } if value.is_zero() => {
                    zero += 1;
                    neg_zero += usize::from(*zero_neg);
                }
                ExactResult::Finite { .. } => finite += 1,
            }
        }
    }
    // Every kind of result came up.
    assert!(
        nan > 100 && inf > 50 && zero > 100 && neg_zero > 20 && finite > 1000,
        "{nan} {inf} {zero} {neg_zero} {finite}"
    );
}

#[test]
fn zero_signs_by_hand() {
    let f = fmts(FP16, FP32);
    let rz = |x: &ExactResult, m| correctly_rounded(x, &FP32, m);
    // (-0)·1 + (-0) = -0 in every direction.
    let x = exact_dot(&f, &[0x8000], &[0x3c00], 0x8000_0000);
    assert_eq!(rz(&x, Rounding::NearestEven), 0x8000_0000);
    assert_eq!(rz(&x, Rounding::Up), 0x8000_0000);
    // (-0)·1 + (+0) = +0, but -0 in RD.
    let x = exact_dot(&f, &[0x8000], &[0x3c00], 0);
    assert_eq!(rz(&x, Rounding::NearestEven), 0);
    assert_eq!(rz(&x, Rounding::Down), 0x8000_0000);
    // 1·1 + 1·(-1) + 0 cancels: +0, -0 in RD.
    let x = exact_dot(&f, &[0x3c00, 0x3c00], &[0x3c00, 0xbc00], 0);
    assert_eq!(rz(&x, Rounding::TowardZero), 0);
    assert_eq!(rz(&x, Rounding::Down), 0x8000_0000);
    // Empty dot product: just c.
    assert_eq!(
        exact_dot(&f, &[], &[], 0x8000_0000),
        ExactResult::zero(true)
    );
}

#[test]
fn reports_by_hand() {
    // 1 + 2^-11 is a tie in fp16: RNE gives 1.0 (0x3c00), the neighbour is 0x3c01.
    let x = ExactResult::finite(Rational::from(1) + pow2(-11));
    let r = error_report(0x3c01, &x, &FP16);
    assert_eq!((r.ulps, r.neighbour, r.correctly_rounded), (0.5, 1, false));
    assert_eq!(r.exact_error, Some(pow2(-11)));
    assert_eq!(r.rel, 1.0 / 2049.0);
    let r = error_report(0x3c00, &x, &FP16);
    assert_eq!((r.ulps, r.neighbour, r.correctly_rounded), (0.5, 0, true));
    assert_eq!(r.exact_error, Some(-pow2(-11)));
    // Subnormal floor: 2^-30 against 0 is 2^-6 of the smallest fp16 quantum 2^-24.
    let r = error_report(0, &ExactResult::finite(pow2(-30)), &FP16);
    assert_eq!((r.ulps, r.rel, r.neighbour), (1.0 / 64.0, 1.0, 0));
    // Across zero: exact 2^-24, model -2^-24 is two steps below.
    let r = error_report(0x8001, &ExactResult::finite(pow2(-24)), &FP16);
    assert_eq!((r.ulps, r.neighbour), (2.0, -2));
    // Specials.
    let r = error_report(0x7e00, &ExactResult::Nan, &FP16);
    assert_eq!((r.ulps, r.correctly_rounded, r.neighbour), (0.0, true, 0));
    let r = error_report(0x3c00, &ExactResult::Nan, &FP16);
    assert_eq!(
        (r.ulps, r.correctly_rounded, r.neighbour),
        (f64::INFINITY, false, i32::MAX)
    );
    assert_eq!(r.exact_error, None);
    let r = error_report(0xfc00, &ExactResult::Inf { neg: true }, &FP16);
    assert_eq!(r.ulps, 0.0);
    // 10^6 overflows fp16: Inf is the correctly rounded result though its error is infinite;
    // the largest finite value is one step below.
    let big = ExactResult::from_f64(1e6);
    let r = error_report(0x7c00, &big, &FP16);
    assert!(r.correctly_rounded && r.ulps.is_infinite() && r.exact_error.is_none());
    let r = error_report(0x7bff, &big, &FP16);
    assert_eq!((r.correctly_rounded, r.neighbour), (false, -1));
    // -0 and +0 are the same result.
    assert!(error_report(0x8000, &ExactResult::zero(false), &FP16).correctly_rounded);
}

#[test]
fn bounds_by_hand() {
    let f = fmts(FP16, FP32);
    let t = ModelKind::TFdpa {
        f: 3,
        e_zero: -10,
        mode: Rounding::TowardZero,
    };
    // Terms 1·1 (e = 0), 1·2^-5 (e = -5), c = 0 (e_zero = -10): e_max = 0, L + 1 = 3.
    let b = bound_for(&t, &f, &[0x3c00, 0x3c00], &[0x3c00, 0x2800], 0);
    assert_eq!(b.abs, Rational::from((3, 8)));
    assert_eq!(b.out_ulps, 1.0);
    // A subnormal operand counts at e_sub = -14 (not at its magnitude 2^-24).
    let low = ModelKind::TFdpa {
        f: 3,
        e_zero: -40,
        mode: Rounding::TowardZero,
    };
    let b = bound_for(&low, &f, &[0x0001], &[0x3c00], 0);
    assert_eq!(b.abs, pow2(-14 - 3) * 2u32);
    // e_zero dominates when every other term is smaller.
    let b = bound_for(&t, &f, &[0x0001], &[0x0001], 0);
    assert_eq!(b.abs, pow2(-10 - 3) * 2u32);
    // Limit: abs plus one fp32 ulp at the binade of |x| + abs. x = 1: binade of 1.375 → 2^-23.
    assert_eq!(
        b.limit(&Rational::from(1), &FP32),
        pow2(-13) * 2u32 + pow2(-23)
    );
    let e = bound_for(
        &ModelKind::EFdpa {
            mode: Rounding::NearestEven,
        },
        &f,
        &[0x3c00],
        &[0x3c00],
        0,
    );
    assert_eq!((e.abs, e.out_ulps), (Rational::new(), 0.5));
    // FMA: one product is one rounding; three products (1·1 each, c = 0) add two roundings of
    // u·ulp(2·Σ|t|) = 1·ulp_fp32(6) = 2^-21 each in RZ.
    let fma = ModelKind::Fma {
        mode: Rounding::TowardZero,
    };
    let b = bound_for(&fma, &f, &[0x3c00], &[0x3c00], 0);
    assert_eq!((b.abs, b.out_ulps), (Rational::new(), 1.0));
    let b = bound_for(&fma, &f, &[0x3c00; 3], &[0x3c00; 3], 0);
    assert_eq!((b.abs, b.out_ulps), (pow2(-21) * 2u32, 1.0));
    // FTZ-MulAdd: a subnormal fp16 input (2^-24·1 flushed) and a subnormal fp32 c (2^-149
    // flushed) are lost whole; two adds of 0.5 ulp_fp32(2·(1 + 2^-24 + 2^-149)) = 2^-23 plus a
    // 2^-126 flush each.
    let b = bound_for(
        &ModelKind::FtzMulAdd,
        &f,
        &[0x0001, 0x3c00],
        &[0x3c00; 2],
        1,
    );
    let want = pow2(-24) + pow2(-149) + (pow2(-23) + pow2(-126)) * 2u32;
    assert_eq!((b.abs, b.out_ulps), (want, 0.0));
}

fn output(mode: Rounding) -> Output {
    Output {
        rho: OutputRounding {
            fmt: FP32,
            mode,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: false,
    }
}

/// Random fp16/bf16 words: mostly moderate magnitudes, some subnormals, cancellations via signs.
fn operand(r: &mut impl Rng, exp_bits: u32, man_bits: u32) -> u64 {
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let e = match r.random_range(0..10) {
        0 => 0,
        1 => r.random_range(1..4),
        _ => (bias + r.random_range(-6..=6)) as u64 as i64,
    } as u64;
    ((r.random::<u64>() & 1) << (exp_bits + man_bits))
        | (e << man_bits)
        | (r.random::<u64>() & ((1 << man_bits) - 1))
}

fn run_block(m: &dyn BlockModel, f: &Formats, a: &[u64], b: &[u64], c: u64) -> u64 {
    m.block(
        f,
        &BlockIn {
            a,
            b,
            c,
            c_fmt: &f.c,
            scale_a: &[],
            scale_b: &[],
        },
    )
}

#[test]
fn core_models_against_oracle() {
    let mut r = rng(300);
    let cases = 4000;
    let mut loose_violations = 0;
    for (fin, (eb, mb)) in [(FP16, (5, 10)), (BF16, (8, 7))] {
        let f = fmts(fin, FP32);
        let l = 8;
        for _ in 0..cases {
            let a: Vec<u64> = (0..l).map(|_| operand(&mut r, eb, mb)).collect();
            let b: Vec<u64> = (0..l).map(|_| operand(&mut r, eb, mb)).collect();
            let c = operand(&mut r, 8, 23);
            let exact = exact_dot(&f, &a, &b, c);
            // E-FDPA: one RNE rounding of the exact sum = the correctly rounded result.
            let e = EFdpa {
                out: output(Rounding::NearestEven),
            };
            let d = run_block(&e, &f, &a, &b, c);
            let rep = error_report(d, &exact, &FP32);
            assert!(
                rep.correctly_rounded && rep.ulps <= 0.5,
                "E-FDPA {a:x?} {b:x?} {c:#x}: {rep:?}"
            );
            assert_eq!(d, correctly_rounded(&exact, &FP32, Rounding::NearestEven));
            // T-FDPA (Ampere: F = 24, e_zero = -132, RZ-fp32) within its Table V bound.
            let kind = ModelKind::TFdpa {
                f: 24,
                e_zero: -132,
                mode: Rounding::TowardZero,
            };
            let bound = bound_for(&kind, &f, &a, &b, c);
            let t = TFdpa {
                f: 24,
                e_zero: -132,
                out: output(Rounding::TowardZero),
            };
            let d = run_block(&t, &f, &a, &b, c);
            assert!(
                bound.admits(d, &exact, &FP32),
                "T-FDPA {a:x?} {b:x?} {c:#x}: {d:#x}"
            );
            // The same model with F = 4 exceeds a bound computed for F = 24 somewhere.
            let t4 = TFdpa { f: 4, ..t };
            let d = run_block(&t4, &f, &a, &b, c);
            loose_violations += !bound.admits(d, &exact, &FP32) as u32;
        }
    }
    assert!(loose_violations > 100, "{loose_violations}");
}
