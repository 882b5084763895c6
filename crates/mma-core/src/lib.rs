//! Bit-exact models of GPU matrix multiply-accumulate arithmetic.
//!
//! - [`format`]: number formats as descriptors, decode and encode.
//! - [`round`]: the single rounding routine.
//! - [`term`], [`wide`]: exact products and exact wide sums.
//! - One module per arithmetic model (`fma`, `e_fdpa`, `t_fdpa`, ...), each a parameterised
//!   type implementing [`model::BlockModel`].
//! - [`unit_file`]: units as data (serde), for units no catalog holds.
//! - [`unit`]: a whole instruction (formats, block length, model) with the K-chaining and the
//!   matrix-level drivers.

pub mod e_fdpa;
pub mod fast;
pub mod fma;
pub mod format;
pub mod ftz_mul_add;
pub mod gemm;
pub mod gst_fdpa;
pub mod gtr_fdpa;
pub mod model;
pub mod round;
pub mod sliced_fdpa;
pub mod st_fdpa;
pub mod t_fdpa;
pub mod term;
pub mod tr_fdpa;
pub mod typed;
pub mod unit;
pub mod unit_file;
pub mod value;
pub mod wide;

pub use fast::Kernel;
pub use format::Format;
pub use model::{BlockModel, Formats, NanStyle, Output, OutputRounding};
pub use round::{Exact, Overflow, RoundOpts, Rounding};
pub use unit::{DotUnit, Model, ShapeError};
pub use unit_file::{UnitFile, UnitFileError};
pub use value::Value;
