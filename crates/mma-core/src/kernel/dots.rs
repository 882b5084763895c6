//! Many dot products at once: [`Kernel::dots`], and the lane-wise routine ("eight") of a unit,
//! which evaluates eight dot products together across AVX2 lanes (`x86/lanes.rs`). The
//! matrix driver ([`crate::gemm`]) uses the same routine for eight columns of a row of D.

use super::{x86, Kernel};
use crate::unit::ShapeError;

/// The operand rows of a multiple of eight dot products: row `j` is `words[j · stride ..][..
/// k]`. Rows of a batch of dot products follow each other (`stride = k`); a matrix product
/// shares one row of A between columns of B (`stride = 0`) and takes the columns of B at the
/// matrix's K.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    /// The words and the distance between rows (read by the lane loads of `x86/batch.rs`).
    pub(super) words: &'a [u64],
    pub(super) stride: usize,
    k: usize,
    n: usize,
}

impl<'a> Rows<'a> {
    /// `n` rows (a multiple of 8); `None` when `words` is too short for them or `n` is not a
    /// multiple of 8.
    #[inline]
    pub fn new(words: &'a [u64], stride: usize, k: usize, n: usize) -> Option<Rows<'a>> {
        (n % 8 == 0 && (n == 0 || words.len() >= (n - 1) * stride + k)).then_some(Rows {
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

    /// Rows `8g .. 8g + 8`.
    #[inline(always)]
    pub fn group(&self, g: usize) -> Rows<'a> {
        assert!(8 * g + 8 <= self.n);
        Rows {
            words: &self.words[8 * g * self.stride..],
            stride: self.stride,
            k: self.k,
            n: 8,
        }
    }

    /// Row `j`.
    #[inline(always)]
    pub fn row(&self, j: usize) -> &'a [u64] {
        &self.words[j * self.stride..j * self.stride + self.k]
    }
}

impl Kernel {
    /// Whether [`Kernel::dots`] (and the matrix driver) evaluate dot products eight at a time
    /// across vector lanes.
    pub fn is_batched(&self) -> bool {
        if self.lanes.has_gst() {
            return true;
        }
        self.eight.is_some() || self.eight_scaled.is_some()
    }

    /// `n = c.len()` independent dot products of `k` elements: `d[i] = a_i·b_i + c[i]`, where
    /// `a_i = a[i·k .. (i+1)·k]` (likewise `b_i`) and, with block scaling, `s = scales_for(k)`
    /// scale factors per dot product in `scale_a` and `scale_b`. The fastest way to evaluate
    /// many dot products: where the model and formats allow, eight at a time across vector
    /// lanes, bit-identical to [`Kernel::dot`]. Operand encodings are not checked (see
    /// [`DotUnit::check`]); lengths are.
    #[allow(clippy::too_many_arguments)]
    pub fn dots(
        &self,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        let s = self.check_batch(k, a, b, c, scale_a, scale_b, d)?;
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
        Ok(())
    }

    /// The operand lengths of a batch of `c.len()` dot products of `k` elements; the scale
    /// factors per dot product.
    #[allow(clippy::too_many_arguments)]
    fn check_batch(
        &self,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &[u64],
    ) -> Result<usize, ShapeError> {
        let n = c.len();
        let s = self.unit.scales_for(k);
        crate::unit::check_lengths(&[
            ("A", a.len(), n, k),
            ("B", b.len(), n, k),
            ("D", d.len(), n, 1),
            ("scale_a", scale_a.len(), n, s),
            ("scale_b", scale_b.len(), n, s),
        ])?;
        Ok(s)
    }

    /// [`Kernel::dots`] spread over threads: `threads` 0 uses rayon's global pool, 1 the
    /// calling thread, `t > 1` a pool of `t` threads (without the `parallel` feature, always
    /// the calling thread). Every dot product is computed by the same operations whatever the
    /// thread count, so `d` does not depend on it.
    #[allow(clippy::too_many_arguments)]
    pub fn dots_threaded(
        &self,
        threads: usize,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        // Lengths first, so that every chunk below is well formed.
        let s = self.check_batch(k, a, b, c, scale_a, scale_b, d)?;
        // Dot products per task: a multiple of 8, large enough to amortise the task.
        const CHUNK: usize = 4096;
        crate::gemm::run(d, CHUNK, threads, |(t, dt)| {
            let (i0, i1) = (t * CHUNK, t * CHUNK + dt.len());
            self.dots(
                k,
                &a[i0 * k..i1 * k],
                &b[i0 * k..i1 * k],
                &c[i0..i1],
                &scale_a[i0 * s..i1 * s],
                &scale_b[i0 * s..i1 * s],
                dt,
            )
            .expect("chunks of checked lengths");
        });
        Ok(())
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
