//! The engine's number formats as Python sees them: a format by any spelling the engine
//! accepts (`format_named`, the one reading of a `fmt` argument), the facts of each
//! (`fmt_info`, `format_table`) and their names. A leaf: it names nothing of this crate.

use mma::Format;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A format's facts as a unit's `formats()` gives them: name, storage bits, width, exponent
/// and mantissa bits, the place of the least significant bit in the storage word.
pub(crate) fn fmt_info<'py>(py: Python<'py>, f: &Format) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", f.name)?;
    d.set_item("storage_bits", f.storage_bits)?;
    d.set_item("width", f.width())?;
    d.set_item("exp_bits", f.exp_bits)?;
    d.set_item("man_bits", f.man_bits)?;
    d.set_item("lsb", f.lsb)?;
    Ok(d)
}

/// The names of every number format, in the engine's order (`mma::format::ALL`): the one
/// list, so that a format added to the core is known to Python without a second edit.
#[pyfunction]
pub(crate) fn format_names() -> Vec<&'static str> {
    mma::format::ALL.iter().map(|f| f.name).collect()
}

// The table of formats ---------------------------------------------------------------------

/// The dtype names that hold each format's values or words, for the package's conversions
/// (the engine's formats know no NumPy or torch): the NumPy or ml_dtypes type of its values,
/// and the torch dtype of mmasim's tensors of it (`tf32` in float32 tensors, `ue4m3` in
/// float8_e4m3fn ones, fp6 and fp4 as uint8 codes). `None`: the package converts no array of
/// that format to or from that library. A format of `mma::format::ALL` missing here has
/// neither (`format_table` checks that every name here is a format).
const DTYPES: &[(&str, Option<&str>, Option<&str>)] = &[
    ("f64", Some("float64"), Some("float64")),
    ("f32", Some("float32"), Some("float32")),
    ("tf32", None, Some("float32")),
    ("f16", Some("float16"), Some("float16")),
    ("bf16", Some("bfloat16"), Some("bfloat16")),
    ("e5m2", Some("float8_e5m2"), Some("float8_e5m2")),
    ("e4m3", Some("float8_e4m3fn"), Some("float8_e4m3fn")),
    ("e4m3fnuz", Some("float8_e4m3fnuz"), Some("float8_e4m3fnuz")),
    ("e5m2fnuz", Some("float8_e5m2fnuz"), Some("float8_e5m2fnuz")),
    ("e3m2", Some("float6_e3m2fn"), Some("uint8")),
    ("e2m3", Some("float6_e2m3fn"), Some("uint8")),
    ("e2m1", Some("float4_e2m1fn"), Some("uint8")),
    ("ue8m0", None, Some("float8_e8m0fnu")),
    ("ue4m3", None, Some("float8_e4m3fn")),
];

/// Every format of the engine (`mma::format::ALL`, in its order) as a dict: `name`,
/// `storage_bits`, `width`, `exp_bits`, `man_bits`, `bias`, `lsb`, `signed`, `has_inf`,
/// `has_nan`, `emin`, `emax`, `default_nan`, `all_ones_nan` (words), `integer` (s8, u8, s4,
/// u4, b1, s32: values are whole numbers, two's complement where signed) and the dtypes that hold
/// it, `numpy` and `torch` (names, or None). The one table Python builds its views from.
#[pyfunction]
pub(crate) fn format_table<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    if let Some((name, ..)) = DTYPES
        .iter()
        .find(|(n, ..)| !mma::format::ALL.iter().any(|f| f.name == *n))
    {
        return Err(PyValueError::new_err(format!(
            "the dtype table names {name:?}, which is no format of the engine"
        )));
    }
    let mut out = Vec::with_capacity(mma::format::ALL.len());
    for f in mma::format::ALL {
        let (numpy, torch) = DTYPES
            .iter()
            .find(|(n, ..)| *n == f.name)
            .map_or((None, None), |(_, np, t)| (*np, *t));
        // A unit's `formats()` facts, then the rest of the table's.
        let d = fmt_info(py, f)?;
        d.set_item("bias", f.bias)?;
        d.set_item("signed", f.signed)?;
        d.set_item("has_inf", f.has_inf())?;
        d.set_item("has_nan", f.has_nan())?;
        d.set_item("emin", f.emin())?;
        d.set_item("emax", f.emax())?;
        d.set_item("default_nan", f.default_nan())?;
        d.set_item("all_ones_nan", f.all_ones_nan())?;
        d.set_item("integer", f.integer)?;
        d.set_item("numpy", numpy)?;
        d.set_item("torch", torch)?;
        out.push(d);
    }
    Ok(out)
}

/// The engine's name of a format from any spelling it accepts (`mma::format::by_name`:
/// `"bf16"`, `"float8_e4m3fn"`, `"torch.float16"`, any case), or None.
#[pyfunction]
pub(crate) fn format_canonical(name: &str) -> Option<&'static str> {
    mma::format::by_name(name).map(|f| f.name)
}

pub(crate) fn format_named(name: &str) -> PyResult<Format> {
    mma::format::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = mma::format::ALL.iter().map(|f| f.name).collect();
        PyKeyError::new_err(format!(
            "fmt: unknown format {name:?}; expected one of {}",
            known.join(", ")
        ))
    })
}

/// `Ok` when every word of `w` is a valid word of `f`; else a `ValueError` naming the first
/// bad one as `what[i]`.
pub(crate) fn check_valid(what: &str, f: &Format, w: &[u64]) -> PyResult<()> {
    match w.iter().position(|&x| !f.is_valid_encoding(x)) {
        None => Ok(()),
        Some(i) => Err(PyValueError::new_err(format!(
            "{what}[{i}] = {:#x} is not a valid {} word",
            w[i], f.name
        ))),
    }
}

/// The words of a contiguous 1-D array, each a valid word of `f` (a `ValueError` naming
/// `what` or `what[i]`).
pub(crate) fn valid_words<'a>(
    what: &str,
    f: &Format,
    x: &'a numpy::PyReadonlyArray1<'_, u64>,
) -> PyResult<&'a [u64]> {
    let w = x
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    check_valid(what, f, w)?;
    Ok(w)
}
