//! `Unit.matmul`: real values to storage words (exactly, or an error naming the element), or
//! storage words as they are (`Unit._matmul_words`, the path of `mma.torch`), then the engine's
//! matrix driver (`DotUnit::gemm_in_rounds`: instruction-K steps, D fed back as C).

use crate::batch::Src;
use crate::formats::format_named;
use crate::run;
use mma::codec::operand::{encode, parse_number, Number, OperandError};
use mma::format::FP32;
use mma::round::{convert, Overflow, RoundOpts, Rounding};
use mma::GemmIn;
use mma::{DotUnit, Format, Value};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The word of `fmt` that holds `x` exactly; `None` when no word does (the core's rule,
/// [`Format::encode_exact`]: a NaN as the default NaN, -0 as +0 where the format has no
/// negative zero).
pub fn encode_exact(fmt: &Format, x: f64) -> Option<u64> {
    fmt.encode_exact(Value::from_f64(x))
}

/// A, B and C of a product: real values (checked to be exact in their formats), or storage
/// words (checked to be valid encodings; no conversion at all for formats every word of whose
/// width is valid, f16/bf16 in uint16 among them). B is `k×n` row-major as values, and given
/// column by column (`n` rows of `k`, a `linear` layer's weight as it is stored) as words.
pub enum Operands<'a> {
    Values {
        a: &'a [f64],
        b: &'a [f64],
        c: &'a [f64],
    },
    Words {
        a: Src<'a>,
        b_cols: Src<'a>,
        /// `None`: every C word `+0`.
        c: Option<Src<'a>>,
    },
}

/// One call of `Unit.matmul` (values) or `Unit._matmul_words` (words): `m×k` A and `m×n` C
/// row-major.
pub struct Matmul<'a> {
    pub unit: &'a DotUnit,
    pub k_step: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub x: Operands<'a>,
}

fn words(
    name: &str,
    fmt: &Format,
    xs: &[f64],
    cols: usize,
    order: impl Fn(usize) -> usize,
) -> PyResult<Vec<u64>> {
    let mut out = run::zeroed::<u64>(xs.len(), name)?;
    for (i, &x) in xs.iter().enumerate() {
        match encode_exact(fmt, x) {
            Some(w) => out[order(i)] = w,
            None => {
                return Err(PyValueError::new_err(format!(
                    "{name}[{}, {}] = {x:?} is not exactly representable in {} (the instruction's {} format)",
                    i / cols.max(1),
                    i % cols.max(1),
                    fmt.name,
                    name
                )))
            }
        }
    }
    Ok(out)
}

/// The words of `src` (`rows` rows of `cols`) widened to the engine's, each checked to be a
/// valid encoding of `fmt` (a `ValueError` naming `name[row, col]`), and of the right width (a
/// `TypeError`).
fn widened(name: &str, fmt: &Format, src: &Src<'_>, cols: usize) -> PyResult<Vec<u64>> {
    // One element per storage word, as `Unit.dots` takes plain-layout operands.
    let bits = fmt.storage_bits;
    if src.bits() != bits {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected uint{bits} words ({}), got uint{}",
            fmt.name,
            src.bits()
        )));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(src.len())
        .map_err(|_| PyMemoryError::new_err(format!("{name}: {} words do not fit", src.len())))?;
    src.extend(0, src.len(), &mut out);
    if !fmt.is_valid_encoding(u64::MAX >> (64 - src.bits())) {
        if let Some(i) = out.iter().position(|&w| !fmt.is_valid_encoding(w)) {
            return Err(PyValueError::new_err(format!(
                "{name}[{}, {}] = {:#x} is not a valid {} word",
                i / cols.max(1),
                i % cols.max(1),
                out[i],
                fmt.name
            )));
        }
    }
    Ok(out)
}

/// Rows of D per round of `Matmul::run`: about this many multiply-adds, after which Ctrl-C is
/// checked (B's preparation is made once for all rounds: `DotUnit::gemm_in_rounds`).
const ROUND_WORK: usize = 1 << 28;

impl Matmul<'_> {
    /// D's words, row-major. Call it with the GIL released.
    pub fn run(&self, threads: usize) -> PyResult<Vec<u64>> {
        let f = &self.unit.formats;
        let (m, n, k) = (self.m, self.n, self.k);
        if k == 0 || k % self.k_step != 0 {
            return Err(PyValueError::new_err(format!(
                "K = {k} is not a positive multiple of the instruction's K = {}",
                self.k_step
            )));
        }
        let (a, b, c) = match &self.x {
            Operands::Values { a, b, c } => (
                words("A", &f.a, a, k, |i| i)?,
                // B row-major k×n to columns (n rows of k).
                words("B", &f.b, b, n, |i| (i % n) * k + i / n)?,
                words("C", &f.c, c, n, |i| i)?,
            ),
            Operands::Words { a, b_cols, c } => {
                let c = match c {
                    Some(c) => widened("C", &f.c, c, n)?,
                    None => run::zeroed::<u64>(m * n, "C")?,
                };
                (widened("A", &f.a, a, k)?, widened("B", &f.b, b_cols, k)?, c)
            }
        };
        let s = self.unit.scales_for(k);
        let one = match &f.scale {
            Some((sf, _)) => encode_exact(sf, 1.0)
                .ok_or_else(|| PyValueError::new_err("the scale format cannot hold 1"))?,
            None => 0,
        };
        let mut sa = run::zeroed::<u64>(m * s, "scale_a")?;
        let mut sb = run::zeroed::<u64>(n * s, "scale_b")?;
        sa.fill(one);
        sb.fill(one);
        let mut d = run::zeroed::<u64>(m * n, "D")?;
        if m == 0 || n == 0 {
            return Ok(d);
        }
        let x = GemmIn {
            a: &a,
            b_cols: &b,
            c: &c,
            scale_a: &sa,
            scale_b: &sb,
        };
        let rows = ROUND_WORK / n.saturating_mul(k).max(1);
        let signals = |_| Python::attach(|py| py.check_signals());
        self.unit
            .gemm_in_rounds((m, n, k), self.k_step, &x, &mut d, threads, rows, signals)
            .map_err(|e| PyValueError::new_err(e.to_string()))??;
        Ok(d)
    }
}

// Scales given as text ----------------------------------------------------------------------

/// A float32 scale as `python -m mma.dask gemm` reads a `--scale-*` flag, with the codec's
/// parser (`mma::codec::operand::parse_number`, as `mma gemm` reads its values): a decimal
/// (`0.5`, `1e-3`) or a C99 hex-float (`0x1.8p-3`), exactly, or `bits:HEX` (binary32 bits,
/// any case of `bits:`). Returns the binary32 bits, or None for a number that binary32 does
/// not hold exactly. A zero is +0: the reading has always taken the value, which has no
/// sign. A `ValueError` for text that is none of these, and for Inf and NaN (not scales
/// here).
#[pyfunction]
pub(crate) fn parse_f32_exact(text: &str) -> PyResult<Option<u32>> {
    let t = text.trim();
    let err = |why: String| PyValueError::new_err(why);
    let value = if t.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("bits:")) {
        let h = t[5..].trim();
        let h = h
            .strip_prefix("0x")
            .or_else(|| h.strip_prefix("0X"))
            .unwrap_or(h);
        let word = u64::from_str_radix(h, 16)
            .map_err(|_| err(format!("bits: {h:?} is not hexadecimal")))?;
        let word = u32::try_from(word).map_err(|_| err("bits: more than 32 bits".to_string()))?;
        let v = FP32.decode(word.into());
        if !matches!(v, Value::Finite { .. } | Value::Zero { .. }) {
            return Err(err("bits: not a finite binary32 value".to_string()));
        }
        v
    } else {
        let lower = t.to_ascii_lowercase();
        if lower.trim_start_matches(['+', '-']).starts_with("0x") && !lower.contains('p') {
            return Err(err(
                "a hex-float needs its p exponent (0x1.8p-3)".to_string()
            ));
        }
        let n = parse_number(t)
            .map_err(|e| err(e.to_string()))?
            .ok_or_else(|| err(format!("{t:?} is not a decimal or a hex-float")))?;
        if !matches!(n, Number::Finite { .. }) {
            return Err(err(format!("{t:?}: Inf and NaN are not scales")));
        }
        match encode(&FP32, &n, None) {
            Ok(w) => FP32.decode(w),
            Err(OperandError::Inexact { .. } | OperandError::NotInFormat { .. }) => {
                return Ok(None)
            }
            Err(e) => return Err(err(e.to_string())),
        }
    };
    Ok(Some(match v_or_zero(value) {
        Value::Zero { .. } => 0,
        v => FP32.encode(v, FP32.default_nan()) as u32,
    }))
}

/// A finite value with a zero significand as the zero it is.
fn v_or_zero(v: Value) -> Value {
    match v {
        Value::Finite { sig: 0, neg, .. } => Value::Zero { neg },
        v => v,
    }
}

// Sampling ------------------------------------------------------------------------------------

/// Values (float64) rounded to nearest even into `fmt` by the engine's one rounding
/// (`mma::round::convert`), first into `via` when given (a sampler's float32 step before
/// tf32); beyond the largest finite value, `saturate` clamps to it, else IEEE (Inf, or NaN
/// where the format has no Inf). Returns `fmt`'s words (uint64); a NaN for a format without
/// one is a `ValueError` naming its index.
#[pyfunction]
#[pyo3(signature = (fmt, values, via=None, saturate=false))]
pub(crate) fn round_values<'py>(
    py: Python<'py>,
    fmt: &str,
    values: PyReadonlyArray1<'py, f64>,
    via: Option<&str>,
    saturate: bool,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let f = format_named(fmt)?;
    let via = via.map(format_named).transpose()?;
    let opts = RoundOpts {
        overflow: if saturate {
            Overflow::Saturate
        } else {
            Overflow::Ieee
        },
        ftz: false,
    };
    let v = flat_f64(&values)?;
    let mut out = Vec::with_capacity(v.len());
    for (i, &x) in v.iter().enumerate() {
        let mut val = Value::from_f64(x);
        if let Some(g) = &via {
            val = convert(g, val, Rounding::NearestEven, RoundOpts::IEEE);
        }
        let r = convert(&f, val, Rounding::NearestEven, opts);
        match f.encode_exact(r) {
            Some(w) => out.push(w),
            None => {
                return Err(PyValueError::new_err(format!(
                    "values[{i}] = {x:?} has no {} word",
                    f.name
                )))
            }
        }
    }
    Ok(out.into_pyarray(py))
}

fn flat_f64<'a>(x: &'a PyReadonlyArray1<'_, f64>) -> PyResult<&'a [f64]> {
    x.as_slice()
        .map_err(|e| PyValueError::new_err(format!("values: {e}")))
}
