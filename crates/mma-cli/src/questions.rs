//! `mma probe emit --question NAME`: open questions about a unit, each as two unit files (this
//! project's reading and another model's), and the few probes on which the two readings give
//! different words, so that one run on a GPU settles the question.
//!
//! The questions are data: `crates/mma-cli/questions/index.txt` (one line per question) and the unit
//! files beside it, compiled into the binary here so that the tool needs no checkout. Both
//! readings run through the same unit-file path as `--unit FILE` (`Target::from_unit_file`),
//! so an expected word is what `mma dot --unit FILE` prints for the same operands. Where no
//! input tells the readings apart (`same` in the index), `emit` says so and writes no probe;
//! the tests hold every `same` question to that over the same candidates.

use anyhow::{anyhow, bail, Context, Result};
use mma::cases::Target;
use mma::{Format, Formats};
use mma_io::out::OutFile;
use mma_probe::emit::{random_iter, targeted, Spec};
use mma_probe::records::{self, Record};
use mma_probe::values;
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value as Json;
use std::io::Write;
use std::path::Path;

/// The index: `name<TAB>arch<TAB>instr<TAB>default file<TAB>alternative file<TAB>label<TAB>
/// differ|same<TAB>evidence`.
pub const INDEX: &str = include_str!("../questions/index.txt");

/// The unit files the index names, by file name.
macro_rules! files {
    ($($n:literal),* $(,)?) => {
        &[$(($n, include_str!(concat!("../questions/", $n)))),*]
    };
}
const FILES: &[(&str, &str)] = files![
    "mxf8f6f4-window-floor.this-project.json",
    "mxf8f6f4-window-floor.tcgen05-model.json",
    "f16-window-floor.this-project.json",
    "f16-window-floor.tcgen05-model.json",
    "nvfp4-groups.this-project.json",
    "nvfp4-groups.tcgen05-model.json",
    "mxf4-group-floor.this-project.json",
    "mxf4-group-floor.tcgen05-model.json",
    "hopper-fp8-c-late.this-project.json",
    "hopper-fp8-c-late.c-added-last.json",
    "hopper-fp8-exponent-floor.this-project.json",
    "hopper-fp8-exponent-floor.no-floor.json",
];

/// The most probes written per question: a handful settles it, and a device run stays short.
const MAX_PROBES: usize = 16;

/// Candidate inputs tried per question before giving up (deterministic: fixed seeds).
const CANDIDATES: usize = 200_000;

/// One question of the index.
pub struct Question {
    pub name: &'static str,
    pub arch: &'static str,
    pub instr: &'static str,
    /// This project's reading (the catalog's unit) and the other model's, as file names.
    pub default: &'static str,
    pub alternative: &'static str,
    /// The alternative's name in the probes' `d_<label>` key.
    pub label: &'static str,
    /// Whether some input tells the readings apart (`differ` in the index) or none does.
    pub differ: bool,
    pub evidence: &'static str,
}

/// The questions of the index, in its order (comment lines start with `#`).
pub fn questions() -> Vec<Question> {
    INDEX
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&'static str> = l.split('\t').collect();
            assert!(
                f.len() == 8 && (f[6] == "differ" || f[6] == "same"),
                "crates/mma-cli/questions/index.txt: 8 fields per line, the seventh differ or same: {l}"
            );
            Question {
                name: f[0],
                arch: f[1],
                instr: f[2],
                default: f[3],
                alternative: f[4],
                label: f[5],
                differ: f[6] == "differ",
                evidence: f[7],
            }
        })
        .collect()
}

/// The text of a question's unit file; an index line naming a file not compiled in is an
/// error (the tests run every question, so it cannot ship).
fn unit_text(file: &str) -> Result<&'static str> {
    FILES
        .iter()
        .find(|(n, _)| *n == file)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            anyhow!("crates/mma-cli/questions/{file} is named by the index but not compiled in")
        })
}

/// A question's unit file as a target.
pub fn unit(file: &'static str) -> Result<Target> {
    let f: mma::UnitFile = serde_json::from_str(unit_text(file)?)
        .with_context(|| format!("crates/mma-cli/questions/{file}: not a unit file"))?;
    Target::from_unit_file(&f, file).with_context(|| format!("crates/mma-cli/questions/{file}"))
}

/// The word of `fmt` for sign, biased exponent field and mantissa field.
fn word(fmt: &Format, neg: bool, exp: u64, man: u64) -> u64 {
    let s = u64::from(neg && fmt.signed) << (fmt.exp_bits + fmt.man_bits);
    (s | (exp << fmt.man_bits) | man) << fmt.lsb
}

/// A candidate record; each scale list has one word per scale block, drawn by `scale`.
fn candidate(
    spec: &Spec,
    label: String,
    (a, b, c): (Vec<u64>, Vec<u64>, u64),
    mut scale: impl FnMut() -> u64,
) -> Record {
    let n = spec
        .formats
        .scale
        .map_or(0, |(_, per)| spec.k.div_ceil(per));
    let scale_a = (0..n).map(|_| scale()).collect();
    let scale_b = (0..n).map(|_| scale()).collect();
    Record {
        label,
        a,
        b,
        c,
        scale_a,
        scale_b,
        d: 0,
    }
}

/// The scale format of `f` (ue8m0 where the unit has none: its draws are then unused).
fn scale_format(f: &Formats) -> Format {
    f.scale.map_or(mma::format::UE8M0, |(s, _)| s)
}

/// Random inputs focused where floors and windows matter: every element and scale drawn with
/// a small exponent field most of the time, so that the products and the result fall into the
/// subnormal range of D, where a floor on the window's exponent can cut low bits.
fn tiny_draws(spec: &Spec, n: usize, seed: u64) -> impl Iterator<Item = Record> + '_ {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let f = spec.formats;
    let sf = scale_format(&f);
    (0..n).map(move |i| {
        let mut el = |fmt: &Format, low: bool| {
            let r = rng.next_u64();
            let emax = (1u64 << fmt.exp_bits) - 1;
            let exp = if low { r % 3 } else { (r >> 8) % (emax + 1) };
            let man = (r >> 16) & ((1u64 << fmt.man_bits) - 1);
            word(fmt, (r >> 40) & 1 == 1, exp, man)
        };
        // Half the draws mix a few full-range elements among tiny ones: a large product sets
        // the window, the tiny ones fall below its floor (or not, without one).
        let wide = i % 2 == 1;
        let a = (0..spec.k)
            .map(|j| el(&f.a, !(wide && j % 8 == 0)))
            .collect();
        let b = (0..spec.k)
            .map(|j| el(&f.b, !(wide && j % 8 == 0)))
            .collect();
        let c = if i % 4 < 2 { 0 } else { el(&f.c, true) };
        // Scales from the bottom of their range up to 1: their product moves the block's
        // products across D's subnormal range, where the floor can cut.
        let bias = sf.bias.max(1) as u64;
        candidate(spec, format!("tiny {i}"), (a, b, c), || {
            word(&sf, false, rng.next_u64() % (bias + 1), 0)
        })
    })
}

/// Random inputs whose block scales are spread over the scale format's whole range: each
/// block's scale is its format's largest or smallest positive value, or a random one, and
/// the elements are random finite words. Products of a small-scale block then sit far below
/// the window's top, where the truncation of each group (and so the grouping) shows.
fn spread_draws(spec: &Spec, n: usize, seed: u64) -> impl Iterator<Item = Record> + '_ {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let f = spec.formats;
    let sf = scale_format(&f);
    let top = values::max_finite(&sf, false);
    let low = values::min_positive(&sf, false).unwrap_or(top);
    (0..n).map(move |i| {
        let a = (0..spec.k)
            .map(|_| values::random_bits(&f.a, &mut rng))
            .collect();
        let b = (0..spec.k)
            .map(|_| values::random_bits(&f.b, &mut rng))
            .collect();
        let c = if i % 2 == 0 {
            0
        } else {
            values::random_bits(&f.c, &mut rng)
        };
        candidate(spec, format!("spread {i}"), (a, b, c), || {
            match rng.next_u64() % 3 {
                0 => top,
                1 => low,
                _ => values::random_bits(&sf, &mut rng),
            }
        })
    })
}

/// A probe: the inputs, this project's word and the other model's.
pub type Probe = (Record, u64, u64);

/// The names, for errors and `--question list`.
fn names() -> String {
    questions()
        .iter()
        .map(|q| q.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The probes of one question: inputs on which the two readings give different words, with
/// each reading's word, at most [`MAX_PROBES`], in a deterministic order.
pub fn probes(q: &Question) -> Result<(Formats, Vec<Probe>)> {
    let (this, other) = (unit(q.default)?, unit(q.alternative)?);
    let spec = Spec {
        formats: this.unit.formats,
        k: this.k,
    };
    let mut out = Vec::new();
    let cands = targeted(&spec)
        .into_iter()
        .chain(tiny_draws(&spec, CANDIDATES, 1))
        .chain(spread_draws(&spec, CANDIDATES, 1))
        .chain(random_iter(&spec, CANDIDATES, 1));
    for r in cands {
        let d0 = this
            .unit
            .dot_scaled(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
        let d1 = other
            .unit
            .dot_scaled(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
        if d0 != d1 {
            out.push((r, d0, d1));
            if out.len() == MAX_PROBES {
                break;
            }
        }
    }
    Ok((spec.formats, out))
}

/// The question called `name`, or an error listing the names.
pub fn find(name: &str) -> Result<Question> {
    questions()
        .into_iter()
        .find(|q| q.name == name)
        .ok_or_else(|| {
            anyhow!(
                "--question: unknown question {name:?}; the questions are: list, {}",
                names()
            )
        })
}

/// Writes `text` to `path` through [`OutFile`] (whole or not at all).
fn write_file(path: &Path, text: &str) -> Result<()> {
    let mut f = OutFile::create(path, &[])?;
    let r = f.write_all(text.as_bytes());
    r.map_err(|e| f.error(e))?;
    f.commit()?;
    Ok(())
}

/// `mma probe emit --question NAME -o DIR`: writes both readings' unit files into `DIR` (for
/// `mma explain --unit`, `mma dot --unit`) and `DIR/NAME.jsonl`, the probes in the case
/// format of `mma probe emit` (no `"d"`: the device fills it in), each with `d_this_project`
/// and `d_<label>`, the word each reading expects. A question whose readings never differ
/// writes no probe and says so.
pub fn emit(name: &str, dir: &Path) -> Result<bool> {
    if name == "list" {
        for q in questions() {
            mma_cli::outln!(
                "{}\t{} {}\t{}\t{} ({})\t{}\t{}",
                q.name,
                q.arch,
                q.instr,
                q.default,
                q.alternative,
                q.label,
                if q.differ { "differ" } else { "same" },
                q.evidence
            );
        }
        return Ok(true);
    }
    let q = find(name)?;
    let (formats, found) = probes(&q)?;
    match (q.differ, found.is_empty()) {
        (true, true) => bail!(
            "--question {name}: no input among the candidates separates the two readings \
             (the index says they differ; please report this)"
        ),
        (false, false) => bail!(
            "--question {name}: the index says the readings never differ, yet an input \
             separates them (please report this)"
        ),
        _ => {}
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for file in [q.default, q.alternative] {
        write_file(&dir.join(file), unit_text(file)?)?;
    }
    if !q.differ {
        mma_cli::outln!(
            "{name}: the two readings give the same word on every candidate input: nothing to \
             run on a GPU. {}",
            q.evidence
        );
        return Ok(true);
    }
    let path = dir.join(format!("{name}.jsonl"));
    let key = format!("d_{}", q.label);
    let mut f = OutFile::create(&path, &[])?;
    let r: std::io::Result<()> = (|| {
        writeln!(
            f,
            "# Question {name} ({} {}): run each line on the device and set \"d\"; \
             it equals d_this_project ({}) or {key} ({}). {}",
            q.arch, q.instr, q.default, q.alternative, q.evidence
        )?;
        for (i, (rec, d0, d1)) in found.iter().enumerate() {
            let extra = [
                ("probe", Json::String(format!("question {name} {}", i + 1))),
                ("d_this_project", records::hex(*d0, &formats.d).into()),
                (key.as_str(), records::hex(*d1, &formats.d).into()),
            ];
            writeln!(f, "{}", records::write_line(&formats, rec, None, &extra))?;
        }
        Ok(())
    })();
    r.map_err(|e| f.error(e))?;
    f.commit()?;
    mma_cli::outln!("{}: {} probes", path.display(), found.len());
    Ok(true)
}
