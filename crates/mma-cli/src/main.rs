//! `mma`: evaluate, check and list GPU matrix-unit instructions bit for bit.

mod bench;
mod commands;
mod compare;
mod dot;
#[cfg(feature = "oracle")]
mod error_report;
mod explain;
mod gemm;
mod gemm_library;
mod probe;

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
    ///
    /// Example: mma eval vectors/rounding.jsonl -o out.jsonl
    Eval {
        /// Case file (JSON Lines, one dot product per line; see docs/cli.md, "Case files").
        input: PathBuf,
        /// Write the cases here instead of to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Run every line on this unit file's unit (lines may omit "arch" and "instr").
        #[arg(long)]
        unit: Option<PathBuf>,
    },
    /// Compare the model with each case's "d"; exit non-zero on any failure.
    ///
    /// Example: mma check vectors/*.jsonl --show 3
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
        /// Run every line on this unit file's unit (lines may omit "arch" and "instr").
        #[arg(long)]
        unit: Option<PathBuf>,
    },
    /// List the instruction catalog: instruction, model, parameters.
    ///
    /// Example: mma list --vendor amd --filter f16 --json
    List {
        /// Only this vendor's catalog.
        #[arg(long, value_enum)]
        vendor: Option<commands::Vendor>,
        /// Print a JSON array, one object per instruction (vendor, arch, op, instruction, k,
        /// ptx_isa, model).
        #[arg(long, conflicts_with = "unit_file")]
        json: bool,
        /// Only this architecture (name, PTX target or GPU product).
        #[arg(long)]
        arch: Option<String>,
        /// Only instructions whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// With --unit-file: the instruction to print.
        #[arg(long, requires = "unit_file")]
        instr: Option<String>,
        /// Print the unit of --arch and --instr as a unit file (JSON).
        #[arg(long, requires_all = ["arch", "instr"])]
        unit_file: bool,
    },
    /// Probe inputs for a unit of given formats, to run on a device and feed to `mma infer`.
    ///
    /// Example: mma probe emit --a-format e4m3 --c-format f32 --d-format f32 --k 32 -o probes/
    Probe {
        #[command(subcommand)]
        cmd: ProbeCmd,
    },
    /// Infer a unit's model from records with the device's results: case files, a folder laid
    /// out like shared/hw, or one GPU's folder of it.
    ///
    /// Example: mma infer probes/probes.jsonl probes/random.jsonl --json
    Infer {
        /// Case files with the device's "d", folders laid out like shared/hw, or GPU folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print a JSON array, one object per record set.
        #[arg(long)]
        json: bool,
        /// Write inputs on which the remaining fits disagree to the file of -o.
        #[arg(long, requires = "output")]
        suggest: bool,
        /// The case file --suggest writes.
        #[arg(short, long, requires = "suggest")]
        output: Option<PathBuf>,
        /// Write each fit as a unit file into this folder.
        #[arg(long, value_name = "DIR")]
        write_units: Option<PathBuf>,
    },
    /// Check a folder of hardware records laid out like shared/hw.
    ///
    /// Example: mma hw-check ../shared/hw --show 5
    HwCheck {
        /// Folder of <GPU>/<format>/{a,b,c,d}_*.txt record sets (e.g. ../shared/hw).
        dir: PathBuf,
        /// How many mismatching records to show per set.
        #[arg(long, default_value_t = 3)]
        show: usize,
    },
    /// Evaluate one dot product given on the command line.
    ///
    /// Example: mma dot --arch MI300X --instr f32_32x32x4_2b_f16 --a 1,-0.75,0x1.8p-3,bits:3c00 --b 1,1,1,1 --c 0
    ///
    /// Operands: a decimal (-0.75, 1e-3, inf, -inf, nan), a C99 hex-float with its p exponent
    /// (0x1.8p-3), raw bits (bits:3c00), or a case-file word of exactly the storage width's hex
    /// digits (3c00, 0x3c00). A word that is both a decimal and such a word (1000 for f16, 38
    /// for fp8) is an error unless both readings give the same bits (0000). A value the format
    /// cannot hold exactly is an error naming its neighbours, unless --round is given.
    ///
    /// Prints D as a hex word and its shortest round-trip decimal, the exact result (the
    /// exact sum of the products of the decoded operands and C) as a hex-float and a decimal,
    /// and D's error in ulps of D's format at the exact value's binade.
    Dot {
        /// nvidia or amd (default: whichever catalog knows the architecture).
        #[arg(long)]
        vendor: Option<String>,
        /// Architecture: name (Hopper), PTX target (sm_90) or product (H100, MI300X).
        #[arg(long, required_unless_present = "unit")]
        arch: Option<String>,
        /// NVIDIA operation (MMA, WGMMA, TCGen05MMA, MMABlockScale, TCGen05MMABlockScale),
        /// needed only when the instruction name alone is ambiguous.
        #[arg(long)]
        op: Option<String>,
        /// Instruction: mmasim's name (m16n8k16.f32.bf16.bf16.f32, f32_32x32x8_f16), a PTX
        /// spelling or an AMD mnemonic.
        #[arg(long, required_unless_present = "unit")]
        instr: Option<String>,
        /// A unit file instead of --arch and --instr.
        #[arg(long, conflicts_with_all = ["arch", "instr", "vendor", "op"])]
        unit: Option<PathBuf>,
        /// A row: comma-separated values (-0.75, 1e-3, 0x1.8p-3, inf, nan, bits:3c00 or a
        /// case-file hex word such as 3c00; see "Operands" below).
        #[arg(long, allow_hyphen_values = true)]
        a: String,
        /// B column: comma-separated values, as --a.
        #[arg(long, allow_hyphen_values = true)]
        b: String,
        /// C: one value of the C format, as --a.
        #[arg(long, allow_hyphen_values = true)]
        c: String,
        /// Block scale factors of A, comma-separated values of the scale format (block-scaled
        /// instructions).
        #[arg(long, allow_hyphen_values = true)]
        scale_a: Option<String>,
        /// Block scale factors of B (block-scaled instructions).
        #[arg(long, allow_hyphen_values = true)]
        scale_b: Option<String>,
        /// Round decimal and hex-float operands that their format cannot hold exactly: rne,
        /// rz, ru, rd or rna (default: such an operand is an error naming its neighbours).
        #[arg(long, value_parser = mma_cli::operand::rounding)]
        round: Option<mma::core::Rounding>,
        /// Print one JSON object: the case line with "d", "d_decimal", "exact", "exact_hex"
        /// and "error_ulps" (null when infinite).
        #[arg(long)]
        json: bool,
    },
    /// A whole matrix product from NumPy files, as a kernel issues it.
    ///
    /// Example: mma gemm --arch H100 --instr m64n8k16.f32.f16.f16 --a A.npy --b B.npy -o D.npy
    ///
    /// A is M×K, B is K×N, C (optional, +0 without it) and D are M×N. K is walked in steps of
    /// the instruction's K, each step's D fed back as the next step's C (the library's
    /// DotUnit::gemm), rows of D spread over threads; the result does not depend on the thread
    /// count. With --split-k S, K is cut into S equal slices, each computed from a +0 C, and
    /// the partial results are added into C in slice order, D = ((C + P0) + P1) + ..., each
    /// addition IEEE 754 in D's format rounded to nearest even (for f32 D an fp32 reduction).
    ///
    /// Arrays: float16, float32 or float64, whose values must be exact in the operand's format
    /// (the first that is not is named with its row and column), or with --a-bits, --b-bits,
    /// --c-bits or --scale-bits unsigned-integer arrays of raw encodings (uint8 for 8-bit and
    /// narrower formats, one element per byte in its low bits, uint16 for f16/bf16, uint32 for
    /// f32/tf32). D is written as float16/float32/float64 when its format is one of those, else
    /// as raw encodings.
    ///
    /// Library GEMMs: with --gpu NAME (or --recipe FILE), `torch._scaled_mm` as that GPU's
    /// cuBLASLt computes it: A is mat1 (M×K), B is mat2 (K×N), FP8 of --a-format and
    /// --b-format; --scale-a and --scale-b are binary32 values (tensor-wise scales); the
    /// output is --out-dtype; promotion every 128 elements unless --fast-accum; split-K as the
    /// GPU took it (--split-k S --split-order serial|pairwise). Calls the GPU rejects are
    /// errors naming the reason. --explain prints the plan and where each part comes from.
    ///
    /// Example: mma gemm --gpu "RTX 4060" --a A.npy --b B.npy --a-bits --b-bits
    /// --scale-a 0.5 --scale-b 2 --out-dtype bf16 --split-k 3 --split-order pairwise -o D.npy
    Gemm(Box<gemm::GemmCmd>),
    /// One dot product step by step, as the model computes it.
    ///
    /// Decoded operands, each product's exponent and significand, e_max, every term after
    /// alignment in binary columns with the bits truncation dropped (after `|`), groups,
    /// slices and blocks of a chained K with the C each receives, where C joins, the exact sum
    /// and the rounding (guard and sticky bits). Colour only on a terminal (--color).
    ///
    /// Example: mma explain --arch H100 --instr m16n8k8.f32.f16.f16.f32
    /// --a 6c00,b800,b400,b000,0000,0000,0000,0000 --b 6800,3c00,3c00,3c00,0000,0000,0000,0000
    /// --c cb000000
    Explain {
        /// nvidia or amd (default: whichever catalog knows the architecture).
        #[arg(long)]
        vendor: Option<String>,
        /// Architecture: name (Hopper), PTX target (sm_90) or product (H100, MI300X).
        #[arg(long, required_unless_present = "unit")]
        arch: Option<String>,
        /// NVIDIA operation, when the instruction name alone is ambiguous (as for `mma dot`).
        #[arg(long)]
        op: Option<String>,
        /// Instruction, as for `mma dot`.
        #[arg(long, required_unless_present = "unit")]
        instr: Option<String>,
        /// A unit file instead of --arch and --instr.
        #[arg(long, conflicts_with_all = ["arch", "instr", "vendor", "op"])]
        unit: Option<PathBuf>,
        /// A row, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        a: String,
        /// B column, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        b: String,
        /// C, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        c: String,
        /// Block scale factors of A (block-scaled instructions).
        #[arg(long)]
        scale_a: Option<String>,
        /// Block scale factors of B (block-scaled instructions).
        #[arg(long)]
        scale_b: Option<String>,
        /// Print one JSON object: "d" (hex word, as `mma dot`), "unit", "model", "steps".
        #[arg(long)]
        json: bool,
        /// Colour the text: auto (when standard output is a terminal), always or never.
        #[arg(long, value_enum, default_value_t = explain::Color::Auto)]
        color: explain::Color,
    },
    /// The same dot product on several architectures, side by side.
    ///
    /// Prints the exact value (exact sum of the products and C, no oracle needed), each
    /// architecture's result in hex and decimal with its error in ulps, and for results that
    /// differ, the first step at which the two models' traces (`mma explain`) part.
    ///
    /// An instruction family is the shape-independent type signature D.A.B.C of the
    /// instruction (f32.f16.f16.f32; block-scaled: f32.e2m1.e2m1.f32.ue8m0), whatever the
    /// vendor's spelling (m16n8k16.f32.f16.f16.f32, v_mfma_f32_32x32x8_f16). Each architecture
    /// runs its instruction of the family whose K divides the number of elements given (the
    /// largest), issued as often as needed with D fed back as C.
    ///
    /// Example: mma compare --instr-family f32.f16.f16.f32 --arch H100,MI300X
    /// --a 6c00,b800,b400,b000,0,0,0,0,0,0,0,0,0,0,0,0 ... --c cb000000
    Compare {
        /// The family: D.A.B.C formats (f32.f16.f16.f32, f32.bf16.bf16.f32, ...).
        #[arg(long)]
        instr_family: String,
        /// Architectures, comma-separated (names, PTX targets or products).
        #[arg(
            long,
            value_delimiter = ',',
            required_unless_present = "all",
            conflicts_with = "all"
        )]
        arch: Vec<String>,
        /// Every architecture that has an instruction of the family.
        #[arg(long)]
        all: bool,
        /// A row, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        a: String,
        /// B column, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        b: String,
        /// C, as for `mma dot`.
        #[arg(long, allow_hyphen_values = true)]
        c: String,
        /// Block scale factors of A (block-scaled families).
        #[arg(long)]
        scale_a: Option<String>,
        /// Block scale factors of B (block-scaled families).
        #[arg(long)]
        scale_b: Option<String>,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Error distribution of instructions against the exact (MPFR) oracle.
    ///
    /// Runs random (or file) dot products through the model and the oracle and prints the
    /// error in ulps (mean, median, 99th percentile, maximum), the share of correctly rounded
    /// results, the Table V bound beside the observed maximum and the worst input as an
    /// `mma dot` command. Several --arch (or a comma list) overlay their histograms in --plot.
    ///
    /// Example: mma error-report --arch Hopper --instr m64n8k16.f32.f16.f16 --samples 1000
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
    ///
    /// Example: mma error-report --arch Hopper --instr m64n8k16.f32.f16.f16 --samples 1000
    #[cfg(not(feature = "oracle"))]
    ErrorReport {
        /// The arguments of the oracle build's error-report (see its --help).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Dot products per second of the models against a native FMA chain (single thread),
    /// and optionally a threaded GEMM.
    ///
    /// Example: mma bench --filter bf16 --seconds 0.5
    Bench {
        /// Print one JSON document instead of the table.
        #[arg(long)]
        json: bool,
        /// Threads for the GEMM (default: all available; at most 1024).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Seconds spent measuring each instruction and each baseline (0 < S <= 3600).
        #[arg(long, default_value_t = 1.0, value_parser = values::seconds)]
        seconds: f64,
        /// Also time SIZE×SIZE×SIZE matrix products (Hopper bf16 and e4m3, CDNA3 fp16), 1
        /// thread vs --threads, against a native single-thread f32 GEMM (matrixmultiply).
        #[arg(long, value_name = "SIZE", value_parser = values::gemm_size)]
        gemm: Option<usize>,
        /// Only instructions whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Every distinct unit of both catalogs (the first instruction of each, with the
        /// number of instructions sharing it) instead of one instruction per class.
        #[arg(long)]
        all: bool,
        /// Dot products per pass, with A and B in their storage width (u8/u16/u32/u64 words,
        /// as a NumPy caller passes them); the default cycles 4096 in cache. Large batches
        /// (2^20) measure the streaming rate.
        #[arg(long, value_name = "N", default_value_t = 4096, value_parser = values::bench_dots)]
        dots: usize,
    },
}

/// The unit file of `--unit`, read once, if given.
fn unit_target(path: Option<&std::path::Path>) -> Result<Option<mma::cases::Target>> {
    path.map(commands::load_unit).transpose()
}

/// The instruction of `dot`, `explain` and `gemm`: the unit file's where one was given, else
/// the catalog's (the vendor from the architecture unless named).
/// The arguments are the subcommand's `--vendor`, `--arch`, `--op` and `--instr`.
fn dot_target<'a>(
    fixed: &'a Option<mma::cases::Target>,
    vendor: &'a Option<String>,
    arch: &'a Option<String>,
    op: &'a Option<String>,
    instr: &'a Option<String>,
) -> dot::DotTarget<'a> {
    let arch = arch.as_deref().unwrap_or_default();
    match fixed {
        Some(t) => dot::DotTarget::Unit(t),
        None => dot::DotTarget::Catalog {
            vendor: vendor
                .as_deref()
                .unwrap_or_else(|| mma::cases::vendor_of(arch)),
            arch,
            op: op.as_deref(),
            instr: instr.as_deref().unwrap_or_default(),
        },
    }
}

#[derive(Subcommand)]
enum ProbeCmd {
    /// Write probes.jsonl (targeted probes) and random.jsonl (random records) without "d".
    ///
    /// Example: mma probe emit --a-format e4m3 --c-format f32 --d-format f32 --k 32 -o probes/
    Emit {
        /// A's format, as `mma list` names formats (f16, bf16, tf32, e4m3, e2m1, ...).
        #[arg(long)]
        a_format: String,
        /// B's format (default: A's).
        #[arg(long)]
        b_format: Option<String>,
        /// C's format (f32, f16, ...).
        #[arg(long)]
        c_format: String,
        /// D's format.
        #[arg(long)]
        d_format: String,
        /// Elements per dot product.
        #[arg(long)]
        k: usize,
        /// Block-scale format (ue8m0, ue4m3), with --block.
        #[arg(long, requires = "block")]
        scale_format: Option<String>,
        /// Elements per block scale.
        #[arg(long, requires = "scale_format")]
        block: Option<usize>,
        /// Number of random records (at most 10^9; they are streamed to the file).
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
        records: u64,
        /// Seed of the random records.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Folder to write probes.jsonl and random.jsonl into.
        #[arg(short, long)]
        output: PathBuf,
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
        Cmd::Eval {
            input,
            output,
            unit,
        } => unit_target(unit.as_deref())
            .and_then(|t| commands::eval(&input, output.as_deref(), t.as_ref())),
        Cmd::Check {
            files,
            show,
            any_nan,
            unit,
        } => unit_target(unit.as_deref())
            .and_then(|t| commands::check(&files, show, any_nan, t.as_ref())),
        Cmd::List {
            arch,
            filter,
            instr,
            unit_file,
            vendor,
            json,
        } => match (arch, instr) {
            (Some(arch), Some(instr)) if unit_file => commands::unit_file(&arch, &instr),
            (arch, _) => commands::list(
                arch.as_deref(),
                filter.as_deref(),
                vendor,
                if json {
                    commands::ListOutput::Json
                } else {
                    commands::ListOutput::Table
                },
            ),
        },
        Cmd::Probe {
            cmd:
                ProbeCmd::Emit {
                    a_format,
                    b_format,
                    c_format,
                    d_format,
                    k,
                    scale_format,
                    block,
                    records,
                    seed,
                    output,
                },
        } => probe::emit(&probe::EmitOpts {
            a: a_format,
            b: b_format,
            c: c_format,
            d: d_format,
            k,
            scale: scale_format,
            block,
            records: records as usize,
            seed,
            out: output,
        }),
        Cmd::Infer {
            paths,
            json,
            suggest,
            output,
            write_units,
        } => probe::infer(&probe::InferOpts {
            paths,
            json,
            suggest: output.filter(|_| suggest),
            write_units,
        }),
        Cmd::HwCheck { dir, show } => commands::hw_check(&dir, show),
        Cmd::Dot {
            vendor,
            arch,
            op,
            instr,
            unit,
            a,
            b,
            c,
            scale_a,
            scale_b,
            round,
            json,
        } => unit_target(unit.as_deref()).and_then(|fixed| {
            let target = dot_target(&fixed, &vendor, &arch, &op, &instr);
            dot::dot(
                target,
                &dot::DotArgs {
                    a: &a,
                    b: &b,
                    c: &c,
                    scale_a: scale_a.as_deref(),
                    scale_b: scale_b.as_deref(),
                    round,
                    output: if json {
                        dot::Output::Json
                    } else {
                        dot::Output::Text
                    },
                },
            )
        }),
        Cmd::Gemm(g) => g.run(),
        Cmd::Explain {
            vendor,
            arch,
            op,
            instr,
            unit,
            a,
            b,
            c,
            scale_a,
            scale_b,
            json,
            color,
        } => unit_target(unit.as_deref()).and_then(|fixed| {
            let target = dot_target(&fixed, &vendor, &arch, &op, &instr);
            let x = explain::Operands {
                a: &a,
                b: &b,
                c: &c,
                scale_a: scale_a.as_deref(),
                scale_b: scale_b.as_deref(),
            };
            let output = if json {
                explain::Output::Json
            } else {
                explain::Output::Text
            };
            explain::explain(target, &x, output, color)
        }),
        Cmd::Compare {
            instr_family,
            arch,
            all,
            a,
            b,
            c,
            scale_a,
            scale_b,
            json,
        } => {
            let archs = if all {
                compare::Archs::All
            } else {
                compare::Archs::Named(&arch)
            };
            let x = compare::Operands {
                a: &a,
                b: &b,
                c: &c,
                scale_a: scale_a.as_deref(),
                scale_b: scale_b.as_deref(),
            };
            compare::compare(&instr_family, archs, &x, json)
        }
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
            all,
            dots,
        } => bench::run(&bench::Opts {
            filter,
            all,
            dots,
            json,
            threads: threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                usize::from,
            ),
            seconds,
            gemm,
        }),
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
