//! The arithmetic model family, one model per file, each a parameterised type implementing
//! [`BlockModel`](crate::model::BlockModel) (the trait, the decoded block and the output
//! rounding they share are in [`model`](crate::model)):
//!
//! - [`fma`]: a chain of fused multiply-adds (NVIDIA fp64, AMD fp32/fp64).
//! - [`ftz_mul_add`]: flush-to-zero multiplies and pairwise fp32 adds (AMD CDNA2 fp16/bf16).
//! - [`e_fdpa`]: exact fused dot-product-add (AMD CDNA1 fp16/bf16).
//! - [`t_fdpa`]: truncated fused dot-product-add, the NVIDIA tensor-core datapath.
//! - [`st_fdpa`], [`gst_fdpa`]: T-FDPA with per-block scales (NVIDIA block-scaled kinds), and
//!   grouped (`kind::mxf4`, `kind::mxf4nvf4`).
//! - [`sliced_fdpa`]: T-FDPA passes over interleaved slices of K (NVIDIA fp8 `mma.sync`).
//! - [`int_dpa`]: the exact integer dot product of the integer instructions (NVIDIA
//!   `.s8/.u8/.s4/.u4/.b1`, AMD `i8`), wrapping or saturating into s32.
//! - [`tr_fdpa`], [`gtr_fdpa`]: truncated with a late, rounded-down C (AMD CDNA3), and grouped
//!   (CDNA3 fp8).
//!
//! The papers and measurements each model rests on are in its file's header.

pub mod e_fdpa;
pub mod fma;
pub mod ftz_mul_add;
pub mod gst_fdpa;
pub mod gtr_fdpa;
pub mod int_dpa;
pub mod sliced_fdpa;
pub mod st_fdpa;
pub mod t_fdpa;
pub mod tr_fdpa;
