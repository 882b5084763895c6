//! GST-FDPA: group-scaled truncated fused dot-product-add (NVIDIA `kind::mxf4`,
//! `kind::mxf4nvf4`, k = 64).
//!
//! The products are summed exactly in groups of `G` consecutive elements; each group sum is
//! multiplied by its block's scale pair and becomes one term whose exponent is the scale pair's
//! exponent (the group sum is not renormalised). A group whose products are all zero, or whose
//! scale product is zero, gets `e_zero`; a group that cancels to zero keeps its scale exponent.
//! The group terms and `c` then go through T-FDPA with `F` fraction bits. the first paper's Table III
//! (G = 16, F = 35, e_zero = -139, RZ to fp32), and the reference model mmasim 2.1.1
//! (`gst_fdpa`) for the zero-group rule.
//!
//! `group_floor` (off in every catalog unit) is an open question's alternative reading, not a
//! measured behaviour: the published B200 model of sf-tensor/tcgen05 (MIT; its MODEL.md, read
//! as a paper) applies "the observed 2^-174 subnormal group floor to lower-scale groups" of
//! MXF4. Written here as: when the result is a nonzero subnormal of D, every group whose scale
//! pair is below the largest scale pair of the nonzero groups and whose kept value (after the
//! window's truncation) is smaller in magnitude than 2^group_floor is dropped, and the other
//! groups and C are summed and rounded again (the trace shows both passes).

use crate::model::{untraced_block, BlockIn, Decoded, Formats, Output, MAX_BLOCK};
use crate::models::st_fdpa::scale_pair;
use crate::models::t_fdpa::truncated_sum_traced;
use crate::term::Term;
use crate::trace::{Labels, Source, Step, TermInfo, Tracer};
use crate::value::Value;

/// Parameters of a GST-FDPA unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GstFdpa {
    /// Products per exactly summed group.
    pub g: usize,
    pub f: u32,
    pub e_zero: i32,
    /// The alternative reading's subnormal group floor (see the module header); `None` in
    /// the catalog.
    pub group_floor: Option<i32>,
    pub out: Output,
}

untraced_block!(GstFdpa);

impl GstFdpa {
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
        // Each group's scale-pair exponent when the group is nonzero (for `group_floor`).
        let mut scale_e = [None; MAX_BLOCK];
        let mut groups = 0;
        for g0 in (0..n).step_by(self.g) {
            let g1 = (g0 + self.g).min(n);
            // Exact group sum on the grid of the smallest product quantum.
            let mut prods = [Term::ZERO; MAX_BLOCK];
            let mut lsb = i32::MAX;
            let mut all_zero = true;
            for k in g0..g1 {
                let p = Term::product(a[k], &f.a, b[k], &f.b, self.e_zero);
                if p.sig != 0 {
                    lsb = lsb.min(p.lsb);
                    all_zero = false;
                }
                prods[k - g0] = p;
            }
            let (s_a, s_b) = if per == usize::MAX {
                (
                    Value::Finite {
                        neg: false,
                        sig: 1,
                        exp: 0,
                    },
                    Value::Finite {
                        neg: false,
                        sig: 1,
                        exp: 0,
                    },
                )
            } else {
                (sa[g0 / per], sb[g0 / per])
            };
            let scale = scale_pair(s_a, s_b, &sf);
            let term = match scale {
                Some((sig, lsb_s, e_s)) if !all_zero => {
                    scale_e[groups] = Some(e_s);
                    let mut sum: i128 = 0;
                    for p in &prods[..g1 - g0] {
                        if p.sig != 0 {
                            let m = (p.sig as i128) << (p.lsb - lsb);
                            sum += if p.neg { -m } else { m };
                        }
                    }
                    // Scaled group sums of fp4 products need a few dozen bits; wider custom
                    // formats may need more than a term's 64. Dropping low bits (floor of the
                    // magnitude) then changes nothing: the term is truncated toward zero to a
                    // quantum far above them anyway (F + 12 < 64 for the group sum's headroom).
                    let full = sum.unsigned_abs() * sig as u128;
                    let excess = (128 - full.leading_zeros()).saturating_sub(64);
                    Term {
                        neg: sum < 0,
                        sig: (full >> excess) as u64,
                        lsb: lsb + lsb_s + excess as i32,
                        e: e_s,
                    }
                }
                // All products zero, or a zero scale: the group is a zero term at e_zero.
                _ => Term {
                    neg: false,
                    sig: 0,
                    lsb: self.e_zero,
                    e: self.e_zero,
                },
            };
            t.step(|| Step::Group {
                index: groups,
                k0: g0,
                k1: g1,
                term: TermInfo::of(Source::Group(groups), &term),
            });
            terms[groups] = term;
            groups += 1;
        }
        terms[groups] = Term::of_value(c, x.c_fmt, self.e_zero);
        let (sum, _) = truncated_sum_traced(&terms[..=groups], self.f, Labels::GroupsThenC, t);
        // Every term's -0 is turned into +0 by the output conventions of these paths.
        let d = self.out.round_encode_traced(&f.d, sum, false, t);
        match self.group_floor {
            Some(floor) if is_subnormal(&f.d, d) => {
                let quantum = sum.exp;
                let top = scale_e[..groups].iter().flatten().max().copied();
                let mut kept = [Term::ZERO; MAX_BLOCK + 1];
                let mut n = 0;
                for (g, term) in terms[..groups].iter().enumerate() {
                    let low_scale = matches!((scale_e[g], top), (Some(e), Some(m)) if e < m);
                    if !(low_scale && below(term, quantum, floor)) {
                        kept[n] = *term;
                        n += 1;
                    }
                }
                if n == groups {
                    return d;
                }
                kept[n] = terms[groups];
                // The window stays where it was: the largest term is a group of the largest
                // scale pair, a zero group or C, none of which is dropped.
                let (sum, _) = truncated_sum_traced(&kept[..=n], self.f, Labels::GroupsThenC, t);
                self.out.round_encode_traced(&f.d, sum, false, t)
            }
            _ => d,
        }
    }
}

/// Whether `term`, truncated to the window's `quantum`, is smaller in magnitude than
/// 2^`floor`.
fn below(term: &Term, quantum: i32, floor: i32) -> bool {
    let kept = term.truncated(quantum).unsigned_abs();
    if floor <= quantum {
        kept == 0
    } else {
        floor - quantum >= 127 || kept < 1u128 << (floor - quantum)
    }
}

/// Whether `d` is a nonzero subnormal word of `fmt`.
fn is_subnormal(fmt: &crate::format::Format, d: u64) -> bool {
    match fmt.decode(d) {
        Value::Finite { sig, exp, .. } => {
            let top = exp + 63 - sig.leading_zeros() as i32;
            top < fmt.emin()
        }
        _ => false,
    }
}
