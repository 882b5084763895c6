//! `mma`: evaluate, check and list GPU matrix-unit instructions bit for bit.

mod bench;
mod commands;
#[cfg(feature = "oracle")]
mod error_report;

use anyhow::Result;
use clap::{Parser, Subcommand};
use mma_cli::values;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mma",
    version,
    about = "Bit-exact models of GPU matrix multiply-accumulate units"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write every case back with "d" set to the model's result.
    Eval {
        /// Case file (JSON Lines, one dot product per line; see the README, "Case files").
        input: PathBuf,
        /// Write the cases here instead of to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Compare the model with each case's "d"; exit non-zero on any failure.
    Check {
        /// Case files whose lines carry the expected "d".
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How many failing lines to show per file.
        #[arg(long, default_value_t = 5)]
        show: usize,
        /// Count any NaN as equal to any NaN (for references whose NaN payload comes from the
        /// host CPU, such as mmasim's FMA, FTZ-MulAdd and E-FDPA paths).
        #[arg(long)]
        any_nan: bool,
    },
    /// List the instruction catalog: instruction, model, parameters.
    List {
        /// Only this architecture (name, PTX target or GPU product).
        #[arg(long)]
        arch: Option<String>,
        /// Only instructions whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Check a folder of hardware records laid out like shared/hw.
    HwCheck {
        /// Folder of <GPU>/<format>/{a,b,c,d}_*.txt record sets (e.g. ../shared/hw).
        dir: PathBuf,
        /// How many mismatching records to show per set.
        #[arg(long, default_value_t = 3)]
        show: usize,
    },
    /// Evaluate one dot product given on the command line.
    Dot {
        /// nvidia or amd (default: whichever catalog knows the architecture).
        #[arg(long)]
        vendor: Option<String>,
        /// Architecture: name (Hopper), PTX target (sm_90) or product (H100, MI300X).
        #[arg(long)]
        arch: String,
        /// NVIDIA operation (MMA, WGMMA, TCGen05MMA, MMABlockScale, TCGen05MMABlockScale),
        /// needed only when the instruction name alone is ambiguous.
        #[arg(long)]
        op: Option<String>,
        /// Instruction: mmasim's name (m16n8k16.f32.bf16.bf16.f32, f32_32x32x8_f16), a PTX
        /// spelling or an AMD mnemonic.
        #[arg(long)]
        instr: String,
        /// A row as comma-separated hex words.
        #[arg(long)]
        a: String,
        /// B column as comma-separated hex words.
        #[arg(long)]
        b: String,
        /// C as one hex word (raw storage bits of the C format).
        #[arg(long)]
        c: String,
        /// Block scale factors of A as comma-separated hex words (block-scaled instructions).
        #[arg(long)]
        scale_a: Option<String>,
        /// Block scale factors of B as comma-separated hex words (block-scaled instructions).
        #[arg(long)]
        scale_b: Option<String>,
    },
    /// Error distribution of instructions against the exact (MPFR) oracle.
    ///
    /// Runs random (or file) dot products through the model and the oracle and prints the
    /// error in ulps (mean, median, 99th percentile, maximum), the share of correctly rounded
    /// results, the Table V bound beside the observed maximum and the worst input as an
    /// `mma dot` command. Several --arch (or a comma list) overlay their histograms in --plot.
    #[cfg(feature = "oracle")]
    ErrorReport {
        /// Architecture(s): repeat or give a comma list.
        #[arg(long, required = true, value_delimiter = ',')]
        arch: Vec<String>,
        /// Instruction(s): one for every architecture, or one per architecture.
        #[arg(long, required = true, value_delimiter = ',')]
        instr: Vec<String>,
        /// nvidia or amd (default: whichever catalog knows the architecture).
        #[arg(long)]
        vendor: Option<String>,
        /// Number of dot products, at least 1 (default 10000; with file:, every fitting line).
        #[arg(long, value_parser = values::samples)]
        samples: Option<usize>,
        /// logu, narrow, bits, cancel or file:PATH.
        #[arg(long, default_value = "logu")]
        dist: String,
        /// Seed of the random inputs (the same seed, formats and K give the same inputs).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON (an array, one object per instruction) instead of text.
        #[arg(long)]
        json: bool,
        /// Write an SVG histogram of the signed error in ulps.
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Error distribution against the exact (MPFR) oracle: not in this build.
    ///
    /// This binary was built without the `oracle` feature (GMP/MPFR through rug). Rebuild with
    /// `cargo run --release --features oracle --bin mma -- error-report ...`.
    #[cfg(not(feature = "oracle"))]
    ErrorReport {
        /// The arguments of the oracle build's error-report (see its --help).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Dot products per second of the models against a native f32 FMA chain (single thread),
    /// and optionally a threaded GEMM.
    Bench {
        /// Print one JSON document instead of the table.
        #[arg(long)]
        json: bool,
        /// Threads for the GEMM (default: all available).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=4096))]
        threads: Option<u16>,
        /// Seconds spent measuring each instruction and each baseline (0 < S <= 3600).
        #[arg(long, default_value_t = 1.0, value_parser = values::seconds)]
        seconds: f64,
        /// Also time a SIZE×SIZE×SIZE bf16 GEMM on the Hopper model, 1 thread vs --threads.
        #[arg(long, value_name = "SIZE", value_parser = values::gemm_size)]
        gemm: Option<usize>,
        /// Only instructions whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
    },
}

fn main() -> ExitCode {
    // Output piped into `head` and the like: end quietly when the reader goes away, as Unix
    // tools do, instead of panicking on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let r: Result<bool> = match cli.cmd {
        Cmd::Eval { input, output } => commands::eval(&input, output.as_deref()),
        Cmd::Check {
            files,
            show,
            any_nan,
        } => commands::check(&files, show, any_nan),
        Cmd::List { arch, filter } => commands::list(arch.as_deref(), filter.as_deref()),
        Cmd::HwCheck { dir, show } => commands::hw_check(&dir, show),
        Cmd::Dot {
            vendor,
            arch,
            op,
            instr,
            a,
            b,
            c,
            scale_a,
            scale_b,
        } => commands::dot(
            vendor
                .as_deref()
                .unwrap_or_else(|| mma::cases::vendor_of(&arch)),
            &arch,
            op.as_deref(),
            &instr,
            &a,
            &b,
            &c,
            scale_a.as_deref(),
            scale_b.as_deref(),
        ),
        #[cfg(feature = "oracle")]
        Cmd::ErrorReport {
            arch,
            instr,
            vendor,
            samples,
            dist,
            seed,
            json,
            plot,
        } => error_report::error_report(&error_report::ErrorReportArgs {
            arch,
            instr,
            vendor,
            samples,
            dist,
            seed,
            json,
            plot,
        }),
        #[cfg(not(feature = "oracle"))]
        Cmd::ErrorReport { args } => {
            let _ = args;
            Err(anyhow::anyhow!(
                "built without the oracle feature: cargo run --release --features oracle --bin mma -- error-report ..."
            ))
        }
        Cmd::Bench {
            json,
            threads,
            seconds,
            gemm,
            filter,
        } => bench::run(&bench::Opts {
            filter,
            json,
            threads: threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                usize::from,
            ),
            seconds,
            gemm,
        }),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
