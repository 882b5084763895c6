//! The oracle's RNE rounding from fp32 against the `half` crate's conversions
//! (`f16::from_f32` and `bf16::from_f32`, both round to nearest even with IEEE overflow).

use crate::common;

use common::{f32_bits, rng};
use half::{bf16, f16};
use mma_core::format::{BF16, FP16, FP32};
use mma_core::Rounding;
use mma_oracle::{correctly_rounded, ExactResult};
use rand::Rng;

const N: usize = 60_000;

fn oracle(bits: u32, out: &mma_core::Format) -> u64 {
    correctly_rounded(
        &ExactResult::from_bits(&FP32, bits as u64),
        out,
        Rounding::NearestEven,
    )
}

fn check(x: u32) {
    let v = f32::from_bits(x);
    let want = f16::from_f32(v);
    let got = oracle(x, &FP16);
    if want.is_nan() {
        assert!(FP16.decode(got).is_nan(), "f16 {x:#010x}");
    } else {
        assert_eq!(got, want.to_bits() as u64, "f32 {x:#010x} ({v:e}) -> f16");
    }
    let want = bf16::from_f32(v);
    let got = oracle(x, &BF16);
    if want.is_nan() {
        assert!(BF16.decode(got).is_nan(), "bf16 {x:#010x}");
    } else {
        assert_eq!(got, want.to_bits() as u64, "f32 {x:#010x} ({v:e}) -> bf16");
    }
}

#[test]
fn random_f32() {
    let mut r = rng(11);
    for _ in 0..N {
        check(f32_bits(&mut r));
    }
}

/// fp32 values in and around the fp16 range: exponents -27..17 (subnormal results, underflow to
/// zero, overflow at 65520), with mantissas that are frequently exact ties for f16 and bf16.
#[test]
fn f16_range_and_ties() {
    let mut r = rng(12);
    let mut ties = 0;
    for _ in 0..N {
        let e: u32 = r.random_range(100..=144);
        let mut man = r.random::<u32>() & 0x7f_ffff;
        match r.random_range(0..3) {
            // Exactly half an f16 ulp of a normal f16 (13 dropped bits: 1 then zeros).
            0 => man = (man & !0x1fff) | 0x1000,
            // Exactly half a bf16 ulp.
            1 => man = (man & !0xffff) | 0x8000,
            _ => {}
        }
        let x = (r.random::<u32>() & 0x8000_0000) | (e << 23) | man;
        ties += (man & 0x1fff == 0x1000) as u32;
        check(x);
    }
    assert!(ties > N as u32 / 4);
}

/// Every fp32 value whose low 13 bits are one of a few interesting patterns, for every exponent
/// and sign and 1024 mantissa heads: every fp16/bf16 grid point, tie and near-tie.
#[test]
fn structured_sweep() {
    for sign in [0u32, 0x8000_0000] {
        for e in 0u32..=255 {
            for head in (0u32..1024).step_by(7) {
                for tail in [0u32, 1, 0xfff, 0x1000, 0x1001, 0x1fff] {
                    check(sign | (e << 23) | (head << 13) | tail);
                }
            }
        }
    }
}
