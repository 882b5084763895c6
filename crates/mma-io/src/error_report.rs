//! Error reports of catalog instructions: draw (or read) inputs, run model and oracle, summarise.
//!
//! A [`Job`] is one resolved instruction; [`run`] evaluates it on a stream of [`Inputs`] with
//! [`mma_oracle::evaluate`] and gathers a [`RunReport`]: the summary of the errors in ulps, the
//! share of correctly rounded results, the Table V bound beside the observed errors, and the
//! worst input, which [`dot_command`] prints as a replayable `mma dot` command line.

use crate::cases::{self, CaseError, Layout, Target};
use crate::codec::exact::{exact_unit, ExactSum};
use mma_core::Format;
use mma_oracle::{evaluate, Dist, Inputs, Sampler, Summary};
use serde_json::{json, Value as Json};
use std::path::PathBuf;
use std::str::FromStr;

/// Where inputs come from: a random distribution or a case file (`file:PATH`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Dist(Dist),
    File(PathBuf),
}

impl FromStr for Source {
    type Err = String;
    fn from_str(s: &str) -> Result<Source, String> {
        match s.strip_prefix("file:") {
            Some(p) if !p.is_empty() => Ok(Source::File(PathBuf::from(p))),
            Some(_) => Err("file: needs a path, e.g. file:cases.jsonl".into()),
            None => s.parse().map(Source::Dist),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Dist(d) => write!(f, "{d}"),
            Source::File(p) => write!(f, "file:{}", p.display()),
        }
    }
}

/// One instruction to report on, as the user named it.
#[derive(Clone, Debug)]
pub struct Job {
    pub vendor: String,
    pub arch: String,
    pub instr: String,
    pub target: Target,
}

impl Job {
    /// Resolves `instr` on `arch`; without `vendor`, the vendor is the one whose catalog knows
    /// the architecture (NVIDIA names first, anything else is tried as AMD).
    pub fn resolve(vendor: Option<&str>, arch: &str, instr: &str) -> Result<Job, CaseError> {
        let vendor = match vendor {
            Some(v) => v.to_ascii_lowercase(),
            None => mma_catalog::vendor_or_default(arch).name().to_string(),
        };
        let target = cases::resolve(&vendor, arch, None, instr)?;
        Ok(Job {
            vendor,
            arch: arch.to_string(),
            instr: instr.to_string(),
            target,
        })
    }

    /// The model and its parameters in words.
    pub fn model(&self) -> String {
        self.target.unit.describe()
    }

    /// A stream of `n` random inputs of the instruction's formats and K: for a sparse
    /// instruction, the kept products (its A compressed and B gathered, K/2 each), which is
    /// what its dense unit sums and what its exact value is the sum of.
    pub fn sample(&self, dist: Dist, seed: u64) -> Sampler {
        Sampler::new(self.target.unit.formats, self.target.unit_k(), dist, seed)
    }

    /// The inputs of every case of a file written for the same formats, K and packing as this
    /// instruction (any architecture or instruction name): a line written for other formats
    /// would read as valid words of this instruction's formats (bf16 and f16 words look
    /// alike) but mean other numbers, so it is left out and counted.
    pub fn file_inputs(&self, path: &std::path::Path) -> Result<FileInputs, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut out = FileInputs::default();
        let t = &self.target;
        for line in text.lines().filter(|l| !cases::is_comment(l)) {
            out.lines += 1;
            let own = cases::parse_line(line).and_then(|c| {
                let own = cases::resolve(&c.vendor, &c.arch, c.op.as_deref(), &c.instr)?;
                Ok((c, own))
            });
            let Ok((case, own)) = own else {
                out.unreadable += 1;
                continue;
            };
            if own.unit.formats != t.unit.formats || own.k != t.k || own.packing != t.packing {
                out.other_formats += 1;
                continue;
            }
            match cases::operands(&case, t) {
                Ok(o) => out.inputs.push(Inputs {
                    a: o.a,
                    b: o.b,
                    c: o.c,
                    scale_a: o.scale_a,
                    scale_b: o.scale_b,
                }),
                Err(_) => out.unreadable += 1,
            }
        }
        Ok(out)
    }
}

/// The cases [`Job::file_inputs`] took from a file, and what it left out.
#[derive(Clone, Debug, Default)]
pub struct FileInputs {
    /// One per line used.
    pub inputs: Vec<Inputs>,
    /// Case lines in the file (comments and blank lines not counted).
    pub lines: usize,
    /// Lines of an instruction with other operand formats, another K or another packing.
    pub other_formats: usize,
    /// Lines that do not parse, name no known instruction or whose operands do not read.
    pub unreadable: usize,
}

impl FileInputs {
    /// `"12 of 20 lines of cases.jsonl used (7 written for other formats or K, 1 unreadable)"`.
    pub fn describe(&self, path: &std::path::Path) -> String {
        format!(
            "{} of {} line{} of {} used ({} written for other formats or K, {} unreadable)",
            self.inputs.len(),
            self.lines,
            if self.lines == 1 { "" } else { "s" },
            path.display(),
            self.other_formats,
            self.unreadable
        )
    }
}

/// The worst sample of a run.
#[derive(Clone, Debug)]
pub struct Worst {
    pub inputs: Inputs,
    pub model: u64,
    /// Signed error in ulps.
    pub ulps: f64,
    /// The exact result as the nearest f64 (NaN/±Inf for specials).
    pub exact: f64,
    /// The Table V bound of this sample in ulps.
    pub bound_ulps: Option<f64>,
}

/// What [`run`] gathers for one instruction.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub summary: Summary,
    pub correctly_rounded: usize,
    /// Signed errors in ulps, one per sample (±Inf for special mismatches).
    pub signed: Vec<f64>,
    /// Largest per-sample Table V bound in ulps (samples with a finite bound).
    pub bound_max_ulps: Option<f64>,
    /// Samples whose bound is not finite (a block overflowed or a special value).
    pub unbounded: usize,
    /// Samples outside their bound (a model bug if non-zero).
    pub violations: usize,
    pub worst: Option<Worst>,
}

/// An integer unit's sample measured exactly: the exact sum ([`exact_unit`], which knows the
/// XOR of `.xor.popc`), D − exact, and whether D is that sum wrapped modulo 2^32 or clamped
/// to the accumulator's range as the unit says.
struct IntegerSample {
    exact: i128,
    error: f64,
    within: bool,
}

fn integer(unit: &mma_core::DotUnit, x: &Inputs, d: u64) -> Option<IntegerSample> {
    let mma_core::Model::IDpa(m) = &unit.model else {
        return None;
    };
    let fd = &unit.formats.d;
    let got = i128::from(fd.int_value(d)?);
    let exact = match exact_unit(unit, &x.a, &x.b, x.c, &x.scale_a, &x.scale_b) {
        ExactSum::Finite { value, exp: 0 } => i128::try_from(value).ok()?,
        _ => return None,
    };
    let (lo, hi) = fd.int_range()?;
    let want = if m.saturate {
        exact.clamp(i128::from(lo), i128::from(hi))
    } else {
        let w = fd.width();
        i128::from(fd.int_value((exact as u128 & ((1u128 << w) - 1)) as u64)?)
    };
    Some(IntegerSample {
        exact,
        error: (got - exact) as f64,
        within: got == want,
    })
}

/// Evaluates `job` on every input, calling `progress(done)` after each.
pub fn run(
    job: &Job,
    inputs: impl IntoIterator<Item = Inputs>,
    mut progress: impl FnMut(usize),
) -> RunReport {
    let unit = job.target.unit;
    let mut r = RunReport {
        summary: Summary::default(),
        correctly_rounded: 0,
        signed: Vec::new(),
        bound_max_ulps: None,
        unbounded: 0,
        violations: 0,
        worst: None,
    };
    let mut abs = Vec::new();
    for (i, x) in inputs.into_iter().enumerate() {
        let mut e = evaluate(unit, &x);
        let int = integer(unit, &x, e.model);
        if let Some(i) = &int {
            // An integer unit: the error is D − exact in units of 1 (nonzero only where the
            // exact sum left the accumulator's range), "correctly rounded" is D = exact, and
            // within is D = the exact sum wrapped or clamped as the unit says.
            e.signed_ulps = i.error;
            e.report.ulps = i.error.abs();
            e.report.correctly_rounded = i.error == 0.0;
            e.within = i.within;
        }
        r.correctly_rounded += e.report.correctly_rounded as usize;
        r.violations += !e.within as usize;
        match e.bound_ulps {
            Some(b) => r.bound_max_ulps = Some(r.bound_max_ulps.map_or(b, |m: f64| m.max(b))),
            None => r.unbounded += 1,
        }
        let worse = match &r.worst {
            None => true,
            Some(w) => {
                e.report.ulps.is_finite() && (e.report.ulps > w.ulps.abs() || !w.ulps.is_finite())
            }
        };
        if worse {
            let exact = match &e.exact {
                _ if int.is_some() => int.as_ref().map_or(0.0, |i| i.exact as f64),
                mma_oracle::ExactResult::Nan => f64::NAN,
                mma_oracle::ExactResult::Inf { neg } => {
                    if *neg {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }
                }
                mma_oracle::ExactResult::Finite { value, .. } => {
                    mma_oracle::rug::Float::with_val(53, value).to_f64()
                }
            };
            r.worst = Some(Worst {
                inputs: x,
                model: e.model,
                ulps: e.signed_ulps,
                exact,
                bound_ulps: e.bound_ulps,
            });
        }
        abs.push(e.report.ulps);
        r.signed.push(e.signed_ulps);
        progress(i + 1);
    }
    r.summary = Summary::of(&abs);
    r
}

fn hexes(xs: &[u64], fmt: &Format) -> String {
    xs.iter()
        .map(|&x| cases::hex(x, fmt))
        .collect::<Vec<_>>()
        .join(",")
}

/// A and B words as a case file or `mma dot` writes them: the instruction's layout
/// ([`Layout::pack`]), each storage word in its hex digits.
pub fn packed(xs: &[u64], fmt: &Format, packing: Layout) -> String {
    let digits = packing.hex_digits(fmt);
    packing
        .pack(fmt, xs)
        .iter()
        .map(|w| format!("{w:0digits$x}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-:,/".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Case-file words with a `0x` in front: `mma dot` reads `0x` followed by hex digits only as a
/// case-file word, where a bare all-digit word such as `4000` could also be a decimal.
fn with_0x(list: String) -> String {
    list.split(',')
        .map(|w| format!("0x{w}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The `mma dot` command line that replays `x` on `job`'s instruction (words with `0x`).
/// A sparse instruction's sample is its kept products: the command gives A compressed, B
/// whole with the gathered elements at the first places of each group (zeros elsewhere, never
/// read) and the metadata selecting those places.
pub fn dot_command(job: &Job, x: &Inputs) -> String {
    let f = &job.target.unit.formats;
    let p = job.target.packing;
    let mut meta = None;
    let b = match job.target.sparse {
        Some(sp) => {
            let m: Vec<u8> = (0..x.b.len()).map(|i| (i % sp.keep) as u8).collect();
            let whole = sp.expand(&x.b, &m, job.target.k, 0).unwrap_or_default();
            meta = Some(m);
            whole
        }
        None => x.b.clone(),
    };
    let x = &Inputs { b, ..x.clone() };
    let mut s = format!(
        "mma dot --vendor {} --arch {} --instr {} --a {} --b {} --c {}",
        job.vendor,
        shell_word(&job.arch),
        shell_word(&job.instr),
        with_0x(packed(&x.a, &f.a, p)),
        with_0x(packed(&x.b, &f.b, p)),
        with_0x(cases::hex(x.c, &f.c))
    );
    if let Some((sf, _)) = f.scale {
        s += &format!(
            " --scale-a {} --scale-b {}",
            with_0x(hexes(&x.scale_a, &sf)),
            with_0x(hexes(&x.scale_b, &sf))
        );
    }
    if let Some(m) = meta {
        let m: Vec<String> = m.iter().map(u8::to_string).collect();
        s += &format!(" --meta {}", m.join(","));
    }
    s
}

fn num(x: f64) -> Json {
    if x.is_finite() {
        json!(x)
    } else {
        json!(x.to_string())
    }
}

/// The report as JSON (non-finite numbers as strings "inf", "NaN").
pub fn to_json(job: &Job, source: &Source, seed: u64, r: &RunReport) -> Json {
    let s = &r.summary;
    let worst = r.worst.as_ref().map(|w| {
        json!({
            "ulps": num(w.ulps),
            "model": cases::hex(w.model, &job.target.unit.formats.d),
            "exact": num(w.exact),
            "bound_ulps": w.bound_ulps.map(num),
            "command": dot_command(job, &w.inputs),
        })
    });
    json!({
        "vendor": job.vendor,
        "arch": job.arch,
        "instr": job.target.name,
        "model": job.model(),
        "k": job.target.k,
        "source": source.to_string(),
        "seed": seed,
        "samples": s.n,
        "infinite": s.infinite,
        "mean_ulps": num(s.mean),
        "median_ulps": num(s.median),
        "p99_ulps": num(s.p99),
        "max_ulps": num(s.max),
        "correctly_rounded": r.correctly_rounded as f64 / s.n.max(1) as f64,
        "bound_max_ulps": r.bound_max_ulps.map(num),
        "unbounded": r.unbounded,
        "violations": r.violations,
        "worst": worst,
    })
}

/// A number of ulps for text: more digits for small values, scientific for huge ones.
fn ulps(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() || a == 0.0 {
        format!("{x}")
    } else if a >= 1e6 {
        format!("{x:.3e}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

/// The report as text, one block per instruction.
pub fn to_text(job: &Job, source: &Source, seed: u64, r: &RunReport) -> String {
    let s = &r.summary;
    let d = &job.target.unit.formats.d;
    let pct = |n: usize| 100.0 * n as f64 / s.n.max(1) as f64;
    let mut t = format!(
        "{} {} ({})\n  {} samples from {}, seed {}, K = {}\n",
        job.arch,
        job.target.name,
        job.model(),
        s.n,
        source,
        seed,
        job.target.k
    );
    t += &format!(
        "  error (ulps of {}): mean {}  median {}  p99 {}  max {}\n",
        d.name,
        ulps(s.mean),
        ulps(s.median),
        ulps(s.p99),
        ulps(s.max)
    );
    if s.infinite > 0 {
        t += &format!(
            "  {} samples ({:.2}%) with an infinite error (overflow or special) are left out\n",
            s.infinite,
            pct(s.infinite)
        );
    }
    t += &if d.integer {
        format!(
            "  exact (d = the exact sum, no wrap or clamp): {:.2}%\n",
            pct(r.correctly_rounded)
        )
    } else {
        format!(
            "  correctly rounded (RNE): {:.2}%\n",
            pct(r.correctly_rounded)
        )
    };
    match r.bound_max_ulps {
        Some(b) => {
            t += &format!(
                "  Table V bound: up to {} ulps over these samples (observed max {}); {} outside the bound",
                ulps(b),
                ulps(s.max),
                r.violations
            );
            if r.unbounded > 0 {
                t += &format!(", {} without a finite bound", r.unbounded);
            }
            t.push('\n');
        }
        None => t += &format!("  Table V bound: none finite; {} outside\n", r.violations),
    }
    if let Some(w) = &r.worst {
        t += &format!(
            "  worst: {}{} ulps (model {} = {}, exact {}{})\n    {}\n",
            if w.ulps > 0.0 { "+" } else { "" },
            ulps(w.ulps),
            cases::hex(w.model, d),
            d.decode(w.model).to_f64(),
            w.exact,
            w.bound_ulps
                .map_or(String::new(), |b| format!(", bound {} ulps", ulps(b))),
            dot_command(job, &w.inputs)
        );
    }
    t
}
