//! `mma error-report`: the error distribution of instructions against the exact oracle.
//! Built with the `oracle` feature (GMP/MPFR through rug).

use anyhow::{Context, Result};
use std::fs;
use std::io::Write;
/// Error distribution of instructions against the exact (MPFR) oracle.
///
/// Runs random (or file) dot products through the model and the oracle and prints the
/// error in ulps (mean, median, 99th percentile, maximum), the share of correctly rounded
/// results, the Table V bound beside the observed maximum and the worst input as an
/// `mma dot` command. Several --arch (or a comma list) overlay their histograms in --plot.
///
/// Example: mma error-report --arch Hopper --instr m64n8k16.f32.f16.f16 --samples 1000
#[derive(clap::Args)]
pub struct ErrorReportCmd {
    /// Architecture(s): repeat or give a comma list.
    #[arg(long, required = true, value_delimiter = ',')]
    pub arch: Vec<String>,
    /// Instruction(s): one for every architecture, or one per architecture.
    #[arg(long, required = true, value_delimiter = ',')]
    pub instr: Vec<String>,
    /// nvidia or amd (default: whichever catalog knows the architecture).
    #[arg(long)]
    pub vendor: Option<String>,
    /// Number of dot products, at least 1 (default 10000; with file:, every fitting line).
    #[arg(long, value_parser = mma::codec::words::samples)]
    pub samples: Option<usize>,
    /// logu, narrow, bits, cancel or file:PATH.
    #[arg(long, default_value = "logu")]
    pub dist: String,
    /// Seed of the random inputs (the same seed, formats and K give the same inputs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON (an array, one object per instruction) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write an SVG histogram of the signed error in ulps.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

impl ErrorReportCmd {
    pub fn run(self) -> Result<bool> {
        error_report(&self)
    }
}

/// A one-line `\r` progress counter on stderr, shown once a run has taken a second and only
/// when stderr is a terminal.
struct Progress {
    start: std::time::Instant,
    last: std::time::Instant,
    shown: bool,
    tty: bool,
}

impl Progress {
    fn new() -> Progress {
        use std::io::IsTerminal;
        let now = std::time::Instant::now();
        Progress {
            start: now,
            last: now,
            shown: false,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&mut self, label: &str, done: usize, total: usize) {
        let now = std::time::Instant::now();
        if !self.tty
            || now.duration_since(self.start).as_secs_f64() < 1.0
            || (now.duration_since(self.last).as_millis() < 100 && done < total)
        {
            return;
        }
        self.last = now;
        self.shown = true;
        let width = 30;
        let filled = width * done / total.max(1);
        eprint!(
            "\r{label} [{}{}] {done}/{total}",
            "#".repeat(filled),
            " ".repeat(width - filled)
        );
    }

    fn finish(&mut self) {
        if self.shown {
            eprint!("\r\x1b[2K");
            self.shown = false;
        }
    }
}

fn error_report(args: &ErrorReportCmd) -> Result<bool> {
    use mma::error_report::{self, Job, Source};
    use mma::oracle::stats::{symmetric_range, Histogram};
    let source: Source = args.dist.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    let pairs: Vec<(&String, &String)> = match (args.arch.len(), args.instr.len()) {
        (_, 1) => args.arch.iter().map(|a| (a, &args.instr[0])).collect(),
        (1, _) => args.instr.iter().map(|i| (&args.arch[0], i)).collect(),
        (n, m) if n == m => args.arch.iter().zip(&args.instr).collect(),
        (n, m) => anyhow::bail!(
            "{n} architectures and {m} instructions: give one instruction, or one per architecture"
        ),
    };
    let mut jobs = Vec::new();
    for (arch, instr) in pairs {
        let job = Job::resolve(args.vendor.as_deref(), arch, instr)
            .map_err(|e| anyhow::anyhow!("{arch} {instr}: {e}"))?;
        jobs.push(job);
    }
    let mut reports = Vec::new();
    let mut ok = true;
    for job in &jobs {
        let label = format!("{} {}", job.arch, job.target.name);
        let mut progress = Progress::new();
        let report = match &source {
            Source::Dist(d) => {
                let n = args.samples.unwrap_or(10_000);
                let inputs = job.sample(*d, args.seed).take(n);
                error_report::run(job, inputs, |i| progress.tick(&label, i, n))
            }
            Source::File(path) => {
                let mut file = job.file_inputs(path).map_err(|e| anyhow::anyhow!(e))?;
                let mut note = format!("{label}: {}", file.describe(path));
                if let Some(n) = args.samples.filter(|&n| n < file.inputs.len()) {
                    file.inputs.truncate(n);
                    note += &format!("; the first {n} taken (--samples)");
                }
                eprintln!("{note}");
                if file.inputs.is_empty() {
                    anyhow::bail!("{}: no line fits {label}", path.display());
                }
                let inputs = file.inputs;
                let n = inputs.len();
                error_report::run(job, inputs, |i| progress.tick(&label, i, n))
            }
        };
        progress.finish();
        ok &= report.violations == 0;
        reports.push(report);
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let all: Vec<_> = jobs
            .iter()
            .zip(&reports)
            .map(|(j, r)| error_report::to_json(j, &source, args.seed, r))
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&all)?)?;
    } else {
        for (j, r) in jobs.iter().zip(&reports) {
            writeln!(out, "{}", error_report::to_text(j, &source, args.seed, r))?;
        }
    }
    if let Some(path) = &args.plot {
        let series: Vec<&[f64]> = reports.iter().map(|r| r.signed.as_slice()).collect();
        let (lo, hi, bins) = symmetric_range(&series, 41, 99.0);
        let same_instr = jobs.iter().all(|j| j.target.name == jobs[0].target.name);
        let hists: Vec<(String, Histogram)> = jobs
            .iter()
            .zip(&reports)
            .map(|(j, r)| {
                let label = if same_instr {
                    j.arch.clone()
                } else {
                    format!("{} {}", j.arch, j.target.name)
                };
                (label, Histogram::of(&r.signed, lo, hi, bins))
            })
            .collect();
        let title = if same_instr {
            format!(
                "{} ({source}, {} samples)",
                jobs[0].target.name, reports[0].summary.n
            )
        } else {
            format!("error distribution ({source})")
        };
        let out_fmt = jobs[0].target.unit.formats.d.name;
        let svg = mma::oracle::plot::histogram_svg(
            &hists,
            &title,
            &format!("(model - exact) in ulps of {out_fmt}"),
        );
        fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ok)
}
