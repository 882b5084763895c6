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
//! The crate has no features; the facade `mma` makes it optional (feature `oracle`).
//!
//! # Example
//!
//! ```
//! use mma_core::{format, Formats, Rounding};
//! use mma_oracle::{correctly_rounded, exact_dot};
//!
//! let f32 = format::FP32;
//! let f = Formats { a: format::FP16, b: format::FP16, c: f32, d: f32, scale: None };
//! // The first paper's Table IV input: C = -2^23 and products 2^23, -1/2, -1/4, -1/8.
//! let a = [0x6c00, 0xb800, 0xb400, 0xb000]; // f16 4096, -0.5, -0.25, -0.125
//! let b = [0x6800, 0x3c00, 0x3c00, 0x3c00]; // f16 2048, 1, 1, 1
//! let exact = exact_dot(&f, &a, &b, 0xcb00_0000);
//! let d = correctly_rounded(&exact, &f32, Rounding::NearestEven);
//! assert_eq!(f32.decode(d).to_f64(), -0.875); // exact, and exactly representable
//! ```

pub mod bounds;
pub mod check;
pub mod exact;
pub mod plot;
pub mod report;
pub mod rounding;
pub mod sample;
pub mod stats;

pub use bounds::{bound_for, bound_for_scaled, rounding_ulps, Bound, ModelKind};
pub use check::{evaluate, model_kind, Evaluation};
pub use exact::{exact_dot, exact_dot_scaled, exact_sum, ExactResult};
pub use report::{error_report, ordinal, ErrorReport};
pub use rounding::{correctly_rounded, floor_log2, max_finite, quantum, round_value};
pub use rug;
pub use sample::{Dist, Inputs, Sampler};
pub use stats::{percentile, Histogram, Summary};
