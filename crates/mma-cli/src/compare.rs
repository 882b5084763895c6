//! `mma compare`: the same inputs on several architectures side by side, with the exact value,
//! each result's error in ulps, and where two results differ, the first step at which their
//! traces (`DotUnit::explain`) part.
//!
//! An instruction family is the shape-independent type signature `D.A.B.C` of the unit's
//! formats (as in mmasim's NVIDIA names, `f32.f16.f16.f32`), with the block-scale format
//! appended for block-scaled instructions (`f32.e2m1.e2m1.f32.ue8m0`). Each architecture runs
//! its instruction of the family whose K divides the number of elements given (the largest
//! such K), issued K_given / K times with D fed back as C, as a kernel walks K.

use crate::dot::dot_case;
use crate::flags::{DotTarget, OperandFlags};
use anyhow::{anyhow, bail, Result};
use mma::cases::{self, Layout, Target};
use mma::trace::{Source, Step};
use mma::{DotUnit, Explanation, Format, Value};
use std::fmt::Write as _;

/// The family of a unit: `D.A.B.C`, plus `.S` for a block-scale format S.
pub fn family(u: &DotUnit) -> String {
    let f = &u.formats;
    let mut s = format!("{}.{}.{}.{}", f.d.name, f.a.name, f.b.name, f.c.name);
    if let Some((sf, _)) = f.scale {
        s.push('.');
        s.push_str(sf.name);
    }
    s
}

/// One catalog instruction with the architecture that has it.
#[derive(Clone, Copy)]
struct Entry {
    vendor: &'static str,
    arch: &'static str,
    target: Target,
}

fn entries() -> Vec<Entry> {
    mma::catalog::instructions()
        .map(|r| Entry {
            vendor: r.vendor.name(),
            arch: r.arch,
            target: Target::of_row(&r),
        })
        .collect()
}

/// Every family of the catalogs, sorted.
pub fn families() -> Vec<String> {
    let mut f: Vec<String> = entries().iter().map(|e| family(e.target.unit)).collect();
    f.sort();
    f.dedup();
    f
}

/// The same dot product on several architectures, side by side.
///
/// Prints the exact value (exact sum of the products and C, no oracle needed), each
/// architecture's result in hex and decimal with its error in ulps, and for results that
/// differ, the first step at which the two models' traces (`mma explain`) part.
///
/// An instruction family is the shape-independent type signature D.A.B.C of the
/// instruction (f32.f16.f16.f32; block-scaled: f32.e2m1.e2m1.f32.ue8m0), whatever the
/// vendor's spelling (m16n8k16.f32.f16.f16.f32, v_mfma_f32_32x32x8_f16). Each architecture
/// runs its instruction of the family whose K divides the number of elements given (the
/// largest), issued as often as needed with D fed back as C. Operands are read as `mma dot`
/// reads them (see its --help), --round included; every architecture's instruction of a
/// family has the same formats, so they read the same on each.
///
/// Example: mma compare --instr-family f32.f16.f16.f32 --arch H100,MI300X
/// --a 6c00,b800,b400,b000,0,0,0,0,0,0,0,0,0,0,0,0 ... --c cb000000
#[derive(clap::Args)]
pub struct CompareCmd {
    /// The family: D.A.B.C formats (f32.f16.f16.f32, f32.bf16.bf16.f32, ...).
    #[arg(long, required_unless_present = "question")]
    pub instr_family: Option<String>,
    /// Architectures, comma-separated (names, PTX targets or products).
    #[arg(
        long,
        value_delimiter = ',',
        required_unless_present_any = ["all", "question"],
        conflicts_with = "all"
    )]
    pub arch: Vec<String>,
    /// Instead of architectures: the two readings of an open question (`mma probe emit
    /// --question list`), this project's and the alternative, on the operands given.
    #[arg(long, conflicts_with_all = ["instr_family", "arch", "all"])]
    pub question: Option<String>,
    /// Every architecture that has an instruction of the family.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub operands: OperandFlags,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

impl CompareCmd {
    pub fn run(self) -> Result<bool> {
        if let Some(q) = &self.question {
            return compare_question(q, &self.operands, self.json);
        }
        let Some(fam) = &self.instr_family else {
            bail!("--instr-family is required (or --question)");
        };
        let archs = if self.all {
            Archs::All
        } else {
            Archs::Named(&self.arch)
        };
        compare(fam, archs, &self.operands, self.json)
    }
}

/// `mma compare --question NAME`: the two readings of an open question (`mma probe emit
/// --question list`) on the same operands, side by side, and where their traces part.
fn compare_question(name: &str, x: &OperandFlags, json: bool) -> Result<bool> {
    let q = crate::questions::find(name)?;
    let mut runs = Vec::new();
    for (label, file) in [("this-project", q.default), (q.label, q.alternative)] {
        let target = crate::questions::unit(file)?;
        let e = Entry {
            vendor: "question",
            arch: label,
            target: Target {
                name: q.instr,
                ..target
            },
        };
        runs.push(run(e, x)?);
    }
    let fam = format!("{} ({} {})", family(runs[0].target.unit), q.arch, q.instr);
    report(&fam, &runs, &[], x, json)
}

/// Which architectures to compare.
enum Archs<'a> {
    Named(&'a [String]),
    All,
}

/// One architecture's run.
struct Run {
    vendor: &'static str,
    arch: &'static str,
    target: Target,
    explanation: Explanation,
    ulps: Option<f64>,
}

/// The canonical architecture name of what a user typed, with its vendor.
fn arch_of(name: &str) -> Result<(&'static str, &'static str)> {
    match mma::catalog::vendor_of(name) {
        Some(v) => Ok((v.name(), v.arch(name)?)),
        None => bail!("--arch: unknown architecture {name:?} (`mma list` shows the known ones)"),
    }
}

/// The instruction of `fam` on `arch` for `k` elements: the largest K that divides `k`.
fn pick(all: &[Entry], vendor: &str, arch: &str, fam: &str, k: usize) -> Option<Entry> {
    all.iter()
        .filter(|e| e.vendor == vendor && e.arch == arch && family(e.target.unit) == fam)
        .filter(|e| k >= e.target.k && k.is_multiple_of(e.target.k))
        // The largest K; among equals, the first in the catalog (mma.sync before wgmma).
        .fold(None, |best: Option<&Entry>, e| match best {
            Some(b) if b.target.k >= e.target.k => Some(b),
            _ => Some(e),
        })
        .copied()
}

/// Elements given in `--a` for a packing (a packed byte holds two).
fn count(a: &str, packing: Layout) -> usize {
    mma::codec::words::word_list(a).len() * packing.per_word()
}

fn run(e: Entry, x: &OperandFlags) -> Result<Run> {
    let t = e.target;
    if t.sparse.is_some() {
        bail!(
            "{} {}: a structured-sparse instruction: mma compare takes dense ones (use mma dot --meta per GPU)",
            e.arch,
            t.name
        );
    }
    let k = count(&x.a, t.packing);
    let whole = Target { k, ..t };
    let case = dot_case(&DotTarget::Unit(&whole), x)?;
    let o = case
        .given
        .operands(&whole)
        .map_err(|err| anyhow!("{} {}: {}", e.arch, t.name, crate::flags::in_flags(err)))?;
    let u = t.unit;
    let f = &u.formats;
    if k > t.k && f.c != f.d {
        bail!(
            "{} {}: K = {k} needs {} instructions, but C is {} and D is {}: D cannot be fed back as C",
            e.arch,
            t.name,
            k / t.k,
            f.c.name,
            f.d.name
        );
    }
    // As a kernel issues it: K / t.k instructions, D fed back as C.
    let s = u.scales_for(t.k);
    let mut d = o.c;
    for j in 0..k / t.k {
        let r = j * t.k..(j + 1) * t.k;
        let sr = j * s..(j + 1) * s;
        d = u.dot_scaled(
            &o.a[r.clone()],
            &o.b[r],
            d,
            &o.scale_a[sr.clone()],
            &o.scale_b[sr],
        );
    }
    // The trace of the same instruction sequence: blocks restart at every instruction
    // boundary (an instruction whose K is shorter than its block ends a block early).
    let explanation = u.explain_by_instruction(t.k, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    if explanation.d != d {
        bail!(
            "{} {}: internal error: the trace gives {:#x} but the instructions give {d:#x}; please report this input",
            e.arch,
            t.name,
            explanation.d
        );
    }
    let ex = mma::codec::exact::exact_unit(u, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let ulps = mma::codec::exact::ulp_error(&f.d, d, &ex);
    Ok(Run {
        vendor: e.vendor,
        arch: e.arch,
        target: t,
        explanation,
        ulps,
    })
}

/// The first step at which two traces part, in words.
pub fn parting(x: &Explanation, y: &Explanation) -> String {
    let kind = |s: &Step| -> &'static str {
        match s {
            Step::Block { .. } => "block",
            Step::Special { .. } => "special values",
            Step::Flush { .. } => "flush to zero",
            Step::Align { .. } => "alignment",
            Step::ExactTerms { .. } => "exact sum of the terms",
            Step::Group { .. } => "group",
            Step::Groups { .. } => "group sums",
            Step::Subset { .. } => "slicing",
            Step::LateC { .. } => "late C",
            Step::Op { .. } => "separately rounded operation",
            Step::Sum { .. } => "exact sum",
            Step::Round { .. } => "rounding",
            Step::Integer { .. } => "32-bit accumulator",
            Step::BlockResult { .. } => "block result",
        }
    };
    let has_c = |s: &Step| match s {
        Step::Align { terms, .. } => terms.iter().any(|t| t.source == Source::C),
        _ => false,
    };
    for (i, (s, t)) in x.steps.iter().zip(&y.steps).enumerate() {
        if s == t {
            continue;
        }
        let why = match (s, t) {
            (Step::Block { k0, k1, .. }, Step::Block { k1: l1, .. }) if k1 != l1 => {
                format!("block split: a block of elements {k0}..{k1} vs {k0}..{l1}")
            }
            (Step::Block { index, c, .. }, Step::Block { c: d, .. }) if c != d => {
                format!("the C fed to block {index}: {} vs {}", num(c), num(d))
            }
            (Step::Block { .. }, Step::Block { .. }) => "the decoded operands".into(),
            (Step::Align { .. }, Step::Align { .. }) if has_c(s) != has_c(t) => {
                let place = |c: bool| {
                    if c {
                        "aligned with the products"
                    } else {
                        "added late"
                    }
                };
                format!("C's place: {} vs {}", place(has_c(s)), place(has_c(t)))
            }
            (Step::Align { f, .. }, Step::Align { f: g, .. }) if f != g => {
                format!("F, the fraction bits kept after alignment: {f} vs {g}")
            }
            (Step::Align { e_max, .. }, Step::Align { e_max: m, .. }) if e_max != m => {
                format!("e_max, the alignment exponent: {e_max} vs {m} (zero terms' e_zero)")
            }
            (Step::Align { .. }, Step::Align { .. }) => "the terms or their truncation".into(),
            (
                Step::Round { format, mode, .. },
                Step::Round {
                    format: g, mode: m, ..
                },
            ) if format != g || mode != m => {
                format!(
                    "rounding: {} to {format} vs {} to {g}",
                    mode.to_uppercase(),
                    m.to_uppercase()
                )
            }
            (Step::Round { .. }, Step::Round { .. }) => "the value rounded".into(),
            (Step::Sum { .. }, Step::Sum { .. }) => "the exact sum before rounding".into(),
            (Step::LateC { .. }, _) | (_, Step::LateC { .. }) => {
                format!("C's place: {} vs {}", kind(s), kind(t))
            }
            (Step::Align { f, .. }, Step::ExactTerms { .. }) => {
                format!("alignment: truncated to F = {f} vs summed exactly")
            }
            (Step::ExactTerms { .. }, Step::Align { f, .. }) => {
                format!("alignment: summed exactly vs truncated to F = {f}")
            }
            _ if kind(s) == kind(t) => format!("the {}", kind(s)),
            _ => format!("the steps themselves: {} vs {}", kind(s), kind(t)),
        };
        return format!("step {}: {why}", i + 1);
    }
    "the same steps (the traces do not part)".into()
}

fn num(n: &mma::trace::Num) -> String {
    crate::explain::num_text(n)
}

/// The decimal of a word of `fmt` (shortest f64 digits).
fn decimal(bits: u64, fmt: &Format) -> String {
    match fmt.decode(bits) {
        Value::Nan => "nan".into(),
        v => format!("{}", v.to_f64()),
    }
}

fn compare(fam: &str, archs: Archs, x: &OperandFlags, json: bool) -> Result<bool> {
    let all = entries();
    if !all.iter().any(|e| family(e.target.unit) == fam) {
        bail!(
            "--instr-family: no architecture has an instruction of family {fam:?}; families: {}",
            families().join(", ")
        );
    }
    let mut chosen: Vec<(&'static str, &'static str)> = Vec::new();
    match archs {
        Archs::Named(names) => {
            for n in names {
                let a = arch_of(n)?;
                if !chosen.contains(&a) {
                    chosen.push(a);
                }
            }
        }
        Archs::All => {
            for e in &all {
                let a = (e.vendor, e.arch);
                if family(e.target.unit) == fam && !chosen.contains(&a) {
                    chosen.push(a);
                }
            }
        }
    }
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for (vendor, arch) in chosen {
        let any = all
            .iter()
            .find(|e| e.vendor == vendor && e.arch == arch && family(e.target.unit) == fam);
        let Some(any) = any else {
            if let Archs::Named(_) = archs {
                bail!("--arch: {arch} has no instruction of family {fam}");
            }
            continue;
        };
        let k = count(&x.a, any.target.packing);
        match pick(&all, vendor, arch, fam, k) {
            Some(e) => runs.push(run(e, x)?),
            None => skipped.push(format!(
                "{arch}: no {fam} instruction whose K divides {k} (K = {})",
                ks(&all, vendor, arch, fam)
            )),
        }
    }
    if runs.is_empty() {
        bail!(
            "no architecture can run {fam} on these operands: {}",
            skipped.join("; ")
        );
    }
    report(fam, &runs, &skipped, x, json)
}

/// The table (or JSON) of `runs`: the exact value, each result and where the traces part.
fn report(
    fam: &str,
    runs: &[Run],
    skipped: &[String],
    x: &OperandFlags,
    json: bool,
) -> Result<bool> {
    let first = &runs[0];
    let f = &first.target.unit.formats;
    let o = {
        let whole = Target {
            k: count(&x.a, first.target.packing),
            ..first.target
        };
        let case = dot_case(&DotTarget::Unit(&whole), x)?;
        case.given.operands(&whole).map_err(|e| anyhow!("{e}"))?
    };
    let ex =
        mma::codec::exact::exact_unit(first.target.unit, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    // Pairs whose results differ: each distinct result against the first architecture's.
    let mut parts = Vec::new();
    for r in &runs[1..] {
        if r.explanation.d != first.explanation.d {
            parts.push((
                first.arch,
                r.arch,
                parting(&first.explanation, &r.explanation),
            ));
        }
    }
    let fd = f.d;
    if json {
        let results: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "vendor": r.vendor,
                    "arch": r.arch,
                    "instr": r.target.name,
                    "k": r.target.k,
                    "unit": r.explanation.unit,
                    "d": cases::hex(r.explanation.d, &fd),
                    "d_decimal": decimal(r.explanation.d, &fd),
                    "error_ulps": r.ulps,
                })
            })
            .collect();
        let differences: Vec<serde_json::Value> = parts
            .iter()
            .map(|(a, b, why)| serde_json::json!({"a": a, "b": b, "first_difference": why}))
            .collect();
        let v = serde_json::json!({
            "family": fam,
            "k": o.a.len(),
            "exact": ex.decimal(),
            "exact_hex": ex.hex(),
            "results": results,
            "differences": differences,
            "skipped": skipped,
        });
        mma_cli::outln!("{v}");
        return Ok(true);
    }
    let mut out = String::new();
    let _ = writeln!(out, "family {fam}, K = {}", o.a.len());
    let _ = writeln!(out, "exact = {} ({})", ex.decimal(), ex.hex());
    let w = runs.iter().map(|r| r.arch.len()).max().unwrap_or(4).max(4);
    let wi = runs.iter().map(|r| r.target.name.len()).max().unwrap_or(5);
    let _ = writeln!(
        out,
        "{:<w$}  {:<wi$}  {:<width$}  {:<24}  error (ulps)",
        "arch",
        "instruction",
        "d",
        "decimal",
        width = fd.hex_digits().max(1)
    );
    for r in runs {
        let ulps = r.ulps.map_or("inf".to_string(), |u| format!("{u:+}"));
        let _ = writeln!(
            out,
            "{:<w$}  {:<wi$}  {}  {:<24}  {ulps}",
            r.arch,
            r.target.name,
            cases::hex(r.explanation.d, &fd),
            decimal(r.explanation.d, &fd)
        );
    }
    for r in runs {
        let _ = writeln!(out, "  {}: {}", r.arch, r.explanation.unit);
    }
    for (a, b, why) in &parts {
        let _ = writeln!(out, "{a} vs {b}: traces part at {why}");
    }
    if parts.is_empty() && runs.len() > 1 {
        let _ = writeln!(out, "all results agree");
    }
    for s in skipped {
        let _ = writeln!(out, "skipped {s}");
    }
    mma_cli::out!("{out}");
    Ok(true)
}

/// The K values of a family's instructions on an architecture, for messages.
fn ks(all: &[Entry], vendor: &str, arch: &str, fam: &str) -> String {
    let mut k: Vec<usize> = all
        .iter()
        .filter(|e| e.vendor == vendor && e.arch == arch && family(e.target.unit) == fam)
        .map(|e| e.target.k)
        .collect();
    k.sort();
    k.dedup();
    k.iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
