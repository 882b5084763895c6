//! `Unit.matmul`: real values to storage words (exactly, or an error naming the element), or
//! storage words as they are (`Unit._matmul_words`, the path of `mma.torch`), then the engine's
//! matrix driver (`DotUnit::gemm_in_rounds`: instruction-K steps, D fed back as C).

use crate::batch::Src;
use crate::run;
use mma::GemmIn;
use mma::{DotUnit, Format, Value};
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
