//! `mma`: evaluate, check and list GPU matrix-unit instructions bit for bit.
//!
//! One module per subcommand, each owning its arguments (a clap `Args` struct whose doc
//! comment is the subcommand's help) and a `run`; the flags several share are declared once
//! in `flags.rs`. This file only names the subcommands and turns a result into an exit code.

mod bench;
mod case_files;
mod compare;
mod dot;
#[cfg(feature = "oracle")]
mod error_report;
mod explain;
mod flags;
mod gemm;
mod gemm_library;
mod hw_check;
mod list;
mod probe;
mod questions;

use anyhow::Result;
use clap::{Parser, Subcommand};
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

/// The subcommands; each variant's help is its arguments' doc comment.
#[derive(Subcommand)]
enum Cmd {
    Eval(case_files::EvalCmd),
    Check(case_files::CheckCmd),
    List(list::ListCmd),
    /// Probe inputs for a unit of given formats, to run on a device and feed to `mma infer`.
    ///
    /// Example: mma probe emit --a-format e4m3 --c-format f32 --d-format f32 --k 32 -o probes/
    Probe {
        #[command(subcommand)]
        cmd: probe::ProbeCmd,
    },
    Infer(probe::InferCmd),
    HwCheck(hw_check::HwCheckCmd),
    Dot(dot::DotCmd),
    Gemm(Box<gemm::GemmCmd>),
    Explain(explain::ExplainCmd),
    Compare(compare::CompareCmd),
    #[cfg(feature = "oracle")]
    ErrorReport(error_report::ErrorReportCmd),
    #[cfg(not(feature = "oracle"))]
    ErrorReport(NoOracle),
    Bench(bench::BenchCmd),
}

/// Error distribution against the exact (MPFR) oracle: not in this build.
///
/// This binary was built without the `oracle` feature (GMP/MPFR through rug). Rebuild with
/// `cargo run --release --features oracle --bin mma -- error-report ...`.
///
/// Example: mma error-report --arch Hopper --instr m64n8k16.f32.f16.f16 --samples 1000
#[cfg(not(feature = "oracle"))]
#[derive(clap::Args)]
struct NoOracle {
    /// The arguments of the oracle build's error-report (see its --help).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[cfg(not(feature = "oracle"))]
impl NoOracle {
    fn run(self) -> Result<bool> {
        Err(anyhow::anyhow!(
            "built without the oracle feature: cargo run --release --features oracle --bin mma -- error-report ..."
        ))
    }
}

fn main() -> ExitCode {
    // Output piped into `head` and the like: end quietly when the reader goes away, as Unix
    // tools do, instead of panicking on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let r: Result<bool> = match Cli::parse().cmd {
        Cmd::Eval(c) => c.run(),
        Cmd::Check(c) => c.run(),
        Cmd::List(c) => c.run(),
        Cmd::Probe { cmd } => cmd.run(),
        Cmd::Infer(c) => c.run(),
        Cmd::HwCheck(c) => c.run(),
        Cmd::Dot(c) => c.run(),
        Cmd::Gemm(c) => c.run(),
        Cmd::Explain(c) => c.run(),
        Cmd::Compare(c) => c.run(),
        Cmd::ErrorReport(c) => c.run(),
        Cmd::Bench(c) => c.run(),
    };
    // What is still buffered for standard output must reach it, or be an error.
    let r = r.and_then(|ok| {
        use std::io::Write as _;
        std::io::stdout()
            .flush()
            .map_err(mma_io::out::stdout_error)?;
        Ok(ok)
    });
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            // Exit 2: the input was wrong (arguments, files, shapes, values); exit 1: the
            // command could not finish on good input (its output could not be written).
            let write_failed = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<mma_cli::npy::NpyError>(),
                    Some(mma_cli::npy::NpyError::Write { .. })
                ) || c
                    .downcast_ref::<mma_io::out::OutError>()
                    .is_some_and(|o| !o.is_usage())
            });
            if write_failed {
                ExitCode::FAILURE
            } else {
                ExitCode::from(2)
            }
        }
    }
}
