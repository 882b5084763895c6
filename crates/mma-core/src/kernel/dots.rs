//! Many dot products at once: [`Kernel::dots`], and the lane-wise routine ("eight") of a unit,
//! which evaluates dot products together across vector lanes, eight with AVX2 and sixteen with
//! AVX-512 (`x86/lanes.rs`), for any multiple of eight of them. The matrix driver
//! ([`DotUnit::gemm`](crate::DotUnit::gemm)) uses the same routine for a group of columns of a
//! row of D.

use super::plan::Path;
use super::scalar::sliced;
use super::{x86, Kernel};
use crate::unit::ShapeError;
use std::ops::Range;

/// Operand words as stored: one element per word of the format's storage width (`u8` for the
/// 8-bit and narrower formats, `u16` for fp16/bf16, `u32` for fp32/tf32) or the engine's `u64`.
/// Narrow words are widened a tile at a time into buffers that stay in the first-level cache,
/// so that a large batch of fp16 dot products streams a quarter of the bytes of its `u64` form.
#[derive(Clone, Copy, Debug)]
pub enum Words<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl<'a> Words<'a> {
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        match self {
            Words::U8(x) => x.len(),
            Words::U16(x) => x.len(),
            Words::U32(x) => x.len(),
            Words::U64(x) => x.len(),
        }
    }

    /// The first `n` words.
    #[inline]
    fn head(&self, n: usize) -> Words<'a> {
        match *self {
            Words::U8(x) => Words::U8(&x[..n]),
            Words::U16(x) => Words::U16(&x[..n]),
            Words::U32(x) => Words::U32(&x[..n]),
            Words::U64(x) => Words::U64(&x[..n]),
        }
    }

    /// Elements `from + order[j]` of rows `rows` (`k` words apart), row after row
    /// (`order.len()` words each), in the same width, into the buffer of `out` for that width:
    /// a block's elements in another order, which the lanes then read in their storage width.
    /// One-byte words go through a byte shuffle per row where `kern` was planned for one
    /// (`x86/permute.rs`), the same words as the loop below.
    #[inline]
    pub(super) fn permute<'b>(
        &self,
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
        match *self {
            Words::U8(x) => {
                if !super::x86::permute_bytes(kern, x, rows.clone(), k, at, &mut out.u8) {
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

    /// Words `from .. to`, zero-extended, into `out` (resized to fit).
    #[inline]
    fn widen(&self, k: &Kernel, from: usize, to: usize, out: &mut Vec<u64>) {
        out.resize(to - from, 0);
        match *self {
            Words::U8(x) => x86::widen(k, &x[from..to], out),
            Words::U16(x) => x86::widen(k, &x[from..to], out),
            Words::U32(x) => x86::widen(k, &x[from..to], out),
            Words::U64(x) => out.copy_from_slice(&x[from..to]),
        }
    }
}

/// Buffers for [`Words::permute`], one per width (reused from tile to tile).
#[derive(Debug, Default)]
pub(super) struct Permuted {
    u8: Vec<u8>,
    u16: Vec<u16>,
    u32: Vec<u32>,
    u64: Vec<u64>,
}

/// An unsigned word that holds one operand element: `u8`, `u16`, `u32` or `u64` (sealed). See
/// [`Kernel::dots`].
pub trait Word: Copy + Into<u64> + Send + Sync + sealed::Sealed {}

mod sealed {
    use super::Words;

    pub trait Sealed: Sized {
        /// Bytes per word (a constant after monomorphisation: the lane loads branch on it).
        const BYTES: usize;
        fn words(x: &[Self]) -> Words<'_>;
        /// The words themselves where they are `u64`.
        fn as_u64(_: &[Self]) -> Option<&[u64]> {
            None
        }
    }

    impl Sealed for u8 {
        const BYTES: usize = 1;
        fn words(x: &[u8]) -> Words<'_> {
            Words::U8(x)
        }
    }

    impl Sealed for u16 {
        const BYTES: usize = 2;
        fn words(x: &[u16]) -> Words<'_> {
            Words::U16(x)
        }
    }

    impl Sealed for u32 {
        const BYTES: usize = 4;
        fn words(x: &[u32]) -> Words<'_> {
            Words::U32(x)
        }
    }

    impl Sealed for u64 {
        const BYTES: usize = 8;
        fn words(x: &[u64]) -> Words<'_> {
            Words::U64(x)
        }
        fn as_u64(x: &[u64]) -> Option<&[u64]> {
            Some(x)
        }
    }
}

impl Word for u8 {}
impl Word for u16 {}
impl Word for u32 {}
impl Word for u64 {}

/// The operand rows of a multiple of eight dot products: row `j` is `words[j · stride ..][..
/// k]`. Rows of a batch of dot products follow each other (`stride = k`); a matrix product
/// shares one row of A between columns of B (`stride = 0`) and takes the columns of B at the
/// matrix's K. The words are the engine's `u64` or, for [`Kernel::dots`] on operands in their
/// storage width, that width (`W`): the lane routines are compiled once per width, so that the
/// width costs nothing in their loops.
#[derive(Debug)]
pub struct Rows<'a, W: Word = u64> {
    /// The words and the distance between rows (read by the lane loads of `x86/batch.rs`).
    pub(super) words: &'a [W],
    pub(super) stride: usize,
    k: usize,
    n: usize,
}

impl<W: Word> Clone for Rows<'_, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W: Word> Copy for Rows<'_, W> {}

impl<'a, W: Word> Rows<'a, W> {
    /// `n` rows (a multiple of 8); `None` when `words` is too short for them or `n` is not a
    /// multiple of 8.
    #[inline]
    pub fn new(words: &'a [W], stride: usize, k: usize, n: usize) -> Option<Rows<'a, W>> {
        (n.is_multiple_of(8) && (n == 0 || words.len() >= (n - 1) * stride + k)).then_some(Rows {
            words,
            stride,
            k,
            n,
        })
    }

    /// Elements per row.
    #[inline(always)]
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of rows.
    #[inline(always)]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Rows `from .. from + n` (`n` a multiple of 8).
    #[inline(always)]
    pub(super) fn part(&self, from: usize, n: usize) -> Rows<'a, W> {
        assert!(from + n <= self.n && n.is_multiple_of(8));
        Rows {
            words: if n == 0 {
                &self.words[..0]
            } else {
                &self.words[from * self.stride..]
            },
            stride: self.stride,
            k: self.k,
            n,
        }
    }

    /// Elements `from .. from + k` of every row (a block of the chain).
    // Read only by the lane routines of `x86/`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(super) fn cols(&self, from: usize, k: usize) -> Rows<'a, W> {
        assert!(from + k <= self.k);
        Rows {
            words: &self.words[from..],
            stride: self.stride,
            k,
            n: self.n,
        }
    }

    /// Row `j`.
    #[inline(always)]
    pub fn row(&self, j: usize) -> &'a [W] {
        &self.words[j * self.stride..j * self.stride + self.k]
    }
}

impl Kernel {
    /// Whether [`Kernel::dots`] (and the matrix driver) evaluate dot products eight or sixteen
    /// at a time across vector lanes.
    pub fn is_batched(&self) -> bool {
        if self.plan.g.is_some() {
            return true;
        }
        self.eight.is_some() || self.eight_scaled.is_some()
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
        // Sliced-FDPA: its passes, put in order a tile at a time (`scalar/sliced.rs`).
        if let Some(pass) = sliced::pass_kernel(self) {
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
        self.eight_stored.map(|s| s.bytes())
    }

    /// `n = c.len()` independent dot products of `k` elements: `d[i] = a_i·b_i + c[i]`, where
    /// `a_i = a[i·k .. (i+1)·k]` (likewise `b_i`) and, with block scaling, `s = scales_for(k)`
    /// scale factors per dot product in `scale_a` and `scale_b`. The fastest way to evaluate
    /// many dot products: where the model and formats allow, eight or sixteen at a time across
    /// vector lanes, bit-identical to [`Kernel::dot`]. Operand encodings are not checked (see
    /// [`DotUnit::check`](crate::DotUnit::check)); lengths are.
    ///
    /// A and B are words of any [`Word`] width that holds their elements: the engine's `u64`,
    /// or the storage width (`u16` for fp16, `u8` for fp8), which the lane routines read
    /// directly and which moves a fraction of the bytes on large batches.
    #[allow(clippy::too_many_arguments)]
    pub fn dots<A: Word, B: Word>(
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
        if matches!(self.plan.path, Path::Sliced(_))
            && s == 0
            && sliced::sliced_dots(self, k, (a, b), c, d)
        {
            return;
        }
        if let (Words::U64(a), Words::U64(b)) = (a, b) {
            return self.dots_u64(k, s, (a, b), c, (scale_a, scale_b), d);
        }
        let n = c.len();
        // Whole groups of eight through the routine compiled for the storage width, where the
        // unit has one and A and B come in that width; the rest widened below.
        let whole = if k > 0 && s == 0 { n / 8 * 8 } else { 0 };
        let first = match self.eight_stored {
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
            a.widen(self, r0 * k, r1 * k, &mut wa);
            b.widen(self, r0 * k, r1 * k, &mut wb);
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
        let done = match (s, self.eight, self.eight_scaled) {
            (0, Some(run), _) => {
                run.run(self, ra, rb, cw, dw);
                true
            }
            (1, _, Some(run)) if k == self.unit.block => {
                run.run(self, ra, rb, sa, sb, cw, dw);
                true
            }
            (1.., _, _) => x86::gst_dots(self, (ra, rb), (sa, sb), cw, dw),
            _ => false,
        };
        let first = if done { whole } else { 0 };
        for i in first..n {
            d[i] = self.dot(
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
    pub(crate) fn eight(&self, a: Rows<'_>, b: Rows<'_>, c: &[u64], d: &mut [u64]) {
        let n = c.len();
        assert!(a.n() == n && b.n() == n && d.len() == n);
        match self.eight {
            Some(run) if a.k() > 0 && a.k() == b.k() && self.unit.formats.scale.is_none() => {
                run.run(self, a, b, c, d)
            }
            _ => {
                for (i, (di, &ci)) in d.iter_mut().zip(c).enumerate() {
                    *di = self.dot(a.row(i), b.row(i), ci, &[], &[]);
                }
            }
        }
    }
}
