//! Words of a format built from values, and the random samplers of the probe generator.

use mma_core::{Format, Value};
use rand::{Rng, RngCore};

/// The word of `(-1)^neg · sig · 2^exp` in `fmt`, when the format holds it exactly
/// ([`Format::encode_exact`]), its sign included: a probe's -0 must be -0, so a negative value
/// (zero too) of an unsigned format is `None`.
pub fn exact(fmt: &Format, neg: bool, sig: u64, exp: i32) -> Option<u64> {
    if neg && !fmt.signed {
        return None;
    }
    fmt.encode_exact(Value::Finite { neg, sig, exp })
}

/// `±2^e` in `fmt`, when representable.
pub fn pow2(fmt: &Format, neg: bool, e: i32) -> Option<u64> {
    exact(fmt, neg, 1, e)
}

/// The largest finite value of `fmt`.
pub fn max_finite(fmt: &Format, neg: bool) -> u64 {
    let v = Value::Finite {
        neg: neg && fmt.signed,
        sig: fmt.max_sig(),
        exp: fmt.emax() - fmt.man_bits as i32,
    };
    fmt.encode(v, fmt.default_nan())
}

/// The smallest positive (subnormal, where the format has them) value of `fmt`.
pub fn min_positive(fmt: &Format, neg: bool) -> Option<u64> {
    pow2(fmt, neg, fmt.min_lsb_exp())
}

/// A NaN word, when the format has one.
pub fn nan(fmt: &Format) -> Option<u64> {
    fmt.has_nan().then(|| fmt.default_nan())
}

/// ±Inf, when the format has it.
pub fn inf(fmt: &Format, neg: bool) -> Option<u64> {
    fmt.has_inf().then(|| {
        fmt.encode(
            Value::Inf {
                neg: neg && fmt.signed,
            },
            fmt.default_nan(),
        )
    })
}

/// A uniformly random word of `fmt` that decodes to a finite number or zero.
pub fn random_bits(fmt: &Format, rng: &mut impl RngCore) -> u64 {
    loop {
        let w = (rng.next_u64() & (u64::MAX >> (64 - fmt.width()))) << fmt.lsb;
        let w = w & fmt.storage_mask();
        if fmt.is_valid_encoding(w) && !matches!(fmt.decode(w), Value::Nan | Value::Inf { .. }) {
            return w;
        }
    }
}

/// A random finite word whose scientific exponent lies in `[lo, hi]` (clamped to the format's
/// normal range), with a random significand and a random sign (none for unsigned formats).
pub fn random_in(fmt: &Format, lo: i32, hi: i32, rng: &mut impl RngCore) -> u64 {
    let (lo, hi) = (
        lo.max(fmt.emin()),
        hi.min(fmt.emax()).max(lo.max(fmt.emin())),
    );
    for _ in 0..64 {
        let e = rng.random_range(lo..=hi);
        let man = rng.next_u64() & ((1u64 << fmt.man_bits) - 1);
        let sig = man | (1u64 << fmt.man_bits);
        let neg = fmt.signed && rng.random::<bool>();
        if let Some(w) = exact(fmt, neg, sig, e - fmt.man_bits as i32) {
            return w;
        }
    }
    random_bits(fmt, rng)
}

/// The scientific exponent of a finite non-zero word (`None` for zeros and specials).
pub fn exponent(fmt: &Format, w: u64) -> Option<i32> {
    match fmt.decode(w) {
        Value::Finite { sig, exp, .. } => Some(exp + 63 - sig.leading_zeros() as i32),
        _ => None,
    }
}
