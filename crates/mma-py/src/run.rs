//! How a long call runs: on at most [`MAX_THREADS`] threads (one pool per call, never more
//! threads than pieces of work), in rounds of chunks between which the calling thread checks
//! Python's signals (Ctrl-C stops a long `dots` or `matmul` within a round, the rest of the
//! work dropped), with every buffer whose size the caller chooses allocated fallibly (a
//! `MemoryError`, never an abort of the interpreter).

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The most threads a call may ask for: far beyond any machine's cores, far below what makes
/// building the pool itself the cost (4,096 threads took seconds).
pub const MAX_THREADS: usize = 1024;

/// `threads` as the engine takes it (0: all cores), or a `ValueError` naming the argument.
pub fn threads(t: usize) -> PyResult<usize> {
    if t > MAX_THREADS {
        return Err(PyValueError::new_err(format!(
            "threads: expected None or 1 to {MAX_THREADS}, got {t}"
        )));
    }
    Ok(t)
}

/// A zeroed vector of `n` elements, or a `MemoryError` saying what did not fit.
pub fn zeroed<T: Clone + Default>(n: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        PyMemoryError::new_err(format!(
            "{what}: {n} elements of {} bytes do not fit in memory",
            std::mem::size_of::<T>()
        ))
    })?;
    v.resize(n, T::default());
    Ok(v)
}

/// Why a chunked run stopped early: its own error, or a Python exception (a signal handler's
/// `KeyboardInterrupt`).
pub enum Stop<E> {
    Failed(E),
    Python(PyErr),
}

/// Calls `f(first, piece)` on every `chunk`-sized piece of `out` (`first` is the index of the
/// piece's first element), on `threads` threads (0: rayon's global pool, 1: the calling
/// thread, `t`: a pool of `t`, never more than the pieces). The pieces go in rounds of a few
/// per thread; after each round the calling thread takes the GIL for a moment and runs
/// Python's pending signal handlers. The first error in piece order is returned, so the same
/// for any thread count. Call it with the GIL released.
pub fn chunked<T: Send, E: Send>(
    out: &mut [T],
    chunk: usize,
    threads: usize,
    f: impl Fn(usize, &mut [T]) -> Result<(), E> + Sync,
) -> Result<(), Stop<E>> {
    let chunk = chunk.max(1);
    let pieces = out.len().div_ceil(chunk);
    let t = threads.min(pieces.max(1));
    let pool = if t > 1 {
        rayon::ThreadPoolBuilder::new().num_threads(t).build().ok()
    } else {
        None
    };
    let width = match (t, &pool) {
        (1, _) => 1,
        (_, Some(p)) => p.current_num_threads(),
        (_, None) => rayon::current_num_threads(),
    };
    // A round: four pieces per thread, enough to balance, short enough to answer Ctrl-C soon.
    let round = chunk * 4 * width;
    let mut first = 0;
    for part in out.chunks_mut(round) {
        let len = part.len();
        let run = |part: &mut [T]| -> Result<(), E> {
            if t == 1 {
                for (i, piece) in part.chunks_mut(chunk).enumerate() {
                    f(first + i * chunk, piece)?;
                }
                return Ok(());
            }
            let results: Vec<Result<(), E>> = part
                .par_chunks_mut(chunk)
                .enumerate()
                .map(|(i, piece)| f(first + i * chunk, piece))
                .collect();
            results.into_iter().collect()
        };
        match &pool {
            Some(p) => p.install(|| run(part)),
            None => run(part),
        }
        .map_err(Stop::Failed)?;
        first += len;
        Python::attach(|py| py.check_signals()).map_err(Stop::Python)?;
    }
    Ok(())
}

/// How often [`interruptible`]'s calling thread runs Python's signal handlers.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `f(stop)` on a thread of its own while the calling thread, the GIL released, waits for
/// it and runs Python's pending signal handlers every [`SIGNAL_POLL`]: a handler's exception
/// (Ctrl-C's `KeyboardInterrupt`) sets `stop`, which `f` looks at often (the engine's `_until`
/// calls), and is raised once `f` has returned. For calls that run on the engine's own pool
/// and cannot come back to the calling thread between rounds (the library GEMMs). A call that
/// ends sooner costs one thread start and no waiting.
pub fn interruptible<R: Send>(
    py: Python<'_>,
    f: impl FnOnce(&AtomicBool) -> R + Send,
) -> PyResult<R> {
    let stop = AtomicBool::new(false);
    let (r, err) = py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let stop = &stop;
            let worker = scope.spawn(move || {
                let r = f(stop);
                let _ = tx.send(());
                r
            });
            let mut err = None;
            // Until the worker says it is done (or ends without saying so: a panic).
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(SIGNAL_POLL)
            {
                if err.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        stop.store(true, Ordering::Relaxed);
                        err = Some(e);
                    }
                }
            }
            match worker.join() {
                Ok(r) => (r, err),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    });
    match err {
        Some(e) => Err(e),
        None => Ok(r),
    }
}
