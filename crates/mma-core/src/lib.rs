//! Bit-exact models of GPU matrix multiply-accumulate arithmetic: the number formats, exact
//! fixed-point accumulation, the single rounding routine and the arithmetic model family (FMA,
//! FTZ-MulAdd, E/T/ST/GST/TR/GTR-FDPA, Sliced-FDPA) of the first paper (Xie et al., arXiv
//! 2511.10909, Table II) and the AMD paper (Khattak, Mikaitis, Graziani, arXiv 2609.14845).
//! The vendor crates `mma-nvidia` and `mma-amd` map every instruction to a [`DotUnit`] of
//! this crate; a unit no GPU has is a struct literal.
//!
//! - [`format`](mod@format): number formats as descriptors, decode and encode.
//! - [`round`]: the single rounding routine.
//! - [`term`], [`wide`]: exact products and exact wide sums; [`exact_dot`]: the exact value
//!   of a whole dot product (nothing rounded), which the oracle and the command line share.
//! - [`models`]: one module per arithmetic model (`fma`, `e_fdpa`, `t_fdpa`, ...), each a
//!   parameterised type implementing [`model::BlockModel`].
//! - [`trace`]: the steps a model takes, recorded by the plain models for
//!   [`DotUnit::explain`].
//! - [`unit_file`]: units as data (serde), for units no catalog holds.
//! - [`catalog`](mod@catalog): the row type every vendor catalog is a list of.
//! - [`gpu_table`]: GPU products as data (which instruction a GPU's libraries issue per dtype).
//! - [`drive`]: the drivers built from one unit's dot products: [`DotUnit::mma`],
//!   [`DotUnit::gemm`], [`Kernel::dots_threaded`]; [`split_k`]: split-K and its IEEE
//!   reduction in D's format; [`library`]: what a GPU library's GEMM returns (promotion,
//!   split-K parts and their order, the epilogue), as a recipe of data.
//! - [`unit`](mod@unit): a whole instruction (formats, block length, model) with the
//!   K-chaining.
//! - [`Kernel`]: a unit prepared once, with per-dot and lane paths bit-identical to the models
//!   (the crate-private `kernel` module).
//!
//! # Example
//!
//! A T-FDPA unit as NVIDIA Hopper's f16 → f32 instructions have it (F = 25 fraction bits,
//! blocks of 16, round toward zero), built by hand:
//!
//! ```
//! use mma_core::models::t_fdpa::TFdpa;
//! use mma_core::{format, DotUnit, Formats, Model, NanStyle, Output, OutputRounding};
//! use mma_core::{RoundOpts, Rounding};
//!
//! let out = Output {
//!     rho: OutputRounding {
//!         fmt: format::FP32,
//!         mode: Rounding::TowardZero,
//!         opts: RoundOpts::INF_ON_OVERFLOW,
//!     },
//!     nan: NanStyle::AllOnes,
//!     neg_zero_to_pos: true,
//! };
//! let (f16, f32) = (format::FP16, format::FP32);
//! let unit = DotUnit {
//!     formats: Formats { a: f16, b: f16, c: f32, d: f32, scale: None },
//!     block: 16,
//!     model: Model::TFdpa(TFdpa { f: 25, e_zero: -133, out }),
//! };
//! // The first paper's Table IV input: C = -2^23 and products 2^23, -1/2, -1/4, -1/8. The
//! // exact sum is -0.875; aligned to 2^23 with 25 fraction bits, -1/8 is truncated away.
//! let a = [0x6c00, 0xb800, 0xb400, 0xb000]; // f16 4096, -0.5, -0.25, -0.125
//! let b = [0x6800, 0x3c00, 0x3c00, 0x3c00]; // f16 2048, 1, 1, 1
//! let d = unit.dot(&a, &b, 0xcb00_0000);
//! assert_eq!(f32.decode(d).to_f64(), -0.75);
//! ```
//!
//! # Features
//!
//! - `parallel` (default): [`DotUnit::gemm`] and [`Kernel::dots_threaded`] spread work over
//!   threads with rayon; without it they run on the calling thread, with the same results.
//!
//! The lane paths of [`Kernel`] are chosen at run time ([`Isa::detect`]): on AVX2 CPUs in
//! every build, the portable kernels elsewhere, with identical results.

pub mod catalog;
pub mod catalog_names;
pub mod drive;
pub mod exact_dot;
pub mod format;
pub mod gpu_table;
mod kernel;
pub mod library;
pub mod model;
pub mod models;
pub mod round;
pub mod sparse;
pub mod split_k;
pub mod term;
pub mod trace;
pub mod unit;
pub mod unit_file;
pub mod value;

/// The checks of private steps (the decode tables, the fast rounding, the exact fp32 steps, ...)
/// for `tests/internal_checks.rs`; not an API. They live beside the code they check, as unit
/// tests would, but a unit-test harness compiles the whole crate a second time for its tests
/// alone (about ten minutes here); behind this feature, which only the crate's own tests turn
/// on, the one library build serves the integration tests and these checks alike.
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod internal_checks {
    pub use crate::kernel::checks as kernel;
    pub use crate::models::fma::checks as fma;
    pub use crate::models::ftz_mul_add::checks as ftz_mul_add;
    pub use crate::models::gtr_fdpa::checks as gtr_fdpa;
    pub use crate::models::tr_fdpa::checks as tr_fdpa;
    pub use crate::split_k::checks as split_k;
}
pub mod wide;

pub use drive::GemmIn;
pub use exact_dot::ExactDot;
pub use format::Format;
pub use kernel::{Isa, Kernel, Rows, Word};
pub use model::{BlockModel, Formats, NanStyle, Output, OutputRounding};
pub use round::{Exact, Overflow, RoundOpts, Rounding};
pub use trace::{Explanation, Step};
pub use unit::{DotUnit, Model, ShapeError};
pub use unit_file::{UnitFile, UnitFileError};
pub use value::Value;
