//! The drivers: whole products and batches built from one unit's dot products.
//!
//! - [`DotUnit::mma`]: one instruction at matrix level (`m×k` times `k×n`, one K).
//! - [`DotUnit::gemm`]: a whole `M×N×K` product evaluated the way a GPU kernel issues it, one
//!   instruction of depth `k_step` after another along K, each instruction's D fed back as the
//!   next one's C (split-K, with its reduction in D's format, is `split_k.rs`).
//! - [`Kernel::dots_threaded`]: a batch of independent dot products over threads.
//!
//! Rows of D (and chunks of a batch) are independent, so they are spread over threads (feature
//! `parallel`, on by default, with rayon); every element is computed by the same sequence of
//! operations whatever the thread count, so the result is identical for any number of threads.

// `GemmIn` is defined with the operand words (the kernel's matrix lanes read it), here its
// public home.
pub use crate::kernel::GemmIn;
use crate::kernel::{Kernel, Rows, Word};
use crate::unit::{check_lengths, DotUnit, ShapeError};

/// Rows of D one task computes, and columns per cache tile.
const ROWS_PER_TASK: usize = 8;
const COLS_PER_TILE: usize = 64;

impl DotUnit {
    /// Matrix-level MMA: `D = A·B + C` for an `m×k` A (row-major), a `k×n` B given column by
    /// column (`n` rows of `k`, the `.col` layout), and `m×n` C and D (row-major), for a unit
    /// without scale factors ([`DotUnit::mma_scaled`] takes them; a unit that needs them is a
    /// [`ShapeError`] here). Writes `d` without allocating.
    pub fn mma(
        &self,
        mnk: (usize, usize, usize),
        a: &[u64],
        b_cols: &[u64],
        c: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        self.mma_scaled(mnk, a, b_cols, c, &[], &[], d)
    }

    /// As [`DotUnit::mma`] for a block-scaled unit: the scales are per row of A and per column
    /// of B, `m×s` and `n×s` with `s = scales_for(k)`.
    #[allow(clippy::too_many_arguments)]
    pub fn mma_scaled(
        &self,
        (m, n, k): (usize, usize, usize),
        a: &[u64],
        b_cols: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        let s = self.scales_for(k);
        check_lengths(&[
            ("A", a.len(), m, k),
            ("B", b_cols.len(), k, n),
            ("C", c.len(), m, n),
            ("D", d.len(), m, n),
            ("scale_a", scale_a.len(), m, s),
            ("scale_b", scale_b.len(), n, s),
        ])?;
        let kern = self.kernel();
        for i in 0..m {
            let row = &a[i * k..(i + 1) * k];
            let sa = &scale_a[i * s..(i + 1) * s];
            for j in 0..n {
                let col = &b_cols[j * k..(j + 1) * k];
                let sb = &scale_b[j * s..(j + 1) * s];
                d[i * n + j] = kern.dot_scaled(row, col, c[i * n + j], sa, sb);
            }
        }
        Ok(())
    }

    /// The lengths of a `m×n×k` product's operands, shared by the matrix drivers; the scale
    /// factors per row of A (and column of B).
    pub(crate) fn check_gemm_lengths(
        &self,
        (m, n, k): (usize, usize, usize),
        x: &GemmIn<'_>,
        d: &[u64],
    ) -> Result<usize, ShapeError> {
        let s = self.scales_for(k);
        check_lengths(&[
            ("A", x.a.len(), m, k),
            ("B", x.b_cols.len(), k, n),
            ("C", x.c.len(), m, n),
            ("D", d.len(), m, n),
            ("scale_a", x.scale_a.len(), m, s),
            ("scale_b", x.scale_b.len(), n, s),
        ])?;
        Ok(s)
    }

    /// `D = A·B + C` over `(m, n, k)`, walking K in steps of `k_step` (the instruction's K) with
    /// each step's D as the next step's C. `threads`: 0 uses rayon's global pool, 1 runs on the
    /// calling thread, `t > 1` a pool of `t` threads. Results do not depend on `threads`.
    pub fn gemm(
        &self,
        (m, n, k): (usize, usize, usize),
        k_step: usize,
        x: &GemmIn<'_>,
        d: &mut [u64],
        threads: usize,
    ) -> Result<(), ShapeError> {
        let all = |_: usize| Ok::<(), std::convert::Infallible>(());
        match self.gemm_in_rounds((m, n, k), k_step, x, d, threads, m, all)? {
            Ok(()) => Ok(()),
            Err(never) => match never {},
        }
    }

    /// [`DotUnit::gemm`] in rounds of about `rows` rows of D (a multiple of the rows one task
    /// computes), calling `between(rows_done)` on the calling thread after each round: an
    /// `Err` from it stops the product there (the rows not reached stay as they were) and is
    /// returned. What the lanes need of B (its columns decoded into panels) and the threads'
    /// pool are made once for all rounds, so that rounds short enough to answer Ctrl-C soon
    /// (the Python package's `Unit.matmul`) cost no more than one call. Each element is
    /// computed by the same operations whatever the rounds, so `d` does not depend on `rows`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_in_rounds<E>(
        &self,
        (m, n, k): (usize, usize, usize),
        k_step: usize,
        x: &GemmIn<'_>,
        d: &mut [u64],
        threads: usize,
        rows: usize,
        mut between: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<Result<(), E>, ShapeError> {
        let s = self.check_gemm_lengths((m, n, k), x, d)?;
        let per = self.formats.scale.map_or(1, |(_, p)| p);
        if k_step == 0 || k % k_step != 0 || !k_step.is_multiple_of(per) {
            return Err(ShapeError::Ragged {
                k,
                block: k_step.max(1),
            });
        }
        if k > k_step && self.formats.c != self.formats.d {
            return Err(ShapeError::Feedback {
                c: self.formats.c.name,
                d: self.formats.d.name,
            });
        }
        if m == 0 || n == 0 {
            return Ok(Ok(()));
        }
        let kern = self.kernel();
        let lanes = if s == 0 {
            kern.gemm_lanes((n, k), k_step, x.b_cols)
        } else {
            None
        };
        let round = rows
            .max(1)
            .next_multiple_of(ROWS_PER_TASK)
            .min(m.next_multiple_of(ROWS_PER_TASK));
        let pool = Threads::new(threads, round.div_ceil(ROWS_PER_TASK));
        for r0 in (0..m).step_by(round) {
            let r1 = (r0 + round).min(m);
            let part = &mut d[r0 * n..r1 * n];
            match &lanes {
                Some(lanes) => pool.run(part, n * ROWS_PER_TASK, |(t, chunk)| {
                    lanes.rows(&kern, r0 + t * ROWS_PER_TASK, x, chunk)
                }),
                None => pool.run(part, n * ROWS_PER_TASK, |(t, chunk)| {
                    let i0 = r0 + t * ROWS_PER_TASK;
                    gemm_rows(&kern, i0, (n, k, k_step, s), x, chunk)
                }),
            }
            if let Err(e) = between(r1) {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }
}

/// The threads of a driver call, made once for all its rounds: `threads` 0 uses rayon's
/// global pool, 1 the calling thread, `t > 1` a pool of `t` (never more than `tasks`: a pool
/// of 4096 threads for one chunk costs seconds). Without the `parallel` feature, always the
/// calling thread.
pub(crate) struct Threads {
    #[cfg(feature = "parallel")]
    count: usize,
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
}

impl Threads {
    #[cfg(feature = "parallel")]
    pub(crate) fn new(threads: usize, tasks: usize) -> Threads {
        let count = threads.min(tasks.max(1));
        let pool = if count > 1 {
            rayon::ThreadPoolBuilder::new()
                .num_threads(count)
                .build()
                .ok()
        } else {
            None
        };
        Threads { count, pool }
    }

    #[cfg(not(feature = "parallel"))]
    pub(crate) fn new(_threads: usize, _tasks: usize) -> Threads {
        Threads {}
    }

    /// Calls `f` on every `chunk`-sized piece of `d` with its index.
    #[cfg(feature = "parallel")]
    pub(crate) fn run(&self, d: &mut [u64], chunk: usize, f: impl Fn((usize, &mut [u64])) + Sync) {
        use rayon::prelude::*;
        let par = |d: &mut [u64]| d.par_chunks_mut(chunk).enumerate().for_each(&f);
        match (self.count, &self.pool) {
            (1, _) => d.chunks_mut(chunk).enumerate().for_each(&f),
            (_, Some(pool)) => pool.install(|| par(d)),
            _ => par(d),
        }
    }

    #[cfg(not(feature = "parallel"))]
    pub(crate) fn run(&self, d: &mut [u64], chunk: usize, f: impl Fn((usize, &mut [u64]))) {
        d.chunks_mut(chunk).enumerate().for_each(f)
    }
}

/// Calls `f` on every `chunk`-sized piece of `d` with its index, on `threads` threads (see
/// [`DotUnit::gemm`]).
pub(crate) fn run(
    d: &mut [u64],
    chunk: usize,
    threads: usize,
    f: impl Fn((usize, &mut [u64])) + Sync,
) {
    let tasks = d.len().div_ceil(chunk.max(1));
    Threads::new(threads, tasks).run(d, chunk, f)
}

/// A zeroed vector of `n` elements, or `None` where it does not fit in memory: the one fallible
/// allocation of the core's drivers (the library walk, split-K), each of which names the buffer
/// in its own error.
pub(crate) fn try_zeroed<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, T::default());
    Some(v)
}

/// Runs `f` with the `threads` it should hand the drivers: for `t > 1`, inside one pool of
/// `min(t, tasks)` threads made once for all of `f`'s calls (each then passes 0, the current
/// pool), so that a call made of many driver calls does not build a pool per call, nor more
/// threads than its driver calls have tasks (`rows`: D's rows, [`ROWS_PER_TASK`] a task).
#[cfg(feature = "parallel")]
pub(crate) fn with_pool<R: Send>(
    threads: usize,
    rows: usize,
    f: impl FnOnce(usize) -> R + Send,
) -> R {
    let threads = threads.min(rows.div_ceil(ROWS_PER_TASK).max(1));
    if threads > 1 {
        if let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            return pool.install(|| f(0));
        }
    }
    f(threads)
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn with_pool<R: Send>(
    threads: usize,
    _rows: usize,
    f: impl FnOnce(usize) -> R + Send,
) -> R {
    f(threads)
}

/// Rows `i0..` of D (as many as `d` holds), tiled over columns so that a tile of B stays in
/// cache while the rows pass over it. Where the kernel evaluates dot products across vector
/// lanes ([`Kernel::is_batched`]), a group of columns of a row (as many as the lanes, or
/// eight) go together, instruction by
/// instruction along K exactly as one at a time.
fn gemm_rows(
    kern: &Kernel,
    i0: usize,
    (n, k, k_step, s): (usize, usize, usize, usize),
    x: &GemmIn<'_>,
    d: &mut [u64],
) {
    let per = kern.unit.formats.scale.map_or(usize::MAX, |(_, p)| p);
    let steps = k / k_step;
    let scales_per_step = if s == 0 { 0 } else { k_step / per };
    let lanes = kern.is_batched() && s == 0;
    for j0 in (0..n).step_by(COLS_PER_TILE) {
        let j1 = (j0 + COLS_PER_TILE).min(n);
        for (r, drow) in d.chunks_mut(n).enumerate() {
            let i = i0 + r;
            let row = &x.a[i * k..(i + 1) * k];
            let sa = &x.scale_a[i * s..(i + 1) * s];
            let mut j = j0;
            if lanes {
                // A group of columns as wide as the kernel's lanes while it fits, then eight.
                let wide = kern.isa().lanes().max(8);
                while j + 8 <= j1 {
                    let w = if j + wide <= j1 { wide } else { 8 };
                    let mut acc = [0u64; 16];
                    let acc = &mut acc[..w];
                    acc.copy_from_slice(&x.c[i * n + j..i * n + j + w]);
                    for t in 0..steps {
                        let k0 = t * k_step;
                        // Row i of A in every lane; columns j..j+w of B, k apart.
                        let (Some(ra), Some(rb)) = (
                            Rows::new(&row[k0..], 0, k_step, w),
                            Rows::new(&x.b_cols[j * k + k0..], k, k_step, w),
                        ) else {
                            unreachable!("the shapes were checked by `gemm`")
                        };
                        let mut c = [0u64; 16];
                        c[..w].copy_from_slice(acc);
                        kern.across_lanes(ra, rb, &c[..w], acc);
                    }
                    drow[j..j + w].copy_from_slice(acc);
                    j += w;
                }
            }
            for (j, dj) in drow.iter_mut().enumerate().take(j1).skip(j) {
                let col = &x.b_cols[j * k..(j + 1) * k];
                let sb = &x.scale_b[j * s..(j + 1) * s];
                let mut acc = x.c[i * n + j];
                for t in 0..steps {
                    let (k0, k1) = (t * k_step, (t + 1) * k_step);
                    let (s0, s1) = (t * scales_per_step, (t + 1) * scales_per_step);
                    acc =
                        kern.dot_scaled(&row[k0..k1], &col[k0..k1], acc, &sa[s0..s1], &sb[s0..s1]);
                }
                *dj = acc;
            }
        }
    }
}

impl Kernel {
    /// [`Kernel::dots`] spread over threads: `threads` 0 uses rayon's global pool, 1 the
    /// calling thread, `t > 1` a pool of `t` threads (without the `parallel` feature, always
    /// the calling thread). Every dot product is computed by the same operations whatever the
    /// thread count, so `d` does not depend on it.
    #[allow(clippy::too_many_arguments)]
    pub fn dots_threaded<A: Word, B: Word>(
        &self,
        threads: usize,
        k: usize,
        a: &[A],
        b: &[B],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        // Lengths first, so that every chunk below is well formed.
        let s = self.check_batch(k, (a.len(), b.len()), c, scale_a, scale_b, d)?;
        // Dot products per task: a multiple of 8, large enough to amortise the task.
        const CHUNK: usize = 4096;
        run(d, CHUNK, threads, |(t, dt)| {
            let (i0, i1) = (t * CHUNK, t * CHUNK + dt.len());
            self.dots_words(
                k,
                s,
                (A::words(&a[i0 * k..i1 * k]), B::words(&b[i0 * k..i1 * k])),
                &c[i0..i1],
                (&scale_a[i0 * s..i1 * s], &scale_b[i0 * s..i1 * s]),
                dt,
            );
        });
        Ok(())
    }
}
