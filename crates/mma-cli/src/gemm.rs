//! `mma gemm`: a whole matrix product from `.npy` files, as a kernel issues it (K walked in
//! steps of the instruction's K, D fed back as C; optionally split-K), through the library's
//! drivers [`mma::DotUnit::gemm`] and [`mma::DotUnit::gemm_split_k`].

use crate::flags::{DotTarget, TargetFlags};
use anyhow::{bail, Result};
use mma::GemmIn;
use mma_cli::npy::{self, Input, Matrix};
use std::io::IsTerminal;
use std::path::PathBuf;

/// A whole matrix product from NumPy files, as a kernel issues it.
///
/// Example: mma gemm --arch H100 --instr m64n8k16.f32.f16.f16 --a A.npy --b B.npy -o D.npy
///
/// A is M×K, B is K×N, C (optional, +0 without it) and D are M×N. K is walked in steps of
/// the instruction's K, each step's D fed back as the next step's C (the library's
/// DotUnit::gemm), rows of D spread over threads; the result does not depend on the thread
/// count. With --split-k S, K is cut into S equal slices, each computed from a +0 C, and
/// the partial results are added into C in slice order, D = ((C + P0) + P1) + ..., each
/// addition IEEE 754 in D's format rounded to nearest even (for f32 D an fp32 reduction).
///
/// Arrays: float16, float32 or float64, whose values must be exact in the operand's format
/// (the first that is not is named with its row and column), or with --a-bits, --b-bits,
/// --c-bits or --scale-bits unsigned-integer arrays of raw encodings (uint8 for 8-bit and
/// narrower formats, one element per byte in its low bits, uint16 for f16/bf16, uint32 for
/// f32/tf32). D is written as float16/float32/float64 when its format is one of those, else
/// as raw encodings.
///
/// Library GEMMs: with --gpu NAME (or --recipe FILE), `torch._scaled_mm` as that GPU's
/// cuBLASLt computes it: A is mat1 (M×K), B is mat2 (K×N), FP8 of --a-format and
/// --b-format; --scale-a and --scale-b are binary32 values (tensor-wise scales); the
/// output is --out-dtype; promotion every 128 elements unless --fast-accum; split-K as the
/// GPU took it (--split-k S --split-order serial|pairwise). Calls the GPU rejects are
/// errors naming the reason. --explain prints the plan and where each part comes from.
///
/// Example: mma gemm --gpu "RTX 4060" --a A.npy --b B.npy --a-bits --b-bits
/// --scale-a 0.5 --scale-b 2 --out-dtype bf16 --split-k 3 --split-order pairwise -o D.npy
#[derive(clap::Args)]
pub struct GemmCmd {
    // The instruction (with neither --gpu nor --recipe).
    #[command(flatten)]
    pub target: TargetFlags,
    /// A library GEMM on this GPU's library platform ("RTX 4060", "H100 PCIe").
    #[arg(long, conflicts_with_all = ["arch", "instr", "vendor", "op", "unit", "recipe", "c", "c_bits", "scale_bits", "report"])]
    pub gpu: Option<String>,
    /// A library GEMM on the platform of this file (the schema of the shipped platforms).
    #[arg(long, conflicts_with_all = ["arch", "instr", "vendor", "op", "unit", "c", "c_bits", "scale_bits", "report"])]
    pub recipe: Option<PathBuf>,
    /// The library (with --gpu or --recipe): cublaslt (the default).
    #[arg(long)]
    pub library: Option<String>,
    /// FP8 format of A (library GEMMs): e4m3 (the default) or e5m2.
    #[arg(long)]
    pub a_format: Option<String>,
    /// FP8 format of B (library GEMMs): e4m3 (the default) or e5m2.
    #[arg(long)]
    pub b_format: Option<String>,
    /// Output dtype (library GEMMs): f32 (the default), bf16, f16, e4m3 or e5m2.
    #[arg(long)]
    pub out_dtype: Option<String>,
    /// scale_result, a binary32 value multiplying FP8 outputs (library GEMMs).
    #[arg(long, allow_hyphen_values = true)]
    pub scale_result: Option<String>,
    /// The order of the split-K parts' sum (library GEMMs): serial or pairwise.
    #[arg(long)]
    pub split_order: Option<String>,
    /// use_fast_accum=True (library GEMMs): one chain over K, no promotion.
    #[arg(long)]
    pub fast_accum: bool,
    /// Print the plan of the library GEMM (unit, promotion, split-K, epilogue, evidence).
    #[arg(long)]
    pub explain: bool,
    /// A, M×K (.npy).
    #[arg(long)]
    pub a: PathBuf,
    /// B, K×N (.npy).
    #[arg(long)]
    pub b: PathBuf,
    /// C, M×N (.npy; default all +0).
    #[arg(long)]
    pub c: Option<PathBuf>,
    /// Where to write D, M×N (.npy).
    #[arg(short, long, required_unless_present = "explain")]
    pub output: Option<PathBuf>,
    /// --a holds raw encodings of A's format (an unsigned-integer array).
    #[arg(long)]
    pub a_bits: bool,
    /// --b holds raw encodings of B's format.
    #[arg(long)]
    pub b_bits: bool,
    /// --c holds raw encodings of C's format.
    #[arg(long)]
    pub c_bits: bool,
    /// Block scales of A, M×(K/block) (.npy, block-scaled instructions); with --gpu, the
    /// tensor-wise scale of A, a binary32 value (default 1).
    #[arg(long, allow_hyphen_values = true)]
    pub scale_a: Option<String>,
    /// Block scales of B, (K/block)×N (.npy); with --gpu, B's binary32 scale (default 1).
    #[arg(long, allow_hyphen_values = true)]
    pub scale_b: Option<String>,
    /// --scale-a and --scale-b hold raw encodings of the scale format (uint8).
    #[arg(long)]
    pub scale_bits: bool,
    /// Cut K into this many slices, reduced in D's format in slice order (see above).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub split_k: u32,
    /// Threads (default: all available; at most 1024).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Print the max and mean error of D against the exact product, in ulps of D's format
    /// (needs the oracle feature).
    #[arg(long)]
    pub report: bool,
}

impl GemmCmd {
    /// Runs the product: a library GEMM with `--gpu`/`--recipe`, else the instruction's.
    pub fn run(self) -> Result<bool> {
        let g = self;
        if g.gpu.is_some() || g.recipe.is_some() {
            return crate::gemm_library::run(&crate::gemm_library::LibraryArgs {
                gpu: g.gpu.as_deref(),
                recipe: g.recipe.as_deref(),
                library: g.library.as_deref().unwrap_or("cublaslt"),
                a: &g.a,
                b: &g.b,
                output: g.output.as_deref(),
                a_format: g.a_format.as_deref().unwrap_or("e4m3"),
                b_format: g.b_format.as_deref().unwrap_or("e4m3"),
                a_bits: g.a_bits,
                b_bits: g.b_bits,
                scale_a: g.scale_a.as_deref().unwrap_or("1"),
                scale_b: g.scale_b.as_deref().unwrap_or("1"),
                scale_result: g.scale_result.as_deref(),
                out_dtype: g.out_dtype.as_deref().unwrap_or("f32"),
                split_k: g.split_k as usize,
                split_order: g.split_order.as_deref(),
                fast_accum: g.fast_accum,
                explain: g.explain,
                threads: g.threads.map_or(0, usize::from),
            });
        }
        g.refuse_library_flags()?;
        let Some(output) = g.output.clone() else {
            bail!("-o: give the file to write D to");
        };
        let fixed = g.target.unit_file()?;
        let target = g.target.target(&fixed)?;
        let input = |bits: bool| if bits { Input::Bits } else { Input::Values };
        gemm(
            target,
            &GemmArgs {
                a: g.a.clone(),
                b: g.b.clone(),
                c: g.c.clone(),
                output,
                a_input: input(g.a_bits),
                b_input: input(g.b_bits),
                c_input: input(g.c_bits),
                scale_a: g.scale_a.as_ref().map(PathBuf::from),
                scale_b: g.scale_b.as_ref().map(PathBuf::from),
                scale_input: input(g.scale_bits),
                split_k: g.split_k as usize,
                threads: g.threads.map_or(0, usize::from),
                report: if g.report { Report::Yes } else { Report::No },
            },
        )
    }
}

impl GemmCmd {
    /// The instruction's product (no --gpu, no --recipe) takes none of the library GEMM's
    /// flags: one given there is an error naming it, never silently dropped (D is the
    /// instruction's D format, walked as the instruction's K says).
    fn refuse_library_flags(&self) -> Result<()> {
        let given = [
            ("--library", self.library.is_some()),
            ("--a-format", self.a_format.is_some()),
            ("--b-format", self.b_format.is_some()),
            ("--out-dtype", self.out_dtype.is_some()),
            ("--scale-result", self.scale_result.is_some()),
            ("--split-order", self.split_order.is_some()),
            ("--fast-accum", self.fast_accum),
            ("--explain", self.explain),
        ];
        let named: Vec<&str> = given
            .iter()
            .filter(|(_, on)| *on)
            .map(|(flag, _)| *flag)
            .collect();
        match named.as_slice() {
            [] => Ok(()),
            [one] => bail!(
                "{one} is a flag of library GEMMs: it needs --gpu NAME (or --recipe FILE); \
                 an instruction's product (--arch/--instr, --unit) writes D in the \
                 instruction's D format"
            ),
            more => bail!(
                "{} are flags of library GEMMs: they need --gpu NAME (or --recipe FILE); \
                 an instruction's product (--arch/--instr, --unit) writes D in the \
                 instruction's D format",
                more.join(", ")
            ),
        }
    }
}

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
    let t = target.resolve()?;
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
    // Every output file is refused before any work if it is one of the inputs.
    let inputs: Vec<&std::path::Path> = [
        Some(&x.a),
        Some(&x.b),
        x.c.as_ref(),
        x.scale_a.as_ref(),
        x.scale_b.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(PathBuf::as_path)
    .collect();
    for i in &inputs {
        if mma_io::out::same_file(&x.output, i) {
            bail!(
                "-o: {} is the same file as the input {}: write D elsewhere",
                x.output.display(),
                i.display()
            );
        }
    }
    if t.sparse.is_some() {
        bail!(
            "{}: a structured-sparse instruction: mma gemm takes dense instructions (use mma dot --meta, or Unit.matmul(..., meta=...) in Python)",
            t.name
        );
    }
    // A row-major, B column by column (as the drivers take it), each read straight into its
    // words: 8 bytes per element, no decoded or transposed copy.
    let a = npy::read(&x.a, "--a", &f.a, x.a_input)?;
    let b = npy::read_as(&x.b, "--b", &f.b, x.b_input, npy::Layout::ColMajor)?;
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
        None => {
            // +0 everywhere, reserved fallibly as D is below: a product too large for the
            // machine is an error naming the buffer, never an abort.
            let mut c = Vec::new();
            c.try_reserve_exact(m.saturating_mul(n)).map_err(|_| {
                anyhow::anyhow!("C (+0): {m}×{n} elements (8 bytes each) do not fit in memory")
            })?;
            c.resize(m * n, 0u64);
            c
        }
    };
    let b_cols = b.words;
    let s = u.scales_for(k);
    let (sa, sb) = match (f.scale, &x.scale_a, &x.scale_b) {
        (None, None, None) => (Vec::new(), Vec::new()),
        (None, _, _) => bail!("--scale-a/--scale-b: {} takes no block scales", t.name),
        (Some((sf, per)), Some(pa), Some(pb)) => {
            let sa = npy::read(pa, "--scale-a", &sf, x.scale_input)?;
            let sbm = npy::read_as(pb, "--scale-b", &sf, x.scale_input, npy::Layout::ColMajor)?;
            if (sa.rows, sa.cols) != (m, s) {
                bail!("--scale-a: expected {m}×{s} (one {} per {per} elements of a row of A), got {}×{}", sf.name, sa.rows, sa.cols);
            }
            if (sbm.rows, sbm.cols) != (s, n) {
                bail!("--scale-b: expected {s}×{n} (one {} per {per} elements of a column of B), got {}×{}", sf.name, sbm.rows, sbm.cols);
            }
            (sa.words, sbm.words)
        }
        (Some(_), _, _) => unreachable!("checked above"),
    };
    let mut d = Vec::new();
    d.try_reserve_exact(m * n)
        .map_err(|_| anyhow::anyhow!("D: {m}×{n} elements (8 bytes each) do not fit in memory"))?;
    d.resize(m * n, 0u64);
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
    // One pool for the whole product (not one per progress chunk), never more threads than
    // tasks of eight rows; the drivers run inside it (threads 0: the current pool).
    let nt = mma_cli::gemm_threads(x.threads, m);
    let pool = match nt {
        0 | 1 => None,
        nt => rayon::ThreadPoolBuilder::new().num_threads(nt).build().ok(),
    };
    let inner = if nt == 1 { 1 } else { 0 };
    for r0 in (0..m).step_by(rows_per_chunk) {
        let r1 = (r0 + rows_per_chunk).min(m);
        let xin = GemmIn {
            a: &a.words[r0 * k..r1 * k],
            b_cols: &b_cols,
            c: &c[r0 * n..r1 * n],
            scale_a: &sa[r0 * s..r1 * s],
            scale_b: &sb,
        };
        let dr = &mut d[r0 * n..r1 * n];
        let mut call = || u.gemm_split_k((r1 - r0, n, k), t.k, x.split_k, &xin, dr, inner);
        match &pool {
            Some(p) => p.install(call),
            None => call(),
        }
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
    npy::write_checked(&x.output, "-o", &f.d, &dm, &inputs)?;
    mma_cli::outln!(
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
        report(u, (m, n, k), &a.words, &b_cols, &c, (&sa, &sb), &dm.words)?;
    }
    Ok(true)
}

/// Max and mean error of every element of D against the exact product (MPFR oracle), in ulps
/// of D's format at the exact value's binade.
#[cfg(feature = "oracle")]
fn report(
    u: &mma::DotUnit,
    (m, n, k): (usize, usize, usize),
    a: &[u64],
    b_cols: &[u64],
    c: &[u64],
    (sa, sb): (&[u64], &[u64]),
    d: &[u64],
) -> Result<()> {
    use rayon::prelude::*;
    let s = u.scales_for(k);
    let errs: Vec<f64> = (0..m * n)
        .into_par_iter()
        .map(|idx| {
            let (i, j) = (idx / n, idx % n);
            let exact = mma::oracle::exact_dot_scaled(
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
    mma_cli::outln!(
        "error against the exact product: max {max} ulp, mean {mean} ulp over {} elements",
        errs.len()
    );
    Ok(())
}
