//! The flag groups several subcommands share, declared once and flattened into each
//! subcommand's arguments (`#[command(flatten)]`), so that a flag reads and behaves the same
//! wherever it appears:
//!
//! - [`TargetFlags`]: which instruction (`--vendor`, `--arch`, `--op`, `--instr`, or `--unit`),
//!   in `mma dot`, `mma explain` and `mma gemm`;
//! - [`OperandFlags`]: one dot product's operands as people write them (`--a`, `--b`, `--c`,
//!   `--scale-a`, `--scale-b`, `--round`), in `mma dot`, `mma explain` and `mma compare`.
//!
//! Also here: how a unit file is read ([`load_unit`]) and how a case-file error is said in the
//! words of the command line ([`in_flags`]).

use anyhow::{anyhow, bail, Context, Result};
use mma::cases::{self, CaseError, Target};
use mma::Rounding;
use std::fs;
use std::path::{Path, PathBuf};

/// Which instruction a command runs: a catalog instruction or a unit file.
///
/// `--arch` and `--instr` are checked when the command runs, not by the parser, because
/// `mma gemm` also takes `--gpu` or `--recipe` in their place.
#[derive(clap::Args, Debug, Clone)]
pub struct TargetFlags {
    /// nvidia or amd (default: whichever catalog knows the architecture).
    #[arg(long)]
    pub vendor: Option<String>,
    /// Architecture: name (Hopper), PTX target (sm_90) or product (H100, MI300X).
    #[arg(long)]
    pub arch: Option<String>,
    /// NVIDIA operation (MMA, WGMMA, TCGen05MMA, MMABlockScale, TCGen05MMABlockScale),
    /// needed only when the instruction name alone is ambiguous.
    #[arg(long)]
    pub op: Option<String>,
    /// Instruction: mmasim's name (m16n8k16.f32.bf16.bf16.f32, f32_32x32x8_f16), a PTX
    /// spelling or an AMD mnemonic, as `mma list` shows them.
    #[arg(long)]
    pub instr: Option<String>,
    /// A unit file instead of --arch and --instr (its "k", if given, is the instruction's K).
    #[arg(long, conflicts_with_all = ["arch", "instr", "vendor", "op"])]
    pub unit: Option<PathBuf>,
}

/// Where a command finds its instruction, as [`TargetFlags::target`] reads the flags.
#[derive(Clone, Copy)]
pub enum DotTarget<'a> {
    Catalog {
        vendor: &'a str,
        arch: &'a str,
        op: Option<&'a str>,
        instr: &'a str,
    },
    Unit(&'a Target),
}

impl TargetFlags {
    /// The unit file of `--unit`, read once, if given; hold it while the target is used.
    pub fn unit_file(&self) -> Result<Option<Target>> {
        self.unit.as_deref().map(load_unit).transpose()
    }

    /// The instruction: the unit file's (`fixed`, from [`TargetFlags::unit_file`]) where one
    /// was given, else the catalog's (the vendor from the architecture unless named).
    pub fn target<'a>(&'a self, fixed: &'a Option<Target>) -> Result<DotTarget<'a>> {
        if let Some(t) = fixed {
            return Ok(DotTarget::Unit(t));
        }
        let (arch, instr) = match (&self.arch, &self.instr) {
            (Some(a), Some(i)) => (a.as_str(), i.as_str()),
            (None, _) => bail!("--arch: required (or give --unit FILE)"),
            (_, None) => bail!("--instr: required (or give --unit FILE)"),
        };
        Ok(DotTarget::Catalog {
            vendor: match self.vendor.as_deref() {
                Some(v) => v,
                None => mma::catalog::vendor_or_default(arch).name(),
            },
            arch,
            op: self.op.as_deref(),
            instr,
        })
    }
}

impl DotTarget<'_> {
    /// The instruction named. A catalog instruction whose evidence is `unverified` (no GPU
    /// record and no reference corpus checks its model: `mma list`'s evidence column) is said
    /// on stderr, once, as a warning: its bits are the model's best reading, not a verified one.
    pub fn resolve(&self) -> Result<Target> {
        match self {
            DotTarget::Unit(t) => Ok(**t),
            DotTarget::Catalog {
                vendor,
                arch,
                op,
                instr,
            } => {
                let t = cases::resolve(vendor, arch, *op, instr).map_err(|e| anyhow!("{e}"))?;
                let row = mma::catalog::Vendor::parse(vendor)
                    .and_then(|v| mma::catalog::find(Some(v), arch, *op, instr));
                if let Ok(r) = row {
                    if r.evidence == mma::catalog::Evidence::Unverified {
                        eprintln!(
                            "warning: {} {} {} {} is unverified: no GPU record and no reference \
                             corpus checks its model (`mma list` shows each instruction's evidence)",
                            r.vendor, r.arch, r.op, r.name
                        );
                    }
                }
                Ok(t)
            }
        }
    }
}

/// The operands of one dot product as people write them: comma-separated lists of decimals
/// (-0.75, 1e-3, inf, -inf, nan), C99 hex-floats (0x1.8p-3), raw bits (bits:3c00) or case-file
/// words of exactly the storage width's hex digits (3c00). See `mma dot --help`, "Operands".
#[derive(clap::Args, Debug, Clone)]
pub struct OperandFlags {
    /// A's row: comma-separated values (-0.75, 1e-3, 0x1.8p-3, inf, nan, bits:3c00 or a
    /// case-file hex word such as 3c00).
    #[arg(long, allow_hyphen_values = true)]
    pub a: String,
    /// B's column: comma-separated values, as --a.
    #[arg(long, allow_hyphen_values = true)]
    pub b: String,
    /// C: one value of the C format, as --a.
    #[arg(long, allow_hyphen_values = true)]
    pub c: String,
    /// Block scale factors of A, comma-separated values of the scale format (block-scaled
    /// instructions).
    #[arg(long, allow_hyphen_values = true)]
    pub scale_a: Option<String>,
    /// Block scale factors of B (block-scaled instructions).
    #[arg(long, allow_hyphen_values = true)]
    pub scale_b: Option<String>,
    /// Sparse instructions (`sp.*`, `smfmac_*`): each kept element's index within its group
    /// of 4 (of 2 for tf32), comma-separated, K/2 of them; --a then holds the dense row (K
    /// values, the disabled ones ignored) or the kept ones (K/2), --b the whole column.
    #[arg(long)]
    pub meta: Option<String>,
    /// Round decimal and hex-float operands that their format cannot hold exactly: rne,
    /// rz, ru, rd or rna (default: such an operand is an error naming its neighbours).
    #[arg(long, value_parser = mma::codec::operand::rounding)]
    pub round: Option<Rounding>,
}

/// Reads a unit file (JSON, the schema of `mma_core::unit_file`) as the target of every line.
/// The unit lives as long as the process: one is read per command.
pub fn load_unit(path: &Path) -> Result<Target> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: mma::UnitFile = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a unit file", path.display()))?;
    let name: &'static str = Box::leak(path.display().to_string().into_boxed_str());
    Target::from_unit_file(&file, name)
        .with_context(|| format!("{}: not a unit file", path.display()))
}

/// A case-file error in the words of the command line: fields become flags (`scale_a` is
/// `--scale-a`) and element indices count from 1.
pub fn in_flags(e: CaseError) -> String {
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
