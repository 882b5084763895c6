//! Exact oracle for the matrix-unit models: exact dot products, correct rounding to any format
//! and rounding direction, error reports, and the error tolerances of the model family.
//!
//! - [`exact`]: exact values ([`ExactResult`], GMP rationals) and [`exact_dot`], the exact
//!   `sum a_k·b_k·scales + c` with IEEE special-value and signed-zero rules.
//! - [`rounding`]: [`correctly_rounded`], MPFR rounding with explicit subnormals and IEEE
//!   overflow, independent of `mma_core::round`.
//! - [`report`]: [`ErrorReport`] of a model result (ulps, relative error, neighbour, exact error).
//! - [`bounds`]: the Table V tolerance of each model kind for a given input.
//! - [`sample`]: format-respecting random operands ([`Sampler`], distributions [`Dist`]).
//! - [`check`]: [`evaluate`] one dot product of a whole unit: error report and bound per block.
//! - [`stats`], [`plot`]: error summaries, histograms and their SVG rendering.
//!
//! GMP and MPFR are built from source by `gmp-mpfr-sys` (needs `m4`); no system library is used.

pub mod bounds;
pub mod check;
pub mod exact;
pub mod plot;
pub mod report;
pub mod rounding;
pub mod sample;
pub mod stats;

pub use bounds::{bound_for, rounding_ulps, Bound, ModelKind};
pub use check::{evaluate, model_kind, Evaluation};
pub use exact::{exact_dot, exact_sum, ExactResult};
pub use report::{error_report, ordinal, ErrorReport};
pub use rounding::{correctly_rounded, floor_log2, max_finite, quantum, round_value};
pub use rug;
pub use sample::{Dist, Inputs, Sampler};
pub use stats::{percentile, Histogram, Summary};
