//! T-FDPA: truncated fused dot-product-add, the NVIDIA tensor-core datapath.
//!
//! For one block of at most `L_max` products: every product is exact; each term (products and
//! `c`) has the exponent `e` of [`Term`] (zero terms get `e_zero`); `e_max` is the largest; every
//! term is aligned to `e_max` and truncated toward zero to `F` fraction bits; the truncated terms
//! are summed exactly; the sum is rounded once by `rho`. the first paper's Tables II and
//! III (Xie et al., arXiv 2511.10909), and the hardware records of `shared/hw` (V100, A100,
//! Ada, H100, B200: fp16, bf16, tf32, and Ada/H100 fp8) fix the parameters.

use crate::model::{untraced_block, BlockIn, Decoded, Formats, Output, MAX_BLOCK};
use crate::round::Exact;
use crate::term::Term;
use crate::trace::{labelled, Labels, NoTrace, Step, Tracer};

/// Parameters of a T-FDPA unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TFdpa {
    /// Fraction bits kept of each aligned term.
    pub f: u32,
    /// Exponent given to zero products and a zero `c`.
    pub e_zero: i32,
    pub out: Output,
}

/// Aligns `terms` to their largest exponent, truncates each to `f` fraction bits and sums them
/// exactly. Returns the sum as an [`Exact`] and the sign an exact zero sum takes (negative only
/// when every term is a negative zero, as IEEE addition gives).
/// The last term is C.
#[inline]
pub fn truncated_sum(terms: &[Term], f: u32) -> (Exact, bool) {
    truncated_sum_traced(terms, f, Labels::ProductsThenC, &mut NoTrace)
}

/// [`truncated_sum`], telling `t` the aligned terms (what they are: `labels`).
#[inline]
pub fn truncated_sum_traced<T: Tracer>(
    terms: &[Term],
    f: u32,
    labels: Labels,
    t: &mut T,
) -> (Exact, bool) {
    let e_max = terms.iter().map(|t| t.e).max().unwrap_or(i32::MIN);
    let quantum = e_max - f as i32;
    let mut sum: i128 = 0;
    let mut all_neg = true;
    for t in terms {
        sum += t.truncated(quantum);
        all_neg &= t.neg;
    }
    t.step(|| Step::Align {
        terms: labelled(terms, labels),
        e_max,
        f,
        quantum,
        kept: terms.iter().map(|x| x.truncated(quantum)).collect(),
    });
    (
        Exact {
            neg: sum < 0,
            mag: sum.unsigned_abs(),
            exp: quantum,
            sticky: false,
        },
        all_neg,
    )
}

untraced_block!(TFdpa);

impl TFdpa {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut d = Decoded::empty();
        if let Err(special) = d.fill(f, x, &self.out, t) {
            return special;
        }
        let (a, b, c, n) = (&d.a, &d.b, d.c, d.n);
        let mut terms = [Term::ZERO; MAX_BLOCK + 1];
        for k in 0..n {
            terms[k] = Term::product(a[k], &f.a, b[k], &f.b, self.e_zero);
        }
        terms[n] = Term::of_value(c, x.c_fmt, self.e_zero);
        let (sum, zero_neg) = truncated_sum_traced(&terms[..=n], self.f, Labels::ProductsThenC, t);
        self.out.round_encode_traced(&f.d, sum, zero_neg, t)
    }
}
