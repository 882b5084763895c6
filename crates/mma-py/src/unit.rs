//! `mma._mma._Unit`: one catalog instruction prepared for evaluation, and its methods (the
//! bit-level batch of `Unit.dots`, the value- and word-level products of `Unit.matmul`). It
//! names what is below it (the batch, the values, the thread pool, the format table) and
//! nothing above: the module's registration (lib.rs) and the campaign's numbers
//! (numerics.rs) name it.

use crate::batch::{self, Layout};
use crate::formats::{fmt_info, valid_words};
use crate::{run, values};
use mma::GemmIn;
use mma::{DotUnit, Kernel};
use numpy::{IntoPyArray, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One instruction of a catalog, prepared for evaluation.
#[pyclass(frozen, module = "mma._mma", name = "_Unit")]
pub(crate) struct PyUnit {
    pub(crate) unit: &'static DotUnit,
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
    /// What the model rests on (`mma::catalog::Evidence`): `"hardware"`, `"reference"` or
    /// `"unverified"`.
    #[pyo3(get)]
    evidence: &'static str,
    /// The catalog row (its `sparse`: the structured-sparsity pattern, `None` when dense).
    row: mma::catalog::Row,
}

#[pymethods]
impl PyUnit {
    /// `"plain"`, `"byte"` (one fp6/fp4 element per byte), `"packed_fp4"` (two per byte),
    /// `"packed_int4"` (two s4/u4 per byte, element `2i` in the low nibble) or `"bits"` (eight
    /// b1 per byte, element `8i` in bit 0).
    #[getter]
    fn layout(&self) -> &'static str {
        self.layout.name()
    }

    /// Elements per word of A and B in the layout: 2 for `"packed_fp4"` and `"packed_int4"`,
    /// 8 for `"bits"`, else 1.
    #[getter]
    fn per_word(&self) -> usize {
        self.layout.per_word()
    }

    /// Whether operand `which` (`"a"`, `"b"`, `"c"`, `"d"`) is of an integer format (s8, u8,
    /// s4, u4, b1, s32), whose `matmul`, `dots` and `pack` take integer values.
    fn is_integer(&self, which: &str) -> PyResult<bool> {
        Ok(self.operand_format(which)?.integer)
    }

    /// The NumPy dtype name of operand `which`'s integer values (`"int32"` for s32, `"int8"`
    /// for s8 and s4, `"uint8"` for u8, u4 and b1), `None` for a floating-point format.
    fn int_dtype(&self, which: &str) -> PyResult<Option<String>> {
        let f = self.operand_format(which)?;
        Ok(f.integer
            .then(|| format!("{}int{}", if f.signed { "" } else { "u" }, f.storage_bits)))
    }

    /// The words of integer values of operand `which` (flat): each value checked against the
    /// operand's format's range (`fmt.int_word`), one storage word per element (the format's
    /// storage width: uint8 for s8/u8/s4/u4/b1, uint32 for s32). A value outside the range is
    /// a `ValueError` with the arguments `(message, which, index, value)`; an operand of a
    /// floating-point format a `TypeError`.
    fn int_words<'py>(
        &self,
        py: Python<'py>,
        which: &str,
        values: numpy::PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fmt = self.operand_format(which)?;
        let Some((lo, hi)) = fmt.int_range() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{which}: {} is no integer format; give real values",
                fmt.name
            )));
        };
        let v = values
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("{which}: {e}")))?;
        let mut out = run::zeroed::<u64>(v.len(), which)?;
        for (i, (o, &x)) in out.iter_mut().zip(v).enumerate() {
            match fmt.int_word(x) {
                Some(w) => *o = w,
                None => {
                    return Err(PyValueError::new_err((
                        format!(
                            "{which}[{i}] = {x}: outside {}'s range {lo}..{hi}",
                            fmt.name
                        ),
                        which.to_string(),
                        i,
                        x,
                    )))
                }
            }
        }
        words_array(py, out, fmt.storage_bits, which)
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

    /// The structured-sparsity pattern (`"2:4"`, `"1:2"`, `"4:8-pairs"`), or `None` for a dense unit.
    #[getter]
    fn sparse(&self) -> Option<String> {
        self.row.sparse.map(|s| s.name())
    }

    /// Sparse units: the operands of the dense unit of `dots` from the sparse ones. `a`:
    /// `rows` rows of A's words in the layout, each the dense logical row (`k` elements) or
    /// the compressed one (`k/2`); `b`: `rows` rows of `k` elements' words; `meta`: `rows`
    /// rows of `k/2` indices (int64), checked row by row (a `ValueError` `meta[row]: group
    /// g: ...`). Returns A's kept elements and B's selected ones, `rows` rows of `k/2`
    /// elements' words each, in the layout's words.
    fn _sparse_operands<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        meta: numpy::PyReadonlyArray1<'py, i64>,
        rows: usize,
        k: usize,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let sp = self.row.sparse.ok_or_else(|| self.dense_error())?;
        let (ga, gb) = (batch::Held::new(a)?, batch::Held::new(b)?);
        let (sa, sb) = (ga.src()?, gb.src()?);
        let meta = meta
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("meta: {e}")))?;
        let kh = sp.stored(k);
        let layout = self.layout;
        let per = layout.per_word();
        let words_of = |e: usize| e.div_ceil(per);
        let a_row = if sa.len() == rows * words_of(k) {
            words_of(k)
        } else {
            words_of(kh)
        };
        for (name, got, want) in [
            ("a", sa.len(), rows * a_row),
            ("b", sb.len(), rows * words_of(k)),
            ("meta", meta.len(), rows * kh),
        ] {
            if got != want {
                return Err(PyValueError::new_err(format!(
                    "{name}: {got} words for {rows} rows of K = {k}; expected {want}"
                )));
            }
        }
        let f = &self.unit.formats;
        let (mut a_out, mut b_out) = (Vec::new(), Vec::new());
        let (mut ra, mut rb) = (Vec::new(), Vec::new());
        for r in 0..rows {
            let idx = meta_row(&self.row, &meta[r * kh..(r + 1) * kh], k, r)?;
            ra.clear();
            rb.clear();
            sa.extend(r * a_row, (r + 1) * a_row, &mut ra);
            sb.extend(r * words_of(k), (r + 1) * words_of(k), &mut rb);
            // Packed layouts hold several elements to a byte: to elements and back. (One
            // element a word: the words as they are, checked by the dense batch after the
            // gathering, so that a disabled position's word is never read.)
            let (ea, eb) = if per == 1 {
                (std::mem::take(&mut ra), std::mem::take(&mut rb))
            } else {
                let bad =
                    |name: &str, e: String| PyValueError::new_err(format!("{name}[{r}]: {e}"));
                (
                    layout
                        .unpack(&f.a, &ra)
                        .map_err(|e| bad("a", e.to_string()))?,
                    layout
                        .unpack(&f.b, &rb)
                        .map_err(|e| bad("b", e.to_string()))?,
                )
            };
            let kept = if a_row == words_of(k) {
                sp.compress(&ea[..k], &idx)
            } else {
                Ok(ea[..kh].to_vec())
            };
            let kept = kept.map_err(|e| PyValueError::new_err(format!("a[{r}]: {e}")))?;
            let sel = sp
                .gather(&eb[..k], &idx)
                .map_err(|e| PyValueError::new_err(format!("b[{r}]: {e}")))?;
            if per == 1 {
                a_out.extend(kept);
                b_out.extend(sel);
            } else {
                a_out.extend(layout.pack(&f.a, &kept));
                b_out.extend(layout.pack(&f.b, &sel));
            }
        }
        let bits = if layout == Layout::Plain {
            f.a.storage_bits
        } else {
            8
        };
        let bits_b = if layout == Layout::Plain {
            f.b.storage_bits
        } else {
            8
        };
        Ok((
            words_array(py, a_out, bits, "a")?,
            words_array(py, b_out, bits_b, "b")?,
        ))
    }

    /// Sparse units: `D = A·B + C` with A's kept elements, per row of A the rows of B its
    /// metadata selects (`k×n` row-major B, `m×n` C, `m` rows of `k/2` indices in `meta`).
    /// `a` is `m` rows of `k` (dense logical; the disabled positions are not read) or of `k/2`
    /// (compressed). Values (float64, each checked exact in its format) when `values`, else
    /// storage words (uint64, one element each; `c` may be `None` for `+0`). Returns D's
    /// words.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (a, b, c, meta, m, n, k, values, threads))]
    fn _sparse_matmul<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        c: Option<&Bound<'py, PyAny>>,
        meta: numpy::PyReadonlyArray1<'py, i64>,
        m: usize,
        n: usize,
        k: usize,
        values: bool,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sp = self.row.sparse.ok_or_else(|| self.dense_error())?;
        let f = &self.unit.formats;
        let kh = sp.stored(k);
        let meta = meta
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("meta: {e}")))?;
        if meta.len() != m * kh {
            return Err(PyValueError::new_err(format!(
                "meta: {} indices; expected {m} rows of K/2 = {kh}",
                meta.len()
            )));
        }
        let flat = |x: &Bound<'py, PyAny>, name: &str| -> PyResult<Vec<u64>> {
            if values {
                let v: numpy::PyReadonlyArray1<'py, f64> = x.extract()?;
                Ok(v.as_slice()
                    .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?
                    .iter()
                    .map(|x| x.to_bits())
                    .collect())
            } else {
                let v: numpy::PyReadonlyArray1<'py, u64> = x.extract()?;
                Ok(v.as_slice()
                    .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?
                    .to_vec())
            }
        };
        let (av, bv) = (flat(a, "A")?, flat(b, "B")?);
        let cv = c.map(|c| flat(c, "C")).transpose()?;
        let ka = if av.len() == m * k { k } else { kh };
        if av.len() != m * ka || bv.len() != k * n || cv.as_ref().is_some_and(|c| c.len() != m * n)
        {
            return Err(PyValueError::new_err(format!(
                "shapes do not fit: A has {} elements, B {}, C {}; expected [M, K] or [M, K/2], \
                 [K, N], [M, N] with (M, N, K) = ({m}, {n}, {k})",
                av.len(),
                bv.len(),
                cv.as_ref().map_or(0, |c| c.len())
            )));
        }
        // Each element's word, checked: a value exact in its format, a word valid in it.
        let word = |name: &str, fmt: &mma::Format, x: u64, i: usize, j: usize| -> PyResult<u64> {
            if values {
                let v = f64::from_bits(x);
                values::encode_exact(fmt, v).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{name}[{i}, {j}] = {v:?} is not exactly representable in {} (the \
                         instruction's {name} format)",
                        fmt.name
                    ))
                })
            } else if fmt.is_valid_encoding(x) {
                Ok(x)
            } else {
                Err(PyValueError::new_err(format!(
                    "{name}[{i}, {j}] = {x:#x} is not a valid {} word",
                    fmt.name
                )))
            }
        };
        let mut bw = run::zeroed::<u64>(k * n, "B")?;
        for (i, (o, &x)) in bw.iter_mut().zip(&bv).enumerate() {
            *o = word("B", &f.b, x, i / n.max(1), i % n.max(1))?;
        }
        let mut cw = run::zeroed::<u64>(m * n, "C")?;
        if let Some(cv) = &cv {
            for (i, (o, &x)) in cw.iter_mut().zip(cv).enumerate() {
                *o = word("C", &f.c, x, i / n.max(1), i % n.max(1))?;
            }
        }
        let s = self.unit.scales_for(kh);
        let one = match &f.scale {
            Some((sf, _)) => values::encode_exact(sf, 1.0)
                .ok_or_else(|| PyValueError::new_err("the scale format cannot hold 1"))?,
            None => 0,
        };
        let (sa, sbs) = (vec![one; s], vec![one; n * s]);
        let k_step = sp.stored(self.k);
        let threads = run::threads(threads)?;
        let mut d = run::zeroed::<u64>(m * n, "D")?;
        let mut b_cols = run::zeroed::<u64>(n * kh, "B")?;
        for i in 0..m {
            let idx = meta_row(&self.row, &meta[i * kh..(i + 1) * kh], k, i)?;
            let pos: Vec<usize> = sp.positions(&idx).collect();
            let mut a_row = Vec::with_capacity(kh);
            for (t, &p) in pos.iter().enumerate() {
                let col = if ka == k { p } else { t };
                a_row.push(word("A", &f.a, av[i * ka + col], i, col)?);
            }
            for j in 0..n {
                for (t, &p) in pos.iter().enumerate() {
                    b_cols[j * kh + t] = bw[p * n + j];
                }
            }
            let x = GemmIn {
                a: &a_row,
                b_cols: &b_cols,
                c: &cw[i * n..(i + 1) * n],
                scale_a: &sa,
                scale_b: &sbs,
            };
            let out = &mut d[i * n..(i + 1) * n];
            py.detach(|| self.unit.gemm((1, n, kh), k_step, &x, out, threads))
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            py.check_signals()?;
        }
        words_array(py, d, f.d.storage_bits, "D")
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
    /// or None}`, each format as name, storage bits, width and lsb. `scale_block` counts
    /// logical elements: a block-scaled sparse unit's scale covers twice its dense unit's
    /// (the kept products of 64 logical elements for `block64`).
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
                let logical = self.row.sparse.map_or(*per, |sp| *per * sp.group / sp.keep);
                d.set_item("scale_block", logical)?;
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
        let x = values::Operands::Values {
            a: av,
            b: bv,
            c: cv,
        };
        self.product(py, (m, n, k), x, threads)
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
        let x = values::Operands::Words {
            a: sa,
            b_cols: sb,
            c: sc,
        };
        self.product(py, (m, n, k), x, threads)
    }

    /// The words `dots` takes for operand `which` (`"a"`, `"b"` or `"c"`) from `codes`, one
    /// storage word of the operand's format per element (flat, uint64): the unit's layout for
    /// A and B (`Layout::pack`: byte, fp4 in bits 5:2; packed fp4, two to a byte, element `2i`
    /// in the high nibble), C as it is. uint8 words for the byte layouts, else the format's
    /// storage width. A code that is no word of the format is a `ValueError` naming it.
    fn pack<'py>(
        &self,
        py: Python<'py>,
        which: &str,
        codes: numpy::PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = &self.unit.formats;
        let (fmt, layout) = match which {
            "a" => (&f.a, self.layout),
            "b" => (&f.b, self.layout),
            "c" => (&f.c, Layout::Plain),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "which: {which:?}; expected \"a\", \"b\" or \"c\""
                )))
            }
        };
        let codes = valid_words("codes", fmt, &codes)?;
        let bits = if layout == Layout::Plain {
            fmt.storage_bits
        } else {
            8
        };
        words_array(py, layout.pack(fmt, codes), bits, "words")
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

impl PyUnit {
    /// A `ValueError` for a dense unit (sparse calls need a sparsity pattern).
    fn dense_error(&self) -> PyErr {
        PyValueError::new_err(format!("meta: {} is a dense instruction", self.name))
    }

    /// The format of operand `which` (`"a"`, `"b"`, `"c"` or `"d"`).
    fn operand_format(&self, which: &str) -> PyResult<&'static mma::Format> {
        let f = &self.unit.formats;
        match which {
            "a" => Ok(&f.a),
            "b" => Ok(&f.b),
            "c" => Ok(&f.c),
            "d" => Ok(&f.d),
            _ => Err(PyValueError::new_err(format!(
                "which: {which:?}; expected \"a\", \"b\", \"c\" or \"d\""
            ))),
        }
    }

    /// `matmul`'s and `_matmul_words`' product once their operands are checked: the job on
    /// `threads` threads (the interpreter released), D's words in the storage width.
    fn product<'py>(
        &self,
        py: Python<'py>,
        (m, n, k): (usize, usize, usize),
        x: values::Operands<'_>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let job = values::Matmul {
            unit: self.unit,
            k_step: self.k,
            m,
            n,
            k,
            x,
        };
        let threads = run::threads(threads)?;
        let d = py.detach(|| job.run(threads))?;
        words_array(py, d, self.unit.formats.d.storage_bits, "D")
    }
}

/// One row's metadata as the ISA allows it (`Sparsity::check`): indices in `0..group`,
/// increasing within each group; a `ValueError` `meta[row]: group g: selector [..] is not
/// allowed (..)` otherwise.
fn meta_row(r: &mma::catalog::Row, meta: &[i64], k: usize, row: usize) -> PyResult<Vec<u8>> {
    let Some(sp) = r.sparse else {
        return Err(PyValueError::new_err("meta: a dense instruction"));
    };
    let err = |e: String| PyValueError::new_err(format!("meta[{row}]: {e}"));
    if let Some(j) = meta
        .iter()
        .position(|&x| !(0..sp.group as i64).contains(&x))
    {
        let g = j / sp.keep;
        let sel = &meta[g * sp.keep..((g + 1) * sp.keep).min(meta.len())];
        return Err(err(format!(
            "group {g}: selector {sel:?} is not allowed (an index beyond the group)"
        )));
    }
    let idx: Vec<u8> = meta.iter().map(|&x| x as u8).collect();
    sp.check(k, &idx).map_err(|e| err(e.to_string()))?;
    Ok(idx)
}

/// A contiguous array's elements; `what` names it in the error.
fn view<'a>(x: &'a PyReadonlyArray2<'_, f64>, what: &str) -> PyResult<&'a [f64]> {
    x.as_slice()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// Words as a NumPy array of `bits` (uint8/16/32/64; `what` names them in a `MemoryError`) (uint8/16/32/64); the narrow copy is
/// allocated fallibly (a `MemoryError`, not an abort).
fn words_array<'py>(
    py: Python<'py>,
    d: Vec<u64>,
    bits: u32,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    fn narrow<'py, T: Copy + Default + numpy::Element>(
        py: Python<'py>,
        d: &[u64],
        what: &str,
        cast: impl Fn(u64) -> T,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut out = run::zeroed::<T>(d.len(), what)?;
        for (o, &x) in out.iter_mut().zip(d) {
            *o = cast(x);
        }
        Ok(out.into_pyarray(py).into_any())
    }
    match bits {
        8 => narrow(py, &d, what, |x| x as u8),
        16 => narrow(py, &d, what, |x| x as u16),
        32 => narrow(py, &d, what, |x| x as u32),
        _ => Ok(d.into_pyarray(py).into_any()),
    }
}

/// A catalog row prepared for evaluation.
pub(crate) fn unit_of(r: mma::catalog::Row) -> PyUnit {
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
        evidence: r.evidence.name(),
        row: r,
    }
}
