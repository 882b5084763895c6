//! Operand words as the batch entry points take them, the ground floor of the kernel: the
//! storage widths ([`Word`], [`Words`]) and the rows of a group of dot products ([`Rows`]).
//! Nothing here decides or computes; every layer above reads these types.

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
    pub(super) fn head(&self, n: usize) -> Words<'a> {
        match *self {
            Words::U8(x) => Words::U8(&x[..n]),
            Words::U16(x) => Words::U16(&x[..n]),
            Words::U32(x) => Words::U32(&x[..n]),
            Words::U64(x) => Words::U64(&x[..n]),
        }
    }
}

/// Buffers for a permuted copy of [`Words`] (`dots::permuted`), one per width (reused from
/// tile to tile).
#[derive(Debug, Default)]
pub(super) struct Permuted {
    pub(super) u8: Vec<u8>,
    pub(super) u16: Vec<u16>,
    pub(super) u32: Vec<u32>,
    pub(super) u64: Vec<u64>,
}

/// An unsigned word that holds one operand element: `u8`, `u16`, `u32` or `u64` (sealed). See
/// [`Kernel::dots`](super::Kernel::dots).
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
/// matrix's K. The words are the engine's `u64` or, for
/// [`Kernel::dots`](super::Kernel::dots) on operands in their storage width, that width (`W`):
/// the lane routines are compiled once per width, so that the width costs nothing in their
/// loops.
#[derive(Debug)]
pub struct Rows<'a, W: Word = u64> {
    /// The words and the distance between rows (read by the lane loads of `lanes/batch.rs`).
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

    /// Rows `from .. from + n` (`n` a multiple of 4, NEON's group; the vector loads of each
    /// width assert the rows they read).
    // Read only by the lane routines (`lanes/`, `x86/`, `aarch64/`).
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    #[inline(always)]
    pub(super) fn part(&self, from: usize, n: usize) -> Rows<'a, W> {
        assert!(from + n <= self.n && n.is_multiple_of(4));
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
    // Read only by the lane routines (`lanes/`, `x86/`, `aarch64/`).
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
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

    /// `f` of row `j` as `u64` words (zero-extended from a narrower width): how the lanes a
    /// routine flags reach [`crate::kernel::Kernel::dot`].
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(super) fn with_row<R>(&self, j: usize, f: impl FnOnce(&[u64]) -> R) -> R {
        let row = self.row(j);
        if let Some(row) = W::as_u64(row) {
            return f(row);
        }
        // Instruction-sized rows on the stack; longer chained rows (rare: only flagged lanes
        // come here) on the heap.
        const STACK: usize = 128;
        if row.len() <= STACK {
            let mut buf = [0u64; STACK];
            widen_words(row, &mut buf[..row.len()]);
            return f(&buf[..row.len()]);
        }
        let buf: Vec<u64> = row.iter().map(|&w| w.into()).collect();
        f(&buf)
    }
}

/// Operands of [`DotUnit::gemm`](crate::DotUnit::gemm): `a` is `m×k` row-major, `b_cols` is B given column by column
/// (`n` columns of `k`), `c` is `m×n` row-major; scales, when the unit has them, are `m×s` and
/// `n×s` with `s = scales_for(k)`.
#[derive(Clone, Copy, Debug)]
pub struct GemmIn<'a> {
    pub a: &'a [u64],
    pub b_cols: &'a [u64],
    pub c: &'a [u64],
    pub scale_a: &'a [u64],
    pub scale_b: &'a [u64],
}

/// Zero-extends `x` into `out` (of the same length): a loop the compiler vectorises.
#[inline(always)]
pub(super) fn widen_words<W: Copy + Into<u64>>(x: &[W], out: &mut [u64]) {
    for (o, &w) in out.iter_mut().zip(x) {
        *o = w.into();
    }
}
