//! Bit-exact models of the AMD CDNA1, CDNA2, CDNA3 and CDNA4 matrix cores (`v_mfma_*`).
//!
//! [`catalog`] lists every MFMA instruction of mmasim 2.1.1's lists for CDNA1-CDNA3, the
//! integer (`v_mfma_i32_*`, i8) MFMAs of the CDNA ISA guides, and CDNA4's (gfx950) MFMAs
//! modelled from CDNA3's (unverified: no measurement and no mmasim corpus), each with its shape, block count (`_Nb`) and a [`mma_core::DotUnit`] that
//! computes one output element bit-exactly; [`find`] looks instructions up by mmasim suffix,
//! ISA mnemonic or compiler builtin. [`gpus`] names the instruction each AMD GPU's libraries
//! are taken to issue per dtype (data, `library/gpus.txt`).
//!
//! # Example
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // CDNA2 f16 flushes subnormal inputs (FTZ-MulAdd): 2^-24 · 1 counts as 0; CDNA3 keeps it.
//! let (tiny, one) = (0x0001u64, 0x3c00u64); // f16 2^-24 (subnormal), 1.0
//! let (mut a, mut b) = (vec![0u64; 8], vec![0u64; 8]);
//! (a[0], b[0]) = (tiny, one);
//! let cdna2 = mma_amd::find("MI250X", None, "v_mfma_f32_32x32x8f16")?;
//! let cdna3 = mma_amd::find("MI300X", None, "f32_32x32x8_f16")?;
//! assert_eq!(cdna2.dot(&a, &b, 0), 0x0000_0000); // +0
//! assert_eq!(cdna3.dot(&a, &b, 0), 0x3380_0000); // 2^-24
//! # Ok(())
//! # }
//! ```
//!
//! This crate has no features.
//!
//! # Arithmetic (Khattak, Mikaitis, Graziani, "Accurate Models of AMD Matrix Cores", arXiv
//! 2609.14845)
//! | architecture | fp64 / fp32 | xf32 | fp16 | bf16 | fp8 / bf8 (FNUZ) |
//! | --- | --- | --- | --- | --- | --- |
//! | CDNA1 | FMA | - | E-FDPA, L = 4 | E-FDPA, L = 2 | - |
//! | CDNA2 | FMA | - | FTZ-MulAdd, P = 4 | FTZ-MulAdd, P = 2 (`_1k`: P = 4) | - |
//! | CDNA3 | FMA | TR-FDPA, L = 4 | TR-FDPA, L = 8 | TR-FDPA, L = 8 | GTR-FDPA, L = 16 |
//! | CDNA4 (carried over) | FMA | - | TR-FDPA, L = 8 | TR-FDPA, L = 8 | GTR-FDPA, L = 16 (OCP; also fp6/fp4) |
//!
//! i8 → i32 (`v_mfma_i32_*`, every architecture): I-DPA, the exact sum of the products and C
//! wrapped modulo 2^32 (no saturation), unverified (not in mmasim).
//!
//! CDNA4 (MI350X, MI355X, gfx950; AMD's CDNA4 ISA reference guide) has no measurement: each row
//! carries over the CDNA3 model of its type (its `note` says which). It drops xf32, reads fp8/bf8
//! as the OCP e4m3/e5m2 (CDNA3's are FNUZ), and adds the doubled-K f16/bf16/i8 MFMAs and
//! `v_mfma_f32_{16x16x128,32x32x64}_f8f6f4` (one row per A/B format pair of fp8, bf8, fp6
//! (e2m3), bf6 (e3m2), fp4 (e2m1), named `f32_16x16x128_f8f6f4_fp8_fp4`; case files hold them
//! one element per byte, [`mma_core::catalog::Layout::Byte`]). The doubled-K f16/bf16 keep
//! CDNA3's L = 8 (K = 32 is four blocks): L is what the AMD paper measured for the adder, and
//! CDNA3's own K = 16 forms already chain two blocks; a wider adder (L = 16) would be the
//! other reading, which a gfx950 probe decides. The block-scaled
//! `v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4` (named `scale_f32_16x16x128_f8f6f4_fp8_fp4`,
//! after the mnemonic) are the same GTR-FDPA with a ue8m0 scale per 32 elements of A and of B,
//! each product multiplied exactly by its scale pair before the even/odd grouping (OCP MX's
//! scaled block; the placement is an assumption, `gtr_fdpa`).
//!
//! The models live in `mma-core` (`fma`, `e_fdpa`, `ftz_mul_add`, `tr_fdpa`, `gtr_fdpa`), each
//! with its sources. Outputs are fp32 (fp64 for fp64 inputs) rounded to nearest even.
//!
//! # Conventions
//! - NaN: CDNA1 returns the default quiet NaN with its sign bit set (0xFFC00000,
//!   0xFFF8000000000000): the AMD paper measured a *negative* NaN for +Inf + -Inf on CDNA1,
//!   and this crate follows that measurement. That the same NaN comes out of every other
//!   invalid operation (0·Inf) and of NaN operands is an assumption (no record shows CDNA1
//!   propagating a payload). CDNA2 and CDNA3 return the IEEE default quiet NaN (0x7FC00000,
//!   0x7FF8000000000000): nothing is measured for them, and the positive default NaN is
//!   assumed. mmasim's AMD NaNs are either the host CPU's (FMA, E-FDPA, FTZ-MulAdd) or
//!   NVIDIA's 0x7FFFFFFF reused by its shared code (TR/GTR-FDPA), so the differential test
//!   compares only NaN-ness where mmasim returns a NaN; `tests/differences.rs` tests the
//!   bits.
//! - Signed zero: IEEE rules in the FMA, E-FDPA and FTZ-MulAdd paths (FTZ-MulAdd flushes -0
//!   and subnormal inputs and C to +0, and tiny products and sums to a zero of their sign, as
//!   mmasim does). TR/GTR-FDPA sum in two's-complement fixed point, where an exact zero is +0;
//!   a negative sum below fp32's range still rounds to -0.
//! - xf32 operands are fp32 registers whose low 13 mantissa bits are ignored (truncation), so
//!   an fp32 NaN whose payload lies only in those bits reads as Inf (as in mmasim; the hardware
//!   behaviour is not recorded).
//! - fp8/bf8 are the FNUZ formats: 0x80 is the only NaN, there is no Inf or -0.
//! - FTZ-MulAdd units take the whole K as one block, because C is flushed once per instruction.
//!
//! # DIFFERENCES from mmasim 2.1.1
//! Each is kept by a named test in `tests/differences.rs`, and the differential test
//! `tests/mmasim_corpus.rs` skips exactly the lines that [`known_difference`] names.
//! 1. **CDNA3 fp8/bf8 with an Inf or NaN C** (a point where the AMD paper's MATLAB
//!    model and mmasim disagree and no hardware record decides). mmasim's GTR-FDPA drops C when
//!    its exponent is below `e_max - 25`; for Inf/NaN it uses the exponent that `frexp` gives
//!    them (0), so once the products exceed about 2^24 a NaN or Inf C silently disappears and
//!    the result is finite. The dropping rule models the alignment shifter losing a small C; an
//!    Inf or NaN is not a small number and has no alignment, and IEEE 754 (and the CDNA3 TR-FDPA
//!    path of the same hardware, which never drops C) says the result is NaN or Inf. This crate
//!    returns NaN for a NaN C and Inf of C's sign for an Inf C.
//! 2. **CDNA1 fp16/bf16 where every product and C are -0.** The exact sum of negative zeros
//!    is -0 by IEEE 754 (and the AMD paper describes CDNA1 as a correctly rounded exact sum);
//!    mmasim returns +0, a side effect of the error-free transformations (TwoSum) it sums with,
//!    not a modelling decision. This crate returns -0.
//!
//! 3. **CDNA3 fp8/bf8 with a NaN operand in a block before the last.** An instruction with
//!    K = 32 is two blocks of 16, the first block's result entering the second as its C.
//!    A NaN operand (0x80, the FNUZ NaN) makes the first block's result NaN, and mmasim then
//!    drops that NaN exactly as in 1. once the second block's products exceed about 2^24, so
//!    its result is finite. The NaN is an operand of the instruction, not a small partial
//!    sum: IEEE 754 and the unit's own single-block behaviour (a NaN operand in the last block
//!    gives NaN in mmasim too) say the result is NaN, and this crate returns NaN.
//!
//! Not a difference: CDNA2 `0·Inf` where the 0 is a flushed subnormal gives NaN (mmasim; the
//! MATLAB models of the AMD paper give Inf). The paper and both models flush subnormal inputs,
//! and a flushed input is a zero (as with DAZ), so `0·Inf` is NaN by IEEE 754.

mod arch;
mod catalog;
mod differences;
mod evidence;
pub mod gpus;
mod lookup;
mod op;
mod sparse;

pub use arch::Arch;
pub use differences::{known_difference, KnownDifference};
pub use lookup::{catalog, find, find_in, parse_arch, CatalogError};
pub use op::{Instruction, Op};
