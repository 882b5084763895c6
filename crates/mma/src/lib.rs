//! Bit-exact models of GPU matrix multiply-accumulate units: what NVIDIA tensor cores
//! (`mma.sync`, `wgmma`, `tcgen05.mma`, Volta to Blackwell) and AMD matrix cores (`v_mfma_*`,
//! CDNA1 to CDNA3) return for given inputs, to the last bit. This facade re-exports the core
//! engine's public names ([`DotUnit`], [`Kernel`], [`Format`], ... from `mma-core`, one path to
//! each), the vendor catalogs and the exact oracle.
//!
//! **Fast on any build.** The kernels choose their instruction set at run time: on a CPU with
//! AVX2, BMI2, FMA, F16C and LZCNT, a plain `cargo build` of a dependent crate takes the lane
//! paths (eight dot products per AVX2 vector); elsewhere, or with `MMA_FORCE_SCALAR=1`, the
//! portable kernels, with identical results. [`Kernel::isa`] and [`Kernel::is_batched`] tell
//! which path an instruction takes.
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "nvidia")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Hopper's wgmma f16 → f32: sixteen products 1.0 · 1.0 plus C = 1.0 is exactly 17.0.
//! // The vendor comes from the architecture (`Some(mma::catalog::Vendor::Nvidia)` to name it).
//! let ins = mma::catalog::find(None, "H100", None, "m64n8k16.f32.f16.f16")?;
//! let (a, b) = (vec![0x3c00u64; 16], vec![0x3c00u64; 16]); // f16 1.0, raw bits
//! let d = ins.unit.dot(&a, &b, 0x3f80_0000);    // C = f32 1.0
//! assert_eq!(d, 0x4188_0000);
//! assert_eq!(ins.unit.formats.d.decode(d).to_f64(), 17.0);
//!
//! // Many dot products: prepare the unit once, then evaluate them together.
//! let kern = ins.unit.kernel();
//! println!("lane path: {} ({:?})", kern.is_batched(), kern.isa());
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "nvidia"))]
//! # fn main() {}
//! ```
//!
//! # Features
//!
//! - `nvidia` (default): [`nvidia`], the NVIDIA instruction catalog (`mma-nvidia`).
//! - `amd` (default): [`amd`], the AMD CDNA catalog (`mma-amd`).
//! - `oracle` (opt-in): `mma::oracle`, the exact MPFR reference (`mma-oracle`), and
//!   `mma::error_report`, error reports of catalog instructions (the jobs of
//!   `mma error-report`). It builds GMP and MPFR from source (needs `m4` and a C compiler, and a
//!   few minutes once): `features = ["oracle"]`.
//!
//! [`cases`] reads and evaluates case files (JSON Lines, one dot product per line), as the
//! `mma` command-line tool does; [`codec`] turns text, exact values and storage words into
//! each other.

// The engine (`mma-core`), curated: one path to each name. The unit and its kernel, the
// matrix drivers' operands, formats, values and rounding, traces and unit files at the top
// level; modules for what those names do not cover: every format (`format::FP32`, ...), rounding
// routines, the steps of a trace, the unit-file schema, the library GEMMs and the catalog row.
// The building blocks behind them (model steps, wide sums, term alignment, the batch rows) stay
// in `mma-core`, where the vendor crates plug in.
pub use mma_core::{format, gpu_table, library, round, trace, unit_file};

/// The one door to the vendor catalogs (`mma-catalog`): [`catalog::find`] an instruction by
/// vendor (optional), architecture, operation and name, [`catalog::instructions`] lists them
/// all as vendor-neutral [`catalog::Row`]s; also the row type the vendor crates share.
pub use mma_catalog as catalog;
pub use mma_core::{
    DotUnit, Exact, ExactDot, Explanation, Format, Formats, GemmIn, Isa, Kernel, Model, NanStyle,
    Output, OutputRounding, Overflow, RoundOpts, Rounding, ShapeError, Step, UnitFile,
    UnitFileError, Value, Word,
};

#[cfg(feature = "nvidia")]
pub use mma_nvidia as nvidia;

#[cfg(feature = "amd")]
pub use mma_amd as amd;

#[cfg(feature = "oracle")]
pub use mma_oracle as oracle;

pub use mma_io::cases;

/// The codec (`mma-io`): text ↔ exact value ↔ storage word. Operands as people write them
/// ([`codec::operand`]), values as text ([`codec::decimal`]), the exact dot product and the
/// error in ulps ([`codec::exact`]), command-line words ([`codec::words`]).
pub use mma_io::codec;

#[cfg(feature = "nvidia")]
pub use mma_io::hw;

#[cfg(feature = "oracle")]
pub use mma_io::error_report;
