//! `mma.scaled_mm`: a library GEMM on a GPU platform (`mma::nvidia::library`), on FP8 codes
//! the Python half has checked and laid out (A row-major, B's columns). The library's
//! rejections come back as `(kind, message)` so that the Python half raises its own error
//! classes.

use crate::run;
use mma::catalog::library_platform as platform;
use mma::format::Format;
use mma::library::{Order, Scales, Split};
use mma::nvidia::library::{CallError, ScaledMm};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::{PyKeyError, PyMemoryError, PyValueError};
use pyo3::prelude::*;

fn format_named(what: &str, name: &str) -> PyResult<Format> {
    mma::format::by_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("{what}: unknown format {name:?}")))
}

/// The platform's description: name, GPU, library, callers, evidence status and text, the
/// instruction per input pair.
#[pyfunction]
pub fn platform_info(py: Python<'_>, gpu: &str) -> PyResult<Py<PyAny>> {
    let p = platform(gpu).map_err(|e| PyKeyError::new_err(format!("gpu: {e}")))?;
    let f = &p.file;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("name", &f.name)?;
    d.set_item("gpu", &f.gpu)?;
    d.set_item("library", &f.library)?;
    d.set_item("callers", &f.callers)?;
    d.set_item("verified", p.verified())?;
    d.set_item("evidence", &f.evidence.text)?;
    let units = pyo3::types::PyList::empty(py);
    for u in &f.units {
        units.append((u.a.as_str(), u.b.as_str(), u.instr.as_str()))?;
    }
    d.set_item("units", units)?;
    let orders: Vec<&str> = f.recipe.split_k.orders.iter().map(|o| o.name()).collect();
    d.set_item("split_orders", orders)?;
    Ok(d.into_any().unbind())
}

/// Every GPU of the engine's GPU tables (`mma::catalog::gpus`, the vendor crates' data), in
/// table order: `names`, `vendor`, `arch`, `instr` (dtype column -> the table's cell or None),
/// `platform` (or None), `evidence`, and `fp8` (the vendor's FP8 format names and their
/// spellings in instruction names).
#[pyfunction]
pub fn gpu_table(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let out = pyo3::types::PyList::empty(py);
    for g in mma::catalog::gpus() {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("names", &g.row.names)?;
        d.set_item("vendor", g.vendor.name())?;
        d.set_item("arch", &g.row.arch)?;
        let instr = pyo3::types::PyDict::new(py);
        for (col, cell) in mma::gpu_table::GPU_COLUMNS.iter().zip(&g.row.instr) {
            instr.set_item(*col, cell.as_deref())?;
        }
        d.set_item("instr", instr)?;
        d.set_item("platform", g.row.platform.as_deref())?;
        d.set_item("evidence", &g.row.evidence)?;
        d.set_item("fp8", g.fp8_spellings().to_vec())?;
        out.append(d)?;
    }
    Ok(out.into_any().unbind())
}

/// One call: `Ok(words)` (`m×n`, the output's storage width as uint64), or
/// `ValueError((kind, message))` with kind `rejected`, `unsupported`, `split` or `invalid`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (gpu, a, b_cols, m, n, k, fmt_a, fmt_b, scale_a, scale_b, scale_result, bias, out, fast_accum, parts, order, api, threads))]
pub fn scaled_mm<'py>(
    py: Python<'py>,
    gpu: &str,
    a: PyReadonlyArray1<'py, u8>,
    b_cols: PyReadonlyArray1<'py, u8>,
    m: usize,
    n: usize,
    k: usize,
    fmt_a: &str,
    fmt_b: &str,
    scale_a: u32,
    scale_b: u32,
    scale_result: Option<u32>,
    bias: Option<(String, usize)>,
    out: &str,
    fast_accum: bool,
    parts: usize,
    order: &str,
    api: &str,
    threads: usize,
) -> PyResult<Bound<'py, numpy::PyArray1<u64>>> {
    let p = platform(gpu).map_err(|e| PyKeyError::new_err(format!("gpu: {e}")))?;
    let threads = run::threads(threads)?;
    let (a, b) = (
        a.as_slice()
            .map_err(|e| PyValueError::new_err(format!("a: {e}")))?,
        b_cols
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("b: {e}")))?,
    );
    if Some(a.len()) != m.checked_mul(k) || Some(b.len()) != n.checked_mul(k) {
        return Err(PyValueError::new_err(format!(
            "a, b: {} and {} codes for M = {m}, N = {n}, K = {k}",
            a.len(),
            b.len()
        )));
    }
    let (fa, fb, fo) = (
        format_named("a", fmt_a)?,
        format_named("b", fmt_b)?,
        format_named("out_dtype", out)?,
    );
    let bias = match bias {
        Some((d, len)) => Some((format_named("bias", &d)?, len)),
        None => None,
    };
    let order = Order::parse(order)
        .ok_or_else(|| PyValueError::new_err(format!("splitk: unknown order {order:?}")))?;
    let mut wa = run::zeroed::<u64>(a.len(), "a")?;
    let mut wb = run::zeroed::<u64>(b.len(), "b")?;
    for (w, &x) in wa.iter_mut().zip(a) {
        *w = u64::from(x);
    }
    for (w, &x) in wb.iter_mut().zip(b) {
        *w = u64::from(x);
    }
    let call = ScaledMm {
        m,
        n,
        k,
        a: &wa,
        b_cols: &wb,
        fmt_a: fa,
        fmt_b: fb,
        scales: Scales {
            a: scale_a,
            b: scale_b,
            result: scale_result,
        },
        bias,
        out: fo,
        fast_accum,
        split: Split { parts, order },
    };
    let accumulate = match api {
        "scaled_mm" => false,
        "accumulate" => true,
        other => return Err(PyValueError::new_err(format!("api: {other:?}"))),
    };
    // Ctrl-C stops the call (run::interruptible): the engine looks at `stop` between rounds.
    let r = run::interruptible(py, |stop| {
        if accumulate {
            p.accumulate_until(&call, threads, stop)
        } else {
            p.scaled_mm_until(&call, threads, stop)
        }
    })?;
    match r {
        Ok(d) => Ok(d.into_pyarray(py)),
        Err(CallError::Memory(msg)) => Err(PyMemoryError::new_err(msg)),
        Err(e) => {
            let kind = match &e {
                CallError::Rejected { .. } => "rejected",
                CallError::Unsupported { .. } => "unsupported",
                CallError::SplitUnknown(_) => "split",
                _ => "invalid",
            };
            Err(PyValueError::new_err((kind, e.to_string())))
        }
    }
}
