//! The subcommands. Each returns Ok(true) on success, Ok(false) when a check failed.

use anyhow::{Context, Result};
use mma::cases::{self, Case, CaseError, LineError};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Evaluates a line; errors carry the file and line.
fn eval_line(file: &str, n: usize, line: &str) -> Result<(Case, cases::Target, u64), LineError> {
    let wrap = |error: CaseError| LineError {
        file: file.to_string(),
        line: n,
        error,
    };
    let case = cases::parse_line(line).map_err(wrap)?;
    let (t, d) = cases::evaluate(&case).map_err(wrap)?;
    Ok((case, t, d))
}

pub fn eval(input: &Path, output: Option<&Path>) -> Result<bool> {
    let text = read(input)?;
    let file = input.display().to_string();
    let mut out: Box<dyn Write> = match output {
        Some(p) => Box::new(BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let mut ok = true;
    for (i, line) in text.lines().enumerate() {
        if cases::is_comment(line) {
            writeln!(out, "{line}")?;
            continue;
        }
        match eval_line(&file, i + 1, line) {
            Ok((case, t, d)) => writeln!(
                out,
                "{}",
                cases::with_d(&case, cases::hex(d, &t.unit.formats.d))
            )?,
            Err(e) => {
                eprintln!("error: {e}");
                ok = false;
            }
        }
    }
    out.flush()?;
    Ok(ok)
}

pub fn check(files: &[std::path::PathBuf], show: usize, any_nan: bool) -> Result<bool> {
    let (mut tp, mut tf) = (0usize, 0usize);
    for path in files {
        let file = path.display().to_string();
        let text = match read(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e:#}");
                tf += 1;
                continue;
            }
        };
        let (mut p, mut f, mut shown) = (0usize, 0usize, 0usize);
        for (i, line) in text.lines().enumerate() {
            if cases::is_comment(line) {
                continue;
            }
            let res =
                eval_line(&file, i + 1, line).and_then(|(case, t, d)| {
                    let missing = || LineError {
                        file: file.clone(),
                        line: i + 1,
                        error: CaseError::Missing("d"),
                    };
                    let want = case.d().ok_or_else(missing)?.to_string();
                    let want_bits = u64::from_str_radix(want.trim_start_matches("0x"), 16)
                        .map_err(|e| LineError {
                            file: file.clone(),
                            line: i + 1,
                            error: CaseError::Field {
                                field: "d",
                                msg: format!("{want:?}: {e}"),
                            },
                        })?;
                    let fmt = &t.unit.formats.d;
                    let same = want_bits == d
                        || (any_nan && fmt.decode(want_bits).is_nan() && fmt.decode(d).is_nan());
                    Ok((same, want, cases::hex(d, fmt)))
                });
            match res {
                Ok((true, _, _)) => p += 1,
                Ok((false, want, got)) => {
                    f += 1;
                    if shown < show {
                        println!("  {file}:{}: expected d = {want}, model gives {got}", i + 1);
                        shown += 1;
                    }
                }
                Err(e) => {
                    f += 1;
                    if shown < show {
                        println!("  {e}");
                        shown += 1;
                    }
                }
            }
        }
        println!("{file}: {p} passed, {f} failed");
        tp += p;
        tf += f;
    }
    if files.len() > 1 {
        println!("total: {tp} passed, {tf} failed");
    }
    Ok(tf == 0)
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

pub fn list(arch: Option<&str>, filter: Option<&str>) -> Result<bool> {
    let (nv_arch, amd_arch) = match arch {
        Some(a) => (mma::nvidia::parse_arch(a), mma::amd::parse_arch(a).ok()),
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
    let mut rows: Vec<[String; 7]> = Vec::new();
    if arch.is_none() || nv_arch.is_some() {
        for i in mma::nvidia::catalog() {
            if nv_arch.is_some_and(|a| a != i.arch) || !keep(&i.name) {
                continue;
            }
            rows.push([
                "nvidia".into(),
                i.arch.to_string(),
                i.op.to_string(),
                i.name.clone(),
                i.k.to_string(),
                i.ptx(),
                i.describe_model(),
            ]);
        }
    }
    if arch.is_none() || amd_arch.is_some() {
        for i in mma::amd::catalog() {
            if amd_arch.is_some_and(|a| a != i.arch) || !keep(i.name) {
                continue;
            }
            rows.push([
                "amd".into(),
                i.arch.name().into(),
                "MFMA".into(),
                i.name.into(),
                i.k.to_string(),
                i.mnemonic.clone(),
                i.unit.describe(),
            ]);
        }
    }
    if rows.is_empty() {
        // Only a filter can leave nothing: every architecture has instructions.
        anyhow::bail!(
            "no instruction{} contains {:?}",
            arch.map(|a| format!(" of {a}")).unwrap_or_default(),
            filter.unwrap_or_default()
        );
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
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        if writeln!(out, "{}", row.join("\t")).is_err() {
            // The reader went away (`mma list | head`): not an error.
            return Ok(true);
        }
    }
    let _ = out.flush();
    Ok(true)
}

pub fn hw_check(dir: &Path, show: usize) -> Result<bool> {
    use mma::nvidia::hw;
    let (sets, errors) = hw::load_dir(dir);
    for e in &errors {
        eprintln!("error: {e}");
    }
    let (mut tp, mut tf) = (0usize, 0usize);
    for s in &sets {
        let r = hw::check_set(s);
        println!(
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
            println!("  line {line}: GPU {w}, model {g}");
        }
        tp += r.passed;
        tf += r.failures.len();
    }
    println!("total: {tp} passed, {tf} failed");
    Ok(tf == 0 && errors.is_empty())
}

#[allow(clippy::too_many_arguments)]
pub fn dot(
    vendor: &str,
    arch: &str,
    op: Option<&str>,
    instr: &str,
    a: &str,
    b: &str,
    c: &str,
    sa: Option<&str>,
    sb: Option<&str>,
) -> Result<bool> {
    let list = |s: &str| {
        serde_json::Value::Array(
            s.split(',')
                .map(|w| serde_json::Value::String(w.trim().to_string()))
                .collect(),
        )
    };
    let mut m = serde_json::Map::new();
    m.insert("vendor".into(), vendor.into());
    m.insert("arch".into(), arch.into());
    if let Some(op) = op {
        m.insert("op".into(), op.into());
    }
    m.insert("instr".into(), instr.into());
    m.insert("a".into(), list(a));
    m.insert("b".into(), list(b));
    m.insert("c".into(), c.into());
    if let Some(s) = sa {
        m.insert("scale_a".into(), list(s));
    }
    if let Some(s) = sb {
        m.insert("scale_b".into(), list(s));
    }
    let line = serde_json::Value::Object(m).to_string();
    let (case, t, d) =
        eval_line("<command line>", 1, &line).map_err(|e| anyhow::anyhow!("{}", e.error))?;
    let _ = case;
    let fmt = &t.unit.formats.d;
    println!("d = {} ({})", cases::hex(d, fmt), fmt.decode(d).to_f64());
    Ok(true)
}
