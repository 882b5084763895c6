//! The oracle's exact arithmetic plus rounding against Berkeley SoftFloat: fp32 and fp64 add,
//! multiply and fused multiply-add in the four IEEE directions, and fp64 → fp32 / fp16 and
//! fp32 → fp16 conversion. Results must agree bit for bit (signed zeros included); NaN results
//! agree as NaN (payloads are SoftFloat's host convention, not IEEE's).

use crate::common;

use common::{f32_bits, f64_bits, partner, rng, MODES};
use mma_core::format::{FP16, FP32, FP64};
use mma_core::{Format, Formats};
use mma_oracle::{correctly_rounded, exact_dot, ExactResult};
use softfloat_wrapper::{Float, F32, F64};

const N: usize = 12_000;

fn same(fmt: &Format, got: u64, want: u64) -> bool {
    let (g, w) = (fmt.decode(got), fmt.decode(want));
    if w.is_nan() {
        g.is_nan()
    } else {
        got == want
    }
}

fn ex(fmt: &Format, bits: u64) -> ExactResult {
    ExactResult::from_bits(fmt, bits)
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Mul,
    Fma,
}

fn check_f32(op: Op, seed: u64) {
    let mut r = rng(seed);
    let mut checked = 0;
    for _ in 0..N {
        let x = f32_bits(&mut r);
        let y = partner(&mut r, x as u64, 8, 23) as u32;
        let z = partner(&mut r, x as u64, 8, 23) as u32;
        for (mode, sf) in MODES {
            let (want, exact) = match op {
                Op::Add => (
                    F32::from_bits(x).add(F32::from_bits(y), sf).to_bits(),
                    ex(&FP32, x as u64).add(&ex(&FP32, y as u64)),
                ),
                Op::Mul => (
                    F32::from_bits(x).mul(F32::from_bits(y), sf).to_bits(),
                    ex(&FP32, x as u64).mul(&ex(&FP32, y as u64)),
                ),
                Op::Fma => {
                    let f = Formats {
                        a: FP32,
                        b: FP32,
                        c: FP32,
                        d: FP32,
                        scale: None,
                    };
                    (
                        F32::from_bits(x)
                            .fused_mul_add(F32::from_bits(y), F32::from_bits(z), sf)
                            .to_bits(),
                        exact_dot(&f, &[x as u64], &[y as u64], z as u64),
                    )
                }
            };
            let got = correctly_rounded(&exact, &FP32, mode);
            assert!(
                same(&FP32, got, want as u64),
                "{op:?} {mode:?} x={x:#010x} y={y:#010x} z={z:#010x}: oracle {got:#010x}, softfloat {want:#010x}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4 * N);
}

fn check_f64(op: Op, seed: u64) {
    let mut r = rng(seed);
    for _ in 0..N {
        let x = f64_bits(&mut r);
        let y = partner(&mut r, x, 11, 52);
        let z = partner(&mut r, x, 11, 52);
        for (mode, sf) in MODES {
            let (a, b, c) = (F64::from_bits(x), F64::from_bits(y), F64::from_bits(z));
            let (ea, eb, ec) = (ex(&FP64, x), ex(&FP64, y), ex(&FP64, z));
            let (want, exact) = match op {
                Op::Add => (a.add(b, sf).to_bits(), ea.add(&eb)),
                Op::Mul => (a.mul(b, sf).to_bits(), ea.mul(&eb)),
                Op::Fma => (a.fused_mul_add(b, c, sf).to_bits(), ea.mul(&eb).add(&ec)),
            };
            let got = correctly_rounded(&exact, &FP64, mode);
            assert!(
                same(&FP64, got, want),
                "{op:?} {mode:?} x={x:#018x} y={y:#018x} z={z:#018x}: oracle {got:#018x}, softfloat {want:#018x}"
            );
        }
    }
}

#[test]
fn f32_add() {
    check_f32(Op::Add, 1);
}

#[test]
fn f32_mul() {
    check_f32(Op::Mul, 2);
}

#[test]
fn f32_fma() {
    check_f32(Op::Fma, 3);
}

#[test]
fn f64_add() {
    check_f64(Op::Add, 4);
}

#[test]
fn f64_mul() {
    check_f64(Op::Mul, 5);
}

#[test]
fn f64_fma() {
    check_f64(Op::Fma, 6);
}

#[test]
fn conversions() {
    let mut r = rng(7);
    for i in 0..4 * N {
        // Exponents concentrated around the fp32 and fp16 ranges so that subnormal results,
        // ties and overflow of both targets are frequent.
        let x = if i % 2 == 0 {
            let centre = if i % 4 == 0 { -126 } else { -14 };
            common::ieee_bits(&mut r, 11, 52, centre)
        } else {
            f64_bits(&mut r)
        };
        let x32 = f32_bits(&mut r);
        for (mode, sf) in MODES {
            let want = F64::from_bits(x).to_f32(sf).to_bits() as u64;
            let got = correctly_rounded(&ex(&FP64, x), &FP32, mode);
            assert!(
                same(&FP32, got, want),
                "f64->f32 {mode:?} {x:#018x}: {got:#x} vs {want:#x}"
            );
            let want = F64::from_bits(x).to_f16(sf).to_bits() as u64;
            let got = correctly_rounded(&ex(&FP64, x), &FP16, mode);
            assert!(
                same(&FP16, got, want),
                "f64->f16 {mode:?} {x:#018x}: {got:#x} vs {want:#x}"
            );
            let want = F32::from_bits(x32).to_f16(sf).to_bits() as u64;
            let got = correctly_rounded(&ex(&FP32, x32 as u64), &FP16, mode);
            assert!(
                same(&FP16, got, want),
                "f32->f16 {mode:?} {x32:#010x}: {got:#x} vs {want:#x}"
            );
        }
    }
}

/// Hand-derived cases at the edges: the exact-zero sign rules and the overflow thresholds.
#[test]
fn hand_cases() {
    use mma_core::Rounding::*;
    let one = ex(&FP32, 0x3f80_0000);
    let m_one = ex(&FP32, 0xbf80_0000);
    // 1 + (-1) = +0, but -0 in RD.
    assert_eq!(correctly_rounded(&one.add(&m_one), &FP32, NearestEven), 0);
    assert_eq!(
        correctly_rounded(&one.add(&m_one), &FP32, Down),
        0x8000_0000
    );
    // (+0) + (+0) = +0 even in RD; (-0) + (-0) = -0 everywhere.
    let pz = ex(&FP32, 0);
    let nz = ex(&FP32, 0x8000_0000);
    assert_eq!(correctly_rounded(&pz.add(&pz), &FP32, Down), 0);
    assert_eq!(correctly_rounded(&nz.add(&nz), &FP32, Up), 0x8000_0000);
    assert_eq!(correctly_rounded(&pz.add(&nz), &FP32, Down), 0x8000_0000);
    // 65520 = fp16 max (65504) + half an ulp: RNE overflows to Inf, RZ gives 65504.
    let x = ExactResult::from_f64(65520.0);
    assert_eq!(correctly_rounded(&x, &FP16, NearestEven), 0x7c00);
    assert_eq!(correctly_rounded(&x, &FP16, TowardZero), 0x7bff);
    assert_eq!(correctly_rounded(&x, &FP16, NearestAway), 0x7c00);
    // Just below the threshold stays finite.
    let x = ExactResult::from_f64(65519.99);
    assert_eq!(correctly_rounded(&x, &FP16, NearestEven), 0x7bff);
    // -2^-25 is half the smallest fp16 subnormal: RNE gives -0, RNA and RD give -2^-24.
    let x = ExactResult::from_f64(-(2f64.powi(-25)));
    assert_eq!(correctly_rounded(&x, &FP16, NearestEven), 0x8000);
    assert_eq!(correctly_rounded(&x, &FP16, NearestAway), 0x8001);
    assert_eq!(correctly_rounded(&x, &FP16, Down), 0x8001);
    assert_eq!(correctly_rounded(&x, &FP16, Up), 0x8000);
    // 1.5·2^-24 is a tie between the first two fp16 subnormals: RNE → 2·2^-24.
    let x = ExactResult::from_f64(1.5 * 2f64.powi(-24));
    assert_eq!(correctly_rounded(&x, &FP16, NearestEven), 0x0002);
    assert_eq!(correctly_rounded(&x, &FP16, NearestAway), 0x0002);
    let x = ExactResult::from_f64(2.5 * 2f64.powi(-24));
    assert_eq!(correctly_rounded(&x, &FP16, NearestEven), 0x0002);
    assert_eq!(correctly_rounded(&x, &FP16, NearestAway), 0x0003);
    // NaN cases: Inf − Inf, 0·Inf.
    let inf = ex(&FP32, 0x7f80_0000);
    let minf = ex(&FP32, 0xff80_0000);
    assert!(inf.add(&minf).is_nan());
    assert!(inf.mul(&pz).is_nan());
    assert_eq!(inf.mul(&m_one), minf);
}
