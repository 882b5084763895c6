//! An exact fixed-point accumulator wide enough for every sum the models form exactly.
//!
//! Two's complement over `LIMBS` 64-bit limbs with the least significant bit at `2^LSB_EXP`.
//! The range covers products of two bf16 numbers (2^-266 .. 2^256), products of two fp8 numbers
//! times two ue8m0 scales (2^-286 .. 2^290) and fp32 C, with room for the carries of hundreds
//! of terms. Terms below `2^LSB_EXP` would lose bits; no built-in format produces them, and the
//! accumulator records them in a sticky flag rather than panic.

use crate::round::Exact;

const LIMBS: usize = 11;
/// Weight of the accumulator's least significant bit.
pub const LSB_EXP: i32 = -352;
/// Weight of the accumulator's sign bit.
pub const TOP_EXP: i32 = LSB_EXP + 64 * LIMBS as i32 - 1;

/// Exact sum of signed terms `±sig·2^lsb`.
#[derive(Clone, Debug)]
pub struct WideSum {
    limbs: [u64; LIMBS],
    lost: bool,
    /// Weight of the least significant bit (`LSB_EXP` unless anchored elsewhere).
    lsb_exp: i32,
}

impl Default for WideSum {
    fn default() -> Self {
        Self::new()
    }
}

impl WideSum {
    pub fn new() -> Self {
        Self::anchored(LSB_EXP)
    }

    /// An accumulator whose least significant bit weighs `2^lsb_exp`; it spans about
    /// `64 * LIMBS` bits above that (the FMA anchors it at its smaller operand).
    pub fn anchored(lsb_exp: i32) -> Self {
        WideSum {
            limbs: [0; LIMBS],
            lost: false,
            lsb_exp,
        }
    }

    /// Bits of magnitude the accumulator holds above its anchor, with room for carries.
    pub const SPAN: i32 = 64 * LIMBS as i32 - 8;

    /// Adds `(-1)^neg · sig · 2^lsb`.
    pub fn add(&mut self, neg: bool, sig: u128, lsb: i32) {
        self.lost |= add_to(&mut self.limbs, self.lsb_exp, neg, sig, lsb);
    }

    pub fn is_zero(&self) -> bool {
        !self.lost && self.limbs.iter().all(|&l| l == 0)
    }

    /// The sum as sign, top 128 significant bits, their exponent, and a sticky bit for the rest.
    pub fn to_exact(&self) -> Exact {
        exact_of(self.limbs, self.lsb_exp, self.lost)
    }
}

/// An exact sum as [`WideSum`], sized for the span of its terms when that exceeds
/// [`WideSum::SPAN`] (f64 products, say, span 4,200 bits): the rare case, allocated.
#[derive(Clone, Debug)]
pub struct BigSum {
    limbs: Vec<u64>,
    lost: bool,
    lsb_exp: i32,
}

impl BigSum {
    /// An accumulator for terms whose bits lie in `[2^lsb_exp, 2^top_exp)`, with room for the
    /// carries of up to 256 terms.
    pub fn spanning(lsb_exp: i32, top_exp: i32) -> BigSum {
        let bits = (top_exp - lsb_exp).max(0) as usize + 8 + 1;
        BigSum {
            limbs: vec![0; bits.div_ceil(64)],
            lost: false,
            lsb_exp,
        }
    }

    pub fn add(&mut self, neg: bool, sig: u128, lsb: i32) {
        self.lost |= add_to(&mut self.limbs, self.lsb_exp, neg, sig, lsb);
    }

    pub fn to_exact(&self) -> Exact {
        exact_of(self.limbs.clone(), self.lsb_exp, self.lost)
    }

    /// Every bit of the sum: its sign and its magnitude in little-endian limbs without high zero
    /// limbs (none for zero), at the anchor's weight. The accumulator must have held every term
    /// ([`BigSum::spanning`] the terms' span): bits lost below the anchor are not in it.
    pub fn to_sign_magnitude(&self) -> (bool, Vec<u64>) {
        let mut mag = self.limbs.clone();
        let neg = negate_if_negative(&mut mag);
        let len = mag.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
        mag.truncate(len);
        (neg, mag)
    }
}

/// Turns two's-complement `limbs` into their magnitude; returns whether the value was negative.
fn negate_if_negative(limbs: &mut [u64]) -> bool {
    let neg = limbs.last().is_some_and(|&l| l >> 63 == 1);
    if neg {
        let mut carry = 1u64;
        for l in limbs.iter_mut() {
            let (s, c) = (!*l).overflowing_add(carry);
            *l = s;
            carry = c as u64;
        }
    }
    neg
}

/// Adds `(-1)^neg · sig · 2^lsb` into two's-complement `limbs` whose least significant bit
/// weighs `2^lsb_exp`; returns whether bits were lost (below the anchor, or beyond the top).
fn add_to(limbs: &mut [u64], lsb_exp: i32, neg: bool, sig: u128, lsb: i32) -> bool {
    if sig == 0 {
        return false;
    }
    let mut lost = false;
    let mut sig = sig;
    let mut pos = lsb - lsb_exp;
    if pos < 0 {
        let drop = (-pos) as u32;
        if drop >= 128 || sig & ((1u128 << drop) - 1) != 0 {
            lost = true;
        }
        sig = if drop >= 128 { 0 } else { sig >> drop };
        pos = 0;
        if sig == 0 {
            return lost;
        }
    }
    let span = 64 * limbs.len() as i32 - 8;
    let top = pos + (128 - sig.leading_zeros() as i32);
    if top > span {
        // Beyond the accumulator: no model forms such a term (their ranges are documented
        // above); record the loss instead of wrapping around.
        debug_assert!(false, "term 2^{lsb} beyond the accumulator");
        return true;
    }
    let limb = (pos / 64) as usize;
    let off = (pos % 64) as u32;
    // The term spread over up to three limbs.
    let lo = (sig << off) as u64;
    let mid = if off == 0 {
        (sig >> 64) as u64
    } else {
        (sig >> (64 - off)) as u64
    };
    let hi = if off == 0 {
        0
    } else {
        (sig >> (128 - off)) as u64
    };
    let parts = [lo, mid, hi];
    let n = limbs.len();
    let mut carry = 0u64;
    for i in limb..n {
        let p = if i - limb < 3 { parts[i - limb] } else { 0 };
        let (s1, c1, s2, c2);
        if neg {
            (s1, c1) = limbs[i].overflowing_sub(p);
            (s2, c2) = s1.overflowing_sub(carry);
        } else {
            (s1, c1) = limbs[i].overflowing_add(p);
            (s2, c2) = s1.overflowing_add(carry);
        }
        limbs[i] = s2;
        carry = (c1 | c2) as u64;
        if carry == 0 && i - limb >= 2 {
            break;
        }
    }
    lost
}

/// The value of two's-complement `mag` (least significant bit `2^lsb_exp`) as sign, top 128
/// significant bits, their exponent, and a sticky bit for the rest (and `lost`).
fn exact_of<L: AsMut<[u64]> + AsRef<[u64]>>(mut limbs: L, lsb_exp: i32, lost: bool) -> Exact {
    let mag = limbs.as_mut();
    let n = mag.len();
    let neg = negate_if_negative(mag);
    let Some(top) = (0..n).rev().find(|&i| mag[i] != 0) else {
        return Exact {
            neg,
            mag: 0,
            exp: lsb_exp,
            sticky: lost,
        };
    };
    // Take two limbs below and including the top one, normalised to 128 bits.
    let lz = mag[top].leading_zeros();
    let bit_top = top as i32 * 64 + 63 - lz as i32; // index of the leading one
    let lo_bit = bit_top - 127; // index of the lowest bit kept
    let mut m: u128 = 0;
    let mut sticky = lost;
    for (i, &limb) in mag.iter().enumerate().take(top + 1) {
        let base = i as i32 * 64;
        if base + 64 <= lo_bit {
            sticky |= limb != 0;
            continue;
        }
        let rel = base - lo_bit;
        if rel >= 0 {
            m |= (limb as u128) << rel;
        } else {
            let cut = (-rel) as u32;
            sticky |= limb & ((1u64 << cut) - 1) != 0;
            m |= (limb >> cut) as u128;
        }
    }
    if lo_bit < 0 {
        // Fewer than 128 significant bits in all: the value is exact as an integer.
        let mut v: u128 = 0;
        for i in (0..=top).rev() {
            v = (v << 64) | mag[i] as u128;
        }
        return Exact {
            neg,
            mag: v,
            exp: lsb_exp,
            sticky: lost,
        };
    }
    Exact {
        neg,
        mag: m,
        exp: lsb_exp + lo_bit,
        sticky,
    }
}
