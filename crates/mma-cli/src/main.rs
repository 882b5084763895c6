//! `mma`: evaluate, check and list GPU matrix-unit instructions bit for bit.

mod commands;

use anyhow::Result;
use clap::{Parser, Subcommand};
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
        input: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Compare the model with each case's "d"; exit non-zero on any failure.
    Check {
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
        dir: PathBuf,
        #[arg(long, default_value_t = 3)]
        show: usize,
    },
    /// Evaluate one dot product given on the command line.
    Dot {
        #[arg(long, default_value = "nvidia")]
        vendor: String,
        #[arg(long)]
        arch: String,
        #[arg(long)]
        op: Option<String>,
        #[arg(long)]
        instr: String,
        /// A row as comma-separated hex words.
        #[arg(long)]
        a: String,
        /// B column as comma-separated hex words.
        #[arg(long)]
        b: String,
        #[arg(long)]
        c: String,
        #[arg(long)]
        scale_a: Option<String>,
        #[arg(long)]
        scale_b: Option<String>,
    },
}

fn main() -> ExitCode {
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
            &vendor,
            &arch,
            op.as_deref(),
            &instr,
            &a,
            &b,
            &c,
            scale_a.as_deref(),
            scale_b.as_deref(),
        ),
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
