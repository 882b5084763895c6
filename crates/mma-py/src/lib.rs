//! The native half of the `mma` Python package (`mma._mma`): catalog look-up, the bit-level
//! batch evaluation behind `Unit.dots` and the value-level matrix product behind
//! `Unit.matmul`. The Python half (`python/mma/__init__.py`) checks dtypes and shapes, names
//! arguments in its messages and converts arrays; this module checks what it is handed again
//! (lengths, encodings) so that no call can reach an assertion of the engine: every problem is
//! a Python exception, never a panic.
//!
//! Only the facade's public API is used: the catalog door (`mma::catalog::find`, `select`),
//! `DotUnit` (`kernel`, `gemm`, `scales_for`), `Kernel::dots` and `Format`.

mod batch;
mod library;
mod run;
mod values;

use mma::{DotUnit, Format, Kernel};
use numpy::{IntoPyArray, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use batch::Layout;

/// One instruction of a catalog, prepared for evaluation.
#[pyclass(frozen, module = "mma._mma", name = "_Unit")]
struct PyUnit {
    unit: &'static DotUnit,
    kernel: Kernel,
    #[pyo3(get)]
    vendor: &'static str,
    #[pyo3(get)]
    arch: &'static str,
    #[pyo3(get)]
    op: String,
    #[pyo3(get)]
    name: String,
    /// PTX spelling (NVIDIA) or ISA mnemonic (AMD).
    #[pyo3(get)]
    spelling: String,
    #[pyo3(get)]
    m: usize,
    #[pyo3(get)]
    n: usize,
    #[pyo3(get)]
    k: usize,
    layout: Layout,
}

fn fmt_info<'py>(py: Python<'py>, f: &Format) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", f.name)?;
    d.set_item("storage_bits", f.storage_bits)?;
    d.set_item("width", f.width())?;
    d.set_item("exp_bits", f.exp_bits)?;
    d.set_item("man_bits", f.man_bits)?;
    d.set_item("lsb", f.lsb)?;
    Ok(d)
}

#[pymethods]
impl PyUnit {
    /// `"plain"`, `"byte"` (one fp6/fp4 element per byte) or `"packed_fp4"` (two per byte).
    #[getter]
    fn layout(&self) -> &'static str {
        self.layout.name()
    }

    /// The model's name as the papers write it.
    #[getter]
    fn model(&self) -> &'static str {
        self.unit.model.name()
    }

    /// The model and its parameters in one line, as `mma list` prints them.
    #[getter]
    fn description(&self) -> String {
        self.unit.describe()
    }

    /// The model's parameters as the unit-file schema states them (`mma::unit_file`):
    /// `L_max` and the model's own, integers, flags and names, as a dict.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use mma::unit_file::Param;
        let file = mma::UnitFile::from(self.unit);
        let d = PyDict::new(py);
        d.set_item("L_max", file.l_max)?;
        for (key, value) in file.params {
            match value {
                Param::Int(x) => d.set_item(key, x)?,
                Param::Flag(x) => d.set_item(key, x)?,
                Param::Text(x) => d.set_item(key, x)?,
            }
        }
        Ok(d)
    }

    /// The block length along K (`L_max`).
    #[getter]
    fn block(&self) -> usize {
        self.unit.block
    }

    /// Whether batches take the vector-lane path on this CPU.
    #[getter]
    fn is_batched(&self) -> bool {
        self.kernel.is_batched()
    }

    /// The instruction set the kernel was planned for, e.g. `"Avx2"` or `"Portable"`.
    #[getter]
    fn isa(&self) -> String {
        format!("{:?}", self.kernel.isa())
    }

    /// `{"a": {...}, "b": ..., "c": ..., "d": ..., "scale": {...} or None, "scale_block": int
    /// or None}`, each format as name, storage bits, width and lsb.
    #[getter]
    fn formats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = &self.unit.formats;
        let d = PyDict::new(py);
        d.set_item("a", fmt_info(py, &f.a)?)?;
        d.set_item("b", fmt_info(py, &f.b)?)?;
        d.set_item("c", fmt_info(py, &f.c)?)?;
        d.set_item("d", fmt_info(py, &f.d)?)?;
        match &f.scale {
            Some((s, per)) => {
                d.set_item("scale", fmt_info(py, s)?)?;
                d.set_item("scale_block", *per)?;
            }
            None => {
                d.set_item("scale", py.None())?;
                d.set_item("scale_block", py.None())?;
            }
        }
        Ok(d)
    }

    /// Scale factors per operand for a K-long dot product (0 without block scaling).
    fn scales_for(&self, k: usize) -> usize {
        self.unit.scales_for(k)
    }

    /// Dot products on raw words. `a`, `b`: `n` rows of `row_words` words (one element per
    /// word, or two fp4 per byte for the packed layout); `c`: `n` words; scales: `n` rows of
    /// `scales_for(k)` bytes. `k` elements per row, chained in steps of `k_step` elements
    /// (the instruction's K; `k_step = k` chains by the unit's blocks only). `threads`: 0 all
    /// cores, 1 the calling thread, `t` a pool of `t`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (a, b, c, scale_a, scale_b, k, k_step, threads))]
    fn dots<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        c: &Bound<'py, PyAny>,
        scale_a: Option<PyReadonlyArray2<'py, u8>>,
        scale_b: Option<PyReadonlyArray2<'py, u8>>,
        k: usize,
        k_step: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ga, gb, gc) = (
            batch::Held::new(a)?,
            batch::Held::new(b)?,
            batch::Held::new(c)?,
        );
        let (sa, sb) = (
            scale_a.as_ref().map(|x| x.as_slice()).transpose(),
            scale_b.as_ref().map(|x| x.as_slice()).transpose(),
        );
        let (sa, sb) = (
            sa.map_err(|e| PyValueError::new_err(format!("scale_a: {e}")))?
                .unwrap_or(&[]),
            sb.map_err(|e| PyValueError::new_err(format!("scale_b: {e}")))?
                .unwrap_or(&[]),
        );
        let job = batch::Job {
            kernel: &self.kernel,
            layout: self.layout,
            a: ga.src()?,
            b: gb.src()?,
            c: gc.src()?,
            scale_a: sa,
            scale_b: sb,
            k,
            k_step,
        };
        job.check()?;
        let threads = run::threads(threads)?;
        Ok(match self.unit.formats.d.storage_bits {
            16 => py
                .detach(|| job.run::<u16>(threads))?
                .into_pyarray(py)
                .into_any(),
            32 => py
                .detach(|| job.run::<u32>(threads))?
                .into_pyarray(py)
                .into_any(),
            _ => py
                .detach(|| job.run::<u64>(threads))?
                .into_pyarray(py)
                .into_any(),
        })
    }

    /// `D = A·B + C` on real values (float64, row-major `m×k`, `k×n`, `m×n`), each checked to be
    /// exactly representable in its operand's format; block-scaled units use scale factors of
    /// 1. Returns D's storage words.
    #[pyo3(signature = (a, b, c, threads))]
    fn matmul<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, f64>,
        b: PyReadonlyArray2<'py, f64>,
        c: PyReadonlyArray2<'py, f64>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (m, k) = (a.shape()[0], a.shape()[1]);
        let n = b.shape()[1];
        if b.shape()[0] != k || c.shape() != [m, n] {
            return Err(PyValueError::new_err(format!(
                "shapes do not fit: A is {:?}, B {:?}, C {:?}; expected [M, K], [K, N], [M, N]",
                a.shape(),
                b.shape(),
                c.shape()
            )));
        }
        let (av, bv, cv) = (view(&a, "A")?, view(&b, "B")?, view(&c, "C")?);
        let job = values::Matmul {
            unit: self.unit,
            k_step: self.k,
            m,
            n,
            k,
            x: values::Operands::Values {
                a: av,
                b: bv,
                c: cv,
            },
        };
        let threads = run::threads(threads)?;
        let d = py.detach(|| job.run(threads))?;
        words_array(py, d, &self.unit.formats.d)
    }

    /// `D = A·B + C` on storage words, as `matmul` computes it on values but without any
    /// conversion where every word is valid (the path of `mma.torch`): `a` is `m×k` (flat,
    /// row-major), `b_cols` B column by column (`n` rows of `k`), `c` `m×n` words or `None`
    /// for `+0`. Words of the instruction's storage width (uint8/16/32/64), each checked to be
    /// a valid encoding. Returns D's storage words.
    #[pyo3(signature = (a, b_cols, c, m, n, k, threads))]
    #[allow(clippy::too_many_arguments)]
    fn _matmul_words<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b_cols: &Bound<'py, PyAny>,
        c: Option<&Bound<'py, PyAny>>,
        m: usize,
        n: usize,
        k: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ga, gb) = (batch::Held::new(a)?, batch::Held::new(b_cols)?);
        let gc = c.map(batch::Held::new).transpose()?;
        let (sa, sb) = (ga.src()?, gb.src()?);
        let sc = gc.as_ref().map(|c| c.src()).transpose()?;
        for (name, len, want) in [
            ("a", sa.len(), m.checked_mul(k)),
            ("b_cols", sb.len(), n.checked_mul(k)),
            (
                "c",
                sc.map_or(0, |c| c.len()),
                if sc.is_some() {
                    m.checked_mul(n)
                } else {
                    Some(0)
                },
            ),
        ] {
            if Some(len) != want {
                return Err(PyValueError::new_err(format!(
                    "{name}: {len} words do not fit (m, n, k) = ({m}, {n}, {k})"
                )));
            }
        }
        let job = values::Matmul {
            unit: self.unit,
            k_step: self.k,
            m,
            n,
            k,
            x: values::Operands::Words {
                a: sa,
                b_cols: sb,
                c: sc,
            },
        };
        let threads = run::threads(threads)?;
        let d = py.detach(|| job.run(threads))?;
        words_array(py, d, &self.unit.formats.d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Unit({} {} {} {}: K={}, {})",
            self.vendor,
            self.arch,
            self.op,
            self.name,
            self.k,
            self.unit.describe()
        )
    }
}

/// A contiguous array's elements; `what` names it in the error.
fn view<'a>(x: &'a PyReadonlyArray2<'_, f64>, what: &str) -> PyResult<&'a [f64]> {
    x.as_slice()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// D's words as a NumPy array of the storage width (uint8/16/32/64); the narrow copy is
/// allocated fallibly (a `MemoryError`, not an abort).
fn words_array<'py>(py: Python<'py>, d: Vec<u64>, f: &Format) -> PyResult<Bound<'py, PyAny>> {
    fn narrow<'py, T: Copy + Default + numpy::Element>(
        py: Python<'py>,
        d: &[u64],
        cast: impl Fn(u64) -> T,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut out = run::zeroed::<T>(d.len(), "D")?;
        for (o, &x) in out.iter_mut().zip(d) {
            *o = cast(x);
        }
        Ok(out.into_pyarray(py).into_any())
    }
    match f.storage_bits {
        8 => narrow(py, &d, |x| x as u8),
        16 => narrow(py, &d, |x| x as u16),
        32 => narrow(py, &d, |x| x as u32),
        _ => Ok(d.into_pyarray(py).into_any()),
    }
}

/// A catalog row prepared for evaluation.
fn unit_of(r: mma::catalog::Row) -> PyUnit {
    PyUnit {
        unit: r.unit,
        kernel: r.unit.kernel(),
        vendor: r.vendor.name(),
        arch: r.arch,
        op: r.op.to_string(),
        name: r.name.to_string(),
        spelling: r.mnemonic.to_string(),
        m: r.m,
        n: r.n,
        k: r.k,
        layout: r.layout,
    }
}

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
/// (AMD), model and parameters; filtered by vendor and architecture when given. An
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
        out.push(d);
    }
    Ok(out)
}

/// The names of every number format, in the engine's order (`mma::format::ALL`): the one
/// list, so that a format added to the core is known to Python without a second edit.
#[pyfunction]
fn format_names() -> Vec<&'static str> {
    mma::format::ALL.iter().map(|f| f.name).collect()
}

fn format_named(name: &str) -> PyResult<Format> {
    mma::format::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = mma::format::ALL.iter().map(|f| f.name).collect();
        PyKeyError::new_err(format!(
            "fmt: unknown format {name:?}; expected one of {}",
            known.join(", ")
        ))
    })
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
    let w = words
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("words: {e}")))?;
    let mut out = Vec::with_capacity(w.len());
    for (i, &x) in w.iter().enumerate() {
        if !f.is_valid_encoding(x) {
            return Err(PyValueError::new_err(format!(
                "words[{i}] = {x:#x} is not a valid {} word",
                f.name
            )));
        }
        out.push(f.decode(x).to_f64());
    }
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
    Ok(())
}
