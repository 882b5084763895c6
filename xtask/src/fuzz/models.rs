//! The `models` target: every distinct unit of both catalogs over arbitrary operand words,
//! per-dot kernel, lane batch and plain model compared bit for bit.

use super::ctx::Ctx;
use mma::{DotUnit, Format, Kernel};
use rand::Rng;
use std::collections::HashSet;

/// A unit to fuzz, with a name that finds it again and the K of its instruction.
struct Subject {
    name: String,
    unit: DotUnit,
    kernel: Kernel,
    k: usize,
}

pub struct State {
    subjects: Vec<Subject>,
    next: usize,
}

impl State {
    /// Every distinct (unit, K) of the NVIDIA and AMD catalogs, each prepared once.
    pub fn new() -> State {
        let mut seen = HashSet::new();
        let mut subjects = Vec::new();
        for i in mma::catalog::instructions() {
            let name = format!("{} {} {} {}", i.vendor, i.arch, i.op, i.name);
            let (unit, k) = (*i.unit, i.k);
            if seen.insert((unit, k)) {
                subjects.push(Subject {
                    name,
                    kernel: unit.kernel(),
                    unit,
                    k,
                });
            }
        }
        State { subjects, next: 0 }
    }

    /// One subject (in turn), one batch of random dot products.
    pub fn step(&mut self, ctx: &mut Ctx) {
        let s = &self.subjects[self.next % self.subjects.len()];
        self.next += 1;
        check(ctx, &s.name, &s.unit, &s.kernel, s.k);
    }
}

/// One batch of random dot products on `unit` (its instruction's K is `k`): the lane batch,
/// the per-dot kernel and the plain model compared bit for bit, every call guarded.
pub fn check(ctx: &mut Ctx, name: &str, unit: &DotUnit, kernel: &Kernel, k: usize) {
    {
        let s = Subject {
            name: name.to_string(),
            unit: *unit,
            kernel: *kernel,
            k,
        };
        let s = &s;
        let f = s.unit.formats;
        // K: the instruction's, or a chain of two to four of them.
        let k = s.k * [1, 1, 2, 4][ctx.below(4)];
        let n = 1 + ctx.below(19);
        let style = ctx.below(4);
        let word = |fmt: &Format, ctx: &mut Ctx| operand(fmt, style, ctx);
        let a: Vec<u64> = (0..n * k).map(|_| word(&f.a, ctx)).collect();
        let b: Vec<u64> = (0..n * k).map(|_| word(&f.b, ctx)).collect();
        let c: Vec<u64> = (0..n).map(|_| word(&f.c, ctx)).collect();
        let ns = s.unit.scales_for(k);
        let (sa, sb): (Vec<u64>, Vec<u64>) = match f.scale {
            Some((sf, _)) => (
                (0..n * ns).map(|_| scale(&sf, ctx)).collect(),
                (0..n * ns).map(|_| scale(&sf, ctx)).collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let describe = |i: usize| {
            let hex = |xs: &[u64]| {
                xs.iter()
                    .map(|x| format!("{x:x}"))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let r = |xs: &[u64], w: usize| hex(&xs[i * w..(i + 1) * w]);
            format!(
                "{} K={k}: a=[{}] b=[{}] c={:x} scale_a=[{}] scale_b=[{}]",
                s.name,
                r(&a, k),
                r(&b, k),
                c[i],
                r(&sa, ns),
                r(&sb, ns)
            )
        };
        let mut batch = vec![0u64; n];
        let ran = ctx.guard(
            || describe(0),
            || s.kernel.dots_scaled(k, &a, &b, &c, &sa, &sb, &mut batch),
        );
        match ran {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                ctx.report(format!(
                    "dots refused a well-formed batch: {e}: {}",
                    describe(0)
                ));
                return;
            }
            None => return,
        }
        for (i, &got_batch) in batch.iter().enumerate() {
            let (ai, bi) = (&a[i * k..(i + 1) * k], &b[i * k..(i + 1) * k]);
            let (sai, sbi) = (&sa[i * ns..(i + 1) * ns], &sb[i * ns..(i + 1) * ns]);
            let got = ctx.guard(
                || describe(i),
                || {
                    (
                        s.kernel.dot_scaled(ai, bi, c[i], sai, sbi),
                        s.unit.dot_plain_scaled(ai, bi, c[i], sai, sbi),
                    )
                },
            );
            if let Some((per_dot, plain)) = got {
                if per_dot != plain || got_batch != plain {
                    ctx.report(format!(
                        "paths disagree: plain {plain:x}, per dot {per_dot:x}, batch {got_batch:x}: {}",
                        describe(i)
                    ));
                }
                let wrong = ctx.guard(
                    || describe(i),
                    || integer_check(&s.unit, ai, bi, c[i], plain),
                );
                if let Some(Some(why)) = wrong {
                    ctx.report(format!("{why}: {}", describe(i)));
                }
            }
        }
    }
}

/// An integer unit's (I-DPA) D against arithmetic of its own: the exact sum of each block
/// (`mma::codec::exact::exact_unit`, which knows the XOR of `.xor.popc`), wrapped modulo 2^32
/// or clamped to s32 as the unit says, block by block with D fed on as C; and, for the product
/// units, the oracle's integer check (`mma::oracle::evaluate`). `None` where all agree (and for
/// any other model); else what is wrong.
fn integer_check(unit: &DotUnit, a: &[u64], b: &[u64], c: u64, d: u64) -> Option<String> {
    use mma::codec::exact::{exact_unit, ExactSum};
    use mma_core::models::int_dpa::IntOp;
    let mma::Model::IDpa(m) = &unit.model else {
        return None;
    };
    let fd = &unit.formats.d;
    let (lo, hi) = fd.int_range()?;
    let mask = (1u64 << fd.width()) - 1;
    let mut acc = c;
    for (ab, bb) in a.chunks(unit.block).zip(b.chunks(unit.block)) {
        let exact = match exact_unit(unit, ab, bb, acc, &[], &[]) {
            ExactSum::Finite { value, exp: 0 } => value.to_string().parse::<i128>().ok()?,
            other => return Some(format!("an integer unit's exact sum is {other:?}")),
        };
        let v = if m.saturate {
            exact.clamp(i128::from(lo), i128::from(hi))
        } else {
            exact
        };
        acc = (v as u64) & mask;
    }
    if acc != d {
        return Some(format!(
            "I-DPA D {d:x} is not the exact sum {} ({acc:x})",
            if m.saturate { "clamped" } else { "wrapped" }
        ));
    }
    if m.op == IntOp::Mul {
        let x = mma::oracle::Inputs {
            a: a.to_vec(),
            b: b.to_vec(),
            c,
            scale_a: Vec::new(),
            scale_b: Vec::new(),
        };
        if !mma::oracle::evaluate(unit, &x).within {
            return Some(format!("the oracle's integer check refuses D {d:x}"));
        }
    }
    None
}

/// An operand word of `fmt`: uniformly random bits (style 0), a special value or an extreme
/// (style 1), a value near 1 so that sums cancel (style 2), or a mix of the three (style 3).
fn operand(fmt: &Format, style: usize, ctx: &mut Ctx) -> u64 {
    let style = if style == 3 { ctx.below(3) } else { style };
    let m = fmt.man_bits;
    let e = fmt.exp_bits;
    let sign = if fmt.signed {
        u64::from(ctx.coin(0.5))
    } else {
        0
    };
    let man: u64 = ctx.rng.random::<u64>() & ((1u64 << m) - 1);
    let exp_max = (1u64 << e) - 1;
    let exp = match style {
        0 => ctx.rng.random::<u64>() & exp_max,
        1 => [0, 1, exp_max, exp_max.saturating_sub(1)][ctx.below(4)],
        _ => {
            let bias = exp_max / 2;
            (bias + ctx.below(4) as u64).saturating_sub(2).min(exp_max)
        }
    };
    let man = if style == 1 {
        [0, 1, man, (1u64 << m) - 1][ctx.below(4)]
    } else {
        man
    };
    let code = (sign << (e + m)) | (exp << m) | man;
    // Bits below `lsb` (tf32) are ignored by the unit: make them random too.
    let low = if fmt.lsb > 0 {
        ctx.rng.random::<u64>() & ((1u64 << fmt.lsb) - 1)
    } else {
        0
    };
    let w = (code << fmt.lsb) | low;
    if fmt.is_valid_encoding(w) {
        w
    } else {
        w & fmt.storage_mask()
    }
}

/// A scale factor: mostly near 1 (so results stay finite and interesting), sometimes any
/// byte (NaN codes, extremes and, for ue4m3, bit 7 set).
fn scale(fmt: &Format, ctx: &mut Ctx) -> u64 {
    let bias = (1u64 << (fmt.exp_bits - 1)) - 1;
    if ctx.coin(0.8) {
        let exp = (bias + ctx.below(7) as u64).saturating_sub(3);
        let man = ctx.rng.random::<u64>() & ((1u64 << fmt.man_bits) - 1);
        (exp << fmt.man_bits) | man
    } else {
        ctx.rng.random::<u64>() & 0xff
    }
}
