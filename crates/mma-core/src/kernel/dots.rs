//! Many dot products at once: [`Kernel::dots`], and the lane-wise routine ("eight") of a unit,
//! which evaluates dot products together across vector lanes, eight with AVX2 and sixteen with
//! AVX-512 (`lanes/mod.rs`), for any multiple of eight of them. The matrix driver
//! ([`DotUnit::gemm`](crate::DotUnit::gemm)) uses the same routine for a group of columns of a
//! row of D.

use super::plan::Path;
use super::scalar::sliced::LastAdd;
use super::words::{Permuted, Rows, Word, Words};
use super::{arch, Kernel};
use crate::model::{Formats, MAX_BLOCK};
use crate::unit::{DotUnit, Model, ShapeError};
use crate::value::Value;
use std::ops::Range;

impl Kernel {
    /// Whether [`Kernel::dots`] (and the matrix driver) evaluate dot products eight or sixteen
    /// at a time across vector lanes.
    pub fn is_batched(&self) -> bool {
        if self.plan.g.is_some() {
            return true;
        }
        self.lane_routine.is_some() || self.lane_scaled.is_some()
    }

    /// Whether [`Kernel::dots`] evaluates dot products of `k` elements eight or sixteen at a
    /// time across vector lanes ([`Kernel::is_batched`], for this K: the lanes take whole
    /// blocks, and for some models only one block or a shorter last one; other K run one dot
    /// product at a time, with the same results).
    ///
    /// ```
    /// # use mma_core::{format, DotUnit, Formats, Model};
    /// # use mma_core::models::fma::Fma;
    /// # use mma_core::model::NanStyle;
    /// let fp32 = format::FP32;
    /// let unit = DotUnit {
    ///     formats: Formats { a: fp32, b: fp32, c: fp32, d: fp32, scale: None },
    ///     block: 1,
    ///     model: Model::Fma(Fma { mode: mma_core::Rounding::NearestEven, nan: NanStyle::DefaultQuiet }),
    /// };
    /// let kern = unit.kernel();
    /// // FMA chains run on the lanes for any K where the CPU has them.
    /// assert_eq!(kern.is_batched_for(3), kern.is_batched());
    /// ```
    pub fn is_batched_for(&self, k: usize) -> bool {
        // Sliced-FDPA: its passes, put in order a tile at a time (`sliced_dots` below).
        if let Some(pass) = pass_kernel(self) {
            let block = self.unit.block;
            return k > 0 && k.is_multiple_of(block) && pass.is_batched_for(block);
        }
        self.is_batched() && self.plan.lanes_take(self.unit.block, k)
    }

    /// The width in bytes (1, 2 or 4) of the A and B words that the lanes of [`Kernel::dots`]
    /// read directly besides `u64`: the storage width of the unit's input formats (`2` for
    /// fp16). `None` where the lanes read only `u64` words, or there are no lanes; other widths
    /// are widened a tile at a time, with the same results.
    pub fn stored_width(&self) -> Option<usize> {
        self.lane_stored.map(|s| s.bytes())
    }

    /// `n = c.len()` independent dot products of `k` elements: `d[i] = a_i·b_i + c[i]`, where
    /// `a_i = a[i·k .. (i+1)·k]` (likewise `b_i`), for a unit without scale factors
    /// ([`Kernel::dots_scaled`] takes them). The fastest way to evaluate many dot products:
    /// where the model and formats allow, eight or sixteen at a time across vector lanes,
    /// bit-identical to [`Kernel::dot`]. Operand encodings are not checked (see
    /// [`DotUnit::check`](crate::DotUnit::check)); lengths are: a unit that takes scale
    /// factors is a [`ShapeError`] here.
    ///
    /// A and B are words of any [`Word`] width that holds their elements: the engine's `u64`,
    /// or the storage width (`u16` for fp16, `u8` for fp8), which the lane routines read
    /// directly and which moves a fraction of the bytes on large batches.
    pub fn dots<A: Word, B: Word>(
        &self,
        k: usize,
        a: &[A],
        b: &[B],
        c: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        self.dots_scaled(k, a, b, c, &[], &[], d)
    }

    /// As [`Kernel::dots`] for a block-scaled unit: `s = scales_for(k)` scale factors per dot
    /// product in `scale_a` and `scale_b`, dot product after dot product.
    #[allow(clippy::too_many_arguments)]
    pub fn dots_scaled<A: Word, B: Word>(
        &self,
        k: usize,
        a: &[A],
        b: &[B],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        let (a, b) = (A::words(a), B::words(b));
        let s = self.check_batch(k, (a.len(), b.len()), c, scale_a, scale_b, d)?;
        self.dots_words(k, s, (a, b), c, (scale_a, scale_b), d);
        Ok(())
    }

    /// [`Kernel::dots`] after the length check (`s` scale factors per dot product): `u64`
    /// words as they are, narrower ones widened a tile of rows at a time.
    pub(crate) fn dots_words(
        &self,
        k: usize,
        s: usize,
        (a, b): (Words<'_>, Words<'_>),
        c: &[u64],
        (scale_a, scale_b): (&[u64], &[u64]),
        d: &mut [u64],
    ) {
        if matches!(self.plan.path, Path::Sliced(_)) && s == 0 && sliced_dots(self, k, (a, b), c, d)
        {
            return;
        }
        // I-DPA: whole rows on the words as stored (`scalar/int_dpa.rs`), where A and B share
        // the width integer elements come in (`u8`) or are `u64`; other pairs one dot at a time.
        if let Path::Int(p) = &self.plan.path {
            match (a, b) {
                (Words::U8(a), Words::U8(b)) => return arch::int_dots(self, p, k, a, b, c, d),
                (Words::U64(a), Words::U64(b)) => return arch::int_dots(self, p, k, a, b, c, d),
                _ => {}
            }
        }
        if let (Words::U64(a), Words::U64(b)) = (a, b) {
            return self.dots_u64(k, s, (a, b), c, (scale_a, scale_b), d);
        }
        let n = c.len();
        // Whole groups of eight through the routine compiled for the storage width, where the
        // unit has one and A and B come in that width; the rest widened below.
        let whole = if k > 0 && s == 0 { n / 8 * 8 } else { 0 };
        let first = match self.lane_stored {
            Some(run) if whole > 0 => {
                let (ha, hb) = (a.head(whole * k), b.head(whole * k));
                if run.run(self, k, (ha, hb), &c[..whole], &mut d[..whole]) {
                    whole
                } else {
                    0
                }
            }
            _ => 0,
        };
        // Rows per tile: a multiple of eight, about `TILE_WORDS` widened words per operand
        // (8 KiB), so that the widened tiles are still in the first-level cache when the lanes
        // read them.
        const TILE_WORDS: usize = 1024;
        let rows = (TILE_WORDS / k.max(1)).max(8) / 8 * 8;
        let (mut wa, mut wb) = (Vec::with_capacity(rows * k), Vec::with_capacity(rows * k));
        for r0 in (first..n).step_by(rows) {
            let r1 = (r0 + rows).min(n);
            widen(a, self, r0 * k, r1 * k, &mut wa);
            widen(b, self, r0 * k, r1 * k, &mut wb);
            self.dots_u64(
                k,
                s,
                (&wa, &wb),
                &c[r0..r1],
                (&scale_a[r0 * s..r1 * s], &scale_b[r0 * s..r1 * s]),
                &mut d[r0..r1],
            );
        }
    }

    /// [`Kernel::dots`] on `u64` words after the length check.
    pub(super) fn dots_u64(
        &self,
        k: usize,
        s: usize,
        (a, b): (&[u64], &[u64]),
        c: &[u64],
        (scale_a, scale_b): (&[u64], &[u64]),
        d: &mut [u64],
    ) {
        let n = c.len();
        // Whole groups of eight through a lane routine where there is one.
        let whole = if k > 0 { n / 8 * 8 } else { 0 };
        let (Some(ra), Some(rb)) = (
            Rows::new(&a[..whole * k], k, k, whole),
            Rows::new(&b[..whole * k], k, k, whole),
        ) else {
            unreachable!("whole rows of k words: lengths checked above")
        };
        let (sa, sb) = (&scale_a[..whole * s], &scale_b[..whole * s]);
        let (cw, dw) = (&c[..whole], &mut d[..whole]);
        let done = match (s, self.lane_routine, self.lane_scaled) {
            (0, Some(run), _) => {
                run.run(self, ra, rb, cw, dw);
                true
            }
            (1, _, Some(run)) if k == self.unit.block => {
                run.run(self, ra, rb, sa, sb, cw, dw);
                true
            }
            // GST-FDPA's lanes: where the plan made their table and takes this K.
            (1.., _, _) => match &self.plan.g {
                Some(t) if self.plan.lanes_take(self.unit.block, k) => {
                    arch::gst_dots(self, t, (ra, rb), (sa, sb), cw, dw)
                }
                _ => false,
            },
            _ => false,
        };
        let first = if done { whole } else { 0 };
        for i in first..n {
            d[i] = self.dot_scaled(
                &a[i * k..(i + 1) * k],
                &b[i * k..(i + 1) * k],
                c[i],
                &scale_a[i * s..(i + 1) * s],
                &scale_b[i * s..(i + 1) * s],
            );
        }
    }

    /// The operand lengths (A's and B's words) of a batch of `c.len()` dot products of `k`
    /// elements; the scale factors per dot product.
    pub(crate) fn check_batch(
        &self,
        k: usize,
        (a, b): (usize, usize),
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &[u64],
    ) -> Result<usize, ShapeError> {
        let n = c.len();
        let s = self.unit.scales_for(k);
        crate::unit::check_lengths(&[
            ("A", a, n, k),
            ("B", b, n, k),
            ("D", d.len(), n, 1),
            ("scale_a", scale_a.len(), n, s),
            ("scale_b", scale_b.len(), n, s),
        ])?;
        Ok(s)
    }

    /// Dot products of one length in groups of eight (`c` and `d` hold as many words as `a` and
    /// `b` rows), without scale factors, lane-wise where the kernel has the routine.
    #[inline]
    pub(crate) fn across_lanes(&self, a: Rows<'_>, b: Rows<'_>, c: &[u64], d: &mut [u64]) {
        let n = c.len();
        assert!(a.n() == n && b.n() == n && d.len() == n);
        match self.lane_routine {
            Some(run) if a.k() > 0 && a.k() == b.k() && self.unit.formats.scale.is_none() => {
                run.run(self, a, b, c, d)
            }
            _ => {
                for (i, (di, &ci)) in d.iter_mut().zip(c).enumerate() {
                    *di = self.dot(a.row(i), b.row(i), ci);
                }
            }
        }
    }
}

/// What the lane routines hand back: the dot products a group flags, or a whole batch whose K
/// or kernel they do not take, one at a time through [`Kernel::dot`]. Here, not under `x86/`,
/// so that the routines per key hold no `impl Kernel`.
impl Kernel {
    /// Every dot product through [`Kernel::dot`]: what a lane routine does with a kernel or a
    /// K it does not take.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(super) fn all_per_dot<W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        scales: (&[u64], &[u64], usize),
        c: &[u64],
        d: &mut [u64],
    ) {
        let s = scales.2;
        for g in (0..c.len()).step_by(32) {
            let n = (c.len() - g).min(32);
            let rows = (a.part(g, n), b.part(g, n));
            let sc = (
                &scales.0[g * s..(g + n) * s],
                &scales.1[g * s..(g + n) * s],
                s,
            );
            self.redo(
                rows,
                sc,
                &c[g..g + n],
                &mut d[g..g + n],
                u32::MAX >> (32 - n),
            );
        }
    }

    /// The dot products of `c` whose bits are set in `redo` (bit `j`: row `j`, `j < 32`)
    /// through [`Kernel::dot`]; `scales = (scale_a, scale_b, per dot product)`. Out of line:
    /// the lanes call it only where a group has flagged lanes.
    #[inline(never)]
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(super) fn redo<W: Word>(
        &self,
        (a, b): (Rows<'_, W>, Rows<'_, W>),
        (sa, sb, s): (&[u64], &[u64], usize),
        c: &[u64],
        d: &mut [u64],
        mut redo: u32,
    ) {
        while redo != 0 {
            let j = redo.trailing_zeros() as usize;
            redo &= redo - 1;
            let (sa_j, sb_j) = (&sa[j * s..(j + 1) * s], &sb[j * s..(j + 1) * s]);
            d[j] = a.with_row(j, |aj| {
                b.with_row(j, |bj| self.dot_scaled(aj, bj, c[j], sa_j, sb_j))
            });
        }
    }
}

/// Elements `from + order[j]` of rows `rows` of `words` (`k` words apart), row after row
/// (`order.len()` words each), in the same width, into the buffer of `out` for that width:
/// a block's elements in another order, which the lanes then read in their storage width.
/// One-byte words go through a byte shuffle per row where `kern` was planned for one
/// (`x86/permute.rs`), the same words as the loop below.
#[inline]
pub(super) fn permuted<'b>(
    words: Words<'_>,
    kern: &Kernel,
    rows: Range<usize>,
    k: usize,
    (from, order): (usize, &[usize]),
    out: &'b mut Permuted,
) -> Words<'b> {
    fn go<W: Word>(
        x: &[W],
        rows: Range<usize>,
        k: usize,
        (from, order): (usize, &[usize]),
        out: &mut Vec<W>,
    ) {
        let n = order.len();
        out.clear();
        for r in rows {
            let row = &x[r * k + from..][..n];
            out.extend(order.iter().map(|&j| row[j]));
        }
    }
    let at = (from, order);
    match words {
        Words::U8(x) => {
            if !super::arch::permute_bytes(kern, x, rows.clone(), k, at, &mut out.u8) {
                go(x, rows, k, at, &mut out.u8);
            }
            Words::U8(&out.u8)
        }
        Words::U16(x) => {
            go(x, rows, k, at, &mut out.u16);
            Words::U16(&out.u16)
        }
        Words::U32(x) => {
            go(x, rows, k, at, &mut out.u32);
            Words::U32(&out.u32)
        }
        Words::U64(x) => {
            go(x, rows, k, at, &mut out.u64);
            Words::U64(&out.u64)
        }
    }
}

/// Words `from .. to` of `words`, zero-extended, into `out` (resized to fit).
#[inline]
fn widen(words: Words<'_>, k: &Kernel, from: usize, to: usize, out: &mut Vec<u64>) {
    out.resize(to - from, 0);
    match words {
        Words::U8(x) => arch::widen(k, &x[from..to], out),
        Words::U16(x) => arch::widen(k, &x[from..to], out),
        Words::U32(x) => arch::widen(k, &x[from..to], out),
        Words::U64(x) => out.copy_from_slice(&x[from..to]),
    }
}

/// Sliced-FDPA in batches ([`Kernel::dots`]): a tile of rows at a time, each block's elements
/// are put in pass order (pass 0's, then pass 1's, ...), so that the passes are one T-FDPA chain
/// of `passes` blocks from +0, which the kernel of the pass unit ([`pass_kernel`]) evaluates
/// across vector lanes (operands in their storage width); C is then added by the vector
/// kernels' last addition ([`LastLanes`](super::scalar::sliced::LastLanes)), else per dot
/// product by [`LastAdd`] (by
/// [`SlicedFdpa::add_c_last`](crate::models::sliced_fdpa::SlicedFdpa::add_c_last) where that
/// does not apply: an Inf/NaN term), and a longer K feeds D back as the next block's C. These
/// are the operations of `sliced_block` (`scalar/sliced.rs`) in its order, hence its bits.
/// `false`, with nothing written, where K is not a whole number of blocks or the passes have
/// no lanes.
fn sliced_dots(
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
            let pa = permuted(a, kern, r0..r0 + rows, k, at, &mut pa);
            let pb = permuted(b, kern, r0..r0 + rows, k, at, &mut pb);
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
                Some(l) => arch::last_add(kern.plan.isa, l, &acc[..rows], out),
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
pub(super) fn pass_kernel(kern: &Kernel) -> Option<Kernel> {
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
