//! Feature-probe vector files (`vectors/*.jsonl`): reading them, and running one vector on an
//! instruction family.
//!
//! A vector file is a case file (crate `mma`, module `cases`) in which every case is preceded by
//! `#` comment lines saying why it matters, and which starts with a `#` header (up to the first
//! blank line) describing the feature probed. `"d"` may be omitted: it depends on the
//! instruction, and the snapshots hold the outputs. An optional `"expect"` object gives
//! hand-derived results per vendor (`"nvidia"`), architecture (`"Hopper"`), architecture and
//! operation (`"Blackwell:TCGen05MMA"`), family (`"Turing:MMA:m8n8k4.f32.f16.f16.f32"`) or a
//! text the family's name contains (`"~satfinite"`), as decimal values (`"-0.75"`, `"+0"`, `"-0"`, `"inf"`, `"nan"`) or
//! hex words (`"0x7fffffff"`); the tests check them on every applicable family.

use crate::families::Family;
use anyhow::{bail, Context, Result};
use mma::cases::{self, Case, Operands};
use mma_core::{DotUnit, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One case of a vector file.
#[derive(Clone, Debug)]
pub struct Vector {
    /// 1-based line number in the file.
    pub line: usize,
    /// The `#` comment lines directly above the case, without the `#`.
    pub why: Vec<String>,
    pub case: Case,
    /// The representative instruction's unit and the operands, or why they could not be read.
    pub resolved: std::result::Result<(&'static DotUnit, Operands), String>,
    /// Hand-derived results: key → value text.
    pub expect: BTreeMap<String, String>,
}

/// One vector file.
#[derive(Clone, Debug)]
pub struct VectorFile {
    /// Path relative to the repository root, with `/` separators.
    pub rel: String,
    pub stem: String,
    /// The leading comment block, without the `#`.
    pub header: Vec<String>,
    pub vectors: Vec<Vector>,
}

fn strip_comment(line: &str) -> String {
    let t = line.trim_start();
    let t = t.strip_prefix('#').unwrap_or(t);
    t.strip_prefix(' ').unwrap_or(t).trim_end().to_string()
}

/// Parses the text of a vector file. Lines that are not valid cases are errors.
pub fn parse(rel: &str, text: &str) -> Result<VectorFile> {
    let stem = Path::new(rel)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(rel)
        .to_string();
    let mut header = Vec::new();
    let mut in_header = true;
    let mut pending: Vec<String> = Vec::new();
    let mut vectors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            in_header = false;
            pending.clear();
            continue;
        }
        if t.starts_with('#') {
            if in_header {
                header.push(strip_comment(t));
            } else {
                pending.push(strip_comment(t));
            }
            continue;
        }
        in_header = false;
        let case = cases::parse_line(t).with_context(|| format!("{rel}:{}", i + 1))?;
        let resolved = cases::resolve(&case.vendor, &case.arch, case.op.as_deref(), &case.instr)
            .and_then(|target| Ok((target.unit, cases::operands(&case, &target)?)))
            .map_err(|e| e.to_string());
        let mut expect = BTreeMap::new();
        if let Some(e) = case.fields.get("expect") {
            let Some(obj) = e.as_object() else {
                bail!("{rel}:{}: \"expect\" must be an object", i + 1);
            };
            for (k, v) in obj {
                let Some(s) = v.as_str() else {
                    bail!("{rel}:{}: expect[{k:?}] must be a string", i + 1);
                };
                expect.insert(k.clone(), s.to_string());
            }
        }
        vectors.push(Vector {
            line: i + 1,
            why: std::mem::take(&mut pending),
            case,
            resolved,
            expect,
        });
    }
    Ok(VectorFile {
        rel: rel.to_string(),
        stem,
        header,
        vectors,
    })
}

/// The feature-probe files: `vectors/*.jsonl`, sorted. Subfolders (such as the random corpora
/// under `vectors/mmasim/`) are not feature probes and are not read.
pub fn vector_paths(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("vectors");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = entry?.path();
        if p.is_file() && p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Reads every feature-probe file under `root/vectors`.
pub fn load_all(root: &Path) -> Result<Vec<VectorFile>> {
    vector_paths(root)?
        .iter()
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let rel = format!("vectors/{name}");
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            parse(&rel, &text)
        })
        .collect()
}

/// How a vector was run on a family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// K equals the instruction's K: one call.
    Single,
    /// K is shorter: padded with `+0 · +0` pairs to the instruction's K.
    Padded { to: usize },
    /// K is a multiple of the instruction's K: that many calls, each call's D the next one's C.
    Chained { calls: usize },
}

/// The result of one vector on one family.
#[derive(Clone, Debug)]
pub struct Run {
    pub plan: Plan,
    /// The operands as evaluated (after padding).
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: u64,
    pub scale_a: Vec<u64>,
    pub scale_b: Vec<u64>,
    pub d: u64,
}

/// Whether a vector written for `unit` applies to `fam`: same A, B, C, D and scale formats.
pub fn applies(unit: &DotUnit, fam: &Family) -> bool {
    unit.formats == fam.unit.formats
}

/// Runs a resolved vector on a family, or `None` when it does not apply: other formats, or a K
/// that neither pads nor chains to the family's K (block-scaled families need the same K;
/// chaining needs C and D in the same format).
pub fn run(unit: &DotUnit, ops: &Operands, fam: &Family) -> Option<Run> {
    if !applies(unit, fam) {
        return None;
    }
    let u = fam.unit;
    let f = &u.formats;
    let k = ops.a.len();
    let ki = fam.k;
    let scaled = f.scale.is_some();
    let mut a = ops.a.clone();
    let mut b = ops.b.clone();
    let plan = if k == ki {
        Plan::Single
    } else if k < ki && !scaled {
        a.resize(ki, 0);
        b.resize(ki, 0);
        Plan::Padded { to: ki }
    } else if k > ki && k.is_multiple_of(ki) && !scaled && f.c == f.d {
        Plan::Chained { calls: k / ki }
    } else {
        return None;
    };
    let d = match plan {
        Plan::Chained { calls } => (0..calls).fold(ops.c, |c, i| {
            let r = i * ki..(i + 1) * ki;
            u.dot(&a[r.clone()], &b[r], c)
        }),
        _ => u.dot_scaled(&a, &b, ops.c, &ops.scale_a, &ops.scale_b),
    };
    Some(Run {
        plan,
        a,
        b,
        c: ops.c,
        scale_a: ops.scale_a.clone(),
        scale_b: ops.scale_b.clone(),
        d,
    })
}

/// The keys an expectation may be given under for a family, most specific first:
/// `"Arch:OP:family"`, `"Arch:OP"`, `"Arch"`, then the vendor (`"nvidia"`, `"amd"`).
pub fn expect_keys(fam: &Family) -> [String; 4] {
    [
        format!("{}:{}:{}", fam.arch, fam.op, fam.label),
        format!("{}:{}", fam.arch, fam.op),
        fam.arch.clone(),
        fam.vendor.to_string(),
    ]
}

/// The expectation that applies to a family: under its family key; else under a `"~text"`
/// key whose text the family's label contains (`"~satfinite"`: every saturating integer
/// family, whatever its architecture); else under the other keys of [`expect_keys`].
pub fn expectation<'a>(v: &'a Vector, fam: &Family) -> Option<&'a str> {
    let keys = expect_keys(fam);
    let label = v.expect.iter().find_map(|(k, want)| {
        k.strip_prefix('~')
            .filter(|t| fam.label.contains(t))
            .map(|_| want)
    });
    v.expect
        .get(&keys[0])
        .or(label)
        .or_else(|| keys[1..].iter().find_map(|k| v.expect.get(k)))
        .map(String::as_str)
}

/// Whether output word `d` (format `fam`'s D) matches an expectation text. Decimal texts
/// compare values (with the sign of zero; any NaN matches `"nan"`); hex texts compare bits.
pub fn matches(d: u64, fam: &Family, want: &str) -> Result<bool> {
    let w = want.trim();
    if let Some(hex) = w.strip_prefix("0x") {
        return Ok(u64::from_str_radix(hex, 16).context("bad hex expectation")? == d);
    }
    let got = fam.unit.formats.d.decode(d);
    let wl = w.to_ascii_lowercase();
    Ok(match wl.as_str() {
        "nan" => got.is_nan(),
        "inf" | "+inf" => got == Value::Inf { neg: false },
        "-inf" => got == Value::Inf { neg: true },
        _ => {
            let x: f64 = w
                .parse()
                .with_context(|| format!("bad expectation {want:?}"))?;
            !got.is_nan() && got.to_f64().to_bits() == x.to_bits()
        }
    })
}
