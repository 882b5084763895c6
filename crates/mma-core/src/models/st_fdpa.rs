//! ST-FDPA: scaled truncated fused dot-product-add (NVIDIA block-scaled `kind::mxf8f6f4`).
//!
//! T-FDPA in which every product is first multiplied exactly by its block's scale pair
//! `scale_a·scale_b`: the term's significand is the product of the four significands and its
//! exponent the sum of the four exponents; a zero product gets `e_zero`; a NaN scale makes the
//! result NaN. The first paper (mxf8f6f4: F = 25, e_zero = -133, RZ to fp32); first paper,
//! Table III.

use crate::model::{untraced_block, BlockIn, Decoded, Formats, Output, MAX_BLOCK};
use crate::models::t_fdpa::truncated_sum_traced;
use crate::term::Term;
use crate::trace::{Labels, Tracer};
use crate::value::Value;

/// Parameters of an ST-FDPA unit (those of T-FDPA; the scale format comes with the operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StFdpa {
    pub f: u32,
    pub e_zero: i32,
    pub out: Output,
}

/// The exact product of a scale pair as (significand, exponent of its last bit, exponent `e` of
/// the models' convention); `None` when a scale is zero (ue4m3 has zeros; ue8m0 has none).
#[inline]
pub(crate) fn scale_pair(
    sa: Value,
    sb: Value,
    sf: &crate::format::Format,
) -> Option<(u64, i32, i32)> {
    match (sa, sb) {
        (
            Value::Finite {
                sig: ga, exp: xa, ..
            },
            Value::Finite {
                sig: gb, exp: xb, ..
            },
        ) => Some((ga * gb, xa + xb, xa + xb + 2 * sf.man_bits as i32)),
        _ => None,
    }
}

/// Multiplies a product term exactly by the scale pair `(sa, sb)`.
#[inline]
pub(crate) fn scale_term(t: Term, sa: Value, sb: Value, sf: &crate::format::Format) -> Term {
    match scale_pair(sa, sb, sf) {
        Some((sig, lsb, e)) if t.sig != 0 => Term {
            neg: t.neg,
            sig: t.sig * sig,
            lsb: t.lsb + lsb,
            e: t.e + e,
        },
        _ => t,
    }
}

untraced_block!(StFdpa);

impl StFdpa {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut d = Decoded::empty();
        if let Err(special) = d.fill(f, x, &self.out, t) {
            return special;
        }
        let (a, b, c, n, per) = (&d.a, &d.b, d.c, d.n, d.per);
        let (sa, sb) = (&d.sa, &d.sb);
        let sf = f.scale.map(|(s, _)| s).unwrap_or(crate::format::UE8M0);
        let mut terms = [Term::ZERO; MAX_BLOCK + 1];
        for k in 0..n {
            let t = Term::product(a[k], &f.a, b[k], &f.b, self.e_zero);
            terms[k] = if per == usize::MAX {
                t
            } else {
                scale_term(t, sa[k / per], sb[k / per], &sf)
            };
        }
        terms[n] = Term::of_value(c, x.c_fmt, self.e_zero);
        let (sum, zero_neg) = truncated_sum_traced(&terms[..=n], self.f, Labels::ProductsThenC, t);
        self.out.round_encode_traced(&f.d, sum, zero_neg, t)
    }
}
