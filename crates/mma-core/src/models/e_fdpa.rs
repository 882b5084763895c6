//! E-FDPA: exact fused dot-product-add (AMD CDNA1 fp16/bf16).
//!
//! The block's products and `c` are summed exactly and the sum is rounded once to the output
//! (fp32, round to nearest even); Inf and NaN follow IEEE summation. L_max = 4 for fp16 and 2
//! for bf16 (Khattak, Mikaitis, Graziani, "Accurate Models of AMD Matrix
//! Cores", CDNA1 section).

use crate::model::{BlockIn, BlockModel, Decoded, Formats, Output, MAX_BLOCK};
use crate::term::Term;
use crate::trace::{labelled, Labels, NoTrace, Step, Tracer};
use crate::wide::WideSum;

/// Parameters of an exact fused unit: only the output conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EFdpa {
    pub out: Output,
}

/// Signs seen while summing, to give an exact-zero sum its IEEE sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroSigns {
    pub all_neg: bool,
    pub any_neg: bool,
    pub any_nonzero: bool,
}

impl ZeroSigns {
    /// IEEE 754 §6.3: an exact cancellation is +0, or -0 when rounding down; a sum of zeros is
    /// -0 when all are -0 (when rounding down: when any is -0).
    pub fn zero_is_neg(&self, mode: crate::round::Rounding) -> bool {
        let down = mode == crate::round::Rounding::Down;
        if self.any_nonzero {
            down
        } else if down {
            self.any_neg
        } else {
            self.all_neg
        }
    }
}

/// The exact sum of the terms, with what is needed for the sign of an exact zero.
pub fn exact_sum(terms: &[Term]) -> (WideSum, ZeroSigns) {
    let mut acc = WideSum::new();
    let mut z = ZeroSigns {
        all_neg: true,
        any_neg: false,
        any_nonzero: false,
    };
    for t in terms {
        acc.add(t.neg, t.sig as u128, t.lsb);
        z.all_neg &= t.neg;
        z.any_neg |= t.neg;
        z.any_nonzero |= t.sig != 0;
    }
    (acc, z)
}

impl BlockModel for EFdpa {
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {
        self.block_traced(f, x, &mut NoTrace)
    }
}

impl EFdpa {
    /// [`BlockModel::block`], telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut d = Decoded::empty();
        if let Err(special) = d.fill(f, x, &self.out, t) {
            return special;
        }
        let (a, b, c, n) = (&d.a, &d.b, d.c, d.n);
        let mut terms = [Term::ZERO; MAX_BLOCK + 1];
        for k in 0..n {
            terms[k] = Term::product(a[k], &f.a, b[k], &f.b, 0);
        }
        terms[n] = Term::of_value(c, x.c_fmt, 0);
        t.step(|| Step::ExactTerms {
            terms: labelled(&terms[..=n], Labels::ProductsThenC),
        });
        let (sum, signs) = exact_sum(&terms[..=n]);
        let zero_neg = signs.zero_is_neg(self.out.rho.mode);
        self.out
            .round_encode_traced(&f.d, sum.to_exact(), zero_neg, t)
    }
}
