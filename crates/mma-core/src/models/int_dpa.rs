//! I-DPA: the integer dot-product-add of the integer MMA instructions.
//!
//! `d = c + Σ a_k·b_k`, every product and the sum exact (integers), then one step into the
//! 32-bit accumulator: wrap-around modulo 2^32, or with saturation one clamp to
//! [-2^31, 2^31 - 1]. The `.b1` instructions count bits: `.and.popc` is the same sum over bits
//! (`a AND b` is `a·b` for single bits), `.xor.popc` sums `a XOR b` (`a + b - 2ab`).
//!
//! Evidence: the arithmetic is the PTX ISA's own description of `mma` (PTX ISA 9.0, "mma":
//! the integer forms `mma.sync...{.satfinite}.s32.atype.btype.s32` accumulate in s32, and
//! `.satfinite` limits an overflowing result to the s32 range; for single bits, "multiplication
//! is replaced by a sequence of logical operations": the XOR or AND of a K-bit row of A with a
//! K-bit column of B, its population count added to C), and AMD's CDNA instruction-set guides
//! for `v_mfma_i32_*` (i8 products accumulated in i32, no saturation). Being exact, the sum has no order, alignment or
//! rounding that a measurement would have to settle; what no public record fixes is *where*
//! the saturating forms clamp (once per instruction, after the exact sum, is the ISA's
//! reading and the one modelled; a clamp per partial sum would differ only when partial sums
//! overflow and then return). The units' evidence says unverified until records exist.
//!
//! Blocks: a saturating unit's block is the instruction's K (one clamp per instruction). A
//! wrapping unit may be cut into any blocks, the result is the same (addition modulo 2^32 is
//! associative), so the `.b1` units of K = 128 and 256 use blocks of 64, the engine's largest.

use crate::model::{untraced_block, BlockIn, Formats};
use crate::round::Exact;
use crate::trace::{Num, Step, TermInfo, Tracer};

/// How two elements meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOp {
    /// The product `a·b` (`.and.popc` for single bits).
    Mul,
    /// `a XOR b` of single bits (`.xor.popc`).
    Xor,
}

impl IntOp {
    /// The name in unit files and listings.
    pub fn name(self) -> &'static str {
        match self {
            IntOp::Mul => "mul",
            IntOp::Xor => "xor",
        }
    }

    /// The operation [`IntOp::name`] spells as `name`.
    pub fn by_name(name: &str) -> Option<IntOp> {
        [IntOp::Mul, IntOp::Xor]
            .into_iter()
            .find(|o| o.name() == name)
    }
}

/// Parameters of the integer unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IDpa {
    pub op: IntOp,
    /// Clamp the exact sum to the accumulator's range (`.satfinite`) rather than wrap.
    pub saturate: bool,
}

untraced_block!(IDpa);

impl IntOp {
    /// One term: `a·b`, or `a XOR b`.
    #[inline]
    fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            IntOp::Mul => a * b,
            IntOp::Xor => a ^ b,
        }
    }
}

/// The block's terms, one per element pair (products or XORs of the decoded integers).
#[inline]
fn element_terms<'a>(
    op: IntOp,
    f: &'a Formats,
    x: &'a BlockIn<'_>,
) -> impl Iterator<Item = i64> + 'a {
    let val = |fmt: &crate::format::Format, w: u64| fmt.int_value(w).unwrap_or(0);
    x.a.iter()
        .zip(x.b)
        .map(move |(&a, &b)| op.apply(val(&f.a, a), val(&f.b, b)))
}

impl IDpa {
    /// The exact sum of one block: C plus the products (or XORs) of the elements.
    #[inline]
    fn exact(&self, f: &Formats, x: &BlockIn<'_>) -> i128 {
        let c = i128::from(x.c_fmt.int_value(x.c).unwrap_or(0));
        element_terms(self.op, f, x).fold(c, |s, t| s + i128::from(t))
    }

    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        t.step(|| Step::ExactTerms {
            terms: terms(self.op, f, x),
        });
        let sum = self.exact(f, x);
        t.step(|| Step::Sum {
            exact: Exact {
                neg: sum < 0,
                mag: sum.unsigned_abs(),
                exp: 0,
                sticky: false,
            }
            .into(),
        });
        let (lo, hi) =
            f.d.int_range()
                .unwrap_or((i64::from(i32::MIN), i64::from(i32::MAX)));
        let width = f.d.width();
        let word = if self.saturate {
            (sum.clamp(i128::from(lo), i128::from(hi)) as u64) & mask(width)
        } else {
            (sum as u64) & mask(width)
        };
        t.step(|| Step::Integer {
            how: if self.saturate { "saturate" } else { "wrap" },
            result: Num::word(word, &f.d),
        });
        word
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The block's exact terms for a trace: each product (or XOR) and C, as integers.
fn terms(op: IntOp, f: &Formats, x: &BlockIn<'_>) -> Vec<TermInfo> {
    let term = |source, v: i64| {
        let sig = v.unsigned_abs();
        TermInfo {
            source,
            neg: v < 0,
            sig,
            lsb: 0,
            e: 63 - sig.max(1).leading_zeros() as i32,
        }
    };
    let c = x.c_fmt.int_value(x.c).unwrap_or(0);
    element_terms(op, f, x)
        .enumerate()
        .map(|(k, v)| term(crate::trace::Source::Product(k), v))
        .chain([term(crate::trace::Source::C, c)])
        .collect()
}
