//! `mma probe emit` and `mma infer`: the probe generator and the inference engine of
//! `mma-probe`, joined with the catalogs (which architectures compute a fitting unit), the
//! case-file layer (lines naming a catalog instruction) and the hardware-record reader
//! (folders laid out like `shared/hw`, whatever their GPU folders are called).

use anyhow::{bail, Context, Result};
use mma::{Format, Formats};
use mma_io::out::OutFile;
use mma_probe::emit::{random_iter, targeted, Spec};
use mma_probe::infer::{first_fits, Fit, Inference};
use mma_probe::records::{self, Record, RecordSet};
use mma_probe::report::{self, FitGroup};
use serde_json::{json, Map, Value as Json};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The subcommands of `mma probe`.
#[derive(clap::Subcommand)]
pub enum ProbeCmd {
    Emit(EmitCmd),
}

impl ProbeCmd {
    pub fn run(self) -> Result<bool> {
        match self {
            ProbeCmd::Emit(e) => emit(&e),
        }
    }
}

/// Write probes.jsonl (targeted probes) and random.jsonl (random records) without "d".
///
/// Example: mma probe emit --a-format e4m3 --c-format f32 --d-format f32 --k 32 -o probes/
#[derive(clap::Args)]
pub struct EmitCmd {
    /// A's format, as `mma list` names formats (f16, bf16, tf32, e4m3, e2m1, ...).
    #[arg(long, required_unless_present = "question")]
    pub a_format: Option<String>,
    /// B's format (default: A's).
    #[arg(long)]
    pub b_format: Option<String>,
    /// C's format (f32, f16, ...).
    #[arg(long, required_unless_present = "question")]
    pub c_format: Option<String>,
    /// D's format.
    #[arg(long, required_unless_present = "question")]
    pub d_format: Option<String>,
    /// Elements per dot product.
    #[arg(long, required_unless_present = "question")]
    pub k: Option<usize>,
    /// Block-scale format (ue8m0, ue4m3), with --block.
    #[arg(long, requires = "block")]
    pub scale_format: Option<String>,
    /// Elements per block scale.
    #[arg(long, requires = "scale_format")]
    pub block: Option<usize>,
    /// Number of random records (at most 10^9; they are streamed to the file).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
    pub records: u64,
    /// Seed of the random records.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder to write probes.jsonl and random.jsonl into (with --question: NAME.jsonl).
    #[arg(short, long, required_unless_present = "question")]
    pub output: Option<PathBuf>,
    /// An open question (crates/mma-cli/questions/index.txt; `list` prints them): writes both
    /// readings' unit files and NAME.jsonl, the probes on which the readings differ, each with
    /// both expected words (a question whose readings never differ writes no probe and says
    /// so). `mma compare --question NAME` shows one input under both readings.
    #[arg(long, conflicts_with_all = [
        "a_format", "b_format", "c_format", "d_format", "k", "scale_format", "block", "records",
        "seed",
    ])]
    pub question: Option<String>,
}

fn format(name: &str) -> Result<Format> {
    mma::unit_file::format_by_name(name)
        .with_context(|| format!("unknown format {name:?} (names as `mma list` prints them)"))
}

/// Writes `probes.jsonl` (targeted) and `random.jsonl` (N random records) under `out`.
fn emit(o: &EmitCmd) -> Result<bool> {
    if let Some(q) = &o.question {
        let dir = o.output.clone().unwrap_or_default();
        if q != "list" && o.output.is_none() {
            bail!("--question {q}: -o DIR is required");
        }
        return crate::questions::emit(q, &dir);
    }
    // Without --question, clap requires these (`required_unless_present`).
    let (Some(a_format), Some(c_format), Some(d_format), Some(k), Some(output)) =
        (&o.a_format, &o.c_format, &o.d_format, o.k, &o.output)
    else {
        bail!("--a-format, --c-format, --d-format, --k and -o are required");
    };
    let a = format(a_format)?;
    let scale = match (&o.scale_format, o.block) {
        (Some(s), Some(n)) if n > 0 => Some((format(s)?, n)),
        (None, None) => None,
        _ => bail!("--scale-format and --block (> 0) go together"),
    };
    if k == 0 || k > 4096 {
        bail!("--k must be between 1 and 4096");
    }
    if let Some((s, per)) = scale {
        if s.signed {
            bail!(
                "--scale-format: {} is not a scale format (ue8m0 or ue4m3)",
                s.name
            );
        }
        if !k.is_multiple_of(per) {
            bail!(
                "--block {per} does not divide --k {}: every scale factor covers whole blocks",
                k
            );
        }
    }
    let element = |flag: &str, name: &str| -> Result<Format> {
        let f = format(name)?;
        if !f.signed {
            bail!(
                "{flag}: {} is a scale format, not an element format",
                f.name
            );
        }
        Ok(f)
    };
    let spec = Spec {
        formats: Formats {
            a: element("--a-format", a_format)?,
            b: match &o.b_format {
                Some(b) => element("--b-format", b)?,
                None => a,
            },
            c: element("--c-format", c_format)?,
            d: element("--d-format", d_format)?,
            scale,
        },
        k,
    };
    fs::create_dir_all(output).with_context(|| format!("cannot create {}", output.display()))?;
    // Both files are written in full before either replaces an old one (`OutFile`): a failure
    // (a full disk) leaves the folder as it was.
    let write = |name: &str,
                 header: &str,
                 recs: &mut dyn Iterator<Item = Record>,
                 field: &str|
     -> Result<(OutFile, usize)> {
        let mut f = OutFile::create(&output.join(name), &[])?;
        let mut n = 0usize;
        let mut put = |line: &str| writeln!(f, "{line}");
        let r: std::io::Result<()> = (|| {
            put(&format!("# {header}"))?;
            for r in recs {
                let extra = [(field, Json::String(r.label.clone()))];
                put(&records::write_line(&spec.formats, &r, None, &extra))?;
                n += 1;
            }
            Ok(())
        })();
        r.map_err(|e| f.error(e))?;
        Ok((f, n))
    };
    let (pf, t) = write(
        "probes.jsonl",
        "Targeted probes (mma probe emit): run each line on the device, set \"d\", then `mma infer`.",
        &mut targeted(&spec).into_iter(),
        "probe",
    )?;
    let (rf, r) = write(
        "random.jsonl",
        "Random records (mma probe emit): run each line on the device, set \"d\", then `mma infer`.",
        &mut random_iter(&spec, o.records as usize, o.seed),
        "sampler",
    )?;
    pf.commit()?;
    rf.commit()?;
    mma_cli::outln!(
        "{}: {t} targeted probes (probes.jsonl), {r} random records (random.jsonl)",
        output.display()
    );
    Ok(true)
}

/// Reads a case file's records: lines that name their formats (`mma probe emit`), or a
/// catalog instruction (`arch`/`instr`), with a `d`. Lines without `d` are skipped.
fn case_file(path: &Path) -> Result<Vec<RecordSet>> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    let mut items: Vec<(Formats, Record)> = Vec::new();
    let mut errors = 0usize;
    for (i, line) in text.lines().enumerate() {
        if mma::cases::is_comment(line) {
            continue;
        }
        let label = format!("{name}:{}", i + 1);
        match case_line(line, label.clone()) {
            Ok(Some(x)) => items.push(x),
            Ok(None) => {}
            Err(e) => {
                if errors < 5 {
                    eprintln!("error: {label}: {e}");
                }
                errors += 1;
            }
        }
    }
    if errors > 0 {
        eprintln!("{name}: {errors} lines not read");
    }
    // The targeted probes first: they remove most candidates at once.
    items.sort_by_key(|(_, r)| !r.label.contains("probe"));
    Ok(records::group(&name, items))
}

fn case_line(line: &str, label: String) -> Result<Option<(Formats, Record)>> {
    let v: Json = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("not JSON: {e}"))?;
    let Json::Object(m) = v else {
        bail!("a case must be a JSON object");
    };
    if !m.contains_key("d") {
        return Ok(None);
    }
    let tagged = |mut r: Record| {
        if m.contains_key("probe") {
            r.label = format!("{} (probe {})", r.label, m["probe"]);
        }
        r
    };
    if m.contains_key("a_format") {
        let f = records::line_formats(&m)?;
        let (r, _) = records::read_line(&m, &f, label)?;
        return Ok(Some((f, tagged(r))));
    }
    let case = mma::cases::parse_line(line)?;
    let t = mma::cases::resolve(&case.vendor, &case.arch, case.op.as_deref(), &case.instr)?;
    let o = mma::cases::operands(&case, &t)?;
    let d = mma::cases::expected_d(&case, &t)?.unwrap_or_default();
    Ok(Some((
        t.unit.formats,
        tagged(Record {
            label,
            a: o.a,
            b: o.b,
            c: o.c,
            scale_a: o.scale_a,
            scale_b: o.scale_b,
            d,
        }),
    )))
}

fn has_record_files(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("a_"))
    })
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One `<fmt>` folder of hardware records: a set per output format.
fn format_dir(dir: &Path) -> Result<Vec<RecordSet>> {
    let (input, outputs, errors) = mma::hw::read_format_dir(dir)?;
    for e in errors.iter().take(5) {
        eprintln!("error: {e}");
    }
    if errors.len() > 5 {
        eprintln!(
            "error: ... and {} more records of {} that could not be read",
            errors.len() - 5,
            dir.display()
        );
    }
    Ok(outputs
        .into_iter()
        .filter(|(_, recs)| !recs.is_empty())
        .map(|(output, recs)| {
            let k = recs[0].a.len();
            RecordSet {
                source: format!("{} -> {}", dir.display(), output.name),
                formats: Formats {
                    a: input,
                    b: input,
                    c: output,
                    d: output,
                    scale: None,
                },
                k,
                // Every record has the folder's K: the reader refuses the others, each named
                // by file and line above.
                records: recs
                    .into_iter()
                    .map(|r| Record {
                        label: format!("line {}", r.line),
                        a: r.a,
                        b: r.b,
                        c: r.c,
                        scale_a: Vec::new(),
                        scale_b: Vec::new(),
                        d: r.d,
                    })
                    .collect(),
            }
        })
        .collect())
}

/// The record sets of a path: a case file, a `<fmt>` folder, a GPU folder of them, or a
/// folder of GPU folders.
pub fn load(path: &Path) -> Result<Vec<RecordSet>> {
    // The real reason a path cannot be read (a symbolic-link loop, no permission), and no
    // endless read of a device such as /dev/zero.
    let meta = fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_file() {
        return case_file(path);
    }
    if !meta.is_dir() {
        bail!(
            "{}: not a case file or a folder of records (a device, pipe or socket)",
            path.display()
        );
    }
    if has_record_files(path) {
        return format_dir(path);
    }
    let mut sets = Vec::new();
    for sub in subdirs(path) {
        if has_record_files(&sub) {
            sets.extend(format_dir(&sub)?);
        } else {
            for fdir in subdirs(&sub) {
                if has_record_files(&fdir) {
                    sets.extend(format_dir(&fdir)?);
                }
            }
        }
    }
    Ok(sets)
}

/// The catalog architectures with an instruction of the set's formats (K at least the
/// records') whose unit is one of `fits`.
pub fn archs(set: &RecordSet, fits: &[Fit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: String, fit: &Fit| {
        let name = match fit.c {
            mma_probe::grid::CUse::Ignored => format!("{name} (C ignored)"),
            mma_probe::grid::CUse::Applied => name,
        };
        if !out.contains(&name) {
            out.push(name);
        }
    };
    let ins: Vec<_> = mma::catalog::instructions()
        .filter(|i| i.k >= set.k && i.unit.formats == set.formats)
        .collect();
    // One pass over the fits for all of them: few records leave hundreds of thousands.
    let units: Vec<mma::DotUnit> = ins.iter().map(|i| *i.unit).collect();
    let first = first_fits(fits, &units, &set.formats, set.k);
    for (i, j) in ins.iter().zip(first) {
        if let Some(j) = j {
            add(i.arch.to_string(), &fits[j]);
        }
    }
    out
}

fn group_json(g: &FitGroup) -> Json {
    let params: Map<String, Json> = g
        .params
        .iter()
        .map(|(k, v)| {
            let one = |p: &mma::unit_file::Param| serde_json::to_value(p).unwrap_or(Json::Null);
            let val = if v.len() == 1 {
                one(&v[0])
            } else {
                Json::Array(v.iter().map(one).collect())
            };
            (k.clone(), val)
        })
        .collect();
    json!({"model": g.model, "params": params, "explains": g.explains})
}

/// The outcome of one set as JSON (the `--json` schema).
pub fn set_json(set: &RecordSet, inf: &Inference, archs: &[String]) -> Json {
    let f = &set.formats;
    let mut m = json!({
        "source": set.source,
        "a_format": f.a.name,
        "b_format": f.b.name,
        "c_format": f.c.name,
        "d_format": f.d.name,
        "k": set.k,
        "records": inf.records,
        "combinations": inf.fits.len(),
        "fits": report::group(&inf.fits).iter().map(group_json).collect::<Vec<_>>(),
        "archs": archs,
    });
    if let Some((s, n)) = f.scale {
        m["scale_format"] = s.name.into();
        m["scale_block"] = n.into();
    }
    if inf.fits.is_empty() {
        m["best"] = inf
            .best
            .iter()
            .map(|b| {
                let mut j = group_json(&report::group(std::slice::from_ref(b))[0]);
                j["misses"] = json!(b.misses);
                j
            })
            .collect();
    }
    m
}

/// Infer a unit's model from records with the device's results: case files, a folder laid
/// out like shared/hw, or one GPU's folder of it.
///
/// Example: mma infer probes/probes.jsonl probes/random.jsonl --json
#[derive(clap::Args)]
pub struct InferCmd {
    /// Case files with the device's "d", folders laid out like shared/hw, or GPU folders.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print a JSON array, one object per record set.
    #[arg(long)]
    pub json: bool,
    /// Write inputs on which the remaining fits disagree to the file of -o.
    #[arg(long, requires = "output")]
    pub suggest: bool,
    /// The case file --suggest writes.
    #[arg(short, long, requires = "suggest")]
    pub output: Option<PathBuf>,
    /// Write each fit as a unit file into this folder.
    #[arg(long, value_name = "DIR")]
    pub write_units: Option<PathBuf>,
}

impl InferCmd {
    pub fn run(self) -> Result<bool> {
        infer(&self)
    }
}

/// `mma infer`: every record set of every path, its fits or best fits, and the architectures.
fn infer(o: &InferCmd) -> Result<bool> {
    // Never over a file being read (`--suggest -o m.jsonl` on m.jsonl would replace the
    // measured records): refused before any work.
    let inputs: Vec<&Path> = o.paths.iter().map(PathBuf::as_path).collect();
    let suggest_file = o
        .output
        .as_deref()
        .filter(|_| o.suggest)
        .map(|p| OutFile::create(p, &inputs))
        .transpose()?;
    let mut sets = Vec::new();
    for p in &o.paths {
        sets.extend(load(p)?);
    }
    if sets.is_empty() {
        bail!("no records with \"d\" found");
    }
    let mut all_json = Vec::new();
    let mut suggestions: Vec<String> = Vec::new();
    let mut any_fit = true;
    for (si, set) in sets.iter().enumerate() {
        let inf = mma_probe::infer(set);
        let archs = archs(set, &inf.fits);
        any_fit &= !inf.fits.is_empty();
        if o.json {
            all_json.push(set_json(set, &inf, &archs));
        } else {
            print_text(set, &inf, &archs)?;
        }
        if let Some(dir) = &o.write_units {
            write_units(dir, si, set.k, &inf, &inputs)?;
        }
        if o.suggest {
            for r in mma_probe::suggest::separating(set, &inf.fits, 64, 4000) {
                let extra = [("probe", Json::String(r.label.clone()))];
                suggestions.push(records::write_line(&set.formats, &r, None, &extra));
            }
        }
    }
    if o.json {
        mma_cli::outln!("{}", serde_json::to_string_pretty(&all_json)?);
    }
    if let Some(mut f) = suggest_file {
        let mut text = String::from(
            "# Inputs on which the remaining fits disagree (mma infer --suggest): run them, set \"d\", infer again.\n",
        );
        for l in &suggestions {
            text.push_str(l);
            text.push('\n');
        }
        f.write_all(text.as_bytes()).map_err(|e| f.error(e))?;
        let shown = f.shown().to_string();
        f.commit()?;
        eprintln!("{shown}: {} separating inputs", suggestions.len());
    }
    Ok(any_fit)
}

/// Below this many records `mma infer` says that they decide little: `mma probe emit` writes
/// hundreds to thousands of targeted probes, and on the sets of `shared/hw` one record left
/// 5,000 to 100,000 parameter combinations, ten records 72 to 12,000, all 2,500 of them 72 to
/// 8,092 (the conventions and zero exponents no record can tell apart, and more).
const FEW_RECORDS: usize = 100;

/// `1 record`, `2 records`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn print_text(set: &RecordSet, inf: &Inference, archs: &[String]) -> Result<()> {
    let f = &set.formats;
    mma_cli::outln!(
        "{}: {}.{} -> {} (C {}), K = {}, {}",
        set.source,
        f.a.name,
        f.b.name,
        f.d.name,
        f.c.name,
        set.k,
        count(inf.records, "record")
    );
    if inf.fits.is_empty() {
        mma_cli::outln!("  no candidate explains every record; the best:");
        for b in &inf.best {
            let g = &report::group(std::slice::from_ref(b))[0];
            mma_cli::outln!(
                "    {} explains {} of {}; first misses: {}",
                report::describe(g),
                b.explains,
                inf.records,
                b.misses.join(", ")
            );
        }
    } else {
        let groups = report::group(&inf.fits);
        let (n, r) = (inf.fits.len(), inf.records);
        let open = format!(
            "{} in {}",
            count(n, "parameter combination"),
            count(groups.len(), "group")
        );
        if r < FEW_RECORDS {
            mma_cli::outln!(
                "  {} {} little: {open} {} open; the targeted probes of `mma probe emit` and \
                 the inputs of `mma infer --suggest` tell them apart",
                count(r, "record"),
                if r == 1 { "decides" } else { "decide" },
                if n == 1 { "remains" } else { "remain" },
            );
        }
        mma_cli::outln!("  fits explaining every record ({open}):");
        for g in groups {
            mma_cli::outln!("    {}", report::describe(&g));
        }
    }
    if archs.is_empty() {
        mma_cli::outln!("  catalog architectures: none");
    } else {
        mma_cli::outln!("  catalog architectures: {}", archs.join(", "));
    }
    Ok(())
}

/// Writes each fit as a unit file `DIR/set<i>_fit<j>.json` with the set's K (the first 16 of
/// a set).
fn write_units(dir: &Path, si: usize, k: usize, inf: &Inference, inputs: &[&Path]) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (j, f) in inf.fits.iter().take(16).enumerate() {
        let path = dir.join(format!("set{si}_fit{j}.json"));
        let mut file = mma::UnitFile::from(&f.unit);
        file.k = Some(k);
        let mut out = OutFile::create(&path, inputs)?;
        let text = serde_json::to_string_pretty(&file)?;
        out.write_all(text.as_bytes()).map_err(|e| out.error(e))?;
        out.commit()?;
    }
    Ok(())
}
