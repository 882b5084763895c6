//! Random operands for error reports, respecting each operand's format.
//!
//! A [`Sampler`] draws the A row, B column, C and (for block-scaled instructions) the scale
//! factors of one K-long dot product, as raw storage words of the unit's [`Formats`]: fp8/fp6/fp4
//! as codes in the low bits (fp4 `0..16`, fp6 `0..64`), tf32 with its low 13 bits zero, the
//! unsigned scale formats without a sign. The stream is a pure function of the formats, K, the
//! distribution and the seed (xoshiro256++), so a report can be replayed and two instructions
//! with the same operand formats and K see the same inputs.
//!
//! Distributions ([`Dist`]):
//!
//! - `logu`: magnitudes log-uniform over an exponent range that keeps every product and the sum
//!   finite in the output format (uniform exponent, uniform mantissa; subnormal inputs where the
//!   range reaches them), random signs; scales `2^-4..2^4`. The ranges are the operand formats'
//!   own, cut symmetrically so that `e_a + e_b (+ scales) + log2(K+1) + 1 <= emax(d)` and
//!   `e_a + e_b >= emin(d)`; C spans the products' range.
//! - `narrow`: every operand (and scale) in `[1, 4)` (two binades), random signs.
//! - `bits`: uniformly random bit patterns of each format's encoded width; NaN and Inf codes are
//!   excluded (redrawn), zeros, subnormals and the largest values included, so sums may overflow.
//! - `cancel`: `logu` operands in pairs `(a, b), (−a', b')` where `a'`, `b'` are `a`, `b` or a
//!   neighbouring code, so each pair's products cancel exactly or to a few ulps and the result is
//!   tiny relative to the terms; C is zero half of the time, otherwise from the lower half of the
//!   products' range.

use mma_core::{Format, Formats, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt;
use std::str::FromStr;

/// How operands are drawn (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dist {
    LogU,
    Narrow,
    Bits,
    Cancel,
}

impl Dist {
    pub const ALL: [Dist; 4] = [Dist::LogU, Dist::Narrow, Dist::Bits, Dist::Cancel];

    pub fn name(self) -> &'static str {
        match self {
            Dist::LogU => "logu",
            Dist::Narrow => "narrow",
            Dist::Bits => "bits",
            Dist::Cancel => "cancel",
        }
    }
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dist {
    type Err = String;
    fn from_str(s: &str) -> Result<Dist, String> {
        Dist::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown distribution {s:?}; expected logu, narrow, bits, cancel")
            })
    }
}

/// The operands of one dot product, one storage word per element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: u64,
    pub scale_a: Vec<u64>,
    pub scale_b: Vec<u64>,
}

/// An inclusive range of scientific exponents `e` (`|x| = 1.m·2^e`, subnormals below `emin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpRange {
    pub lo: i32,
    pub hi: i32,
}

impl ExpRange {
    /// Every exponent `fmt` can represent, subnormals included.
    pub fn of(fmt: &Format) -> ExpRange {
        let lo = if fmt.subnormals {
            fmt.emin() - fmt.man_bits as i32
        } else {
            fmt.emin()
        };
        ExpRange { lo, hi: fmt.emax() }
    }

    fn clip(self, lo: i32, hi: i32) -> ExpRange {
        let r = ExpRange {
            lo: self.lo.max(lo),
            hi: self.hi.min(hi),
        };
        if r.lo > r.hi {
            // Disjoint: keep the point of self closest to the wanted range.
            let p = if self.hi < lo { self.hi } else { self.lo };
            ExpRange { lo: p, hi: p }
        } else {
            r
        }
    }
}

/// Operand ranges of the `logu` and `cancel` distributions for `formats` and K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranges {
    pub a: ExpRange,
    pub b: ExpRange,
    pub c: ExpRange,
    pub scale: ExpRange,
}

impl Ranges {
    pub fn logu(f: &Formats, k: usize) -> Ranges {
        let scale = match f.scale {
            Some((sf, _)) => ExpRange::of(&sf).clip(-4, 4),
            None => ExpRange { lo: 0, hi: 0 },
        };
        let headroom = (usize::BITS - k.leading_zeros()) as i32 + 1;
        let p_hi = f.d.emax() - headroom - 2 * scale.hi;
        let p_lo = f.d.emin() - 2 * scale.lo;
        let (mut a, mut b) = (ExpRange::of(&f.a), ExpRange::of(&f.b));
        while a.hi + b.hi > p_hi && (a.hi > a.lo || b.hi > b.lo) {
            if a.hi >= b.hi && a.hi > a.lo {
                a.hi -= 1;
            } else {
                b.hi -= 1;
            }
        }
        while a.lo + b.lo < p_lo && (a.lo < a.hi || b.lo < b.hi) {
            if a.lo <= b.lo && a.lo < a.hi {
                a.lo += 1;
            } else {
                b.lo += 1;
            }
        }
        let c = ExpRange::of(&f.c).clip(
            a.lo + b.lo + 2 * scale.lo,
            (a.hi + b.hi + 2 * scale.hi).min(f.d.emax() - headroom),
        );
        Ranges { a, b, c, scale }
    }
}

/// A deterministic stream of operands for one unit's formats and K.
pub struct Sampler {
    formats: Formats,
    k: usize,
    dist: Dist,
    ranges: Ranges,
    rng: Xoshiro256PlusPlus,
}

/// Whether `bits` is a finite (or zero) value of `fmt`.
fn finite(fmt: &Format, bits: u64) -> bool {
    !matches!(fmt.decode(bits), Value::Nan | Value::Inf { .. })
}

fn sign_bit(fmt: &Format) -> u64 {
    if fmt.signed {
        1u64 << (fmt.lsb + fmt.exp_bits + fmt.man_bits)
    } else {
        0
    }
}

impl Sampler {
    pub fn new(formats: Formats, k: usize, dist: Dist, seed: u64) -> Sampler {
        Sampler {
            formats,
            k,
            dist,
            ranges: Ranges::logu(&formats, k),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    pub fn ranges(&self) -> Ranges {
        self.ranges
    }

    /// A value of `fmt` with exponent `e` (inside the format's range), random mantissa and sign.
    fn with_exp(&mut self, fmt: &Format, e: i32) -> u64 {
        loop {
            let m = fmt.man_bits;
            let (biased, man) = if e >= fmt.emin() || !fmt.subnormals {
                let man = self.rng.random::<u64>() & ((1u64 << m) - 1);
                ((e + fmt.bias) as u64, man)
            } else {
                let lead = 1u64 << (m as i32 - (fmt.emin() - e));
                (0, lead | (self.rng.random::<u64>() & (lead - 1)))
            };
            let neg = self.rng.random::<bool>();
            let bits = ((biased << m) | man) << fmt.lsb | if neg { sign_bit(fmt) } else { 0 };
            if finite(fmt, bits) {
                return bits;
            }
        }
    }

    fn in_range(&mut self, fmt: &Format, r: ExpRange) -> u64 {
        let e = self.rng.random_range(r.lo..=r.hi);
        self.with_exp(fmt, e)
    }

    /// A uniformly random finite code of `fmt` (NaN and Inf redrawn).
    fn any_bits(&mut self, fmt: &Format) -> u64 {
        let mask = u64::MAX >> (64 - fmt.width());
        loop {
            let bits = (self.rng.random::<u64>() & mask) << fmt.lsb;
            if finite(fmt, bits) {
                return bits;
            }
        }
    }

    /// `x`, or its neighbour one code above or below in magnitude (when that is finite).
    fn nudge(&mut self, fmt: &Format, x: u64) -> u64 {
        let step = 1u64 << fmt.lsb;
        let sign = x & sign_bit(fmt);
        let mag = x & !sign_bit(fmt);
        let y = match self.rng.random_range(0..3) {
            0 => mag.checked_sub(step),
            1 => Some(mag + step),
            _ => None,
        };
        match y {
            Some(m) if m > 0 && m & sign_bit(fmt) == 0 && finite(fmt, m | sign) => m | sign,
            _ => x,
        }
    }

    /// The next dot product's operands.
    pub fn next_inputs(&mut self) -> Inputs {
        let f = self.formats;
        let k = self.k;
        let n_scales = match f.scale {
            Some((_, per)) => k.div_ceil(per),
            None => 0,
        };
        let r = self.ranges;
        let mut inp = Inputs::default();
        match self.dist {
            Dist::LogU | Dist::Cancel => {
                for _ in 0..k {
                    let a = self.in_range(&f.a, r.a);
                    let b = self.in_range(&f.b, r.b);
                    inp.a.push(a);
                    inp.b.push(b);
                }
                if self.dist == Dist::Cancel {
                    for i in (0..k.saturating_sub(1)).step_by(2) {
                        let a = self.nudge(&f.a, inp.a[i]) ^ sign_bit(&f.a);
                        inp.a[i + 1] = a;
                        inp.b[i + 1] = self.nudge(&f.b, inp.b[i]);
                    }
                    inp.c = if self.rng.random::<bool>() {
                        0
                    } else {
                        let mid = r.c.lo + (r.c.hi - r.c.lo) / 2;
                        self.in_range(
                            &f.c,
                            ExpRange {
                                lo: r.c.lo,
                                hi: mid,
                            },
                        )
                    };
                } else {
                    inp.c = self.in_range(&f.c, r.c);
                }
                if let Some((sf, _)) = f.scale {
                    for _ in 0..n_scales {
                        let sa = self.in_range(&sf, r.scale);
                        let sb = self.in_range(&sf, r.scale);
                        inp.scale_a.push(sa);
                        inp.scale_b.push(sb);
                    }
                }
            }
            Dist::Narrow => {
                let two = ExpRange { lo: 0, hi: 1 };
                for _ in 0..k {
                    let a = self.in_range(&f.a, two);
                    let b = self.in_range(&f.b, two);
                    inp.a.push(a);
                    inp.b.push(b);
                }
                inp.c = self.in_range(&f.c, two);
                if let Some((sf, _)) = f.scale {
                    for _ in 0..n_scales {
                        let sa = self.in_range(&sf, two);
                        let sb = self.in_range(&sf, two);
                        inp.scale_a.push(sa);
                        inp.scale_b.push(sb);
                    }
                }
            }
            Dist::Bits => {
                for _ in 0..k {
                    let a = self.any_bits(&f.a);
                    let b = self.any_bits(&f.b);
                    inp.a.push(a);
                    inp.b.push(b);
                }
                inp.c = self.any_bits(&f.c);
                if let Some((sf, _)) = f.scale {
                    for _ in 0..n_scales {
                        let sa = self.any_bits(&sf);
                        let sb = self.any_bits(&sf);
                        inp.scale_a.push(sa);
                        inp.scale_b.push(sb);
                    }
                }
            }
        }
        inp
    }
}

impl Iterator for Sampler {
    type Item = Inputs;
    fn next(&mut self) -> Option<Inputs> {
        Some(self.next_inputs())
    }
}
