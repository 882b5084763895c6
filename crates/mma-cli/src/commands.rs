//! The subcommands. Each returns Ok(true) on success, Ok(false) when a check failed.

use anyhow::{Context, Result};
use mma::cases::{self, Case, CaseError, LineError};
use mma_io::out::{stdout_error, OutFile};
use mma_io::{Line, Lines};
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// Opens a case file (or `-` for standard input) as a stream of numbered lines.
fn open_lines(path: &Path) -> Result<Lines<Box<dyn BufRead>>> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let f = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Box::new(BufReader::new(f))
    };
    Ok(Lines::new(reader))
}

/// A line that holds a case (not blank, not a comment), as text, or why it cannot be read.
fn case_text(line: &Line) -> Option<Result<&str, CaseError>> {
    if line.is_comment() {
        return None;
    }
    Some(match line {
        Line::Text(s) => Ok(s.as_str()),
        other => Err(CaseError::Json(other.problem().unwrap_or_default())),
    })
}

/// The instruction every line runs on instead of its own (`--unit FILE`), if any.
pub type Fixed<'a> = Option<&'a cases::Target>;

/// Reads a unit file (JSON, the schema of `mma_core::unit_file`) as the target of every line.
/// The unit lives as long as the process: one is read per command.
pub fn load_unit(path: &Path) -> Result<cases::Target> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: mma::core::UnitFile = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a unit file", path.display()))?;
    let unit = mma::core::DotUnit::try_from(&file)
        .with_context(|| format!("{}: not a unit file", path.display()))?;
    let k = file.k.unwrap_or(unit.block);
    let name: &'static str = Box::leak(path.display().to_string().into_boxed_str());
    Ok(cases::Target::of_unit(Box::leak(Box::new(unit)), k, name))
}

/// Evaluates a line; errors carry the file and line.
fn eval_line(
    file: &str,
    n: usize,
    line: &str,
    fixed: Fixed,
) -> Result<(Case, cases::Target, u64), LineError> {
    let wrap = |error: CaseError| LineError {
        file: file.to_string(),
        line: n,
        error,
    };
    let case = cases::parse_line_for(line, fixed).map_err(wrap)?;
    let (t, d) = cases::evaluate_for(&case, fixed).map_err(wrap)?;
    Ok((case, t, d))
}

/// The output line of a refused input line: its fields (if it was a JSON object) with
/// `"line"` (its number) and `"error"` set and no `"d"`, or `{"line": n, "error": ...}`.
fn refused_line(text: Option<&str>, n: usize, error: &CaseError) -> String {
    let mut m = match text.and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()) {
        Some(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    m.remove("d");
    m.insert("line".into(), n.into());
    m.insert("error".into(), error.to_string().into());
    serde_json::Value::Object(m).to_string()
}

/// `mma eval`: one output line for every input line, in order. Comments and blank lines are
/// copied as they are; a case gets `"d"`; a refused line gets `"error"` (and is reported on
/// stderr). Reads and writes one line at a time.
pub fn eval(input: &Path, output: Option<&Path>, fixed: Fixed) -> Result<bool> {
    let lines = open_lines(input)?;
    let file = input.display().to_string();
    // The output never is the input, and replaces the old file only once complete.
    let target = output.map(|p| OutFile::create(p, &[input])).transpose()?;
    let mut sink = Sink::new(target);
    let ok = eval_into(lines, &file, fixed, &mut sink)?;
    sink.commit()?;
    Ok(ok)
}

/// Where `mma eval` writes: a file (atomically) or standard output, with the failed write
/// named in the error.
enum Sink {
    File(OutFile),
    Stdout(BufWriter<std::io::StdoutLock<'static>>),
}

impl Sink {
    fn new(file: Option<OutFile>) -> Sink {
        match file {
            Some(f) => Sink::File(f),
            None => Sink::Stdout(BufWriter::new(std::io::stdout().lock())),
        }
    }

    /// Writes one line; a failure names the output.
    fn line(&mut self, text: &[u8]) -> Result<()> {
        let r = self.write_all(text).and_then(|_| self.write_all(b"\n"));
        r.map_err(|e| match self {
            Sink::File(f) => f.error(e).into(),
            Sink::Stdout(_) => stdout_error(e).into(),
        })
    }

    fn commit(self) -> Result<()> {
        match self {
            Sink::File(f) => f.commit()?,
            Sink::Stdout(mut w) => w.flush().map_err(stdout_error)?,
        }
        Ok(())
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(w) => w.flush(),
        }
    }
}

/// The lines of `mma eval` into `out`; `Ok(false)` when a line was refused (each costs only
/// its own line), `Err` when the input could not be read or the output not written.
fn eval_into(
    lines: Lines<Box<dyn BufRead>>,
    file: &str,
    fixed: Fixed,
    out: &mut Sink,
) -> Result<bool> {
    let mut ok = true;
    for item in lines {
        let (n, line) = item.with_context(|| format!("cannot read {file}"))?;
        let text = match case_text(&line) {
            None => {
                out.line(line.bytes())?;
                continue;
            }
            Some(t) => t,
        };
        let as_text = text.as_ref().ok().copied();
        let result = text
            .map_err(|error| LineError {
                file: file.to_string(),
                line: n,
                error,
            })
            .and_then(|t| eval_line(file, n, t, fixed));
        match result {
            Ok((case, t, d)) => {
                let text = cases::with_d(&case, cases::hex(d, &t.unit.formats.d));
                out.line(text.as_bytes())?
            }
            Err(e) => {
                eprintln!("error: {e}");
                out.line(refused_line(as_text, n, &e.error).as_bytes())?;
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// Checks one case line against its `"d"`: `Ok((same, expected, model))`.
fn check_line(
    file: &str,
    n: usize,
    text: &str,
    any_nan: bool,
    fixed: Fixed,
) -> Result<(bool, String, String), LineError> {
    let (case, t, d) = eval_line(file, n, text, fixed)?;
    let wrap = |error: CaseError| LineError {
        file: file.to_string(),
        line: n,
        error,
    };
    let want = cases::expected_d(&case, &t)
        .map_err(wrap)?
        .ok_or_else(|| wrap(CaseError::Missing("d")))?;
    let fmt = &t.unit.formats.d;
    let same = want == d || (any_nan && fmt.decode(want).is_nan() && fmt.decode(d).is_nan());
    Ok((same, cases::hex(want, fmt), cases::hex(d, fmt)))
}

/// `mma check`: every case of every file against its `"d"`, one line at a time. A file that
/// cannot be read or holds no case counts as a failure.
pub fn check(
    files: &[std::path::PathBuf],
    show: usize,
    any_nan: bool,
    fixed: Fixed,
) -> Result<bool> {
    let (mut tp, mut tf) = (0usize, 0usize);
    for path in files {
        let file = path.display().to_string();
        let lines = match open_lines(path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e:#}");
                tf += 1;
                continue;
            }
        };
        let (mut p, mut f, mut shown) = (0usize, 0usize, 0usize);
        for item in lines {
            let (n, line) = match item {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("error: cannot read {file}: {e}");
                    f += 1;
                    break;
                }
            };
            let Some(text) = case_text(&line) else {
                continue;
            };
            let res = text
                .map_err(|error| LineError {
                    file: file.clone(),
                    line: n,
                    error,
                })
                .and_then(|t| check_line(&file, n, t, any_nan, fixed));
            match res {
                Ok((true, _, _)) => p += 1,
                Ok((false, want, got)) => {
                    f += 1;
                    if shown < show {
                        mma_cli::outln!("  {file}:{n}: expected d = {want}, model gives {got}");
                        shown += 1;
                    }
                }
                Err(e) => {
                    f += 1;
                    if shown < show {
                        mma_cli::outln!("  {e}");
                        shown += 1;
                    }
                }
            }
        }
        if p + f == 0 {
            mma_cli::outln!("{file}: no cases to check (every line is blank or a comment)");
            tf += 1;
            continue;
        }
        mma_cli::outln!("{file}: {p} passed, {f} failed");
        tp += p;
        tf += f;
    }
    if files.len() > 1 {
        mma_cli::outln!("total: {tp} passed, {tf} failed");
    }
    Ok(tf == 0)
}

/// `mma list --arch A --instr I --unit-file`: the catalog unit as a unit file (JSON), with the
/// instruction's K.
pub fn unit_file(arch: &str, instr: &str) -> Result<bool> {
    let t = cases::resolve(cases::vendor_of(arch), arch, None, instr)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut file = mma::core::UnitFile::from(t.unit);
    file.k = Some(t.k);
    mma_cli::outln!("{}", serde_json::to_string_pretty(&file)?);
    Ok(true)
}

/// Every architecture name of the built-in catalogs, for the error on an unknown one.
fn known_archs() -> String {
    let nv: Vec<&str> = mma::nvidia::Arch::ALL.iter().map(|a| a.name()).collect();
    let amd: Vec<&str> = mma::amd::Arch::ALL.iter().map(|a| a.name()).collect();
    format!(
        "NVIDIA: {}; AMD: {} (PTX targets such as sm_90 and products such as H100 or MI300X work too)",
        nv.join(", "),
        amd.join(", ")
    )
}

/// Which vendors `mma list` shows.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Vendor {
    Nvidia,
    Amd,
}

/// How `mma list` prints the catalog.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ListOutput {
    Table,
    Json,
}

pub fn list(
    arch: Option<&str>,
    filter: Option<&str>,
    vendor: Option<Vendor>,
    output: ListOutput,
) -> Result<bool> {
    let (nv_arch, amd_arch) = match arch {
        Some(a) => (
            mma::nvidia::parse_arch(a).ok(),
            mma::amd::parse_arch(a).ok(),
        ),
        None => (None, None),
    };
    if let (Some(a), None, None) = (arch, nv_arch, amd_arch) {
        anyhow::bail!("unknown architecture {a:?}; known: {}", known_archs());
    }
    let filter_lc = filter.map(str::to_ascii_lowercase);
    let keep = |name: &str| match &filter_lc {
        None => true,
        Some(f) => name.to_ascii_lowercase().contains(f),
    };
    // Both catalogs have the same row type: one row format for both.
    fn row<A: std::fmt::Display, O: std::fmt::Display>(
        vendor: &str,
        i: &mma::catalog::Instruction<A, O>,
    ) -> [String; 7] {
        [
            vendor.into(),
            i.arch.to_string(),
            i.op.to_string(),
            i.name.clone(),
            i.k.to_string(),
            i.mnemonic.clone(),
            i.unit.describe(),
        ]
    }
    let mut rows: Vec<[String; 7]> = Vec::new();
    let show = |v: Vendor| vendor.is_none_or(|w| w == v);
    if (arch.is_none() || nv_arch.is_some()) && show(Vendor::Nvidia) {
        rows.extend(
            mma::nvidia::catalog()
                .iter()
                .filter(|i| nv_arch.is_none_or(|a| a == i.arch) && keep(&i.name))
                .map(|i| row("nvidia", i)),
        );
    }
    if (arch.is_none() || amd_arch.is_some()) && show(Vendor::Amd) {
        rows.extend(
            mma::amd::catalog()
                .iter()
                .filter(|i| amd_arch.is_none_or(|a| a == i.arch) && keep(&i.name))
                .map(|i| row("amd", i)),
        );
    }
    if rows.is_empty() {
        // Only a filter can leave nothing: every architecture has instructions.
        anyhow::bail!(
            "no instruction{} contains {:?}",
            arch.map(|a| format!(" of {a}")).unwrap_or_default(),
            filter.unwrap_or_default()
        );
    }
    if output == ListOutput::Json {
        let keys = [
            "vendor",
            "arch",
            "op",
            "instruction",
            "k",
            "ptx_isa",
            "model",
        ];
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut m = serde_json::Map::new();
                for (key, v) in keys.iter().zip(r) {
                    let v = match *key {
                        "k" => serde_json::Value::from(v.parse::<u64>().unwrap_or_default()),
                        _ => serde_json::Value::from(v.as_str()),
                    };
                    m.insert((*key).into(), v);
                }
                serde_json::Value::Object(m)
            })
            .collect();
        mma_cli::outln!("{}", serde_json::Value::Array(items));
        return Ok(true);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let header = [
        "vendor",
        "arch",
        "op",
        "instruction",
        "K",
        "PTX/ISA",
        "model",
    ];
    // A reader that goes away (`mma list | head`) ends the process through SIGPIPE; any
    // other failed write (a full disk) is an error.
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        writeln!(out, "{}", row.join("\t")).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(true)
}

pub fn hw_check(dir: &Path, show: usize) -> Result<bool> {
    use mma::hw;
    let (sets, errors) = hw::load_dir(dir);
    for e in &errors {
        eprintln!("error: {e}");
    }
    let (mut tp, mut tf) = (0usize, 0usize);
    for s in &sets {
        let r = hw::check_set(s);
        mma_cli::outln!(
            "{} {} -> {} ({} {}): {} passed, {} failed",
            s.gpu,
            s.input.name,
            s.output.name,
            s.arch,
            s.instruction.name,
            r.passed,
            r.failures.len()
        );
        for (line, want, got) in r.failures.iter().take(show) {
            let w = cases::hex(*want, &s.output);
            let g = cases::hex(*got, &s.output);
            mma_cli::outln!("  line {line}: GPU {w}, model {g}");
        }
        tp += r.passed;
        tf += r.failures.len();
    }
    if errors.is_empty() {
        mma_cli::outln!("total: {tp} passed, {tf} failed");
    } else {
        mma_cli::outln!(
            "total: {tp} passed, {tf} failed, {} records or folders unreadable (above)",
            errors.len()
        );
    }
    if tp + tf == 0 {
        eprintln!(
            "error: {}: no records to check (expected <GPU>/<format>/{{a,b,c,d}}_*.txt)",
            dir.display()
        );
        return Ok(false);
    }
    Ok(tf == 0 && errors.is_empty())
}

/// A case-file error in the words of `mma dot`'s command line: fields become flags
/// (`scale_a` is `--scale-a`) and element indices count from 1.
pub(crate) fn in_flags(e: CaseError) -> String {
    let flag = |f: &str| format!("--{}", f.replace('_', "-"));
    match e {
        CaseError::Word {
            field,
            index,
            hex,
            msg,
        } => format!("{}: word {} ({hex:?}): {msg}", flag(field), index + 1),
        CaseError::Count {
            field,
            got,
            want,
            instr,
        } => format!(
            "{}: {got} word{}, but {instr} takes {want}",
            flag(field),
            if got == 1 { "" } else { "s" }
        ),
        CaseError::Field { field, msg } => format!("{}: {msg}", flag(field)),
        CaseError::Missing(field) => format!("{} is required", flag(field)),
        other => other.to_string(),
    }
}
