//! FMA: a chain of IEEE fused multiply-adds, `c = fma(a_k, b_k, c)` for k = 0, 1, ... in the
//! input precision (NVIDIA fp64 DMMA; AMD fp32/fp64 MFMA). models.md §2; the AMD paper's CDNA1
//! section ("C is added to the first product, then each later product in turn").
//!
//! The IEEE operations come from Berkeley SoftFloat (softfloat-wrapper). A NaN result is
//! re-encoded with the path's [`crate::model::NanStyle`], since SoftFloat's payload rules are
//! those of the host architecture it was built for, not of the GPU.

use crate::model::{BlockIn, BlockModel, Formats, NanStyle};
use crate::round::Rounding;
use softfloat_wrapper::{Float, RoundingMode, F32, F64};

/// Parameters of an FMA chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fma {
    pub mode: Rounding,
    pub nan: NanStyle,
}

fn softfloat_mode(mode: Rounding) -> RoundingMode {
    match mode {
        Rounding::NearestEven => RoundingMode::TiesToEven,
        Rounding::TowardZero => RoundingMode::TowardZero,
        Rounding::Down => RoundingMode::TowardNegative,
        Rounding::Up => RoundingMode::TowardPositive,
        Rounding::NearestAway => RoundingMode::TiesToAway,
    }
}

impl BlockModel for Fma {
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {
        let rnd = softfloat_mode(self.mode);
        let nan = self.nan.bits(&f.d);
        match f.d.storage_bits {
            64 => {
                let mut c = F64::from_bits(x.c);
                for (&a, &b) in x.a.iter().zip(x.b) {
                    c = F64::from_bits(a).fused_mul_add(F64::from_bits(b), c, rnd);
                }
                if c.is_nan() {
                    nan
                } else {
                    c.to_bits()
                }
            }
            _ => {
                // fp32 chain; tf32-style inputs would first be truncated by their format.
                let mut c = F32::from_bits(x.c as u32);
                for (&a, &b) in x.a.iter().zip(x.b) {
                    c = F32::from_bits(a as u32).fused_mul_add(F32::from_bits(b as u32), c, rnd);
                }
                if c.is_nan() {
                    nan
                } else {
                    c.to_bits() as u64
                }
            }
        }
    }
}
