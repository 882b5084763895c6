//! `Unit.matmul`: real values to storage words (exactly, or an error naming the element), then
//! the engine's matrix driver (`DotUnit::gemm`: instruction-K steps, D fed back as C).

use crate::run;
use mma::core::GemmIn;
use mma::core::{DotUnit, Format, Value};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The word of `fmt` that holds `x` exactly; `None` when no word does.
pub fn encode_exact(fmt: &Format, x: f64) -> Option<u64> {
    if x.is_nan() {
        return fmt.has_nan().then(|| fmt.default_nan());
    }
    let neg = x.is_sign_negative();
    if neg && !fmt.signed && x != 0.0 {
        return None;
    }
    let v = if x.is_infinite() {
        if !fmt.has_inf() {
            return None;
        }
        Value::Inf { neg }
    } else if x == 0.0 {
        if !fmt.subnormals {
            return None; // ue8m0 has no zero
        }
        Value::Zero {
            neg: neg && fmt.signed,
        }
    } else {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7FF) as i32;
        let frac = bits & ((1u64 << 52) - 1);
        let (mut sig, mut exp) = if biased == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), biased - 1075)
        };
        let tz = sig.trailing_zeros();
        sig >>= tz;
        exp += tz as i32;
        // sig · 2^exp with sig odd: precision, quantum and range of the format.
        let len = 64 - sig.leading_zeros() as i32;
        let top = exp + len - 1;
        if len > fmt.man_bits as i32 + 1 || exp < fmt.min_lsb_exp() {
            return None;
        }
        if top > fmt.emax() {
            return None;
        }
        if top < fmt.emin() && !fmt.subnormals {
            return None;
        }
        if top == fmt.emax() {
            // The top binade may end below its last code (E4M3: 448, not 480).
            let aligned = sig << (fmt.man_bits as i32 + 1 - len);
            if aligned > fmt.max_sig() {
                return None;
            }
        }
        Value::Finite { neg, sig, exp }
    };
    let w = fmt.encode(v, fmt.default_nan());
    // A final round trip guards the range checks above.
    // (A -0 of a format without negative zero is +0: the same value.)
    (fmt.is_valid_encoding(w) && fmt.decode(w).to_f64() == x).then_some(w)
}

/// One call of `Unit.matmul`: `m×k` A and `m×n` C row-major, `k×n` B row-major.
pub struct Matmul<'a> {
    pub unit: &'a DotUnit,
    pub k_step: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: &'a [f64],
    pub b: &'a [f64],
    pub c: &'a [f64],
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

/// Multiply-adds per round of rows (`Matmul::run`): a round is one `DotUnit::gemm` call over
/// all threads, after which Ctrl-C is checked; B's decoding, once per call, stays a small
/// share of a round.
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
        let a = words("A", &f.a, self.a, k, |i| i)?;
        // B row-major k×n to columns (n rows of k).
        let b = words("B", &f.b, self.b, n, |i| (i % n) * k + i / n)?;
        let c = words("C", &f.c, self.c, n, |i| i)?;
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
        // Rows in rounds; one pool for the whole call.
        let rows = (ROUND_WORK / n.saturating_mul(k).max(1)).clamp(8, m.max(8));
        let t = threads.min(m.div_ceil(8));
        let pool = (t > 1)
            .then(|| rayon::ThreadPoolBuilder::new().num_threads(t).build().ok())
            .flatten();
        let inner = if t == 1 { 1 } else { 0 };
        for r0 in (0..m).step_by(rows) {
            let r1 = (r0 + rows).min(m);
            let x = GemmIn {
                a: &a[r0 * k..r1 * k],
                b_cols: &b,
                c: &c[r0 * n..r1 * n],
                scale_a: &sa[r0 * s..r1 * s],
                scale_b: &sb,
            };
            let dr = &mut d[r0 * n..r1 * n];
            let mut call = || self.unit.gemm((r1 - r0, n, k), self.k_step, &x, dr, inner);
            match &pool {
                Some(p) => p.install(call),
                None => call(),
            }
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Python::attach(|py| py.check_signals())?;
        }
        Ok(d)
    }
}
