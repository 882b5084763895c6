//! Cross-check of `mma_core::round::round` (the project's single rounding routine) against the
//! oracle's MPFR rounding, for every signed format, every rounding direction, IEEE overflow, on
//! random exact values: wide significands, values around each format's subnormal range and
//! overflow threshold, exact ties, and sticky remainders.
//!
//! `round`'s contract for `sticky`: the discarded part `δ` lies strictly between 0 and 1 unit of
//! `mag`'s last bit, and there is a rounding bit inside `mag` (or, for `mag = 0`, the value is
//! below half the smallest subnormal). The generated cases respect it.

use crate::common;

use common::rng;
use mma_core::format::{ALL, FP16, FP32};
use mma_core::round::{round, Exact, RoundOpts};
use mma_core::{Format, Rounding, Value};
use mma_oracle::exact::dyadic;
use mma_oracle::{correctly_rounded, ExactResult};
use rand::Rng;
use rug::Integer;

const N: usize = 6_000;

/// The oracle's exact value of `x`, with the sticky part `δ = r/8`, `1 <= r <= 7`.
fn exact_of(x: &Exact, r: u32) -> ExactResult {
    if x.mag == 0 && !x.sticky {
        return ExactResult::zero(x.neg);
    }
    let mut m = Integer::from(x.mag) << 3u32;
    if x.sticky {
        m += r;
    }
    if x.neg {
        m = -m;
    }
    ExactResult::finite(dyadic(m, x.exp - 3))
}

fn random_exact(r: &mut impl Rng, fmt: &Format) -> Exact {
    let len: u32 = match r.random_range(0..4) {
        0 => r.random_range(1..=fmt.man_bits + 3),
        1 => r.random_range(fmt.man_bits..=fmt.man_bits + 12),
        _ => r.random_range(1..=128),
    };
    let mut mag: u128 = if len == 128 {
        r.random()
    } else {
        (r.random::<u128>() & ((1u128 << len) - 1)) | (1u128 << (len - 1))
    };
    // Exact ties and near-ties: clear bits below a random position, maybe set the one above.
    if r.random_bool(0.4) && len > 2 {
        let cut = r.random_range(1..len);
        mag &= !((1u128 << cut) - 1);
        if r.random_bool(0.5) {
            mag |= 1u128 << (cut - 1);
        }
    }
    // Scientific exponent of the value: around the subnormal range, anywhere, or around overflow.
    let e = match r.random_range(0..3) {
        0 => r.random_range(fmt.min_lsb_exp() - 4..=fmt.emin() + 2),
        1 => r.random_range(fmt.min_lsb_exp() - 4..=fmt.emax() + 3),
        _ => r.random_range(fmt.emax() - 2..=fmt.emax() + 2),
    };
    let exp = e - (len as i32 - 1);
    let neg = r.random();
    if r.random_bool(0.02) {
        return Exact {
            neg,
            mag: 0,
            exp: fmt.min_lsb_exp() - r.random_range(1..10),
            sticky: r.random(),
        };
    }
    // Sticky only where a rounding bit exists inside mag (shift >= 1).
    let q = (e - fmt.man_bits as i32).max(fmt.min_lsb_exp());
    let sticky = q - exp >= 1 && r.random_bool(0.3);
    Exact {
        neg,
        mag,
        exp,
        sticky,
    }
}

fn check_format(fmt: &Format, seed: u64) -> usize {
    let mut r = rng(seed);
    let mut n = 0;
    for _ in 0..N {
        let x = random_exact(&mut r, fmt);
        let delta = r.random_range(1..8);
        let exact = exact_of(&x, delta);
        for mode in Rounding::ALL {
            let v = round(fmt, x, mode, RoundOpts::IEEE);
            let core = fmt.encode(v, fmt.default_nan());
            let oracle = correctly_rounded(&exact, fmt, mode);
            let ok = core == oracle || (v.is_nan() && fmt.decode(oracle).is_nan());
            assert!(
                ok,
                "{} {mode:?} {x:?} (δ = {delta}/8): core {core:#x} ({v:?}), oracle {oracle:#x}",
                fmt.name
            );
            n += 1;
        }
    }
    n
}

#[test]
fn every_signed_format_every_mode() {
    let mut total = 0;
    for (i, fmt) in ALL.iter().filter(|f| f.signed).enumerate() {
        total += check_format(fmt, 100 + i as u64);
    }
    assert_eq!(total, 12 * N * 5);
}

/// The E8M13 format of the Ada/Hopper fp8 path (not in `ALL`).
#[test]
fn e8m13() {
    check_format(&mma_core::format::E8M13, 200);
}

/// Values exactly halfway between two fp16 subnormals, and between the largest subnormal and the
/// smallest normal, by hand.
#[test]
fn subnormal_ties_by_hand() {
    // (2k+1)·2^-25: tie between k·2^-24 and (k+1)·2^-24.
    for k in [0u128, 1, 2, 1022, 1023] {
        let x = Exact {
            neg: false,
            mag: 2 * k + 1,
            exp: -25,
            sticky: false,
        };
        let even = if k % 2 == 0 { k } else { k + 1 } as u64;
        let v = round(&FP16, x, Rounding::NearestEven, RoundOpts::IEEE);
        assert_eq!(FP16.encode(v, 0x7e00), even, "k = {k}");
        let oracle = correctly_rounded(&exact_of(&x, 0), &FP16, Rounding::NearestEven);
        assert_eq!(oracle, even, "k = {k}");
    }
    // fp32: 2^-150 + sticky rounds up to the smallest subnormal in RNE (more than half).
    let x = Exact {
        neg: true,
        mag: 1,
        exp: -150,
        sticky: true,
    };
    let v = round(&FP32, x, Rounding::NearestEven, RoundOpts::IEEE);
    assert_eq!(
        v,
        Value::Finite {
            neg: true,
            sig: 1,
            exp: -149
        }
    );
    assert_eq!(
        correctly_rounded(&exact_of(&x, 3), &FP32, Rounding::NearestEven),
        0x8000_0001
    );
}
