//! ST-FDPA: scaled truncated fused dot-product-add (NVIDIA block-scaled `kind::mxf8f6f4`).
//!
//! T-FDPA in which every product is first multiplied exactly by its block's scale pair
//! `scale_a·scale_b`: the term's significand is the product of the four significands and its
//! exponent the sum of the four exponents; a zero product gets `e_zero`; a NaN scale makes the
//! result NaN. models.md §2 and §3 (mxf8f6f4: F = 25, e_zero = -133, RZ to fp32); first paper,
//! Table III.

use crate::model::{decode_into, BlockIn, BlockModel, Formats, Output, MAX_BLOCK};
use crate::t_fdpa::truncated_sum;
use crate::term::{scan_specials, Special, Term};
use crate::value::Value;

/// Parameters of an ST-FDPA unit (those of T-FDPA; the scale format comes with the operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StFdpa {
    pub f: u32,
    pub e_zero: i32,
    pub out: Output,
}

/// Multiplies a product term exactly by the scale pair `(sa, sb)` (both finite and non-zero).
#[inline]
pub(crate) fn scale_term(t: Term, sa: Value, sb: Value, sf: &crate::format::Format) -> Term {
    match (sa, sb) {
        (
            Value::Finite {
                sig: ga, exp: xa, ..
            },
            Value::Finite {
                sig: gb, exp: xb, ..
            },
        ) if t.sig != 0 => Term {
            neg: t.neg,
            sig: t.sig * ga * gb,
            lsb: t.lsb + xa + xb,
            e: t.e + xa + xb + 2 * sf.man_bits as i32,
        },
        _ => t,
    }
}

/// Scale values of the block, with the verdict that a NaN scale forces (the scale formats have no
/// Inf, and a zero ue4m3 scale zeroes its products).
#[inline]
pub(crate) fn decode_scales(
    f: &Formats,
    x: &BlockIn<'_>,
    sa: &mut [Value; MAX_BLOCK],
    sb: &mut [Value; MAX_BLOCK],
) -> (usize, bool) {
    let Some((sf, per)) = f.scale else {
        return (usize::MAX, false);
    };
    let mut nan = false;
    for (i, (&ra, &rb)) in x.scale_a.iter().zip(x.scale_b).enumerate() {
        sa[i] = sf.decode(ra);
        sb[i] = sf.decode(rb);
        nan |= sa[i].is_nan() || sb[i].is_nan();
    }
    (per, nan)
}

impl BlockModel for StFdpa {
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {
        let n = x.a.len();
        let mut av = [Value::Nan; MAX_BLOCK];
        let mut bv = [Value::Nan; MAX_BLOCK];
        let a = decode_into(&f.a, x.a, &mut av);
        let b = decode_into(&f.b, x.b, &mut bv);
        let c = x.c_fmt.decode(x.c);
        let mut sa = [Value::Nan; MAX_BLOCK];
        let mut sb = [Value::Nan; MAX_BLOCK];
        let (per, scale_nan) = decode_scales(f, x, &mut sa, &mut sb);
        if scale_nan {
            return self.out.encode(&f.d, Value::Nan);
        }
        match scan_specials(a, b, c) {
            Special::Finite => {}
            Special::Nan => return self.out.encode(&f.d, Value::Nan),
            Special::Inf { neg } => return self.out.encode(&f.d, Value::Inf { neg }),
        }
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
        let (sum, zero_neg) = truncated_sum(&terms[..=n], self.f);
        self.out.round_encode(&f.d, sum, zero_neg)
    }
}
