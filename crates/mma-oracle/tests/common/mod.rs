//! Random operands for the oracle tests: a mix of uniform bit patterns, subnormals, values near
//! overflow, near-ties and cancellations, and specials.
#![allow(dead_code)]

use mma_core::Rounding;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use softfloat_wrapper::RoundingMode;

pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// The four IEEE directions SoftFloat and the oracle share.
pub const MODES: [(Rounding, RoundingMode); 4] = [
    (Rounding::NearestEven, RoundingMode::TiesToEven),
    (Rounding::TowardZero, RoundingMode::TowardZero),
    (Rounding::Down, RoundingMode::TowardNegative),
    (Rounding::Up, RoundingMode::TowardPositive),
];

/// A random IEEE word of `exp_bits`/`man_bits` whose biased exponent is drawn from one of
/// several regimes (0 = subnormal, top = Inf/NaN). `centre` biases the "moderate" regime.
pub fn ieee_bits(r: &mut impl Rng, exp_bits: u32, man_bits: u32, centre: i64) -> u64 {
    let top = (1i64 << exp_bits) - 1;
    let bias = top / 2;
    let sign = (r.random::<u64>() & 1) << (exp_bits + man_bits);
    let mut man = r.random::<u64>() & ((1u64 << man_bits) - 1);
    // Short mantissas make exact ties and exact cancellations frequent.
    if r.random_bool(0.3) {
        let keep = r.random_range(0..=man_bits.min(6));
        man &= !((1u64 << (man_bits - keep)) - 1);
    }
    let biased: i64 = match r.random_range(0..100) {
        0..=19 => r.random_range(0..=top), // anything, incl. specials
        20..=29 => 0,                      // subnormal or zero
        30..=39 => r.random_range(1..=(man_bits as i64 + 3).min(top - 1)), // low normals
        40..=49 => r.random_range((top - 4).max(1)..top), // near overflow
        50..=52 => top,                    // Inf / NaN
        _ => (bias + centre + r.random_range(-12..=12)).clamp(1, top - 1),
    };
    sign | ((biased as u64) << man_bits) | man
}

pub fn f32_bits(r: &mut impl Rng) -> u32 {
    ieee_bits(r, 8, 23, 0) as u32
}

pub fn f64_bits(r: &mut impl Rng) -> u64 {
    ieee_bits(r, 11, 52, 0)
}

/// A second operand related to `x`: its negation nudged by a few ulps (cancellation), a value a
/// fixed number of binades away (ties in addition), or an independent one.
pub fn partner(r: &mut impl Rng, x: u64, exp_bits: u32, man_bits: u32) -> u64 {
    let sign = 1u64 << (exp_bits + man_bits);
    match r.random_range(0..4) {
        0 => {
            (x ^ sign)
                .wrapping_add(r.random_range(0..5))
                .wrapping_sub(2)
                & (sign | (sign - 1))
        }
        1 => {
            let field = (x >> man_bits) & ((1 << exp_bits) - 1);
            let shift = r.random_range(1..=(man_bits as u64 + 3));
            let e = field.saturating_sub(shift).max(1);
            let man = (r.random::<u64>() & 7) << (man_bits - 3);
            (r.random::<u64>() & sign) | (e << man_bits) | man
        }
        _ => ieee_bits(r, exp_bits, man_bits, 0),
    }
}
