//! NVIDIA tensor-core instructions from Volta to Blackwell (`mma.sync`, `wgmma`,
//! `tcgen05.mma`, with and without block scaling), each mapped to its bit-exact model, a
//! [`mma_core::DotUnit`].
//!
//! - [`arch`]: architectures, product names, per-architecture parameters.
//! - [`catalog`](mod@catalog): the instruction tables; [`catalog()`](fn@catalog) lists them,
//!   [`find`] looks one up by any of the names users write (mmasim's short form, PTX
//!   spellings) on an architecture given by name, PTX target or product.
//! - [`gpus`]: NVIDIA GPUs as data: which instruction their libraries issue per dtype.
//! - [`library`]: GPU library platforms (cuBLASLt on the RTX 4060 and the H100 PCIe) as data:
//!   the instruction their FP8 GEMMs issue, their K walk and epilogue, their rejections.
//!
//! # Example
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The same instruction by its PTX spelling on an A100: 1·1 + 1·2 = 3 in bf16 → f32.
//! let ins = mma_nvidia::find("A100", None, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")?;
//! assert_eq!((ins.arch.name(), ins.name.as_str(), ins.k), ("Ampere", "m16n8k16.f32.bf16.bf16.f32", 16));
//! let mut a = vec![0u64; 16];
//! let mut b = vec![0u64; 16];
//! a[..2].copy_from_slice(&[0x3f80, 0x3f80]); // bf16 1, 1
//! b[..2].copy_from_slice(&[0x3f80, 0x4000]); // bf16 1, 2
//! assert_eq!(ins.unit.dot(&a, &b, 0), 0x4040_0000); // f32 3.0
//! // A name that is not in the catalog is answered with the closest ones.
//! let err = mma_nvidia::find("Ampere", None, "m16n8k16.bf16").unwrap_err();
//! assert!(err.to_string().ends_with("did you mean: m16n8k16.f32.bf16.bf16.f32"));
//! # Ok(())
//! # }
//! ```
//!
//! This crate has no features.
//!
//! # Conventions
//!
//! Conventions of every fused NVIDIA path (the first paper, Xie et al., arXiv 2511.10909, and
//! the hardware records): a NaN result is 0x7FFFFFFF (f32) or 0x7FFF (f16); a -0 result is
//! returned as +0; overflow gives ±Inf even when the final rounding truncates. The fp64 FMA path returns the all-ones NaN too (an assumption: no record decides).
//!
//! # Differences from mmasim
//!
//! mmasim 2.1.1 is the reference for every instruction it lists; `vectors/mmasim/nvidia/`
//! holds its results (for every `mma.sync` it lists, and for N = 8, 64 and 256 of `wgmma` and
//! `tcgen05.mma`; written by `xtask/scripts/mmasim_nvidia_cases.py`; the rows whose unit it
//! covers, every width N of a sampled unit among them, are the catalog's `reference` evidence,
//! `src/evidence.rs`) and
//! `crates/mma/tests/mmasim_nvidia.rs` requires bit equality on every line but those below.
//! Where hardware records exist (`shared/hw`) they outrank mmasim.
//!
//! - **fp64 NaN bits.** mmasim computes fp64 `mma.sync` with the host's `std::fma`, so its NaN
//!   results are the host CPU's: on x86 an invalid operation (0·Inf, Inf−Inf) gives
//!   0xFFF8000000000000 and a NaN operand comes out quieted with its sign and payload
//!   (0x7FF0000000000001 → 0x7FF8000000000001); an Arm host would give 0x7FF8000000000000.
//!   Neither is a property of the GPU. This crate returns 0x7FFFFFFFFFFFFFFF for every fp64
//!   NaN, the same all-ones pattern as the fused paths (an assumption; no record decides).
//!   The vector test excludes fp64 lines whose mmasim result is a NaN and instead requires
//!   the all-ones NaN; `fp64_nan_results_are_all_ones` checks hand-derived cases.
//! - **Instructions mmasim does not list.** Hopper and Blackwell `mma.sync` with e4m3/e5m2
//!   (see `src/fp8_mma.rs`; `Instruction::note` says where their arithmetic comes from), and
//!   the integer instructions (`src/catalog_int.rs`: `mma.sync` s8/u8, s4/u4 and b1 from
//!   Turing on, Hopper's integer `wgmma`, Blackwell's `tcgen05.mma` `kind::i8`, all into s32
//!   with and without `.satfinite`; I-DPA as the PTX ISA describes it, `unverified`). Every
//!   instruction mmasim lists is in the catalog under the same name (checked against
//!   `vectors/mmasim/nvidia/instructions.txt`).
//!
//! Behaviours that look odd but where this crate agrees with mmasim, kept because no hardware
//! record contradicts them: a tf32 operand that is an fp32 NaN with its payload only in the
//! 13 dropped bits reads as ±Inf (the bits are truncated first); round-toward-zero outputs
//! overflow to ±Inf, not to the largest finite value; ue4m3 scales ignore their sign bit in
//! mmasim, and case files must give it clear.

pub mod arch;
pub mod catalog;
mod evidence;
mod fp8_mma;
pub mod gpus;
pub mod library;
mod lookup;
mod op;
mod sparse;

pub use arch::Arch;
pub use catalog::{Instruction, Layout, Op};
pub use lookup::{catalog, find, find_in, parse_arch, CatalogError};
