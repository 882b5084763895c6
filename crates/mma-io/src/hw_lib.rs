//! Library-level recordings laid out like `shared/hw-lib/<set>/`: whole library calls
//! (`torch._scaled_mm` through cuBLASLt) on a GPU, with their inputs and output bits, read and
//! checked against a platform of `mma_nvidia::library`.
//!
//! A set is `tests.json` (every call: formats, `use_fast_accum`, the split S and its order as
//! the GPU took them, the output dtype, the scales as binary32 bits, the names of its arrays,
//! or the error the call raised) and `arrays.npz` (A `[M, K]` and B `[N, K]` FP8 codes, the
//! output bits).

use mma_core::format::{self, Format};
use mma_core::library::{Order, Scales, Split};
use mma_nvidia::library::{CallError, Platform, ScaledMm};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// How a recorded call was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `torch._scaled_mm`: PyTorch's checks apply.
    ScaledMm,
    /// The same accumulator and epilogue reached another way (Transformer Engine, or a part
    /// of a larger call): no PyTorch checks.
    Accumulate,
}

/// What the GPU did with a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Output bits, `m×n` row-major (or D's diagonal only, `diagonal`).
    Output { bits: Vec<u64>, diagonal: bool },
    /// The GPU (its library or PyTorch) raised, for this reason.
    Rejected(String),
    /// The recording package does not model the call (not a fact about the GPU); the project
    /// must not compute it either.
    Unsupported(String),
}

/// One recorded call.
#[derive(Clone, Debug)]
pub struct LibTest {
    pub id: String,
    pub api: Api,
    pub fmt_a: Format,
    pub fmt_b: Format,
    pub out: Format,
    pub fast_accum: bool,
    pub split: Split,
    pub scales: Scales,
    /// The bias's dtype where the call had one (named in the recording's id).
    pub bias: Option<Format>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Vec<u64>,
    pub b_cols: Vec<u64>,
    pub expect: Expect,
}

#[derive(Deserialize)]
struct File {
    tests: Vec<Raw>,
}

#[derive(Deserialize)]
struct Raw {
    id: String,
    fmt_a: String,
    fmt_b: String,
    use_fast_accum: bool,
    #[serde(rename = "splitk_S")]
    splitk_s: usize,
    splitk_scheme: String,
    out_dtype: String,
    scale_a_bits: u32,
    scale_b_bits: u32,
    scale_result_bits: Option<u32>,
    api: String,
    out_select: Option<String>,
    expect_error: Option<String>,
    reason: Option<String>,
    call_shape: Option<[usize; 3]>,
    #[serde(rename = "M")]
    m: Option<usize>,
    #[serde(rename = "N")]
    n: Option<usize>,
    #[serde(rename = "K")]
    k: Option<usize>,
    a: Option<String>,
    b: Option<String>,
    y: Option<String>,
}

/// A dtype as the recordings (and PyTorch) name it (`float8_e4m3fn`), or a format name.
pub fn dtype(name: &str) -> Option<Format> {
    format::by_name(name)
}

/// The bias dtype of a recorded bias call: its id ends `.../bias_<out>_<bias>_<value>`; a call
/// the recording package itself does not model (reason `bias`) names no dtype and had a bias
/// PyTorch accepts, of the output's type.
fn bias_of(id: &str, reason: Option<&str>, out: &str) -> Option<Format> {
    let names = ["bfloat16", "float16", "float32"];
    let strip = |s: &str| -> Option<String> {
        let d = names.into_iter().find(|d| s.starts_with(d))?;
        Some(s[d.len()..].trim_start_matches('_').to_string())
    };
    let last = id.rsplit('/').next()?;
    if let Some(rest) = last.strip_prefix("bias_") {
        let after_out = strip(rest)?;
        let bias = names.into_iter().find(|d| after_out.starts_with(d))?;
        return dtype(bias);
    }
    if reason == Some("bias") {
        return dtype(out);
    }
    None
}

/// Reads a set (`tests.json` and `arrays.npz` in `dir`). Errors name the file and the test.
pub fn load(dir: &Path) -> Result<Vec<LibTest>, String> {
    let tests_path = dir.join("tests.json");
    let text = std::fs::read_to_string(&tests_path)
        .map_err(|e| format!("{}: {e}", tests_path.display()))?;
    let file: File =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", tests_path.display()))?;
    let npz_path = dir.join("arrays.npz");
    let arrays = read_npz(&npz_path)?;
    let get = |name: &Option<String>, id: &str| -> Result<&(Vec<u64>, Vec<u64>), String> {
        let n = name.as_deref().ok_or(format!("{id}: no array named"))?;
        arrays
            .get(n)
            .ok_or(format!("{}: {id}: no array {n:?}", npz_path.display()))
    };
    let mut out = Vec::with_capacity(file.tests.len());
    for r in file.tests {
        let id = r.id.clone();
        let bad = |what: &str| format!("{}: {id}: {what}", tests_path.display());
        let fmt = |s: &str| dtype(s).ok_or_else(|| bad(&format!("unknown dtype {s:?}")));
        let order = match r.splitk_scheme.as_str() {
            "none" | "serial" => Order::Serial,
            "pairwise" => Order::Pairwise,
            other => return Err(bad(&format!("unknown split-K scheme {other:?}"))),
        };
        let api = match r.api.as_str() {
            "scaled_mm" => Api::ScaledMm,
            "accumulate" => Api::Accumulate,
            other => return Err(bad(&format!("unknown api {other:?}"))),
        };
        let (m, n, k, a, b_cols, expect) = match (&r.expect_error, &r.reason) {
            (Some(kind), Some(reason)) => {
                let [m, n, k] = r.call_shape.ok_or_else(|| bad("no call_shape"))?;
                let e = if kind == "UnsupportedFeatureError" {
                    Expect::Unsupported(reason.clone())
                } else {
                    Expect::Rejected(reason.clone())
                };
                // Inputs of the right shape (zeros): a rejection must not depend on them.
                (m, n, k, vec![0; m * k], vec![0; n * k], e)
            }
            _ => {
                let (m, n, k) = match (r.m, r.n, r.k) {
                    (Some(m), Some(n), Some(k)) => (m, n, k),
                    _ => return Err(bad("no M, N, K")),
                };
                let (a, sa) = get(&r.a, &id)?;
                let (b, sb) = get(&r.b, &id)?;
                let (y, _) = get(&r.y, &id)?;
                if sa.as_slice() != [m as u64, k as u64] || sb.as_slice() != [n as u64, k as u64] {
                    return Err(bad(&format!("arrays of shape {sa:?} and {sb:?}")));
                }
                let diagonal = r.out_select.as_deref() == Some("diagonal");
                (
                    m,
                    n,
                    k,
                    a.clone(),
                    b.clone(),
                    Expect::Output {
                        bits: y.clone(),
                        diagonal,
                    },
                )
            }
        };
        out.push(LibTest {
            id: r.id.clone(),
            api,
            fmt_a: fmt(&r.fmt_a)?,
            fmt_b: fmt(&r.fmt_b)?,
            out: fmt(&r.out_dtype)?,
            fast_accum: r.use_fast_accum,
            split: Split {
                parts: r.splitk_s,
                order,
            },
            scales: Scales {
                a: r.scale_a_bits,
                b: r.scale_b_bits,
                result: r.scale_result_bits,
            },
            bias: bias_of(&r.id, r.reason.as_deref(), &r.out_dtype),
            m,
            n,
            k,
            a,
            b_cols,
            expect,
        });
    }
    Ok(out)
}

/// Arrays by name: (words, shape).
type Arrays = HashMap<String, (Vec<u64>, Vec<u64>)>;

/// Every array of an `.npz` as (words, shape). The archive is read with `zip` (deflate only:
/// NumPy's `savez` stores, `savez_compressed` deflates) and each member with `npyz`, not through
/// `npyz`'s `npz` feature, which turns on every compression `zip` has (zstd and bzip2 built from
/// C sources: about 50 s of each clean build; docs/performance.md, "Build time").
fn read_npz(path: &Path) -> Result<Arrays, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| err(&e))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| err(&e))?;
    let mut out = HashMap::new();
    for i in 0..zip.len() {
        let member = zip.by_index(i).map_err(|e| err(&e))?;
        let Some(name) = npyz::npz::array_name_from_file_name(member.name()).map(str::to_string)
        else {
            return Err(err(&format!(
                "member {:?} is not an .npy array",
                member.name()
            )));
        };
        let npy = npyz::NpyFile::new(member).map_err(|e| err(&format!("array {name}: {e}")))?;
        let shape = npy.shape().to_vec();
        let words: Vec<u64> = match npy.dtype() {
            npyz::DType::Plain(t) if t.size_field() == 1 => npy
                .into_vec::<u8>()
                .map_err(|e| err(&e))?
                .into_iter()
                .map(u64::from)
                .collect(),
            npyz::DType::Plain(t) if t.size_field() == 2 => npy
                .into_vec::<u16>()
                .map_err(|e| err(&e))?
                .into_iter()
                .map(u64::from)
                .collect(),
            npyz::DType::Plain(t) if t.size_field() == 4 => npy
                .into_vec::<u32>()
                .map_err(|e| err(&e))?
                .into_iter()
                .map(u64::from)
                .collect(),
            other => return Err(err(&format!("array {name}: dtype {other:?}"))),
        };
        out.insert(name, (words, shape));
    }
    Ok(out)
}

/// The outcome of one recorded call on a platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every recorded value, or the rejection.
    Pass,
    /// A value differs: its (row, column), the GPU's bits and the model's.
    Mismatch {
        at: (usize, usize),
        want: u64,
        got: u64,
        count: usize,
    },
    /// The call was evaluated where the GPU raised, or raised where the GPU computed; or
    /// raised another kind of error.
    Wrong(String),
}

/// Evaluates `t` on `p` and compares with the recording.
pub fn check(p: &Platform, t: &LibTest, threads: usize) -> Outcome {
    let call = ScaledMm {
        m: t.m,
        n: t.n,
        k: t.k,
        a: &t.a,
        b_cols: &t.b_cols,
        fmt_a: t.fmt_a,
        fmt_b: t.fmt_b,
        scales: t.scales,
        bias: t.bias.map(|f| (f, t.n)),
        out: t.out,
        fast_accum: t.fast_accum,
        split: t.split,
    };
    let got = match t.api {
        Api::ScaledMm => p.scaled_mm(&call, threads),
        Api::Accumulate => p.accumulate(&call, threads),
    };
    match (&t.expect, got) {
        (Expect::Rejected(_), Err(CallError::Rejected { .. }))
        | (Expect::Unsupported(_), Err(CallError::Unsupported { .. })) => Outcome::Pass,
        (Expect::Output { bits, diagonal }, Ok(d)) => {
            let mut first = None;
            let mut count = 0;
            let mut cmp = |at: (usize, usize), want: u64, got: u64| {
                if want != got {
                    count += 1;
                    first.get_or_insert((at, want, got));
                }
            };
            if *diagonal {
                for (i, &w) in bits.iter().enumerate() {
                    cmp((i, i), w, d[i * t.n + i]);
                }
            } else {
                for (idx, (&w, &g)) in bits.iter().zip(&d).enumerate() {
                    cmp((idx / t.n, idx % t.n), w, g);
                }
            }
            match first {
                None => Outcome::Pass,
                Some((at, want, got)) => Outcome::Mismatch {
                    at,
                    want,
                    got,
                    count,
                },
            }
        }
        (want, got) => {
            let gpu = match want {
                Expect::Output { .. } => "computed".to_string(),
                Expect::Rejected(r) => format!("rejected it ({r})"),
                Expect::Unsupported(r) => format!("is not modelled by the recordings ({r})"),
            };
            let model = match got {
                Ok(_) => "computed".to_string(),
                Err(e) => format!("{e:?}"),
            };
            Outcome::Wrong(format!("the GPU {gpu}; the model: {model}"))
        }
    }
}
