//! The per-dot Sliced-FDPA block (Hopper and Blackwell `mma.sync` with fp8 operands): each
//! pass through the per-dot T-FDPA kernel, C added last by the plain model's own step.
//!
//! Steps, as `models/sliced_fdpa.rs`: gather the elements of each pass (`(k / group) % passes
//! == p`, in order) into arrays on the stack; run the passes in order through
//! [`tfdpa_block`] with the pass's T-FDPA parameters, the first from +0 and each later one from
//! the previous pass's result (a word of D's format); then add C through
//! [`SlicedFdpa::add_c_last`], the one exact, rounded addition of the plain model. A pass the
//! T-FDPA kernel leaves to the plain model (an Inf/NaN input, a length it does not take) sends
//! the whole block there (`None`), so the specials stay in one place.
//!
//! In batches ([`sliced_dots`]) the same passes run a group of dot products at a time: put in pass
//! order, a block's passes are a T-FDPA chain from +0 of `passes` blocks, which the lanes of
//! the pass unit evaluate as they evaluate any T-FDPA unit; C is added last per dot product,
//! for finite IEEE words by an exact `i64` sum and [`FastRound`] ([`LastAdd`]), and for fp16
//! and fp32 words on a vector instruction set eight at a time by a native addition
//! (`x86/last_add.rs`).

use super::t_fdpa::tfdpa_block;
use super::{ieee_word, is_ieee_word, signed};
use crate::format::{self, Format};
use crate::kernel::dots::{Permuted, Words};
use crate::kernel::plan::TPath;
use crate::kernel::round::FastRound;
use crate::kernel::Kernel;
use crate::model::{BlockIn, Formats, Output, OutputRounding, MAX_BLOCK};
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::round::Rounding;
use crate::unit::{DotUnit, Model};
use crate::value::Value;

/// Sliced-FDPA over one block through the T-FDPA kernel of its passes (`p`: the pass's
/// prepared path).
#[inline(always)]
pub(in crate::kernel) fn sliced_block(
    m: &SlicedFdpa,
    f: &Formats,
    p: &TPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let mut acc = f.d.encode(Value::POS_ZERO, 0);
    let mut ga = [0u64; MAX_BLOCK];
    let mut gb = [0u64; MAX_BLOCK];
    for pass in 0..m.passes {
        let n = m.pass_elements(x, pass, (&mut ga, &mut gb));
        let step = BlockIn {
            a: &ga[..n],
            b: &gb[..n],
            c: acc,
            c_fmt: &f.d,
            scale_a: &[],
            scale_b: &[],
        };
        acc = tfdpa_block(&m.pass, f, p, &step)?;
    }
    Some(m.add_c_last(f, acc, x.c, x.c_fmt))
}

/// Sliced-FDPA in batches ([`Kernel::dots`]): a tile of rows at a time, each block's elements
/// are put in pass order (pass 0's, then pass 1's, ...), so that the passes are one T-FDPA chain
/// of `passes` blocks from +0, which the kernel of the pass unit ([`pass_kernel`]) evaluates
/// across vector lanes (operands in their storage width); C is then added by the vector
/// kernels' last addition ([`LastLanes`]), else per dot product by [`LastAdd`] (by
/// [`SlicedFdpa::add_c_last`] where that does not apply: an Inf/NaN term), and a longer K feeds
/// D back as the next block's C. These are [`sliced_block`]'s operations in its order, hence
/// its bits. `false`, with nothing written, where K is not a whole number of blocks or the
/// passes have no lanes.
pub(in crate::kernel) fn sliced_dots(
    kern: &Kernel,
    k: usize,
    (a, b): (Words<'_>, Words<'_>),
    c: &[u64],
    d: &mut [u64],
) -> bool {
    let (Model::SlicedFdpa(m), Some(pass)) = (&kern.unit.model, pass_kernel(kern)) else {
        return false;
    };
    let block = kern.unit.block;
    if k == 0 || !k.is_multiple_of(block) || !pass.is_batched_for(block) {
        return false;
    }
    let f = &kern.unit.formats;
    let mut order = [0usize; MAX_BLOCK];
    let pass_first = (0..m.passes).flat_map(|p| (0..block).filter(move |&j| m.pass_of(j) == p));
    for (o, j) in order.iter_mut().zip(pass_first) {
        *o = j;
    }
    // Rows per tile: the permuted operands (2 x 256 x K words, in the width they come in) stay
    // in the second-level cache.
    const TILE: usize = 256;
    let (mut pa, mut pb) = (Permuted::default(), Permuted::default());
    let zeros = [f.d.encode(Value::POS_ZERO, 0); TILE];
    let mut acc = [0u64; TILE];
    let last = LastAdd::new(m, f);
    for r0 in (0..c.len()).step_by(TILE) {
        let rows = TILE.min(c.len() - r0);
        for j in 0..k / block {
            let at = (j * block, &order[..block]);
            let pa = a.permute(kern, r0..r0 + rows, k, at, &mut pa);
            let pb = b.permute(kern, r0..r0 + rows, k, at, &mut pb);
            pass.dots_words(
                block,
                0,
                (pa, pb),
                &zeros[..rows],
                (&[], &[]),
                &mut acc[..rows],
            );
            // The first block adds the instruction's C, a later one the previous block's D:
            // `out` holds it, then D. The vector kernels take the leading multiples of eight,
            // the rest goes through `LastAdd` or (an Inf/NaN term) the plain model.
            let c_fmt = if j == 0 { &f.c } else { &f.d };
            let out = &mut d[r0..r0 + rows];
            if j == 0 {
                out.copy_from_slice(&c[r0..r0 + rows]);
            }
            let fast = last.filter(|_| *c_fmt == f.d);
            let done = match fast.and_then(|l| l.lanes()) {
                Some(l) => crate::kernel::x86::last_add(kern.plan.isa, l, &acc[..rows], out),
                None => 0,
            };
            for i in done..rows {
                let (s, ci) = (acc[i], out[i]);
                out[i] = match fast.and_then(|l| l.add(s, ci)) {
                    Some(w) => w,
                    None => m.add_c_last(f, s, ci, c_fmt),
                };
            }
        }
    }
    true
}

/// The kernel of a Sliced-FDPA unit's passes (for the same instruction set): a T-FDPA unit of
/// one pass per block (`block / passes` elements) with C in D's format. `None` for other
/// models, and where the passes of a block differ in length.
pub(in crate::kernel) fn pass_kernel(kern: &Kernel) -> Option<Kernel> {
    let Model::SlicedFdpa(m) = &kern.unit.model else {
        return None;
    };
    let (f, block) = (&kern.unit.formats, kern.unit.block);
    if m.group == 0 || m.passes == 0 || block % (m.group * m.passes) != 0 {
        return None;
    }
    let unit = DotUnit {
        formats: Formats { c: f.d, ..*f },
        block: block / m.passes,
        model: Model::TFdpa(m.pass),
    };
    Some(Kernel::for_isa(unit, kern.plan.isa))
}

/// Step 3 for two finite words of D's format (an IEEE format of at most 32 bits) with `last` =
/// RNE: their exact sum in `i64` rounded by [`FastRound`] with the passes' output conventions,
/// which [`SlicedFdpa::add_c_last`] gives in the common case (tested against it word for word
/// in `kernel/tests.rs`). Where the terms' last places are more than 38 bits apart the smaller
/// term is below a quarter of the larger's ulp (significands below `2^24`), so RNE returns the
/// larger, which is taken alone.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernel) struct LastAdd {
    round: FastRound,
    d: Format,
    lanes: Option<LastLanes>,
}

/// A [`LastAdd`] the vector kernels compute as a native addition (`x86/last_add.rs`): D is
/// IEEE fp16 or fp32 and the rounding is to D itself. The model's Inf is then IEEE's
/// (`Output::encode` passes Inf to `Format::encode` unchanged), which the native addition
/// gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernel) struct LastLanes {
    pub width: LastWidth,
    pub zero: ZeroSign,
    /// D's word for a NaN result (a NaN term, or Infs of opposite signs).
    pub nan: u32,
}

/// D's word width for [`LastLanes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernel) enum LastWidth {
    Half,
    Single,
}

/// The sign of an exact zero sum: IEEE's (-0 only for -0 + -0), or always +0 (the output
/// convention "-0 to +0").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernel) enum ZeroSign {
    Keep,
    Positive,
}

impl LastAdd {
    /// `None` where the unit's last addition is not of that form.
    pub(in crate::kernel) fn new(m: &SlicedFdpa, f: &Formats) -> Option<LastAdd> {
        if m.last != Rounding::NearestEven || !is_ieee_word(&f.d) {
            return None;
        }
        let out = &m.pass.out;
        let last = Output {
            rho: OutputRounding {
                mode: m.last,
                ..out.rho
            },
            ..*out
        };
        let width = match f.d {
            d if d == format::FP16 => Some(LastWidth::Half),
            d if d == format::FP32 => Some(LastWidth::Single),
            _ => None,
        };
        let lanes = width
            .filter(|_| last.rho.fmt == f.d)
            .map(|width| LastLanes {
                width,
                zero: if last.neg_zero_to_pos {
                    ZeroSign::Positive
                } else {
                    ZeroSign::Keep
                },
                nan: last.encode(&f.d, Value::Nan) as u32,
            });
        Some(LastAdd {
            round: FastRound::new(&last, &f.d)?,
            d: f.d,
            lanes,
        })
    }

    /// The addition as the vector kernels take it, where they can.
    pub(in crate::kernel) fn lanes(&self) -> Option<LastLanes> {
        self.lanes
    }

    /// Signed significand and the exponent of its last place; `None` for Inf/NaN.
    #[inline(always)]
    fn parts(&self, w: u64) -> Option<(i64, i32, bool)> {
        let (sig, e, neg) = ieee_word(w, &self.d)?;
        Some((signed(sig, neg as u32), e - self.d.man_bits as i32, neg))
    }

    /// `round(acc + c)`; `None` when either is Inf or NaN.
    #[inline(always)]
    pub(in crate::kernel) fn add(&self, acc: u64, c: u64) -> Option<u64> {
        let (sa, ea, na) = self.parts(acc)?;
        let (sc, ec, nc) = self.parts(c)?;
        // An exact zero is -0 only when both terms are (RNE: `ZeroSigns::zero_is_neg`).
        let zero_neg = sa == 0 && sc == 0 && na && nc;
        let (sum, e) = match (sa, sc) {
            (0, _) => (sc, ec),
            (_, 0) => (sa, ea),
            _ if ea - ec > 38 => (sa, ea),
            _ if ec - ea > 38 => (sc, ec),
            _ => {
                let e = ea.min(ec);
                ((sa << (ea - e)) + (sc << (ec - e)), e)
            }
        };
        Some(self.round.round(sum, e, zero_neg))
    }
}
