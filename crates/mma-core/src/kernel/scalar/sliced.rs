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
//! In batches (`sliced_dots` in `dots.rs`) the same passes run a group of dot products at a
//! time: put in pass order, a block's passes are a T-FDPA chain from +0 of `passes` blocks, which the lanes of
//! the pass unit evaluate as they evaluate any T-FDPA unit; C is added last per dot product,
//! for finite IEEE words by an exact `i64` sum and [`FastRound`] ([`LastAdd`]), and for fp16
//! and fp32 words on a vector instruction set eight at a time by a native addition
//! (`x86/last_add.rs`).

use super::t_fdpa::tfdpa_block;
use super::{ieee_word, is_ieee_word, signed};
use crate::format::{self, Format};
use crate::kernel::plan::TPath;
use crate::kernel::round::FastRound;
use crate::model::{BlockIn, Formats, Output, OutputRounding, MAX_BLOCK};
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::round::Rounding;
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

/// Step 3 for two finite words of D's format (an IEEE format of at most 32 bits) with `last` =
/// RNE: their exact sum in `i64` rounded by [`FastRound`] with the passes' output conventions,
/// which [`SlicedFdpa::add_c_last`] gives in the common case (tested against it word for word
/// in `kernel/checks.rs`). Where the terms' last places are more than 38 bits apart the smaller
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
        if m.last != Rounding::NearestEven || m.last_format.is_some() || !is_ieee_word(&f.d) {
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
