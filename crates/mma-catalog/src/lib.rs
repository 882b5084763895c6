//! One door to every vendor's catalog: which vendor, which architecture, which instruction.
//!
//! The vendor crates (`mma-nvidia`, `mma-amd`) each list their instructions as rows of
//! [`mma_core::catalog::Instruction`] with their own architecture and operation types. Every
//! client that takes a vendor, an architecture and an instruction from a user (case files, the
//! command line, the Python package, the snapshot generator) asks this crate, so that the
//! vendor is chosen, an AMD operation checked and a wrong name reported in one place:
//!
//! - [`Vendor`]: the vendors, by name.
//! - [`Row`]: a catalog row with the vendor's types erased to names (`"Hopper"`, `"WGMMA"`),
//!   borrowing the catalog's unit.
//! - [`instructions`]: every row of every vendor built in, NVIDIA's first.
//! - [`find`]: one row by vendor (or the vendor whose catalog knows the architecture),
//!   architecture (name, target or product), operation and instruction name (any spelling
//!   the vendor catalog accepts).
//! - [`select`]: the rows of a vendor and an architecture, both optional, as listings show.
//! - [`gpus`], [`find_gpu`]: GPU products (`H100`, `MI300X`) and the instruction their
//!   libraries are taken to issue per dtype, from the vendor crates' GPU tables.
//! - [`CatalogError`]: every failure, with the argument it is about ([`CatalogError::field`]).
//!
//! ```
//! use mma_catalog::{find, Vendor};
//! let row = find(None, "MI300X", None, "v_mfma_f32_32x32x8_f16")?;
//! assert_eq!((row.vendor, row.arch, row.op, row.name), (Vendor::Amd, "CDNA3", "MFMA", "f32_32x32x8_f16"));
//! let row = find(Some(Vendor::Nvidia), "H100", None, "m64n8k16.f32.f16.f16")?;
//! assert_eq!((row.arch, row.op, row.k), ("Hopper", "WGMMA", 16));
//! let err = find(None, "MI300X", Some("WGMMA"), "f32_32x32x8_f16").unwrap_err();
//! assert_eq!(err.field(), "op");
//! # Ok::<(), mma_catalog::CatalogError>(())
//! ```
//!
//! Features `nvidia` and `amd` (both default) choose the catalogs built in; a vendor left out
//! is an error naming the feature when asked for, never an empty answer.

use mma_core::DotUnit;

use mma_core::gpu_table::{gpu_key, GpuRow};

/// The row type the vendor crates share, its operand layouts, its evidence classes and the
/// clipping of user text in messages: `mma_core::catalog`'s, here so that one path names everything about catalogs.
pub use mma_core::catalog::{clip, Evidence, Instruction, Layout};

/// A vendor whose catalog this door may open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Vendor {
    Nvidia,
    Amd,
}

impl Vendor {
    /// Every vendor, built in or not, in listing order.
    pub const ALL: [Vendor; 2] = [Vendor::Nvidia, Vendor::Amd];

    /// The name users and files write: `nvidia`, `amd`.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Nvidia => "nvidia",
            Vendor::Amd => "amd",
        }
    }

    /// The vendor named `s`, in any case.
    pub fn parse(s: &str) -> Result<Vendor, CatalogError> {
        mma_core::catalog_names::by_name(&Vendor::ALL, Vendor::name, s.trim())
            .ok_or_else(|| CatalogError::UnknownVendor(clip(s)))
    }

    /// Whether this build holds the vendor's catalog.
    pub fn is_built(self) -> bool {
        match self {
            Vendor::Nvidia => cfg!(feature = "nvidia"),
            Vendor::Amd => cfg!(feature = "amd"),
        }
    }

    /// The architecture names of the vendor's catalog (`Volta` ... `Blackwell`, `CDNA1` ...
    /// `CDNA3`); none when it is not built in.
    pub fn architectures(self) -> Vec<&'static str> {
        match self {
            #[cfg(feature = "nvidia")]
            Vendor::Nvidia => mma_nvidia::Arch::ALL.iter().map(|a| a.name()).collect(),
            #[cfg(feature = "amd")]
            Vendor::Amd => mma_amd::Arch::ALL.iter().map(|a| a.name()).collect(),
            #[allow(unreachable_patterns)]
            _ => Vec::new(),
        }
    }

    /// The catalog name of the architecture `name` (name, target or product; `H100` is
    /// `Hopper`) if this vendor's catalog is built in and knows it; no error is built, so that
    /// choosing the vendor of every case-file line costs a table look-up.
    fn arch_name(self, name: &str) -> Option<&'static str> {
        let _ = name;
        match self {
            #[cfg(feature = "nvidia")]
            Vendor::Nvidia => mma_nvidia::Arch::named(name).map(|a| a.name()),
            #[cfg(feature = "amd")]
            Vendor::Amd => mma_amd::Arch::named(name).map(|a| a.name()),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The architecture `name` (name, target or product) in this vendor's catalog: its
    /// catalog name (`H100` is `Hopper`).
    pub fn arch(self, name: &str) -> Result<&'static str, CatalogError> {
        let _ = name;
        match self {
            #[cfg(feature = "nvidia")]
            Vendor::Nvidia => Ok(mma_nvidia::parse_arch(name)?.name()),
            #[cfg(feature = "amd")]
            Vendor::Amd => Ok(mma_amd::parse_arch(name)?.name()),
            #[allow(unreachable_patterns)]
            other => Err(CatalogError::NotBuilt(other)),
        }
    }
}

impl std::fmt::Display for Vendor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One instruction of a vendor catalog, its architecture and operation as names. The strings
/// and the unit are the catalog's own (built once per process).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub vendor: Vendor,
    /// The catalog's architecture name (`Hopper`, `CDNA3`), whatever name found it.
    pub arch: &'static str,
    /// The operation (instruction class): `MMA`, `WGMMA`, ... for NVIDIA, `MFMA` for AMD.
    pub op: &'static str,
    /// mmasim's short name (`m16n8k16.f32.bf16.bf16.f32`, `f32_32x32x8_f16`).
    pub name: &'static str,
    /// The full spelling in the vendor's assembly (PTX, the AMD ISA mnemonic).
    pub mnemonic: &'static str,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Independent products of one instruction (AMD `_Nb` forms); 1 otherwise.
    pub blocks: usize,
    pub layout: Layout,
    /// The arithmetic of one output element.
    pub unit: &'static DotUnit,
    /// Where the arithmetic comes from when mmasim does not list the instruction.
    pub note: Option<&'static str>,
    /// What the model rests on (hardware records, the reference corpus, or neither), as the
    /// vendor's evidence table says.
    pub evidence: Evidence,
    /// Structured sparsity: `k` is the logical K, A holds the kept elements and metadata says
    /// where they sit (`mma_core::sparse`); `None` for dense instructions.
    pub sparse: Option<mma_core::sparse::Sparsity>,
}

impl Row {
    #[cfg(any(feature = "nvidia", feature = "amd"))]
    fn of<A, O>(
        vendor: Vendor,
        arch: &'static str,
        op: &'static str,
        i: &'static Instruction<A, O>,
    ) -> Row {
        Row {
            vendor,
            arch,
            op,
            name: &i.name,
            mnemonic: &i.mnemonic,
            m: i.m,
            n: i.n,
            k: i.k,
            blocks: i.blocks,
            layout: i.layout,
            unit: &i.unit,
            note: i.note,
            evidence: i.evidence,
            sparse: i.sparse,
        }
    }
}

#[cfg(feature = "nvidia")]
fn nvidia_row(i: &'static mma_nvidia::Instruction) -> Row {
    Row::of(Vendor::Nvidia, i.arch.name(), i.op.name(), i)
}

#[cfg(feature = "amd")]
fn amd_row(i: &'static mma_amd::Instruction) -> Row {
    Row::of(Vendor::Amd, i.arch.name(), i.op.name(), i)
}

/// Every instruction of every vendor built in: NVIDIA's catalog order, then AMD's.
pub fn instructions() -> impl Iterator<Item = Row> {
    #[cfg(feature = "nvidia")]
    let nvidia = mma_nvidia::catalog().iter().map(nvidia_row);
    #[cfg(not(feature = "nvidia"))]
    let nvidia = std::iter::empty();
    #[cfg(feature = "amd")]
    let amd = mma_amd::catalog().iter().map(amd_row);
    #[cfg(not(feature = "amd"))]
    let amd = std::iter::empty();
    nvidia.chain(amd)
}

/// The vendor whose catalog knows the architecture `arch` (name, target or product), if any
/// built-in catalog does.
pub fn vendor_of(arch: &str) -> Option<Vendor> {
    Vendor::ALL
        .into_iter()
        .find(|v| v.arch_name(arch).is_some())
}

/// The vendor whose catalog knows `arch`, or else the first vendor built in (NVIDIA), whose
/// error for an unknown name lists its closest ones: the vendor a request that names none
/// goes to.
pub fn vendor_or_default(arch: &str) -> Vendor {
    vendor_of(arch)
        .or_else(|| Vendor::ALL.into_iter().find(|v| v.is_built()))
        .unwrap_or(Vendor::Nvidia)
}

/// Looks an instruction up: `vendor` (or the vendor whose catalog knows `arch`), `arch` (an
/// architecture name, target or product: `Hopper`, `sm_90a`, `H100`, `CDNA3`, `gfx942`,
/// `MI300X`), `op` (the operation where the name is not unique; AMD's only one is `MFMA`)
/// and `name` (mmasim's short form or the vendor's assembly spelling), all case-insensitive.
pub fn find(
    vendor: Option<Vendor>,
    arch: &str,
    op: Option<&str>,
    name: &str,
) -> Result<Row, CatalogError> {
    let _ = (op, name);
    match vendor.unwrap_or_else(|| vendor_or_default(arch)) {
        #[cfg(feature = "nvidia")]
        Vendor::Nvidia => Ok(nvidia_row(mma_nvidia::find(arch, op, name)?)),
        #[cfg(feature = "amd")]
        Vendor::Amd => Ok(amd_row(mma_amd::find(arch, op, name)?)),
        #[allow(unreachable_patterns)]
        other => Err(CatalogError::NotBuilt(other)),
    }
}

/// The rows of `vendor` (every vendor built in when `None`) on `arch` (every architecture when
/// `None`), in catalog order. An architecture that no catalog knows, or only another vendor's,
/// is an error, never an empty list.
pub fn select(vendor: Option<Vendor>, arch: Option<&str>) -> Result<Vec<Row>, CatalogError> {
    if let Some(v) = vendor.filter(|v| !v.is_built()) {
        return Err(CatalogError::NotBuilt(v));
    }
    let arch = match arch {
        None => None,
        Some(a) => {
            let known: Vec<(Vendor, &'static str)> = Vendor::ALL
                .into_iter()
                .filter_map(|v| Some((v, v.arch_name(a)?)))
                .collect();
            let Some(&(v, name)) = known.iter().find(|(v, _)| vendor.is_none_or(|w| w == *v))
            else {
                return Err(match vendor {
                    Some(w) if !known.is_empty() => CatalogError::OtherVendor {
                        arch: clip(a),
                        vendor: w,
                    },
                    _ => CatalogError::UnknownArch(clip(a)),
                });
            };
            Some((v, name))
        }
    };
    Ok(instructions()
        .filter(|r| vendor.is_none_or(|v| v == r.vendor))
        .filter(|r| arch.is_none_or(|(v, a)| v == r.vendor && a == r.arch))
        .collect())
}

/// Why a look-up failed. [`CatalogError::field`] names the argument at fault; the message
/// names the input (clipped to 60 characters) and, where there are some, the closest names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    #[error("vendor {0:?} is unknown; expected \"nvidia\" or \"amd\"")]
    UnknownVendor(String),
    #[error("the {0} catalog is not built in (cargo feature `{0}`)")]
    NotBuilt(Vendor),
    #[error(
        "unknown architecture {0:?}; expected an NVIDIA or AMD architecture, PTX or gfx target \
         or product (e.g. Hopper, sm_90, H100, CDNA3, gfx942, MI300X)"
    )]
    UnknownArch(String),
    #[error("{arch:?} is not among the {vendor} architectures")]
    OtherVendor { arch: String, vendor: Vendor },
    #[error("unknown GPU {input:?}; known: {known}")]
    UnknownGpu { input: String, known: String },
    #[error("{gpu}: {format:?} is not one of its FP8 formats")]
    UnknownGpuFormat { gpu: &'static str, format: String },
    /// NVIDIA's catalog's answer (its message lists the closest names).
    #[cfg(feature = "nvidia")]
    #[error(transparent)]
    Nvidia(#[from] mma_nvidia::CatalogError),
    /// AMD's catalog's answer.
    #[cfg(feature = "amd")]
    #[error(transparent)]
    Amd(#[from] mma_amd::CatalogError),
}

/// The argument a vendor catalog's error is about; both vendor crates' errors have one shape.
#[cfg(any(feature = "nvidia", feature = "amd"))]
macro_rules! vendor_field {
    ($e:expr, $vendor:ident) => {
        match $e {
            $vendor::CatalogError::UnknownArch { .. } => "arch",
            $vendor::CatalogError::UnknownOp { .. } => "op",
            _ => "instr",
        }
    };
}

impl CatalogError {
    /// The argument the error is about: `vendor`, `arch`, `op`, `instr` or `gpu`.
    pub fn field(&self) -> &'static str {
        match self {
            CatalogError::UnknownVendor(_) | CatalogError::NotBuilt(_) => "vendor",
            CatalogError::UnknownArch(_) | CatalogError::OtherVendor { .. } => "arch",
            CatalogError::UnknownGpu { .. } | CatalogError::UnknownGpuFormat { .. } => "gpu",
            #[cfg(feature = "nvidia")]
            CatalogError::Nvidia(e) => vendor_field!(e, mma_nvidia),
            #[cfg(feature = "amd")]
            CatalogError::Amd(e) => vendor_field!(e, mma_amd),
        }
    }
}

// GPUs by product name through the one door: each built-in vendor's GPU table
// (`mma_core::gpu_table`, the vendor crates' `library/gpus.txt`) says which catalog instruction
// the GPU's libraries are taken to issue per input dtype, and which library platform models
// its FP8 GEMMs. The command line (`mma list --gpus`, `mma gemm --gpu`) and the Python package
// (`mma.torch`, `mma.scaled_mm`) read GPUs here, never a table of their own.

/// A GPU of a built-in vendor's table.
#[derive(Clone, Copy, Debug)]
pub struct Gpu {
    pub vendor: Vendor,
    pub row: &'static GpuRow,
}

impl Gpu {
    /// The GPU's name (the row's first).
    pub fn name(&self) -> &'static str {
        self.row.name()
    }

    /// The FP8 formats of the table's `{a}`/`{b}` placeholders: (format name, the vendor's
    /// spelling in instruction names).
    pub fn fp8_spellings(&self) -> &'static [(&'static str, &'static str)] {
        match self.vendor {
            #[cfg(feature = "nvidia")]
            Vendor::Nvidia => &mma_nvidia::gpus::FP8_SPELLINGS,
            #[cfg(feature = "amd")]
            Vendor::Amd => &mma_amd::gpus::FP8_SPELLINGS,
            #[allow(unreachable_patterns)]
            _ => &[],
        }
    }

    /// The catalog row of the instruction the GPU's libraries are taken to issue for a dtype
    /// column (`f16`, `bf16`, `tf32`, `f32`), or for `fp8` with A and B of the formats `fp8`
    /// names (`("e4m3", "e5m2")`); `Ok(None)` where the table names none.
    pub fn instruction(
        &self,
        column: &str,
        fp8: Option<(&str, &str)>,
    ) -> Result<Option<Row>, CatalogError> {
        let Some(spec) = self.row.instr_for(column) else {
            return Ok(None);
        };
        let (op, name) = match spec.split_once(':') {
            Some((op, name)) if !op.contains('.') => (Some(op), name),
            _ => (None, spec),
        };
        let mut name = name.to_string();
        if let Some((a, b)) = fp8 {
            let spell = |f: &str| {
                self.fp8_spellings()
                    .iter()
                    .find(|(fmt, _)| *fmt == f)
                    .map(|&(_, s)| s)
                    .ok_or_else(|| CatalogError::UnknownGpuFormat {
                        gpu: self.name(),
                        format: clip(f),
                    })
            };
            name = name.replace("{a}", spell(a)?).replace("{b}", spell(b)?);
        }
        find(Some(self.vendor), &self.row.arch, op, &name).map(Some)
    }
}

fn rows(vendor: Vendor) -> &'static [GpuRow] {
    match vendor {
        #[cfg(feature = "nvidia")]
        Vendor::Nvidia => mma_nvidia::gpus::gpus(),
        #[cfg(feature = "amd")]
        Vendor::Amd => mma_amd::gpus::gpus(),
        #[allow(unreachable_patterns)]
        _ => &[],
    }
}

/// Every GPU of every vendor built in, NVIDIA's table first, in table order.
pub fn gpus() -> Vec<Gpu> {
    Vendor::ALL
        .into_iter()
        .filter(|v| v.is_built())
        .flat_map(|vendor| rows(vendor).iter().map(move |row| Gpu { vendor, row }))
        .collect()
}

/// The GPU named `name` (any of its names; case, spaces, dashes and underscores ignored).
pub fn find_gpu(name: &str) -> Result<Gpu, CatalogError> {
    let all = gpus();
    let key = gpu_key(name);
    all.iter()
        .find(|g| g.row.names.iter().any(|n| gpu_key(n) == key))
        .copied()
        .ok_or_else(|| CatalogError::UnknownGpu {
            input: clip(name),
            known: all.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "),
        })
}

/// The library platform `name` names: a platform by its name or an alias (`RTX 4060`,
/// `H100 PCIe`), or a GPU of the tables whose row names one. A GPU without a platform, or a
/// name that is neither, is an error saying which (never another GPU's recipe).
#[cfg(feature = "nvidia")]
pub fn library_platform(
    name: &str,
) -> Result<&'static mma_nvidia::library::Platform, mma_nvidia::library::PlatformError> {
    use mma_nvidia::library::{platform, platforms, PlatformError};
    let unknown = match platform(name) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let Ok(g) = find_gpu(name) else {
        return Err(unknown);
    };
    match &g.row.platform {
        Some(p) => platform(p),
        None => Err(PlatformError::NoPlatform {
            gpu: format!("{} ({} {})", g.name(), g.vendor, g.row.arch),
            known: platforms()
                .iter()
                .map(|p| p.file.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}
