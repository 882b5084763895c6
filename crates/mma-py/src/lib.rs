//! The native half of the `mma` Python package (`mma._mma`): catalog look-up, the bit-level
//! batch evaluation behind `Unit.dots` and the value-level matrix product behind
//! `Unit.matmul`. The Python half (`python/mma/__init__.py`) checks dtypes and shapes, names
//! arguments in its messages and converts arrays; this module checks what it is handed again
//! (lengths, encodings) so that no call can reach an assertion of the engine: every problem is
//! a Python exception, never a panic.
//!
//! Only the facade's public API is used: the catalog door (`mma::catalog::find`, `select`),
//! `DotUnit` (`kernel`, `gemm`, `scales_for`), `Kernel::dots`, `Format`, and for the numbers
//! the Python half reports (`numerics.rs`) `ExactDot`, `round` and the library's binary32
//! steps.
//!
//! The files, each naming only those below it (the tidy test `no_circle_among_a_crates_files`):
//! `run.rs` (threads, fallible buffers, Ctrl-C) and `formats.rs` (the format table) at the
//! bottom; `batch.rs` (words of NumPy arrays) and `values.rs` (values and scales) over them;
//! `unit.rs` (the `_Unit` class) over those; `numerics.rs` (the campaign's and the epilogue's
//! numbers) and `library.rs` (`scaled_mm`) beside it; this file registers the module.

mod batch;
mod formats;
mod library;
mod numerics;
mod run;
mod unit;
mod values;

use formats::{format_canonical, format_named, format_names, format_table};
use numpy::IntoPyArray;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use unit::{unit_of, PyUnit};

/// A catalog error as a `KeyError` naming the argument at fault (`arch: ...`).
fn catalog_error(e: mma::catalog::CatalogError) -> PyErr {
    PyKeyError::new_err(format!("{}: {e}", e.field()))
}

/// The vendor argument, if given.
fn vendor_named(vendor: Option<&str>) -> PyResult<Option<mma::catalog::Vendor>> {
    vendor
        .map(mma::catalog::Vendor::parse)
        .transpose()
        .map_err(catalog_error)
}

/// Looks an instruction up (the names the command-line tool accepts). `vendor` may be left out:
/// the catalog that knows the architecture decides.
#[pyfunction]
#[pyo3(signature = (arch, instr, vendor=None, op=None))]
fn find(arch: &str, instr: &str, vendor: Option<&str>, op: Option<&str>) -> PyResult<PyUnit> {
    mma::catalog::find(vendor_named(vendor)?, arch, op, instr)
        .map(unit_of)
        .map_err(catalog_error)
}

/// The catalog as a list of dicts: vendor, arch, op, instr, k, ptx (NVIDIA) or mnemonic
/// (AMD), model, parameters, note, evidence and sparse (`"2:4"`, `"1:2"`, `"4:8-pairs"` or None); filtered by vendor and architecture when given. An
/// architecture no catalog knows, or only another vendor's, is a `KeyError`, not an empty list.
#[pyfunction]
#[pyo3(signature = (vendor=None, arch=None))]
fn catalog<'py>(
    py: Python<'py>,
    vendor: Option<&str>,
    arch: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let rows = mma::catalog::select(vendor_named(vendor)?, arch).map_err(catalog_error)?;
    let none = || py.None().into_bound(py);
    let text = |s: &str| -> PyResult<Bound<'py, PyAny>> { Ok(s.into_pyobject(py)?.into_any()) };
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        // NVIDIA's assembly spelling is PTX, AMD's an ISA mnemonic: one key each.
        let (ptx, mnemonic) = match r.vendor {
            mma::catalog::Vendor::Nvidia => (text(r.mnemonic)?, none()),
            _ => (none(), text(r.mnemonic)?),
        };
        let d = PyDict::new(py);
        d.set_item("vendor", r.vendor.name())?;
        d.set_item("arch", r.arch)?;
        d.set_item("op", r.op)?;
        d.set_item("instr", r.name)?;
        d.set_item("k", r.k)?;
        d.set_item("ptx", ptx)?;
        d.set_item("mnemonic", mnemonic)?;
        d.set_item("model", r.unit.model.name())?;
        d.set_item("parameters", r.unit.describe())?;
        d.set_item("note", r.note)?;
        d.set_item("evidence", r.evidence.name())?;
        d.set_item("sparse", r.sparse.map(|s| s.name()))?;
        out.push(d);
    }
    Ok(out)
}

/// The values of storage words of a format (`NaN` for every NaN encoding); a word with bits
/// outside the format is a `ValueError` naming its index.
#[pyfunction]
fn decode<'py>(
    py: Python<'py>,
    fmt: &str,
    words: numpy::PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let f = format_named(fmt)?;
    let w = formats::valid_words("words", &f, &words)?;
    let out: Vec<f64> = w.iter().map(|&x| f.decode(x).to_f64()).collect();
    Ok(out.into_pyarray(py))
}

/// The storage words of values, each exactly representable in the format (NaN becomes the
/// format's default NaN); otherwise a `ValueError` naming the first value that is not.
#[pyfunction]
fn encode<'py>(
    py: Python<'py>,
    fmt: &str,
    values: numpy::PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, numpy::PyArray1<u64>>> {
    let f = format_named(fmt)?;
    let v = values
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("values: {e}")))?;
    let mut out = Vec::with_capacity(v.len());
    for (i, &x) in v.iter().enumerate() {
        out.push(values::encode_exact(&f, x).ok_or_else(|| {
            PyValueError::new_err(format!(
                "values[{i}] = {x:?} is not exactly representable in {}",
                f.name
            ))
        })?);
    }
    Ok(out.into_pyarray(py))
}

/// The documented difference class from mmasim 2.1.1 (`mma::amd::known_difference`) of one
/// AMD dot product, by name, or None; `a`, `b`, `c` are the instruction's words.
#[pyfunction]
fn amd_known_difference(
    arch: &str,
    instr: &str,
    a: Vec<u64>,
    b: Vec<u64>,
    c: u64,
) -> PyResult<Option<String>> {
    let i = mma::amd::find(arch, None, instr).map_err(|e| PyKeyError::new_err(e.to_string()))?;
    if a.len() != i.k || b.len() != i.k {
        return Err(PyValueError::new_err(format!(
            "a, b: expected {} words each, got {} and {}",
            i.k,
            a.len(),
            b.len()
        )));
    }
    Ok(mma::amd::known_difference(i, &a, &b, c).map(|d| format!("{d:?}")))
}

#[pymodule]
fn _mma(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyUnit>()?;
    m.add_function(wrap_pyfunction!(find, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(format_names, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(amd_known_difference, m)?)?;
    m.add_function(wrap_pyfunction!(library::scaled_mm, m)?)?;
    m.add_function(wrap_pyfunction!(library::platform_info, m)?)?;
    m.add_function(wrap_pyfunction!(library::gpu_table, m)?)?;
    m.add_function(wrap_pyfunction!(format_table, m)?)?;
    m.add_function(wrap_pyfunction!(format_canonical, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::epilogue, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::exact_dot, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::ulp_error, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::campaign_bins, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::campaign_batch, m)?)?;
    m.add_function(wrap_pyfunction!(numerics::campaign_merge, m)?)?;
    m.add_function(wrap_pyfunction!(values::parse_f32_exact, m)?)?;
    m.add_function(wrap_pyfunction!(values::round_values, m)?)?;
    Ok(())
}
