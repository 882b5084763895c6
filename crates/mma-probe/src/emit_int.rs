//! Probes of integer units (I-DPA candidates): what an integer MMA leaves open is only how the
//! exact sum reaches the 32-bit accumulator, so the probes push sums past its ends.
//!
//! - `extreme`: every product at its largest (and most negative) value, with C at 0 and at
//!   both ends of the s32 range: wrap-around and saturation give different words.
//! - `block`: C = 2^31 - 1 and a product of +1 at element 0, a product of -1 at element j
//!   (j = 1..K-1): a unit that saturates once per block of L returns 2^31 - 2 when j lies in
//!   a later block (the first block clamped) and 2^31 - 1 when it lies in the same block; a
//!   wrapping unit returns 2^31 - 1 either way. Needs a format pair with a negative product.
//! - `xor`: single-bit units, A and B with a few ones at different places: AND and XOR
//!   population counts differ.
//!
//! The random samplers draw words of the formats: `bits` anything, `narrow` values in
//! -2..=2, `wide` the extremes, `cancel` products that cancel in pairs, `zeros` mostly zeros,
//! `subnormal` (the float samplers' name kept) sums near the accumulator's ends.

use crate::records::Record;
use mma_core::format::Format;
use mma_core::Formats;
use rand::{Rng, RngCore};

fn record(label: &str, a: Vec<u64>, b: Vec<u64>, c: u64) -> Record {
    Record {
        label: label.to_string(),
        a,
        b,
        c,
        scale_a: Vec::new(),
        scale_b: Vec::new(),
        d: 0,
    }
}

/// The targeted integer probes.
pub(crate) fn targeted(f: Formats, k: usize) -> Vec<Record> {
    let (fa, fb, fc) = (f.a, f.b, f.c);
    let mut out = Vec::new();
    let (Some((alo, ahi)), Some((blo, bhi)), Some((clo, chi))) =
        (fa.int_range(), fb.int_range(), fc.int_range())
    else {
        return out;
    };
    let zero = |f: &Format| f.int_word(0).unwrap_or(0);
    for (av, bv) in [(ahi, bhi), (alo, blo), (ahi, blo), (alo, bhi)] {
        for cv in [0, chi, clo] {
            let (Some(a), Some(b), Some(c)) = (fa.int_word(av), fb.int_word(bv), fc.int_word(cv))
            else {
                continue;
            };
            out.push(record("extreme", vec![a; k], vec![b; k], c));
        }
    }
    // The block probe: +1 at element 0, -1 at element j.
    let minus = [(-1, 1), (1, -1)]
        .into_iter()
        .find_map(|(x, y)| Some((fa.int_word(x)?, fb.int_word(y)?)));
    if let (Some((ma, mb)), Some(one_a), Some(one_b), Some(c)) =
        (minus, fa.int_word(1), fb.int_word(1), fc.int_word(chi))
    {
        for j in 1..k {
            let (mut a, mut b) = (vec![zero(&fa); k], vec![zero(&fb); k]);
            a[0] = one_a;
            b[0] = one_b;
            a[j] = ma;
            b[j] = mb;
            out.push(record("block", a, b, c));
        }
    }
    if fa.width() == 1 && fb.width() == 1 {
        for j in 1..k {
            let (mut a, mut b) = (vec![0; k], vec![0; k]);
            a[0] = 1;
            b[j] = 1;
            a[j / 2] = 1;
            out.push(record("xor", a, b, zero(&fc)));
        }
    }
    out
}

/// One random integer record from `sampler` (one of `emit::SAMPLERS`).
pub(crate) fn sample(f: Formats, k: usize, sampler: &str, rng: &mut impl RngCore) -> Record {
    let (fa, fb, fc) = (f.a, f.b, f.c);
    let range = |f: &Format| f.int_range().unwrap_or((0, 0));
    let pick = |f: &Format, lo: i64, hi: i64, rng: &mut dyn RngCore| {
        let (flo, fhi) = range(f);
        let (lo, hi) = (lo.max(flo), hi.min(fhi));
        let v = if lo >= hi {
            lo
        } else {
            rng.random_range(lo..=hi)
        };
        f.int_word(v).unwrap_or(0)
    };
    let any = |f: &Format, rng: &mut dyn RngCore| {
        let (lo, hi) = range(f);
        pick(f, lo, hi, rng)
    };
    let mut a = Vec::with_capacity(k);
    let mut b = Vec::with_capacity(k);
    let c = match sampler {
        "narrow" => {
            for _ in 0..k {
                a.push(pick(&fa, -2, 2, rng));
                b.push(pick(&fb, -2, 2, rng));
            }
            pick(&fc, -8, 8, rng)
        }
        "wide" => {
            for _ in 0..k {
                let (alo, ahi) = range(&fa);
                let (blo, bhi) = range(&fb);
                a.push(
                    fa.int_word(if rng.random() { ahi } else { alo })
                        .unwrap_or(0),
                );
                b.push(
                    fb.int_word(if rng.random() { bhi } else { blo })
                        .unwrap_or(0),
                );
            }
            any(&fc, rng)
        }
        "cancel" => {
            for i in 0..k {
                if i % 2 == 0 {
                    a.push(any(&fa, rng));
                    b.push(any(&fb, rng));
                } else {
                    // The previous product with A negated where the format allows.
                    let pa = fa.int_value(a[i - 1]).unwrap_or(0);
                    a.push(fa.int_word(-pa).unwrap_or(a[i - 1]));
                    b.push(b[i - 1]);
                }
            }
            any(&fc, rng)
        }
        "zeros" => {
            for _ in 0..k {
                let z = rng.random_range(0..4) != 0;
                a.push(if z { 0 } else { any(&fa, rng) });
                b.push(any(&fb, rng));
            }
            0
        }
        "subnormal" => {
            for _ in 0..k {
                a.push(any(&fa, rng));
                b.push(any(&fb, rng));
            }
            let (lo, hi) = range(&fc);
            let v = if rng.random() {
                hi - rng.random_range(0..1 << 20)
            } else {
                lo + rng.random_range(0..1 << 20)
            };
            fc.int_word(v).unwrap_or(0)
        }
        _ => {
            for _ in 0..k {
                a.push(any(&fa, rng));
                b.push(any(&fb, rng));
            }
            any(&fc, rng)
        }
    };
    record(sampler, a, b, c)
}
