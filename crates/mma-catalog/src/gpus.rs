//! GPUs by product name through the one door: each built-in vendor's GPU table
//! ([`mma_core::gpu_table`], the vendor crates' `library/gpus.txt`) says which catalog
//! instruction the GPU's libraries are taken to issue per input dtype, and which library
//! platform models its FP8 GEMMs. The command line (`mma list --gpus`, `mma gemm --gpu`) and
//! the Python package (`mma.torch`) read GPUs here, never a table of their own.

use crate::{clip, find, CatalogError, Row, Vendor};
use mma_core::gpu_table::{gpu_key, GpuRow};

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
