//! Facade: the core engine plus the vendor catalogs selected by features
//! (`nvidia`, `amd`, `oracle`).

pub use mma_core as core;
pub use mma_core::*;

#[cfg(feature = "nvidia")]
pub use mma_nvidia as nvidia;

#[cfg(feature = "amd")]
pub use mma_amd as amd;

#[cfg(feature = "oracle")]
pub use mma_oracle as oracle;

pub mod cases;

#[cfg(feature = "oracle")]
pub mod errors;
