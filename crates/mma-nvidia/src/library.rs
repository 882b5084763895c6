//! Library platforms: a GPU and a library version (cuBLASLt on the RTX 4060, on the H100 PCIe)
//! as data: which catalog instruction its FP8 GEMM kernels issue for each pair of input
//! formats, the recipe of the K walk and the epilogue ([`mma_core::library`]), the calls the
//! library rejects, and the evidence behind it all. The shipped platforms are the JSON files
//! of `library/` (one per platform); a user's file of the same schema is read by
//! [`Platform::from_json`].
//!
//! [`Platform::scaled_mm`] is `torch._scaled_mm` (PyTorch 2.7.1) on the platform: PyTorch's
//! argument checks, the library's rejections, then the recipe. [`Platform::accumulate`] is the
//! same accumulator and epilogue reached without PyTorch's checks (Transformer Engine, or a
//! part of a larger product).

use crate::catalog::{Instruction, Op};
use crate::lookup::{find_in, parse_arch};
use mma_core::format::{self, Format};
use mma_core::library::{GemmRecipe, LibraryError, LibraryGemm, Scales, Split, WalkError};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

/// The serde form of a platform (the files of `library/`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformFile {
    /// The name users give (`"RTX 4060"`).
    pub name: String,
    /// Other names it answers to (compared ignoring case, spaces, dashes and underscores).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub gpu: String,
    pub library: String,
    pub callers: String,
    pub evidence: Evidence,
    /// The catalog architecture of the instructions below.
    pub arch: String,
    pub units: Vec<UnitRow>,
    pub recipe: GemmRecipe,
    #[serde(default)]
    pub rejects: Vec<RejectRow>,
}

/// Whether recordings reproduce a platform, and which.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub status: Status,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Recorded outputs of this GPU reproduce it bit for bit.
    Verified,
    /// Described (by a publication or a reference implementation), not checked against
    /// recordings: the tools say so whenever it is used.
    Unverified,
}

/// The instruction the library's kernels issue for inputs of formats `a` and `b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitRow {
    pub a: String,
    pub b: String,
    pub instr: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
}

/// A call the library rejects on this GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RejectRow {
    pub a: String,
    pub b: String,
    pub out: String,
    pub reason: String,
}

/// A platform, its instructions looked up in the catalog.
#[derive(Clone, Debug)]
pub struct Platform {
    pub file: PlatformFile,
    units: Vec<(Format, Format, &'static Instruction)>,
    rejects: Vec<(Format, Format, Format, String)>,
}

/// Why a platform cannot be read or found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    #[error("not a platform file: {0}")]
    Json(String),
    #[error("{field}: unknown format {name:?}")]
    Format { field: &'static str, name: String },
    #[error("{0}")]
    Catalog(String),
    #[error("recipe: {0}")]
    Recipe(String),
    #[error("unknown GPU library platform {name:?}; known: {known}")]
    Unknown { name: String, known: String },
    #[error(
        "{gpu} has no library platform: no recipe of its libraries is known (platforms: {known})"
    )]
    NoPlatform { gpu: String, known: String },
}

/// Why a call cannot be evaluated: the GPU's library (or PyTorch) rejects it, the project does
/// not model it, or the split it would take is unknown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The GPU rejects this call: the same call raises there.
    #[error("{reason}")]
    Rejected { reason: String },
    /// Valid on the GPU, but not modelled here (no recordings decide its bits).
    #[error("{feature} is not modelled: no recordings decide its bits")]
    Unsupported { feature: String },
    /// Split-K could not be decided.
    #[error("{0}")]
    SplitUnknown(String),
    /// The arguments do not describe a call (lengths, formats).
    #[error("{0}")]
    Invalid(String),
    /// A buffer the call needs does not fit in memory.
    #[error("{0}")]
    Memory(String),
    /// The caller's stop flag was set before the call ended.
    #[error("stopped before the end (interrupted)")]
    Stopped,
}

/// The shipped platform files.
const FILES: [&str; 2] = [
    include_str!("../library/rtx4060-cublaslt.json"),
    include_str!("../library/h100pcie-cublaslt.json"),
];

/// Every shipped platform, read once.
pub fn platforms() -> &'static [Platform] {
    static ALL: OnceLock<Vec<Platform>> = OnceLock::new();
    ALL.get_or_init(|| {
        FILES
            .iter()
            .map(|text| {
                Platform::from_json(text)
                    .unwrap_or_else(|e| panic!("a shipped platform file is invalid: {e}"))
            })
            .collect()
    })
}

fn key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A shipped platform by its name or an alias (ignoring case, spaces, dashes, underscores).
pub fn platform(name: &str) -> Result<&'static Platform, PlatformError> {
    let k = key(name);
    platforms()
        .iter()
        .find(|p| key(&p.file.name) == k || p.file.aliases.iter().any(|a| key(a) == k))
        .ok_or_else(|| PlatformError::Unknown {
            name: mma_core::catalog::clip(name),
            known: platforms()
                .iter()
                .map(|p| format!("{:?}", p.file.name))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

fn fmt(field: &'static str, name: &str) -> Result<Format, PlatformError> {
    format::by_name(name).ok_or_else(|| PlatformError::Format {
        field,
        name: mma_core::catalog::clip(name),
    })
}

impl Platform {
    /// A platform from the JSON of a platform file, its instructions looked up.
    pub fn from_json(text: &str) -> Result<Platform, PlatformError> {
        let file: PlatformFile =
            serde_json::from_str(text).map_err(|e| PlatformError::Json(e.to_string()))?;
        Platform::new(file)
    }

    pub fn new(file: PlatformFile) -> Result<Platform, PlatformError> {
        file.recipe
            .check()
            .map_err(|e| PlatformError::Recipe(e.to_string()))?;
        let arch = parse_arch(&file.arch).map_err(|e| PlatformError::Catalog(e.to_string()))?;
        let mut units = Vec::new();
        for u in &file.units {
            let op = match &u.op {
                Some(o) => Some(Op::parse(o).ok_or_else(|| {
                    PlatformError::Catalog(format!("units: unknown operation {o:?}"))
                })?),
                None => None,
            };
            let ins = find_in(arch, op, &u.instr)
                .map_err(|e| PlatformError::Catalog(format!("units: {e}")))?;
            let (a, b) = (fmt("units.a", &u.a)?, fmt("units.b", &u.b)?);
            let f = &ins.unit.formats;
            if f.a != a || f.b != b {
                return Err(PlatformError::Catalog(format!(
                    "units: {} takes {} × {}, not {} × {}",
                    ins.name, f.a.name, f.b.name, a.name, b.name
                )));
            }
            units.push((a, b, ins));
        }
        let mut rejects = Vec::new();
        for r in &file.rejects {
            rejects.push((
                fmt("rejects.a", &r.a)?,
                fmt("rejects.b", &r.b)?,
                fmt("rejects.out", &r.out)?,
                r.reason.clone(),
            ));
        }
        Ok(Platform {
            file,
            units,
            rejects,
        })
    }

    /// The instruction the library issues for A and B of these formats.
    pub fn instruction(&self, a: &Format, b: &Format) -> Option<&'static Instruction> {
        self.units
            .iter()
            .find(|(fa, fb, _)| fa == a && fb == b)
            .map(|&(_, _, i)| i)
    }

    /// Whether recordings reproduce this platform.
    pub fn verified(&self) -> bool {
        self.file.evidence.status == Status::Verified
    }

    /// The library's own rejection of inputs `a`, `b` with output `out`, if any.
    pub fn rejection(&self, a: &Format, b: &Format, out: &Format) -> Option<&str> {
        self.rejects
            .iter()
            .find(|(fa, fb, fo, _)| fa == a && fb == b && fo == out)
            .map(|(_, _, _, r)| r.as_str())
    }
}

/// A `torch._scaled_mm` call with tensor-wise scales: `mat1` is `a` (`m×k`, row-major), `mat2`
/// is `b_cols` transposed (`b_cols` is `n×k`, mat2's columns), codes of `fmt_a` and `fmt_b`.
#[derive(Clone, Copy, Debug)]
pub struct ScaledMm<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: &'a [u64],
    pub b_cols: &'a [u64],
    pub fmt_a: Format,
    pub fmt_b: Format,
    /// Binary32 bits of the scales.
    pub scales: Scales,
    /// The bias's dtype and length, where one is given (its values are not modelled).
    pub bias: Option<(Format, usize)>,
    pub out: Format,
    pub fast_accum: bool,
    pub split: Split,
}

/// What PyTorch's checks leave of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checked {
    /// A zero-size product: PyTorch returns +0 without calling the library.
    Empty,
    /// A call the library gets.
    Library,
}

fn reject(reason: impl Into<String>) -> CallError {
    CallError::Rejected {
        reason: reason.into(),
    }
}

impl Platform {
    /// `torch._scaled_mm` on this platform: PyTorch 2.7.1's argument checks (in its order),
    /// the zero-size results, the library's rejections, then the recipe. `threads` as
    /// `DotUnit::gemm`. Returns `m×n` words of `out`.
    pub fn scaled_mm(&self, x: &ScaledMm<'_>, threads: usize) -> Result<Vec<u64>, CallError> {
        self.scaled_mm_until(x, threads, &AtomicBool::new(false))
    }

    /// [`Platform::scaled_mm`], returning [`CallError::Stopped`] soon after `stop` is set
    /// (by another thread: the Python package's on Ctrl-C).
    pub fn scaled_mm_until(
        &self,
        x: &ScaledMm<'_>,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<u64>, CallError> {
        if self.torch_checks(x)? == Checked::Empty {
            // PyTorch returns before calling the library: +0 everywhere.
            let mn = x.m.saturating_mul(x.n);
            let mut d = Vec::new();
            d.try_reserve_exact(mn).map_err(|_| {
                CallError::Memory(format!(
                    "D: {} × {} elements of 8 bytes do not fit in memory",
                    x.m, x.n
                ))
            })?;
            d.resize(mn, 0);
            return Ok(d);
        }
        self.accumulate_until(x, threads, stop)
    }

    /// The checks of [`Platform::scaled_mm`], in its order, without computing anything:
    /// `Ok(())` exactly when `scaled_mm` returns a result, else the error it returns (what
    /// `mma gemm --explain` runs before it explains a call). The library's own checks (the
    /// kernel for the input formats, the output format, the recipe's split, the lengths) are
    /// those of [`Platform::accumulate`] itself: it runs on no rows of A, then on no columns
    /// of B (each checks the other operand's length), which do every check and no work.
    pub fn check_scaled_mm(&self, x: &ScaledMm<'_>) -> Result<(), CallError> {
        if self.torch_checks(x)? == Checked::Empty {
            return Ok(());
        }
        let no_columns = ScaledMm {
            n: 0,
            b_cols: &[],
            ..*x
        };
        self.accumulate(&no_columns, 1)?;
        let no_rows = ScaledMm { m: 0, a: &[], ..*x };
        self.accumulate(&no_rows, 1).map(drop)
    }

    /// PyTorch's checks, the zero-size result and the library's rejections of
    /// [`Platform::scaled_mm`], in its order.
    fn torch_checks(&self, x: &ScaledMm<'_>) -> Result<Checked, CallError> {
        let fp8 = |f: &Format| *f == format::E4M3 || *f == format::E5M2;
        if !fp8(&x.fmt_a) || !fp8(&x.fmt_b) {
            return Err(reject(format!(
                "torch._scaled_mm: expected float8 inputs (e4m3fn or e5m2), got {} and {}",
                x.fmt_a.name, x.fmt_b.name
            )));
        }
        if !x.k.is_multiple_of(16) || !x.n.is_multiple_of(16) {
            return Err(reject(format!(
                "torch._scaled_mm: mat2 is {}×{}: both dimensions must be divisible by 16",
                x.k, x.n
            )));
        }
        if x.fmt_a == format::E5M2 && x.fmt_b == format::E5M2 {
            return Err(reject(
                "torch._scaled_mm: multiplication of two Float8_e5m2 matrices is not supported",
            ));
        }
        let outs = [
            format::FP32,
            format::BF16,
            format::FP16,
            format::E4M3,
            format::E5M2,
        ];
        if !outs.contains(&x.out) {
            return Err(reject(format!(
                "torch._scaled_mm: out_dtype {} is not supported (float32, bfloat16, float16, float8_e4m3fn, float8_e5m2)",
                x.out.name
            )));
        }
        if let Some((bias, len)) = x.bias {
            if len != x.n {
                return Err(reject(format!(
                    "torch._scaled_mm: bias has {len} elements, expected {} (N)",
                    x.n
                )));
            }
            if bias != format::BF16 && bias != format::FP16 {
                return Err(reject("torch._scaled_mm: bias must be Half or BFloat16"));
            }
            if x.out == format::FP32 {
                return Err(reject(
                    "torch._scaled_mm: bias is not supported when out_dtype is float32",
                ));
            }
            if (x.out == format::BF16 || x.out == format::FP16) && bias != x.out {
                return Err(reject(
                    "torch._scaled_mm: bias dtype must equal the bf16/fp16 out_dtype",
                ));
            }
        }
        if x.m == 0 || x.n == 0 || x.k == 0 {
            return Ok(Checked::Empty);
        }
        if let Some(reason) = self.rejection(&x.fmt_a, &x.fmt_b, &x.out) {
            return Err(reject(reason));
        }
        if x.bias.is_some() {
            return Err(CallError::Unsupported {
                feature: "the bias epilogue of torch._scaled_mm".into(),
            });
        }
        Ok(Checked::Library)
    }

    /// The library's accumulator and epilogue without PyTorch's checks (Transformer Engine's
    /// path, or a part of a larger product): any `m`, `n`, `k`, no bias.
    pub fn accumulate(&self, x: &ScaledMm<'_>, threads: usize) -> Result<Vec<u64>, CallError> {
        self.accumulate_until(x, threads, &AtomicBool::new(false))
    }

    /// [`Platform::accumulate`], returning [`CallError::Stopped`] soon after `stop` is set.
    pub fn accumulate_until(
        &self,
        x: &ScaledMm<'_>,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<u64>, CallError> {
        let ins = self.instruction(&x.fmt_a, &x.fmt_b).ok_or_else(|| {
            reject(format!(
                "{}: no FP8 kernel for {} × {}",
                self.file.name, x.fmt_a.name, x.fmt_b.name
            ))
        })?;
        let call = LibraryGemm {
            m: x.m,
            n: x.n,
            k: x.k,
            a: x.a,
            b_cols: x.b_cols,
            fast_accum: x.fast_accum,
            split: x.split,
        };
        let r = ins.unit.library_gemm_until(
            ins.k,
            &self.file.recipe,
            &call,
            x.scales,
            &x.out,
            threads,
            stop,
        );
        r.map_err(|e| match e {
            LibraryError::Walk(WalkError::Stopped) => CallError::Stopped,
            LibraryError::Walk(e @ WalkError::Memory { .. }) => CallError::Memory(e.to_string()),
            e => CallError::Invalid(e.to_string()),
        })
    }
}
