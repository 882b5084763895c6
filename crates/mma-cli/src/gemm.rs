//! `mma gemm`: a whole matrix product from `.npy` files, as a kernel issues it (K walked in
//! steps of the instruction's K, D fed back as C; optionally split-K), through the library's
//! drivers [`mma::core::DotUnit::gemm`] and [`mma::core::DotUnit::gemm_split_k`].

use crate::dot::{resolve, DotTarget};
use anyhow::{bail, Result};
use mma::core::GemmIn;
use mma_cli::npy::{self, Input, Matrix};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Whether `--report` compares D with the exact product.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Report {
    No,
    Yes,
}

pub struct GemmArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    pub c: Option<PathBuf>,
    pub output: PathBuf,
    pub a_input: Input,
    pub b_input: Input,
    pub c_input: Input,
    pub scale_a: Option<PathBuf>,
    pub scale_b: Option<PathBuf>,
    pub scale_input: Input,
    pub split_k: usize,
    pub threads: usize,
    pub report: Report,
}

/// Work (multiply-adds) above which a terminal gets a progress bar.
const PROGRESS_WORK: usize = 1 << 27;

pub fn gemm(target: DotTarget, x: &GemmArgs) -> Result<bool> {
    #[cfg(not(feature = "oracle"))]
    if x.report == Report::Yes {
        bail!("--report needs the exact oracle: rebuild with `cargo run --release --features oracle --bin mma -- gemm ...`");
    }
    let t = resolve(&target)?;
    let u = t.unit;
    let f = &u.formats;
    if let (Some((sf, per)), None, _) | (Some((sf, per)), _, None) =
        (f.scale, &x.scale_a, &x.scale_b)
    {
        bail!(
            "{} is block-scaled: give --scale-a (M×(K/{per})) and --scale-b ((K/{per})×N) of {}",
            t.name,
            sf.name
        );
    }
    let a = npy::read(&x.a, "--a", &f.a, x.a_input)?;
    let b = npy::read(&x.b, "--b", &f.b, x.b_input)?;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        bail!(
            "--b: expected {k} rows (K, the columns of --a's {m}×{k}), got a {}×{} array",
            b.rows,
            b.cols
        );
    }
    if k == 0 || k % t.k != 0 || k % (t.k * x.split_k) != 0 {
        bail!(
            "--a: K = {k} must be a positive multiple of the instruction's K = {}{}",
            t.k,
            if x.split_k > 1 {
                format!(" times --split-k {}", x.split_k)
            } else {
                String::new()
            }
        );
    }
    if k > t.k && f.c != f.d {
        bail!(
            "{}: C is {} but D is {}: D cannot be fed back as C, so K must equal the instruction's K = {}",
            t.name,
            f.c.name,
            f.d.name,
            t.k
        );
    }
    let c = match &x.c {
        Some(p) => {
            let c = npy::read(p, "--c", &f.c, x.c_input)?;
            if (c.rows, c.cols) != (m, n) {
                bail!(
                    "--c: expected {m}×{n} (rows of --a × columns of --b), got {}×{}",
                    c.rows,
                    c.cols
                );
            }
            c.words
        }
        None => vec![0; m * n],
    };
    let b_cols = transpose(&b);
    let s = u.scales_for(k);
    let (sa, sb) = match (f.scale, &x.scale_a, &x.scale_b) {
        (None, None, None) => (Vec::new(), Vec::new()),
        (None, _, _) => bail!("--scale-a/--scale-b: {} takes no block scales", t.name),
        (Some((sf, per)), Some(pa), Some(pb)) => {
            let sa = npy::read(pa, "--scale-a", &sf, x.scale_input)?;
            let sbm = npy::read(pb, "--scale-b", &sf, x.scale_input)?;
            if (sa.rows, sa.cols) != (m, s) {
                bail!("--scale-a: expected {m}×{s} (one {} per {per} elements of a row of A), got {}×{}", sf.name, sa.rows, sa.cols);
            }
            if (sbm.rows, sbm.cols) != (s, n) {
                bail!("--scale-b: expected {s}×{n} (one {} per {per} elements of a column of B), got {}×{}", sf.name, sbm.rows, sbm.cols);
            }
            (sa.words, transpose(&sbm))
        }
        (Some(_), _, _) => unreachable!("checked above"),
    };
    let mut d = vec![0u64; m * n];
    let rows_per_chunk = if m * n * k >= PROGRESS_WORK && std::io::stderr().is_terminal() {
        m.div_ceil(100).max(1)
    } else {
        m.max(1)
    };
    let bar = (rows_per_chunk < m).then(|| {
        let pb = indicatif::ProgressBar::new(m as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} rows of D, {eta} left")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    for r0 in (0..m).step_by(rows_per_chunk) {
        let r1 = (r0 + rows_per_chunk).min(m);
        let xin = GemmIn {
            a: &a.words[r0 * k..r1 * k],
            b_cols: &b_cols,
            c: &c[r0 * n..r1 * n],
            scale_a: &sa[r0 * s..r1 * s],
            scale_b: &sb,
        };
        u.gemm_split_k(
            (r1 - r0, n, k),
            t.k,
            x.split_k,
            &xin,
            &mut d[r0 * n..r1 * n],
            x.threads,
        )
        .map_err(|e| anyhow::anyhow!("{}: {e}", t.name))?;
        if let Some(pb) = &bar {
            pb.set_position(r1 as u64);
        }
    }
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    let dm = Matrix {
        rows: m,
        cols: n,
        words: d,
    };
    npy::write(&x.output, "-o", &f.d, &dm)?;
    println!(
        "D: {m}×{n} {} written to {} ({}, K = {k} in steps of {}{})",
        f.d.name,
        x.output.display(),
        t.name,
        t.k,
        if x.split_k > 1 {
            format!(", split-K {}", x.split_k)
        } else {
            String::new()
        }
    );
    #[cfg(feature = "oracle")]
    if x.report == Report::Yes {
        report(u, (m, n, k), &a.words, &b_cols, &c, (&sa, &sb), &dm.words);
    }
    Ok(true)
}

/// Column-major copy of a row-major matrix (B's columns as rows, as the drivers take them).
fn transpose(x: &Matrix) -> Vec<u64> {
    let mut out = vec![0u64; x.words.len()];
    for r in 0..x.rows {
        for c in 0..x.cols {
            out[c * x.rows + r] = x.words[r * x.cols + c];
        }
    }
    out
}

/// Max and mean error of every element of D against the exact product (MPFR oracle), in ulps
/// of D's format at the exact value's binade.
#[cfg(feature = "oracle")]
fn report(
    u: &mma::core::DotUnit,
    (m, n, k): (usize, usize, usize),
    a: &[u64],
    b_cols: &[u64],
    c: &[u64],
    (sa, sb): (&[u64], &[u64]),
    d: &[u64],
) {
    use rayon::prelude::*;
    let s = u.scales_for(k);
    let errs: Vec<f64> = (0..m * n)
        .into_par_iter()
        .map(|idx| {
            let (i, j) = (idx / n, idx % n);
            let exact = mma::oracle::exact_dot(
                &u.formats,
                &a[i * k..(i + 1) * k],
                &b_cols[j * k..(j + 1) * k],
                c[idx],
                &sa[i * s..(i + 1) * s],
                &sb[j * s..(j + 1) * s],
            );
            mma::oracle::error_report(d[idx], &exact, &u.formats.d).ulps
        })
        .collect();
    let max = errs.iter().copied().fold(0.0, f64::max);
    let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
    println!(
        "error against the exact product: max {max} ulp, mean {mean} ulp over {} elements",
        errs.len()
    );
}
