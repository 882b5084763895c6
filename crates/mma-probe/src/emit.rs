//! The probe generator: inputs for a unit of given formats and K that, once run on a device,
//! determine its model (with [`crate::infer`](mod@crate::infer)).
//!
//! Targeted probes generalise the feature vectors of the repository's `vectors/` folder to
//! any formats and K; each is skipped where the formats cannot hold its values:
//!
//! - `round`: `C = ±2^(m+1)` (`m` fraction bits of the output or of E8M13) plus one product
//!   of ±0.5, ±1, ±1.25, ±1.5, ±1.75 or ±3: the sum sits at or near a tie of the last place,
//!   so RNE, RZ, RD and RU give different results.
//! - `tie`: `C = ±2^(m+1)` and the products ±1 and ±2^-j: a tie of the output's last place
//!   broken by a bit `j` places below it (j = 1..12), which survives only where the datapath
//!   keeps that many bits before the final rounding (GTR-FDPA's late-C width F2).
//! - `fraction`: a product `2^s` cancelled exactly by `C = -2^s` (or by a second product),
//!   beside a small term `2^(s-j)` for j = 1..48: the small term survives alignment to the
//!   largest exponent only while `j <= F` (F: fraction bits kept), and a small C survives only
//!   when C is added late.
//! - `block`: `2^(m+1)` and then j ones (j = 1..K-1), in both orders: chained blocks of L
//!   round after every L products, so the result shows where the blocks end.
//! - `carry`: j equal products with long significands (j = 1..K): sums that carry past the
//!   output's precision, so that the rounding shows even where F is small.
//! - `e_zero`: C near and below the output's smallest normal number with zero products, and
//!   a single tiny product: where a zero term's exponent dominates the alignment.
//! - `zero`: every combination of signed zero products and C, and exact cancellations.
//! - `special`: NaN and Inf operands, `Inf·0`, `Inf - Inf`, Inf C, and overflowing sums.
//! - `subnormal`: subnormal operands and products, and sums that land among the output's
//!   subnormal numbers (flush-to-zero shows there).
//!
//! Integer units have their own probes (`emit_int.rs`): sums past the accumulator's ends.
//!
//! Random records come from six samplers (`bits`, `narrow`, `wide`, `cancel`, `zeros`,
//! `subnormal`), a function of the seed, the formats and K.

use crate::records::Record;
use crate::values::{exact, inf, max_finite, min_positive, nan, pow2, random_bits, random_in};
use mma_core::format::Format;
use mma_core::Formats;
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What to probe: the operand formats and K.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub formats: Formats,
    pub k: usize,
}

/// Builds probe records, skipping those whose values the formats cannot hold.
struct Builder<'a> {
    spec: &'a Spec,
    out: Vec<Record>,
}

/// One term of a probe: a product as its A and B words.
type Pair = (u64, u64);

impl Builder<'_> {
    fn f(&self) -> &Formats {
        &self.spec.formats
    }

    /// A product `(-1)^neg · sig · 2^e` split over A and B (A takes `sig`), if representable.
    fn product(&self, neg: bool, sig: u64, e: i32) -> Option<Pair> {
        let (fa, fb) = (self.f().a, self.f().b);
        let mid = e / 2;
        for d in 0..64 {
            for ea in [mid + d, mid - d] {
                if let (Some(a), Some(b)) = (exact(&fa, neg, sig, ea), pow2(&fb, false, e - ea)) {
                    return Some((a, b));
                }
            }
        }
        None
    }

    fn zero_pair(&self, neg_a: bool, neg_b: bool) -> Option<Pair> {
        Some((
            exact(&self.f().a, neg_a, 0, 0)?,
            exact(&self.f().b, neg_b, 0, 0)?,
        ))
    }

    /// Pushes a probe of the given products (at the given positions, the rest `+0 · +0`) and C.
    fn push(&mut self, why: &str, terms: &[(usize, Option<Pair>)], c: Option<u64>) {
        let k = self.spec.k;
        let Some(c) = c else { return };
        let Some((za, zb)) = self.zero_pair(false, false) else {
            return;
        };
        let (mut a, mut b) = (vec![za; k], vec![zb; k]);
        for &(i, p) in terms {
            let Some((x, y)) = p else { return };
            if i >= k {
                return;
            }
            a[i] = x;
            b[i] = y;
        }
        let (scale_a, scale_b) = match &self.f().scale {
            Some((s, n)) => {
                let one = pow2(s, false, 0).unwrap_or(0);
                (vec![one; k.div_ceil(*n)], vec![one; k.div_ceil(*n)])
            }
            None => (Vec::new(), Vec::new()),
        };
        let r = Record {
            label: why.to_string(),
            a,
            b,
            c,
            scale_a,
            scale_b,
            d: 0,
        };
        if !self
            .out
            .iter()
            .any(|o| o.a == r.a && o.b == r.b && o.c == r.c)
        {
            self.out.push(r);
        }
    }
}

/// Fraction bits of the rounding targets worth probing: the output's, and E8M13's for fp32.
fn targets(d: &Format) -> Vec<u32> {
    let mut v = vec![d.man_bits];
    if d.man_bits > 13 {
        v.push(13);
    }
    v
}

/// The targeted probes for `spec` (see the module docs), labelled by feature.
pub fn targeted(spec: &Spec) -> Vec<Record> {
    if spec.formats.d.integer {
        return crate::emit_int::targeted(spec.formats, spec.k);
    }
    let mut p = Builder {
        spec,
        out: Vec::new(),
    };
    let (fc, fd) = (spec.formats.c, spec.formats.d);
    let k = spec.k;
    // Rounding: C = ±2^(m+1) and one product x, sum near a tie.
    let xs: [(u64, i32); 6] = [(1, -1), (1, 0), (5, -2), (3, -1), (7, -2), (3, 0)];
    for m in targets(&fd) {
        let e = m as i32 + 1;
        for c_neg in [false, true] {
            for &(sig, x) in &xs {
                for p_neg in [false, true] {
                    let prod = p.product(p_neg, sig, x);
                    p.push("round", &[(0, prod)], pow2(&fc, c_neg, e));
                    // The same through products alone (C = +0).
                    let big = p.product(c_neg, 1, e);
                    p.push("round", &[(0, big), (1, prod)], exact(&fc, false, 0, 0));
                }
            }
        }
    }
    // Bits kept below the output: C = ±2^(m+1) and the products ±1 and ±2^-j (next to each
    // other, or two apart: in another group or the same one), so that the sum sits on a tie
    // of the output's last place broken by a bit m + 1 + j places below C; a datapath that
    // keeps fewer bits before the final rounding (a late-C width such as GTR-FDPA's F2)
    // loses the tie-breaker and rounds the tie to even.
    for m in targets(&fd) {
        for j in 1..=12 {
            for neg in [false, true] {
                let one = p.product(neg, 1, 0);
                let small = p.product(neg, 1, -j);
                for at in [1, 2] {
                    p.push(
                        "tie",
                        &[(0, one), (at, small)],
                        pow2(&fc, neg, m as i32 + 1),
                    );
                }
            }
        }
    }
    // Fraction bits: a cancelled pair beside a small term at distance j.
    let top = spec.formats.a.emax() + spec.formats.b.emax();
    for s in [0, top / 2] {
        for j in 1..=48 {
            for neg in [false, true] {
                for sig in [1u64, 3] {
                    let big = p.product(false, 1, s);
                    let minus = p.product(true, 1, s);
                    let small_prod = p.product(neg, sig, s - j);
                    p.push("fraction", &[(0, big), (1, small_prod)], pow2(&fc, true, s));
                    p.push(
                        "fraction",
                        &[(0, big), (1, minus)],
                        exact(&fc, neg, sig, s - j),
                    );
                    p.push(
                        "fraction",
                        &[(0, big), (k - 1, minus), (1, small_prod)],
                        exact(&fc, false, 0, 0),
                    );
                }
            }
        }
    }
    // Block size: 2^(m+1) and j ones, in both orders, with C = 0 or C = 2^(m+1).
    let e = fd.man_bits as i32 + 1;
    for j in 1..k {
        let one = p.product(false, 1, 0);
        let big = p.product(false, 1, e);
        let mut t: Vec<(usize, Option<Pair>)> = (1..=j).map(|i| (i, one)).collect();
        t.push((0, big));
        p.push("block", &t, exact(&fc, false, 0, 0));
        let mut t: Vec<(usize, Option<Pair>)> = (0..j).map(|i| (i, one)).collect();
        t.push((k - 1, big));
        p.push("block", &t, exact(&fc, false, 0, 0));
        let t: Vec<(usize, Option<Pair>)> = (0..j).map(|i| (i, one)).collect();
        p.push("block", &t, pow2(&fc, false, e));
    }
    // Carries: j products of the same large significand, so that the sum carries past the
    // output's precision and the final rounding (or the rounding after each block) shows.
    let (ma, mb) = (spec.formats.a.man_bits, spec.formats.b.man_bits);
    for pattern in 0..3u32 {
        let sig = |m: u32| -> u64 {
            let top = 1u64 << m;
            match pattern {
                0 => (top << 1) - 1,
                1 => top | (0x5555_5555_5555_5555 & (top - 1)),
                _ => top | 1,
            }
        };
        let pa = exact(&spec.formats.a, false, sig(ma), -(ma as i32));
        let pb = exact(&spec.formats.b, false, sig(mb), -(mb as i32));
        let pair = pa.zip(pb);
        for j in 1..=k {
            let t: Vec<(usize, Option<Pair>)> = (0..j).map(|i| (i, pair)).collect();
            p.push("carry", &t, exact(&fc, false, 0, 0));
            // The last j elements only: the last chained block alone sums them.
            let t: Vec<(usize, Option<Pair>)> = (k - j..k).map(|i| (i, pair)).collect();
            p.push("carry", &t, exact(&fc, false, 0, 0));
            p.push(
                "carry",
                &t,
                exact(
                    &fc,
                    false,
                    (1u64 << (fc.man_bits + 1)) - 1,
                    -(fc.man_bits as i32),
                ),
            );
        }
    }
    // Carries with varied low bits: products in [2.25, 4) (significands of at least 1.5), so
    // that any block of eight or more sums past 2^4, and every fourth far smaller, so that the
    // rounding has bits to drop.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0ca7_71e5);
    let big_sig = |m: u32, rng: &mut Xoshiro256PlusPlus| -> u64 {
        let top = 1u64 << m;
        top | (top >> 1) | (rng.next_u64() & ((top >> 1).max(1) - 1))
    };
    for n in 0..64 {
        // The last 2^(n % 7) elements (all K at most), so that some land in one block.
        let first = k.saturating_sub(1 << (n % 7));
        let pairs: Vec<(usize, Option<Pair>)> = (first..k)
            .map(|i| {
                // Every fourth product far below the others, so that the sum spans more
                // bits than the output holds even for short significands.
                let shift = if i % 4 == 3 {
                    rng.random_range(8..24)
                } else {
                    0
                };
                let neg = n % 2 == 1 && i % 3 == 0;
                let x = exact(
                    &spec.formats.a,
                    neg,
                    big_sig(ma, &mut rng),
                    -(ma as i32) - shift,
                )
                .or_else(|| exact(&spec.formats.a, neg, big_sig(ma, &mut rng), -(ma as i32)));
                let y = exact(&spec.formats.b, false, big_sig(mb, &mut rng), -(mb as i32));
                (i, x.zip(y))
            })
            .collect();
        let c = if n % 2 == 0 {
            exact(&fc, false, 0, 0)
        } else {
            Some(random_in(&fc, -2, 3, &mut rng))
        };
        p.push("carry", &pairs, c);
    }
    // e_zero and subnormal C: C near the bottom of the range, zero products or one tiny one.
    let tiny = p.product(
        false,
        1,
        spec.formats.a.min_lsb_exp() + spec.formats.b.min_lsb_exp(),
    );
    for e in (fc.min_lsb_exp())..=(fc.emin() + 4) {
        for neg in [false, true] {
            let full = (1u64 << (fc.man_bits + 1)) - 1;
            p.push("e_zero", &[], pow2(&fc, neg, e));
            p.push("e_zero", &[], exact(&fc, neg, full, e - fc.man_bits as i32));
            p.push("e_zero", &[(0, tiny)], pow2(&fc, neg, e));
        }
    }
    for e in (fd.min_lsb_exp() - 4)..=(fd.emin() + 30) {
        p.push(
            "e_zero",
            &[(0, p.product(false, 1, e))],
            exact(&fc, false, 0, 0),
        );
        p.push(
            "e_zero",
            &[(0, p.product(false, 3, e))],
            exact(&fc, false, 0, 0),
        );
    }
    // Signed zeros and exact cancellation.
    for c_neg in [false, true] {
        for a_neg in [false, true] {
            let z = p.zero_pair(a_neg, false);
            let terms: Vec<(usize, Option<Pair>)> = (0..k).map(|i| (i, z)).collect();
            p.push("zero", &terms, exact(&fc, c_neg, 0, 0));
        }
        p.push("zero", &[(0, p.product(!c_neg, 1, 0))], pow2(&fc, c_neg, 0));
        p.push(
            "zero",
            &[(0, p.product(c_neg, 1, 0)), (1, p.product(!c_neg, 1, 0))],
            exact(&fc, c_neg, 0, 0),
        );
    }
    // Specials.
    let (fa, fb) = (spec.formats.a, spec.formats.b);
    let one_b = pow2(&fb, false, 0);
    let zero_b = exact(&fb, false, 0, 0);
    let c0 = exact(&fc, false, 0, 0);
    let c1 = pow2(&fc, false, 0);
    if let Some(n) = nan(&fa) {
        p.push("special", &[(0, one_b.map(|b| (n, b)))], c1);
    }
    for neg in [false, true] {
        if let Some(i) = inf(&fa, neg) {
            p.push("special", &[(0, one_b.map(|b| (i, b)))], c1);
            p.push("special", &[(0, zero_b.map(|b| (i, b)))], c1);
            let minus = inf(&fa, !neg);
            p.push(
                "special",
                &[
                    (0, one_b.map(|b| (i, b))),
                    (1, one_b.zip(minus).map(|(b, m)| (m, b))),
                ],
                c1,
            );
            p.push("special", &[(0, one_b.map(|b| (i, b)))], inf(&fc, !neg));
        }
        p.push("special", &[(0, p.product(false, 1, 0))], inf(&fc, neg));
        if let Some(n) = nan(&fc) {
            p.push("special", &[(0, p.product(neg, 1, 0))], Some(n));
        }
        // Overflow: every product at its largest, and C at its largest.
        let big = Some((max_finite(&fa, neg), max_finite(&fb, false)));
        let all: Vec<(usize, Option<Pair>)> = (0..k).map(|i| (i, big)).collect();
        p.push("special", &all, c0);
        p.push("special", &all, Some(max_finite(&fc, neg)));
        p.push(
            "special",
            &[(0, p.product(neg, 1, 0))],
            Some(max_finite(&fc, neg)),
        );
    }
    // Subnormals: operands, products and results.
    for neg in [false, true] {
        let sa = min_positive(&fa, neg);
        let sb = min_positive(&fb, false);
        p.push("subnormal", &[(0, sa.zip(one_b))], c0);
        p.push("subnormal", &[(0, sa.zip(sb))], c0);
        p.push("subnormal", &[(0, sa.zip(one_b))], c1);
        for j in 1..=3 {
            let c = exact(&fc, !neg, 3, fd.emin() - 1);
            let prod = p.product(neg, 1, fd.emin() + 1 - j);
            p.push("subnormal", &[(0, prod)], c);
        }
        p.push("subnormal", &[], min_positive(&fc, neg));
        p.push(
            "subnormal",
            &[(0, p.product(neg, 1, 0))],
            min_positive(&fc, neg),
        );
    }
    p.out
}

/// Samplers of the random records, in the order they are drawn.
pub const SAMPLERS: [&str; 6] = ["bits", "narrow", "wide", "cancel", "zeros", "subnormal"];

/// `n` random records, drawn in turn from the [`SAMPLERS`]; a function of `seed`, the formats
/// and K.
pub fn random(spec: &Spec, n: usize, seed: u64) -> Vec<Record> {
    random_iter(spec, n, seed).collect()
}

/// As [`random`], one record at a time, the same records in the same order: `mma probe emit`
/// streams them to its file, so that any count costs constant memory.
pub fn random_iter(spec: &Spec, n: usize, seed: u64) -> impl Iterator<Item = Record> + '_ {
    let f = spec.formats;
    let mut h = seed ^ (spec.k as u64).rotate_left(17);
    for x in [f.a.name, f.b.name, f.c.name, f.d.name] {
        for b in x.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(h);
    (0..n).map(move |i| {
        let s = SAMPLERS[i % SAMPLERS.len()];
        sample(spec, s, &mut rng)
    })
}

fn sample(spec: &Spec, sampler: &str, rng: &mut Xoshiro256PlusPlus) -> Record {
    if spec.formats.d.integer {
        return crate::emit_int::sample(spec.formats, spec.k, sampler, rng);
    }
    let f = spec.formats;
    let k = spec.k;
    let (fa, fb, fc) = (f.a, f.b, f.c);
    let zero = |fmt: &Format, rng: &mut Xoshiro256PlusPlus| {
        exact(fmt, fmt.signed && rng.random::<bool>(), 0, 0).unwrap_or(0)
    };
    let mut a = Vec::with_capacity(k);
    let mut b = Vec::with_capacity(k);
    // The exponent range of the products, for a C of comparable size.
    let (plo, phi) = (fa.emin() + fb.emin(), fa.emax() + fb.emax());
    let mid = (plo + phi) / 2;
    let c;
    match sampler {
        "bits" => {
            for _ in 0..k {
                a.push(random_bits(&fa, rng));
                b.push(random_bits(&fb, rng));
            }
            c = random_in(&fc, plo.max(mid - 20), phi.min(mid + 20), rng);
        }
        "narrow" => {
            for _ in 0..k {
                a.push(random_in(&fa, 0, 1, rng));
                b.push(random_in(&fb, 0, 1, rng));
            }
            c = random_in(&fc, -2, 4, rng);
        }
        "wide" => {
            for _ in 0..k {
                a.push(random_in(&fa, fa.emin(), fa.emax(), rng));
                b.push(random_in(&fb, fb.emin(), fb.emax(), rng));
            }
            c = random_in(&fc, plo, phi, rng);
        }
        "cancel" => {
            for i in 0..k {
                if i % 2 == 0 {
                    a.push(random_in(&fa, -3, 3, rng));
                    b.push(random_in(&fb, -3, 3, rng));
                } else {
                    let prev = a[i - 1];
                    let negated = prev ^ fa.sign_bit_mask();
                    a.push(negated);
                    b.push(b[i - 1]);
                }
            }
            if k > 1 {
                let j = rng.random_range(0..k);
                a[j] = random_in(&fa, -6, 0, rng);
            }
            c = random_in(&fc, -30, 2, rng);
        }
        "zeros" => {
            for _ in 0..k {
                if rng.random_range(0..3) == 0 {
                    a.push(zero(&fa, rng));
                } else {
                    a.push(random_in(&fa, -2, 2, rng));
                }
                b.push(random_in(&fb, -2, 2, rng));
            }
            c = if rng.random_range(0..3) == 0 {
                zero(&fc, rng)
            } else {
                random_in(&fc, -4, 4, rng)
            };
        }
        _ => {
            for _ in 0..k {
                let sub = |fmt: &Format, rng: &mut Xoshiro256PlusPlus| {
                    if rng.random::<bool>() {
                        let man = rng.next_u64() & ((1u64 << fmt.man_bits) - 1);
                        exact(
                            fmt,
                            fmt.signed && rng.random::<bool>(),
                            man,
                            fmt.min_lsb_exp(),
                        )
                        .unwrap_or(0)
                    } else {
                        random_in(fmt, fmt.emin(), fmt.emin() + 3, rng)
                    }
                };
                a.push(sub(&fa, rng));
                b.push(random_in(&fb, -1, fb.emax().min(8), rng));
            }
            c = random_in(&fc, plo, plo + 8, rng);
        }
    }
    let (scale_a, scale_b) = match &f.scale {
        Some((s, n)) => {
            let m = k.div_ceil(*n);
            let mut draw = || random_in(s, -4, 4, rng);
            let sa: Vec<u64> = (0..m).map(|_| draw()).collect();
            let sb: Vec<u64> = (0..m).map(|_| draw()).collect();
            (sa, sb)
        }
        None => (Vec::new(), Vec::new()),
    };
    Record {
        label: sampler.to_string(),
        a,
        b,
        c,
        scale_a,
        scale_b,
        d: 0,
    }
}

/// The sign bit of a format's storage word (0 for unsigned formats).
trait SignMask {
    fn sign_bit_mask(&self) -> u64;
}

impl SignMask for Format {
    fn sign_bit_mask(&self) -> u64 {
        if self.signed {
            1u64 << (self.lsb + self.exp_bits + self.man_bits)
        } else {
            0
        }
    }
}
