//! `mma gemm --gpu NAME` (or `--recipe FILE`): a library GEMM, `torch._scaled_mm` as the
//! GPU's cuBLASLt computes it (`mma::nvidia::library`): PyTorch's checks and the library's
//! rejections, promotion, split-K and the epilogue. `--explain` prints the plan and where
//! each part of it comes from.

use anyhow::{anyhow, bail, Context, Result};
use mma::library::{describe_plan, Order, Scales, Split};
use mma::nvidia::library::{CallError, Platform, ScaledMm};
use mma::Format;
use mma_cli::npy::{self, Input, Matrix};
use std::path::Path;

/// The arguments of a library GEMM.
pub struct LibraryArgs<'a> {
    pub gpu: Option<&'a str>,
    pub recipe: Option<&'a Path>,
    pub library: &'a str,
    pub a: &'a Path,
    pub b: &'a Path,
    pub output: Option<&'a Path>,
    pub a_format: &'a str,
    pub b_format: &'a str,
    pub a_bits: bool,
    pub b_bits: bool,
    pub scale_a: &'a str,
    pub scale_b: &'a str,
    pub scale_result: Option<&'a str>,
    pub out_dtype: &'a str,
    pub split_k: usize,
    pub split_order: Option<&'a str>,
    pub fast_accum: bool,
    pub explain: bool,
    pub threads: usize,
}

/// A binary32 value given on the command line (a decimal, a hex-float, inf, nan, or
/// `bits:HEX`), exactly: a value that binary32 cannot hold is refused with its two
/// neighbours, written so that either can be given instead (the scales are float32 tensors:
/// there is nothing to round to but those).
fn fp32_value(flag: &str, text: &str) -> Result<u32> {
    use mma::codec::operand::{encode_word, parse_number, Number, OperandError};
    let w = text.trim();
    if let Some(h) = w.strip_prefix("bits:") {
        let h = h.strip_prefix("0x").unwrap_or(h);
        return u32::from_str_radix(h, 16)
            .map_err(|_| anyhow!("{flag}: {w:?} is not bits:HEX of a binary32 value"));
    }
    let n = parse_number(w)
        .map_err(|e| anyhow!("{flag}: {e}"))?
        .ok_or_else(|| anyhow!("{flag}: {w:?} is not a number"))?;
    match encode_word(&mma::format::FP32, &n, None, w) {
        Ok(bits) => Ok(bits as u32),
        Err(OperandError::Inexact { .. }) => {
            let Number::Finite {
                neg,
                mag,
                exp2,
                exp10,
            } = &n
            else {
                unreachable!("only finite numbers are inexact")
            };
            let x = mma::codec::decimal::to_exact(*neg, mag, *exp2, *exp10);
            let near = |mode| {
                let v = mma::round::round(&mma::format::FP32, x, mode, mma::RoundOpts::IEEE);
                exactly(v)
            };
            bail!(
                "{flag}: {w:?} is not a binary32 (float32) value; give one exactly, such as its neighbours {} or {}",
                near(mma::Rounding::Down),
                near(mma::Rounding::Up)
            )
        }
        Err(e) => bail!("{flag}: {e}"),
    }
}

/// A binary32 value as a hex-float (which the value flags read exactly), with its exact
/// decimal where that is short.
fn exactly(v: mma::Value) -> String {
    use num_bigint::BigUint;
    match v {
        mma::Value::Finite { neg, sig, exp } => {
            let mag = BigUint::from(sig);
            let hex = mma::codec::decimal::hex_float(neg, &mag, i64::from(exp));
            let dec = mma::codec::decimal::exact_decimal(neg, &mag, i64::from(exp));
            if dec.len() <= 40 {
                format!("{hex} (= {dec})")
            } else {
                hex
            }
        }
        mma::Value::Zero { neg } => if neg { "-0" } else { "0" }.into(),
        mma::Value::Inf { neg } => if neg { "-inf" } else { "inf" }.into(),
        mma::Value::Nan => "nan".into(),
    }
}

/// An FP8 input format or an output dtype by the names PyTorch or the project use.
fn format_named(flag: &str, name: &str) -> Result<Format> {
    mma::format::by_name(name).ok_or_else(|| anyhow!("{flag}: unknown format {name:?}"))
}

/// The platform of `--gpu` or `--recipe`.
fn load_platform(x: &LibraryArgs<'_>) -> Result<Platform> {
    if !x.library.eq_ignore_ascii_case("cublaslt") {
        bail!("--library: {:?} is not modelled (cublaslt is)", x.library);
    }
    match (x.gpu, x.recipe) {
        // A platform, or a GPU of the tables whose FP8 GEMMs one models (`mma list --gpus`).
        (Some(g), None) => Ok(mma::catalog::library_platform(g)
            .map_err(|e| anyhow!("--gpu: {e}"))?
            .clone()),
        (None, Some(p)) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("--recipe: cannot read {}", p.display()))?;
            Platform::from_json(&text).map_err(|e| anyhow!("--recipe: {}: {e}", p.display()))
        }
        _ => bail!("give --gpu NAME or --recipe FILE"),
    }
}

pub fn run(x: &LibraryArgs<'_>) -> Result<bool> {
    let p = load_platform(x)?;
    let (fa, fb) = (
        format_named("--a-format", x.a_format)?,
        format_named("--b-format", x.b_format)?,
    );
    let out = format_named("--out-dtype", x.out_dtype)?;
    let order = match (x.split_k, x.split_order) {
        (_, Some(o)) => Order::parse(o)
            .ok_or_else(|| anyhow!("--split-order: {o:?} (expected serial or pairwise)"))?,
        (1, None) => Order::Serial,
        (s, None) => {
            bail!("--split-k {s}: give --split-order serial or pairwise (the order the GPU took)")
        }
    };
    let split = Split {
        parts: x.split_k,
        order,
    };
    let scales = Scales {
        a: fp32_value("--scale-a", x.scale_a)?,
        b: fp32_value("--scale-b", x.scale_b)?,
        result: x
            .scale_result
            .map(|s| fp32_value("--scale-result", s))
            .transpose()?,
    };
    if !p.verified() {
        eprintln!(
            "warning: the {} platform is unverified: {}",
            p.file.name, p.file.evidence.text
        );
    }
    let input = |bits: bool| if bits { Input::Bits } else { Input::Values };
    let a = npy::read(x.a, "--a", &fa, input(x.a_bits))?;
    // B is mat2 ([K, N]); the library takes its columns.
    let b = npy::read_as(x.b, "--b", &fb, input(x.b_bits), npy::Layout::ColMajor)?;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        bail!(
            "--b: expected {k} rows (K, the columns of --a's {m}×{k}), got a {}×{} array",
            b.rows,
            b.cols
        );
    }
    let inputs: Vec<&Path> = vec![x.a, x.b];
    if let Some(output) = x.output {
        for i in &inputs {
            if mma_io::out::same_file(output, i) {
                bail!(
                    "-o: {} is the same file as the input {}: write D elsewhere",
                    output.display(),
                    i.display()
                );
            }
        }
    }
    let call = ScaledMm {
        m,
        n,
        k,
        a: &a.words,
        b_cols: &b.words,
        fmt_a: fa,
        fmt_b: fb,
        scales,
        bias: None,
        out,
        fast_accum: x.fast_accum,
        split,
    };
    let refused = |e: CallError| match e {
        CallError::Rejected { reason } => {
            anyhow!("{}: the GPU rejects this call: {reason}", p.file.name)
        }
        other => anyhow!("{}: {other}", p.file.name),
    };
    // The run's own checks, whether or not it runs: --explain never explains a call that the
    // run refuses.
    p.check_scaled_mm(&call).map_err(refused)?;
    if x.explain {
        let ins = p.instruction(&fa, &fb);
        println_plan(&p, ins, (m, n, k), x.fast_accum, split, &out, scales)?;
        if x.output.is_none() {
            return Ok(true);
        }
    }
    let Some(output) = x.output else {
        bail!("-o: give the file to write D to (or --explain alone for the plan)");
    };
    let d = p
        .scaled_mm(&call, mma_cli::gemm_threads(x.threads, m))
        .map_err(refused)?;
    let dm = Matrix {
        rows: m,
        cols: n,
        words: d,
    };
    npy::write_checked(output, "-o", &out, &dm, &inputs)?;
    mma_cli::outln!(
        "D: {m}×{n} {} written to {} ({} {}, K = {k}{}{})",
        out.name,
        output.display(),
        p.file.name,
        p.file.library,
        if x.fast_accum {
            ", fast accumulation"
        } else {
            ""
        },
        if split.parts > 1 {
            format!(", split-K {} {}", split.parts, split.order.name())
        } else {
            String::new()
        }
    );
    Ok(true)
}

fn println_plan(
    p: &Platform,
    ins: Option<&'static mma::nvidia::Instruction>,
    shape: (usize, usize, usize),
    fast: bool,
    split: Split,
    out: &Format,
    scales: Scales,
) -> Result<()> {
    let f = &p.file;
    mma_cli::outln!(
        "platform: {} ({}), {}; called by {}",
        f.name,
        f.gpu,
        f.library,
        f.callers
    );
    mma_cli::outln!(
        "evidence: {}: {}",
        match f.evidence.status {
            mma::nvidia::library::Status::Verified => "verified",
            mma::nvidia::library::Status::Unverified => "UNVERIFIED",
        },
        f.evidence.text
    );
    match ins {
        Some(i) => mma_cli::outln!(
            "unit: {} {} (K = {}): {} [NVIDIA catalog]",
            i.arch,
            i.name,
            i.k,
            i.unit.describe()
        ),
        None => mma_cli::outln!("unit: none for these input formats (the call is rejected)"),
    }
    let k_step = ins.map_or(1, |i| i.k);
    for line in describe_plan(&f.recipe, shape, k_step, fast, split, out) {
        mma_cli::outln!("{line} [recipe]");
    }
    mma_cli::outln!(
        "scales: scale_a {:#010x}, scale_b {:#010x}{} [call]",
        scales.a,
        scales.b,
        scales
            .result
            .map_or(String::new(), |r| format!(", scale_result {r:#010x}"))
    );
    if split.parts > 1 {
        mma_cli::outln!(
            "split: S = {} {} [given on the command line]",
            split.parts,
            split.order.name()
        );
    }
    Ok(())
}
