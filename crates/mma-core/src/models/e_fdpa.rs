//! E-FDPA: exact fused dot-product-add (AMD CDNA1 fp16/bf16).
//!
//! The block's products and `c` are summed exactly and the sum is rounded once to the output
//! (fp32, round to nearest even); Inf and NaN follow IEEE summation. L_max = 4 for fp16 and 2
//! for bf16 (Khattak, Mikaitis, Graziani, "Accurate Models of AMD Matrix
//! Cores", CDNA1 section).

use crate::model::{untraced_block, BlockIn, Decoded, Formats, Output, MAX_BLOCK};
use crate::round::Exact;
use crate::term::Term;
use crate::trace::{labelled, Labels, Step, Tracer};
use crate::wide::{BigSum, WideSum};

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
///
/// The accumulator is anchored at the lowest last-bit place of the non-zero terms (not at a
/// fixed place), so that a tiny f64 C (2^-1000) beside zero products is summed exactly rather
/// than folded into a sticky bit; terms spanning more than [`WideSum::SPAN`] bits (f64
/// products) go to an accumulator sized for their span ([`BigSum`]). The sum is always exact.
pub fn exact_sum(terms: &[Term]) -> (Exact, ZeroSigns) {
    let nonzero = || terms.iter().filter(|t| t.sig != 0);
    let low = nonzero()
        .map(|t| t.lsb)
        .min()
        .unwrap_or(crate::wide::LSB_EXP);
    let top = nonzero()
        .map(|t| t.lsb + (64 - t.sig.leading_zeros() as i32))
        .max()
        .unwrap_or(low);
    let mut z = ZeroSigns {
        all_neg: true,
        any_neg: false,
        any_nonzero: false,
    };
    for t in terms {
        z.all_neg &= t.neg;
        z.any_neg |= t.neg;
        z.any_nonzero |= t.sig != 0;
    }
    let sum = if top - low <= WideSum::SPAN {
        let mut acc = WideSum::anchored(low);
        for t in terms {
            acc.add(t.neg, t.sig as u128, t.lsb);
        }
        acc.to_exact()
    } else {
        let mut acc = BigSum::spanning(low, top + 8);
        for t in terms {
            acc.add(t.neg, t.sig as u128, t.lsb);
        }
        acc.to_exact()
    };
    (sum, z)
}

untraced_block!(EFdpa);

impl EFdpa {
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
            terms[k] = Term::product(a[k], &f.a, b[k], &f.b, 0);
        }
        terms[n] = Term::of_value(c, x.c_fmt, 0);
        t.step(|| Step::ExactTerms {
            terms: labelled(&terms[..=n], Labels::ProductsThenC),
        });
        let (sum, signs) = exact_sum(&terms[..=n]);
        let zero_neg = signs.zero_is_neg(self.out.rho.mode);
        self.out.round_encode_traced(&f.d, sum, zero_neg, t)
    }
}
