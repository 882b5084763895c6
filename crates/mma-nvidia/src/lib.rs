//! NVIDIA tensor-core instructions from Volta to Blackwell, each mapped to its bit-exact model.
//!
//! - [`arch`]: architectures, product names, per-architecture parameters.
//! - [`catalog`]: the instruction tables; [`catalog()`] lists them, [`find`] looks one up by
//!   any of the names users write (mmasim's short form, PTX spellings).
//! - [`hw`]: reading hardware-record folders laid out like `shared/hw` and checking them.
//!
//! Conventions of every fused NVIDIA path (models.md §3): a NaN result is 0x7FFFFFFF (f32) or
//! 0x7FFF (f16); a -0 result is returned as +0; overflow gives ±Inf even when the final rounding
//! truncates. The fp64 FMA path returns the all-ones NaN too (an assumption: no record decides).

pub mod arch;
pub mod catalog;
mod fp8_mma;
pub mod hw;
mod lookup;

pub use arch::{parse_arch, Arch};
pub use catalog::{Instruction, Layout, Op};
pub use lookup::{catalog, find, find_in, CatalogError};
