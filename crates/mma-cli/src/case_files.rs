//! `mma eval` and `mma check`: case files (JSON Lines, one dot product per line) through the
//! models, one line at a time; a line that cannot be read costs only its own line.

use crate::flags::load_unit;
use anyhow::{Context, Result};
use mma::cases::{self, Case, CaseError, LineError};
use mma_io::out::{stdout_error, OutFile};
use mma_io::{Line, Lines};
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Write every case back with "d" set to the model's result.
///
/// Example: mma eval vectors/rounding.jsonl -o out.jsonl
#[derive(clap::Args)]
pub struct EvalCmd {
    /// Case file (JSON Lines, one dot product per line; see docs/cli.md, "Case files").
    pub input: PathBuf,
    /// Write the cases here instead of to standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Run every line on this unit file's unit (lines may omit "arch" and "instr").
    #[arg(long)]
    pub unit: Option<PathBuf>,
}

impl EvalCmd {
    pub fn run(self) -> Result<bool> {
        let fixed = self.unit.as_deref().map(load_unit).transpose()?;
        eval(&self.input, self.output.as_deref(), fixed.as_ref())
    }
}

/// Compare the model with each case's "d"; exit non-zero on any failure.
///
/// Example: mma check vectors/*.jsonl --show 3
#[derive(clap::Args)]
pub struct CheckCmd {
    /// Case files whose lines carry the expected "d".
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// How many failing lines to show per file.
    #[arg(long, default_value_t = 5)]
    pub show: usize,
    /// Count any NaN as equal to any NaN (for references whose NaN payload comes from the
    /// host CPU, such as mmasim's FMA, FTZ-MulAdd and E-FDPA paths).
    #[arg(long)]
    pub any_nan: bool,
    /// Run every line on this unit file's unit (lines may omit "arch" and "instr").
    #[arg(long)]
    pub unit: Option<PathBuf>,
}

impl CheckCmd {
    pub fn run(self) -> Result<bool> {
        let fixed = self.unit.as_deref().map(load_unit).transpose()?;
        check(&self.files, self.show, self.any_nan, fixed.as_ref())
    }
}

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
type Fixed<'a> = Option<&'a cases::Target>;

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
fn eval(input: &Path, output: Option<&Path>, fixed: Fixed) -> Result<bool> {
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
fn check(files: &[std::path::PathBuf], show: usize, any_nan: bool, fixed: Fixed) -> Result<bool> {
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
