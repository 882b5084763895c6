//! GTR-FDPA: grouped TR-FDPA (AMD CDNA3 fp8/bf8 matrix cores, `L_max = 16`).
//!
//! As [`crate::models::tr_fdpa`], except for the product stage: the even- and the odd-indexed products
//! of the block (index counted from the block start) are summed separately, each group aligned
//! to its own largest exponent and truncated toward zero to `F = 24` fraction bits; the two
//! group sums are then aligned to the larger of the two exponents and each rounded down to
//! `F` fraction bits before they are added. C then joins late as in TR-FDPA (rounded down to
//! `F` bits, product sum rounded down to `F2 + 1 = 32`, normalised, rounded down to `F2 = 31`,
//! RNE to fp32), except that C is dropped when its exponent is below `e_max - (F + 1)`.
//!
//! Sources: the AMD paper (Khattak, Mikaitis, Graziani, CDNA 3: "fp8 uses FMA size 16 and
//! accumulates odd- and even-indexed products separately before adding C"); the first paper's Table III;
//! mmasim 2.1.1 `MMA_GTR_FDPA` for the widths and the C-drop threshold.
//!
//! Block scales (AMD CDNA4 `v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4`): when the unit's
//! formats carry a scale (ue8m0, 32 elements per scale), every product is first multiplied
//! exactly by its block's scale pair, i.e. shifted by `(sa - 127) + (sb - 127)` (a ue8m0 scale is
//! a power of two, so nothing is rounded), and the grouping and everything after it proceed as
//! above; C is not scaled. A NaN scale (0xFF) makes the result NaN (the unit's NaN, as for a NaN
//! operand), also when its products are zero, as in the NVIDIA scaled models. Evidence: CDNA3's
//! GTR-FDPA (the AMD paper) for everything but the scales. The scaling rule is the OCP MX
//! definition of a scaled block (each element of a 32-element block times the block's E8M0
//! scale; Triton's Gluon `amd.cdna4.mfma_scaled` documents the instruction as
//! `a * a_scale @ b * b_scale + acc` over OCP MX formats); no text of the CDNA4 ISA guide on it
//! was found here. Its placement (on each exact product, before the even/odd grouping and the
//! group alignment) is an assumption, unverified: no CDNA4 measurement is public.
//!
//! Inf/NaN: fp8/bf8 FNUZ operands have no Inf and their unscaled products cannot overflow fp32
//! (scaled ones can: the sum then rounds to Inf at the final RNE), so a NaN operand gives NaN and an Inf or NaN C gives Inf or NaN (IEEE). mmasim instead drops a
//! non-finite C together with a finite one once the products are large (a point where mmasim and the AMD paper's
//! MATLAB model disagree; crate mma-amd, DIFFERENCES); that is
//! the dropping rule applied to a value whose exponent means nothing, so this model does not
//! follow it (see the mma-amd crate's DIFFERENCES).

use crate::model::{untraced_block, BlockIn, Decoded, Formats, Output, MAX_BLOCK};
use crate::models::st_fdpa::scale_term;
use crate::models::tr_fdpa::{floor_shift, late_c, truncated_dot_traced, DotSum, LateC, TrFdpa};
use crate::term::Term;
use crate::trace::{NoTrace, Source, Step, TermInfo, Tracer};

/// Parameters of a GTR-FDPA unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GtrFdpa {
    /// Fraction bits of the group alignment, of the group sums and of the rounded-down C (24).
    pub f: u32,
    /// Fraction bits of the rounded-down normalised sum (31).
    pub f2: u32,
    /// Exponent a zero C counts with (-126).
    pub e_zero_c: i32,
    /// Smallest exponent of the normalisation (-126).
    pub e_norm_min: i32,
    /// C is dropped when its exponent is below `e_max - c_drop` (`F + 1 = 25`).
    pub c_drop: u32,
    pub out: Output,
}

/// Sums the even- and odd-indexed products separately and combines the two group sums,
/// each rounded down to `f` fraction bits at the larger group exponent.
#[inline]
pub fn grouped_dot(terms: &[Term], f: u32) -> Option<DotSum> {
    grouped_dot_traced(terms, f, &mut NoTrace)
}

/// [`grouped_dot`], telling `t` each group's aligned terms and the combination.
#[inline]
pub fn grouped_dot_traced<T: Tracer>(terms: &[Term], f: u32, t: &mut T) -> Option<DotSum> {
    let mut even = [Term::ZERO; MAX_BLOCK];
    let mut odd = [Term::ZERO; MAX_BLOCK];
    let (mut ne, mut no) = (0, 0);
    for (k, t) in terms.iter().enumerate() {
        if k % 2 == 0 {
            even[ne] = *t;
            ne += 1;
        } else {
            odd[no] = *t;
            no += 1;
        }
    }
    let mut groups = [None, None];
    for (g, (part, len)) in [(&even, ne), (&odd, no)].into_iter().enumerate() {
        t.step(|| Step::Subset {
            kind: "group",
            index: g,
            elements: (g..terms.len()).step_by(2).collect(),
        });
        groups[g] = truncated_dot_traced(&part[..len], f, t);
        t.step(|| Step::Group {
            index: g,
            k0: g,
            k1: terms.len(),
            term: match groups[g] {
                Some(d) => TermInfo {
                    source: Source::Group(g),
                    neg: d.sum < 0,
                    sig: d.sum.unsigned_abs() as u64,
                    lsb: d.e - f as i32,
                    e: d.e,
                },
                None => TermInfo::of(Source::Group(g), &Term::ZERO),
            },
        });
    }
    let e = groups.iter().flatten().map(|g| g.e).max()?;
    // Each group sum is a multiple of 2^(g.e - f); re-quantise it to 2^(e - f), flooring.
    let sums: [i128; 2] = groups.map(|g| g.map_or(0, |g| floor_shift(g.sum, e - g.e)));
    let sum = sums.iter().sum();
    t.step(|| Step::Groups {
        e,
        f,
        sums: sums.to_vec(),
        sum,
    });
    Some(DotSum { sum, e })
}

untraced_block!(GtrFdpa);

impl GtrFdpa {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut d = Decoded::empty();
        if let Err(special) = d.fill(f, x, &self.out, t) {
            return special;
        }
        let (a, b, c, n, per) = (&d.a, &d.b, d.c, d.n, d.per);
        let (sa, sb) = (&d.sa, &d.sb);
        let sf = f.scale.map_or(crate::format::UE8M0, |(s, _)| s);
        let mut terms = [Term::ZERO; MAX_BLOCK];
        for k in 0..n {
            let t = Term::product(a[k], &f.a, b[k], &f.b, 0);
            // Block scales (a power of two each for ue8m0): the product times its scale pair,
            // exactly, before the grouping. The block lies within one scale block or holds
            // whole ones (the unit file's check), so element `k` takes scale `k / per`.
            terms[k] = if per == usize::MAX {
                t
            } else {
                scale_term(t, sa[k / per], sb[k / per], &sf)
            };
        }
        let dot = grouped_dot_traced(&terms[..n], self.f, t);
        let p = LateC {
            f: self.f,
            f2: self.f2,
            e_zero_c: self.e_zero_c,
            e_norm_min: self.e_norm_min,
            c_drop: Some(self.c_drop),
        };
        let v = late_c(dot, c, x.c_fmt, &p, t);
        TrFdpa::finish(&self.out, &f.d, v, t)
    }
}

/// Checks of this module's private steps, run by `tests/internal_checks.rs` (compiled only with
/// the `internal-checks` feature, which the crate's own tests turn on: the library is then
/// compiled once for the tests instead of a second time as a unit-test harness).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks {
    use super::*;

    fn term(neg: bool, sig: u64, e: i32) -> Term {
        // A product with 2 fraction bits (as fp8 e5m2 x e5m2 with hidden bits: sig in [4, 16)).
        Term {
            neg,
            sig,
            lsb: e - 4,
            e,
        }
    }

    pub fn group_sums_are_rounded_down_separately() {
        // Even: 1 (sig 16 at e = 0, i.e. 16·2^-4). Odd: -2^-26 twice (sig 16 at e = -26). The odd
        // group sums exactly to -2^-25; aligned to e = 0 and floored to 24 fraction bits it
        // becomes -2^-24. Total: 2^24 - 1 units of 2^-24.
        let t = [
            term(false, 16, 0),
            term(true, 16, -26),
            Term::ZERO,
            term(true, 16, -26),
        ];
        let d = grouped_dot(&t, 24).unwrap();
        assert_eq!((d.sum, d.e), ((1 << 24) - 1, 0));
        // Positive odd products floor to 0 instead: the asymmetry of rounding down.
        let t = [
            term(false, 16, 0),
            term(false, 16, -26),
            Term::ZERO,
            term(false, 16, -26),
        ];
        assert_eq!(grouped_dot(&t, 24).unwrap().sum, 1 << 24);
    }

    pub fn no_products_means_no_dot() {
        assert_eq!(grouped_dot(&[Term::ZERO, Term::ZERO], 24), None);
    }
}
