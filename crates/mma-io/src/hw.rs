//! Hardware records: folders laid out like `shared/hw` (`<GPU>/<fmt>/{a,b,c,d}_*.txt`), read and
//! checked against the catalog.
//!
//! The records come from the MATLAB-tensor-core toolbox of F. A. Khattak and M. Mikaitis
//! (BSD-2; "Accurate Models of NVIDIA Tensor Cores", ACM TACO; "Generalized Methodology for
//! Determining Numerical Features of Hardware Floating-Point Matrix Multipliers", HPEC 2025).
//! Each record is one dot product: A row and B column as binary32 words holding values exact in
//! the input format, C as binary32, and the GPU's D as binary32 (fp16 output written as the
//! binary32 of the binary16 value). How they were produced (`shared/hw/README.md`): fp16, bf16
//! and tf32 through `wmma`; fp8 through `mma.sync.aligned.m16n8k32.row.col`; with fp16 output C
//! was rounded to binary16 first; the H100 fp8 records with binary32 output match C = 0.

use mma_core::format::{self, Format};
use mma_core::round::convert;
use mma_core::{RoundOpts, Rounding, Value};
use mma_nvidia::{find_in, parse_arch, Arch, Instruction};
use std::fs;
use std::path::{Path, PathBuf};

/// A problem with a record folder; the message names the file and line.
#[derive(Debug, thiserror::Error)]
pub enum HwError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Parse {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    #[error("{path}: unknown GPU folder {name:?} (expected a product name such as V100, A100, Ada, H100, B200)")]
    UnknownGpu { path: PathBuf, name: String },
    #[error(
        "{path}: unknown input format folder {name:?} (expected fp16, bf16, tf32, E4M3, E5M2)"
    )]
    UnknownFormat { path: PathBuf, name: String },
    #[error("{path}: {msg}")]
    Layout { path: PathBuf, msg: String },
    #[error("{path}: no instruction for {msg}")]
    NoInstruction { path: PathBuf, msg: String },
}

/// One dot product measured on a GPU, already converted to the instruction's storage words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in the record files.
    pub line: usize,
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: u64,
    /// The GPU's result in the output format's storage bits.
    pub d: u64,
}

/// All records of one (GPU, input format, output format).
#[derive(Clone, Debug)]
pub struct RecordSet {
    pub gpu: String,
    pub arch: Arch,
    pub input: Format,
    pub output: Format,
    pub dir: PathBuf,
    pub instruction: &'static Instruction,
    pub records: Vec<Record>,
}

/// Outcome of checking one record set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetResult {
    pub passed: usize,
    /// (line, expected bits, model bits).
    pub failures: Vec<(usize, u64, u64)>,
}

fn input_format(folder: &str) -> Option<Format> {
    match folder.to_ascii_lowercase().as_str() {
        "fp16" => Some(format::FP16),
        "bf16" => Some(format::BF16),
        "tf32" => Some(format::TF32),
        "e4m3" => Some(format::E4M3),
        "e5m2" => Some(format::E5M2),
        _ => None,
    }
}

/// The instruction that produced records of `input` with `output` on `arch`: `wmma` compiles to
/// these `mma.sync` shapes (Volta's m8n8k4; m16n8k8 tf32; m16n8k16 f16/bf16; m16n8k32 fp8).
pub fn instruction_for(
    arch: Arch,
    input: &Format,
    output: &Format,
) -> Option<&'static Instruction> {
    let (i, o) = (input.name, output.name);
    let name = match (arch, i) {
        (Arch::Volta, "f16") => format!("m8n8k4.{o}.f16.f16.{o}"),
        (_, "tf32") => "m16n8k8.f32.tf32.tf32.f32".to_string(),
        (_, "f16") => format!("m16n8k16.{o}.f16.f16.{o}"),
        (_, "bf16") => format!("m16n8k16.{o}.bf16.bf16.{o}"),
        (_, "e4m3" | "e5m2") => format!("m16n8k32.{o}.{i}.{i}.{o}"),
        _ => return None,
    };
    find_in(arch, Some(mma_nvidia::Op::Mma), &name).ok()
}

/// The lines of a record file, each with its problem if it cannot be read as text; blank
/// lines at the end are dropped (a blank line elsewhere stays a record, which then fails, so
/// that the files stay aligned by line).
fn read_lines(path: &Path) -> Result<Vec<Result<String, String>>, HwError> {
    let io = |source| HwError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = fs::File::open(path).map_err(io)?;
    let mut lines = Vec::new();
    for item in crate::Lines::new(std::io::BufReader::new(f)) {
        let (_, line) = item.map_err(io)?;
        lines.push(match line {
            crate::Line::Text(t) => Ok(t),
            other => Err(other.problem().unwrap_or_default()),
        });
    }
    while let Some(Ok(last)) = lines.last() {
        if !last.trim().is_empty() {
            break;
        }
        lines.pop();
    }
    Ok(lines)
}

/// The text of record `line` of `path`, or its problem.
fn text_of<'a>(
    lines: &'a [Result<String, String>],
    i: usize,
    path: &Path,
) -> Result<&'a str, HwError> {
    let parse = |msg: String| HwError::Parse {
        path: path.into(),
        line: i + 1,
        msg,
    };
    match &lines[i] {
        Ok(t) if t.trim().is_empty() => Err(parse("blank line where a record was expected".into())),
        Ok(t) => Ok(t),
        Err(msg) => Err(parse(msg.clone())),
    }
}

/// The number of elements most records of the folder have (their K), from the A file.
fn folder_k(a_lines: &[Result<String, String>]) -> Option<usize> {
    let mut counts = std::collections::BTreeMap::new();
    for l in a_lines.iter().flatten() {
        *counts.entry(l.split_whitespace().count()).or_insert(0usize) += 1;
    }
    counts
        .into_iter()
        .filter(|&(k, _)| k > 0)
        .max_by_key(|&(k, n)| (n, k))
        .map(|(k, _)| k)
}

fn parse_word(path: &Path, line: usize, w: &str) -> Result<u32, HwError> {
    let w = w.trim();
    let r = if w.len() == 32 && w.chars().all(|c| c == '0' || c == '1') {
        u32::from_str_radix(w, 2)
    } else if w.len() == 8 {
        u32::from_str_radix(w, 16)
    } else {
        return Err(HwError::Parse {
            path: path.into(),
            line,
            msg: format!("{w:?} is neither 8 hex digits nor 32 binary digits"),
        });
    };
    r.map_err(|e| HwError::Parse {
        path: path.into(),
        line,
        msg: format!("{w:?}: {e}"),
    })
}

/// Converts a binary32 word holding a value exact in `fmt` to `fmt`'s storage bits.
fn narrow(word: u32, fmt: &Format, path: &Path, line: usize) -> Result<u64, HwError> {
    let v = format::FP32.decode(word as u64);
    if v.is_nan() {
        return Ok(nan_payload(word, fmt));
    }
    let r = convert(fmt, v, Rounding::NearestEven, RoundOpts::IEEE);
    let exact = match (v, r) {
        (Value::Nan, Value::Nan) => true,
        (x, y) => x == y || (x.to_f64() == y.to_f64() && x.is_neg() == y.is_neg()),
    };
    if !exact {
        return Err(HwError::Parse {
            path: path.into(),
            line,
            msg: format!("{word:08x} is not exactly representable in {}", fmt.name),
        });
    }
    Ok(fmt.encode(r, fmt.default_nan()))
}

/// A binary32 NaN carried into a narrower IEEE format the way a C or MATLAB conversion does:
/// sign kept, the payload's top mantissa bits kept (0x7fffe000 becomes f16 0x7fff), and the
/// quiet bit set where nothing of the payload survives. A GPU's NaN result must keep its bits
/// here, since the models return specific NaN patterns (NVIDIA: all ones).
fn nan_payload(word: u32, fmt: &Format) -> u64 {
    if fmt.storage_bits == 32 && fmt.lsb == 0 {
        return word as u64;
    }
    if !fmt.has_inf() {
        // fp8 without IEEE specials: only its own NaN code exists.
        return fmt.default_nan();
    }
    let m = fmt.man_bits;
    let sign = (word >> 31) as u64;
    let mut man = ((word & 0x7f_ffff) >> (23 - m)) as u64;
    if man == 0 {
        man = 1 << (m - 1);
    }
    let exp = (1u64 << fmt.exp_bits) - 1;
    ((sign << (fmt.exp_bits + m)) | (exp << m) | man) << fmt.lsb
}

fn file_with(dir: &Path, prefix: &str, suffix: &str) -> Result<PathBuf, HwError> {
    let rd = fs::read_dir(dir).map_err(|source| HwError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        if n.starts_with(prefix) && n.ends_with(suffix) {
            return Ok(e.path());
        }
    }
    Err(HwError::Layout {
        path: dir.to_path_buf(),
        msg: format!("no file {prefix}*{suffix}"),
    })
}

/// A record's A row and B column (storage words) and C (a binary32 word).
type Inputs = (Vec<u64>, Vec<u64>, u32);

/// The A row, B column and binary32 C of record `line`; `k` is the folder's K.
fn read_inputs(
    line: usize,
    paths: [&Path; 3],
    texts: [&str; 3],
    k: usize,
    input: &Format,
) -> Result<Inputs, HwError> {
    let [a_path, b_path, c_path] = paths;
    let words = |path: &Path, text: &str| -> Result<Vec<u64>, HwError> {
        text.split_whitespace()
            .map(|w| parse_word(path, line, w).and_then(|x| narrow(x, input, path, line)))
            .collect()
    };
    let a = words(a_path, texts[0])?;
    let b = words(b_path, texts[1])?;
    for (path, got) in [(a_path, a.len()), (b_path, b.len())] {
        if got != k {
            return Err(HwError::Parse {
                path: path.into(),
                line,
                msg: format!("{got} elements, but the folder's records have K = {k}"),
            });
        }
    }
    Ok((a, b, parse_word(c_path, line, texts[2])?))
}

/// C as the instruction takes it: binary16 (rounded to nearest even, as the measurement did)
/// for fp16 output, else the binary32 word.
fn c_operand(c32: u32, output: &Format) -> u64 {
    if *output == format::FP16 {
        let v = convert(
            &format::FP16,
            format::FP32.decode(c32 as u64),
            Rounding::NearestEven,
            RoundOpts::IEEE,
        );
        format::FP16.encode(v, format::FP16.default_nan())
    } else {
        c32 as u64
    }
}

/// The records of one `<fmt>` folder, whatever GPU measured them: the input format, one
/// record list per output format present (`d_*_fp32.txt`, `d_*_fp16.txt`), with C as the
/// measurement gave it to the instruction (binary16 for fp16 output), and the records that
/// could not be read. Used by [`load_format_dir`] and by tools that infer the arithmetic of an
/// unnamed GPU.
pub type FolderRecords = (Format, Vec<(Format, Vec<Record>)>, Vec<HwError>);

/// Reads one `<fmt>` folder without looking its GPU up (see [`FolderRecords`]). A folder whose
/// files disagree on the number of records is refused whole: its records could not be paired
/// without shifting them.
pub fn read_format_dir(dir: &Path) -> Result<FolderRecords, HwError> {
    let fname = dir
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let input = input_format(&fname).ok_or_else(|| HwError::UnknownFormat {
        path: dir.into(),
        name: fname.clone(),
    })?;
    let a_path = file_with(dir, "a_", ".txt")?;
    let b_path = file_with(dir, "b_", ".txt")?;
    let c_path = file_with(dir, "c_", ".txt")?;
    let (a_lines, b_lines, c_lines) = (
        read_lines(&a_path)?,
        read_lines(&b_path)?,
        read_lines(&c_path)?,
    );
    let same_count = |p: &Path, l: &[Result<String, String>]| {
        if l.len() == a_lines.len() {
            Ok(())
        } else {
            Err(HwError::Layout {
                path: p.to_path_buf(),
                msg: format!(
                    "{} records, but {} has {}",
                    l.len(),
                    a_path.display(),
                    a_lines.len()
                ),
            })
        }
    };
    same_count(&b_path, &b_lines)?;
    same_count(&c_path, &c_lines)?;
    let k = folder_k(&a_lines).ok_or_else(|| HwError::Layout {
        path: a_path.clone(),
        msg: "no records".into(),
    })?;
    // A, B and C once for both outputs; a bad record is reported once, by file and line.
    let (mut outputs, mut errors) = (Vec::new(), Vec::new());
    let inputs: Vec<Option<Inputs>> = (0..a_lines.len())
        .map(|i| {
            let r = (|| {
                let texts = [
                    text_of(&a_lines, i, &a_path)?,
                    text_of(&b_lines, i, &b_path)?,
                    text_of(&c_lines, i, &c_path)?,
                ];
                read_inputs(i + 1, [&a_path, &b_path, &c_path], texts, k, &input)
            })();
            r.map_err(|e| errors.push(e)).ok()
        })
        .collect();
    for (out_name, output) in [("fp32", format::FP32), ("fp16", format::FP16)] {
        let Ok(d_path) = file_with(dir, "d_", &format!("_{out_name}.txt")) else {
            continue;
        };
        let d_lines = read_lines(&d_path)?;
        same_count(&d_path, &d_lines)?;
        let mut records = Vec::with_capacity(a_lines.len());
        for (i, ins) in inputs.iter().enumerate() {
            let line = i + 1;
            let d = text_of(&d_lines, i, &d_path)
                .and_then(|t| parse_word(&d_path, line, t))
                .and_then(|w| narrow(w, &output, &d_path, line));
            match (ins, d) {
                (Some((a, b, c32)), Ok(d)) => records.push(Record {
                    line,
                    a: a.clone(),
                    b: b.clone(),
                    c: c_operand(*c32, &output),
                    d,
                }),
                (_, Err(e)) => errors.push(e),
                (None, Ok(_)) => {}
            }
        }
        outputs.push((output, records));
    }
    Ok((input, outputs, errors))
}

/// Loads one `<GPU>/<fmt>` folder: one set per `d_*_fp32.txt` / `d_*_fp16.txt` present, and
/// the records that could not be read, each named by file and line (the others still load).
/// A folder whose files disagree on the number of records is refused whole: its records could
/// not be paired without shifting them.
pub fn load_format_dir(
    gpu: &str,
    arch: Arch,
    dir: &Path,
) -> Result<(Vec<RecordSet>, Vec<HwError>), HwError> {
    let (input, outputs, errors) = read_format_dir(dir)?;
    let mut sets = Vec::new();
    for (output, mut records) in outputs {
        let instruction =
            instruction_for(arch, &input, &output).ok_or_else(|| HwError::NoInstruction {
                path: dir.into(),
                msg: format!("{} {} -> {}", arch, input.name, output.name),
            })?;
        // H100 fp8 with binary32 output: the records match C = 0 (shared/hw/README.md).
        if arch == Arch::Hopper && input.storage_bits == 8 && output == format::FP32 {
            for r in &mut records {
                r.c = 0;
            }
        }
        sets.push(RecordSet {
            gpu: gpu.to_string(),
            arch,
            input,
            output,
            dir: dir.to_path_buf(),
            instruction,
            records,
        });
    }
    Ok((sets, errors))
}

/// Loads every `<GPU>/<fmt>` folder under `root`. Problems with one folder are returned beside
/// the sets that did load, so the rest still run.
pub fn load_dir(root: &Path) -> (Vec<RecordSet>, Vec<HwError>) {
    let mut sets = Vec::new();
    let mut errors = Vec::new();
    let gpus = match fs::read_dir(root) {
        Ok(rd) => {
            let mut v: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            v.sort();
            v
        }
        Err(source) => {
            errors.push(HwError::Io {
                path: root.to_path_buf(),
                source,
            });
            return (sets, errors);
        }
    };
    for gdir in gpus {
        let gpu = gdir
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let Ok(arch) = parse_arch(&gpu) else {
            errors.push(HwError::UnknownGpu {
                path: gdir.clone(),
                name: gpu,
            });
            continue;
        };
        let mut fdirs: Vec<PathBuf> = match fs::read_dir(&gdir) {
            Ok(rd) => rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect(),
            Err(source) => {
                errors.push(HwError::Io {
                    path: gdir.clone(),
                    source,
                });
                continue;
            }
        };
        fdirs.sort();
        for fdir in fdirs {
            match load_format_dir(&gpu, arch, &fdir) {
                Ok((s, e)) => {
                    sets.extend(s);
                    errors.extend(e);
                }
                Err(e) => errors.push(e),
            }
        }
    }
    (sets, errors)
}

/// Evaluates every record of a set with its instruction's model, both one dot product at a
/// time ([`mma_core::Kernel::dot`]) and as one batch ([`mma_core::Kernel::dots`],
/// eight at a time across vector lanes where the model has it): a record passes when both
/// give its D.
pub fn check_set(set: &RecordSet) -> SetResult {
    // Prepared once per set, not per record.
    let kernel = set.instruction.unit.kernel();
    let batch = batch_results(&kernel, &set.records);
    let mut res = SetResult::default();
    for (r, batched) in set.records.iter().zip(batch) {
        let got = kernel.dot(&r.a, &r.b, r.c);
        if got == r.d && batched == r.d {
            res.passed += 1;
        } else {
            res.failures
                .push((r.line, r.d, if got == r.d { batched } else { got }));
        }
    }
    res
}

/// The records' results through [`mma_core::Kernel::dots`], records grouped by K (a set
/// normally has one).
fn batch_results(kernel: &mma_core::Kernel, records: &[Record]) -> Vec<u64> {
    let mut out = vec![0u64; records.len()];
    let mut ks: Vec<usize> = records.iter().map(|r| r.a.len()).collect();
    ks.sort_unstable();
    ks.dedup();
    for k in ks {
        let idx: Vec<usize> = (0..records.len())
            .filter(|&i| records[i].a.len() == k && records[i].b.len() == k)
            .collect();
        let a: Vec<u64> = idx
            .iter()
            .flat_map(|&i| records[i].a.iter().copied())
            .collect();
        let b: Vec<u64> = idx
            .iter()
            .flat_map(|&i| records[i].b.iter().copied())
            .collect();
        let c: Vec<u64> = idx.iter().map(|&i| records[i].c).collect();
        let mut d = vec![0u64; idx.len()];
        if kernel.dots(k, &a, &b, &c, &mut d).is_ok() {
            for (&i, &x) in idx.iter().zip(&d) {
                out[i] = x;
            }
        }
    }
    out
}
