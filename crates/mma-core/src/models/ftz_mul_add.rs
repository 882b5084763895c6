//! FTZ-MulAdd: flush-to-zero multiplies and pairwise adds in fp32 (AMD CDNA2 fp16/bf16 matrix
//! cores).
//!
//! One call computes a whole instruction's dot product:
//!
//! 1. Subnormal inputs (and -0) are flushed to +0, as are a subnormal or negative-zero C.
//! 2. Every product is formed in the accumulator format (fp32) with IEEE RNE; a result below the
//!    smallest normal number (after rounding) is flushed to zero keeping its sign.
//! 3. The products are taken `P` at a time (P = 4, or 2 for the CDNA2 bf16 instructions without
//!    `_1k`); each group is summed as a pairwise tree of fp32 RNE additions (P = 4:
//!    `(p0 + p1) + (p2 + p3)`), each addition flushed as in step 2; then `c = c + group_sum`,
//!    flushed likewise.
//!
//! Sources: the AMD paper (Khattak, Mikaitis, Graziani, CDNA 2: "pairwise sums, typically in
//! groups of 4 (some bf16 instructions use 2), with products rounded to fp32 first. Subnormals
//! are flushed after every normalization"); the first paper's Table III; mmasim 2.1.1
//! `MMA_FTZ_MUL_ADD` for the order of the operations and the flush rules (input flush to +0,
//! output flush keeping the sign).
//!
//! Flushed inputs are zeros in every respect (as with a DAZ mode): a flushed subnormal times
//! Inf is NaN. mmasim agrees; the MATLAB model of the AMD paper returns Inf there (one of the
//! points where the two disagree), which would mean the subnormal takes part in the product unflushed, contradicting the
//! flush that both models apply to every finite product.
//!
//! The fp32 arithmetic is done exactly and rounded by [`crate::round::round`]; a test checks it
//! against Berkeley SoftFloat. The fast path (`kernel/scalar/ftz_mul_add.rs`) computes the same operations
//! with the machine's fp32 multiply and add and explicit flush checks; its module docs explain
//! why that is bit-exact, and `tests/fast_paths.rs` compares the two. Because C is flushed only once per call, a unit built on this
//! model should use the instruction's whole K as its block, so that chained blocks are chained
//! instructions.

use crate::format::Format;
use crate::model::{decode_into, untraced_block, BlockIn, Formats, NanStyle, MAX_BLOCK};
use crate::models::e_fdpa::exact_sum;
use crate::round::{round, Exact, RoundOpts, Rounding};
use crate::term::Term;
use crate::trace::{Num, Step, Tracer};
use crate::value::Value;

/// Parameters of an FTZ-MulAdd unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FtzMulAdd {
    /// Products summed per group before they are added to C (2 or 4; any power of two works).
    pub p: usize,
    /// Format of the products and sums (fp32 on the hardware; any format works).
    pub acc: Format,
    pub nan: NanStyle,
}

/// RNE with flush of results below the smallest normal number, keeping the sign.
const FTZ_RNE: RoundOpts = RoundOpts {
    overflow: crate::round::Overflow::Ieee,
    ftz: true,
};

/// Input flush: subnormals and both zeros become +0.
#[inline]
pub fn flush_input(v: Value, fmt: &Format) -> Value {
    match v {
        Value::Zero { .. } => Value::POS_ZERO,
        Value::Finite { sig, .. } if sig >> fmt.man_bits == 0 => Value::POS_ZERO,
        other => other,
    }
}

/// IEEE multiplication in `acc` (RNE), flushing a tiny result to a signed zero.
#[inline]
pub fn ftz_mul(acc: &Format, x: Value, y: Value) -> Value {
    let neg = x.is_neg() != y.is_neg();
    match (x, y) {
        (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
        (Value::Inf { .. }, Value::Zero { .. }) | (Value::Zero { .. }, Value::Inf { .. }) => {
            Value::Nan
        }
        (Value::Inf { .. }, _) | (_, Value::Inf { .. }) => Value::Inf { neg },
        (Value::Zero { .. }, _) | (_, Value::Zero { .. }) => Value::Zero { neg },
        (
            Value::Finite {
                sig: sx, exp: ex, ..
            },
            Value::Finite {
                sig: sy, exp: ey, ..
            },
        ) => round(
            acc,
            Exact {
                neg,
                mag: sx as u128 * sy as u128,
                exp: ex + ey,
                sticky: false,
            },
            Rounding::NearestEven,
            FTZ_RNE,
        ),
    }
}

/// IEEE addition in `acc` (RNE), flushing a tiny result to a signed zero. An exact zero sum of
/// non-zero operands is +0, the sum of two zeros is -0 only when both are.
#[inline]
pub fn ftz_add(acc: &Format, x: Value, y: Value) -> Value {
    match (x, y) {
        (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
        (Value::Inf { neg: nx }, Value::Inf { neg: ny }) if nx != ny => Value::Nan,
        (Value::Inf { neg }, _) | (_, Value::Inf { neg }) => Value::Inf { neg },
        (Value::Zero { neg: nx }, Value::Zero { neg: ny }) => Value::Zero { neg: nx && ny },
        _ => {
            // Anchored at the smaller operand (an accumulator sized for the span where the
            // two lie far apart, as with a wide C format), so that the sum is exact whatever
            // the formats.
            let term = |v: Value| match v {
                Value::Finite { neg, sig, exp } => Term {
                    neg,
                    sig,
                    lsb: exp,
                    e: exp,
                },
                _ => Term::ZERO,
            };
            let (e, _) = exact_sum(&[term(x), term(y)]);
            if e.mag == 0 && !e.sticky {
                return Value::POS_ZERO;
            }
            round(acc, e, Rounding::NearestEven, FTZ_RNE)
        }
    }
}

impl FtzMulAdd {
    /// Sums a group of products as a pairwise tree (an odd element is carried up a level).
    fn tree<T: Tracer>(&self, group: &mut [Value], t: &mut T) -> Value {
        let mut len = group.len();
        while len > 1 {
            let half = len / 2;
            for i in 0..half {
                let (x, y) = (group[2 * i], group[2 * i + 1]);
                group[i] = ftz_add(&self.acc, x, y);
                t.step(|| {
                    self.op(
                        format!("tree level {len}→{half}: s{i} = x + y"),
                        x,
                        y,
                        group[i],
                    )
                });
            }
            if len % 2 == 1 {
                group[half] = group[len - 1];
                len = half + 1;
            } else {
                len = half;
            }
        }
        group.first().copied().unwrap_or(Value::POS_ZERO)
    }
}

/// [`flush_input`], telling `t` when it changed the value.
#[inline]
fn flushed<T: Tracer>(what: impl FnOnce() -> String, v: Value, fmt: &Format, t: &mut T) -> Value {
    let r = flush_input(v, fmt);
    if r != v {
        t.step(|| Step::Flush {
            what: what(),
            from: Num::of(v, fmt, None),
        });
    }
    r
}

impl FtzMulAdd {
    fn op(&self, what: String, x: Value, y: Value, r: Value) -> Step {
        Step::Op {
            what,
            x: Num::of(x, &self.acc, None),
            y: Num::of(y, &self.acc, None),
            z: None,
            result: Num::of(r, &self.acc, None),
        }
    }
}

untraced_block!(FtzMulAdd);

impl FtzMulAdd {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each flush and each
    /// fp32 operation.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let n = x.a.len().min(x.b.len()).min(MAX_BLOCK);
        let mut av = [Value::Nan; MAX_BLOCK];
        let mut bv = [Value::Nan; MAX_BLOCK];
        let a = decode_into(&f.a, &x.a[..n], &mut av);
        let b = decode_into(&f.b, &x.b[..n], &mut bv);
        let p = self.p.clamp(1, MAX_BLOCK);
        // Products, padded with +0 up to a whole number of groups.
        let groups = n.div_ceil(p);
        let mut prod = [Value::POS_ZERO; MAX_BLOCK + MAX_BLOCK];
        for k in 0..n {
            let fa = flushed(|| format!("a{k}"), a[k], &f.a, t);
            let fb = flushed(|| format!("b{k}"), b[k], &f.b, t);
            prod[k] = ftz_mul(&self.acc, fa, fb);
            t.step(|| Step::Op {
                what: format!("p{k} = a{k}·b{k}"),
                x: Num::of(fa, &f.a, None),
                y: Num::of(fb, &f.b, None),
                z: None,
                result: Num::of(prod[k], &self.acc, None),
            });
        }
        let mut c = flushed(|| "c".into(), x.c_fmt.decode(x.c), x.c_fmt, t);
        for g in 0..groups {
            let s = self.tree(&mut prod[g * p..(g + 1) * p], t);
            let r = ftz_add(&self.acc, c, s);
            t.step(|| self.op(format!("c = c + group {g}"), c, s, r));
            c = r;
        }
        f.d.encode(c, self.nan.bits(&f.d))
    }
}

/// Checks of this module's private steps, run by `tests/internal_checks.rs` (compiled only with
/// the `internal-checks` feature, which the crate's own tests turn on: the library is then
/// compiled once for the tests instead of a second time as a unit-test harness).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks {
    use super::*;
    use crate::format::{BF16, FP16, FP32};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use softfloat_wrapper::{Float, RoundingMode, F16, F32};

    /// SoftFloat's result with the FTZ-MulAdd output flush applied (subnormal -> signed zero).
    fn flushed(r: F32) -> u32 {
        let bits = r.to_bits();
        if bits & 0x7f80_0000 == 0 {
            bits & 0x8000_0000
        } else {
            bits
        }
    }

    fn same(ours: Value, sf: u32) -> bool {
        let nan = FP32.default_nan();
        let o = FP32.encode(ours, nan) as u32;
        if FP32.decode(sf as u64).is_nan() {
            ours.is_nan()
        } else {
            o == sf
        }
    }

    /// A random fp32 word: half fully random, half from a narrow band (for cancellation and
    /// subnormal sums), with specials among the random ones.
    fn word(rng: &mut Xoshiro256PlusPlus, near: u32) -> u32 {
        match rng.random_range(0..4) {
            0 => rng.random(),
            1 => near ^ (rng.random::<u32>() & 0x8000_ffff),
            2 => (rng.random::<u32>() & 0x80ff_ffff) | (rng.random_range(0..4u32) << 23),
            _ => near ^ 0x8000_0000 ^ (rng.random::<u32>() & 0x1f),
        }
    }

    pub fn exact_fp32_add_matches_softfloat() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..200_000 {
            let x: u32 = rng.random();
            let y = word(&mut rng, x);
            let ours = ftz_add(&FP32, FP32.decode(x as u64), FP32.decode(y as u64));
            let sf = F32::from_bits(x).add(F32::from_bits(y), RoundingMode::TiesToEven);
            assert!(same(ours, flushed(sf)), "{x:08x} + {y:08x}: {ours:?}");
        }
    }

    pub fn exact_fp32_mul_matches_softfloat() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let rne = RoundingMode::TiesToEven;
        for i in 0..200_000 {
            // fp16 and bf16 operands widened exactly to fp32, and plain fp32 operands.
            let (x, y, fx, fy) = match i % 3 {
                0 => {
                    let (h, g): (u16, u16) = (rng.random(), rng.random());
                    let x = F16::from_bits(h).to_f32(rne).to_bits();
                    let y = F16::from_bits(g).to_f32(rne).to_bits();
                    (x, y, FP16.decode(h as u64), FP16.decode(g as u64))
                }
                1 => {
                    let (h, g): (u16, u16) = (rng.random(), rng.random());
                    let (x, y) = ((h as u32) << 16, (g as u32) << 16);
                    (x, y, BF16.decode(h as u64), BF16.decode(g as u64))
                }
                _ => {
                    let (x, y): (u32, u32) = (rng.random(), rng.random());
                    (x, y, FP32.decode(x as u64), FP32.decode(y as u64))
                }
            };
            let ours = ftz_mul(&FP32, fx, fy);
            let sf = F32::from_bits(x).mul(F32::from_bits(y), rne);
            assert!(same(ours, flushed(sf)), "{x:08x} * {y:08x}: {ours:?}");
        }
    }

    pub fn input_flush_makes_subnormals_and_negative_zero_positive_zero() {
        // fp16 0x8001 is -2^-24, subnormal: +0. -0 becomes +0 as well; 2^-14 (0x0400) stays.
        assert_eq!(flush_input(FP16.decode(0x8001), &FP16), Value::POS_ZERO);
        assert_eq!(flush_input(FP16.decode(0x8000), &FP16), Value::POS_ZERO);
        assert_eq!(flush_input(FP16.decode(0x0400), &FP16), FP16.decode(0x0400));
    }
}
