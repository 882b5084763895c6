//! The epilogue of a library GEMM with tensor-wise scales: from the binary32 accumulator to the
//! output's words (see [`crate::library`] for the steps and their evidence).

use super::fp32::{Fp32, Narrow, NAN};
use super::recipe::{Epilogue, Fp8Overflow, NarrowStep, ScaleStep};
use crate::format::{Format, BF16, FP16, FP32};

/// The scales of a call, binary32 bits: `scale_a`, `scale_b` and, for FP8 outputs, the optional
/// `scale_result` (a multiplier: PyTorch passes its `scale_result` through to cuBLASLt's
/// D scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    pub a: u32,
    pub b: u32,
    pub result: Option<u32>,
}

impl Scales {
    /// Scales of 1.
    pub const ONE: Scales = Scales {
        a: 0x3F80_0000,
        b: 0x3F80_0000,
        result: None,
    };
}

/// Which outputs an epilogue writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    F32,
    Narrow16,
    Fp8,
}

/// An epilogue prepared for one output format.
#[derive(Clone, Copy, Debug)]
pub struct Prepared {
    kind: Kind,
    scale: ScaleStep,
    narrow_step: NarrowStep,
    fp: Fp32,
    alpha: u32,
    result: Option<u32>,
    narrow: Narrow,
}

/// Why an epilogue cannot write an output format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a library GEMM writes f32, bf16, f16, e4m3 or e5m2, not {0}")]
pub struct OutputFormatError(pub &'static str);

impl Epilogue {
    /// The epilogue for outputs of `out` and these scales: `alpha = fp32(scale_a · scale_b)`.
    pub fn prepare(&self, out: &Format, scales: Scales) -> Result<Prepared, OutputFormatError> {
        let kind = match out.name {
            "f32" if *out == FP32 => Kind::F32,
            "bf16" | "f16" if *out == BF16 || *out == FP16 => Kind::Narrow16,
            "e4m3" | "e5m2" => Kind::Fp8,
            other => return Err(OutputFormatError(other)),
        };
        let fp = Fp32::new();
        let saturate = kind == Kind::Fp8 && self.fp8_overflow == Fp8Overflow::Saturate;
        Ok(Prepared {
            kind,
            scale: self.scale,
            narrow_step: self.narrow,
            fp,
            alpha: fp.mul(scales.a, scales.b),
            // The result scale multiplies FP8 outputs only.
            result: scales.result.filter(|_| kind == Kind::Fp8),
            narrow: Narrow::new(*out, saturate),
        })
    }
}

impl Prepared {
    /// The output word of one accumulator.
    #[inline]
    pub fn apply(&self, acc: u32) -> u64 {
        let signed_zero = self.scale == ScaleStep::Multiply;
        if self.kind == Kind::Narrow16 && self.narrow_step == NarrowStep::Direct {
            return self.narrow.product(acc, self.alpha, signed_zero);
        }
        let y = if signed_zero {
            self.fp.mul(acc, self.alpha)
        } else {
            self.fp.mul_add_zero(acc, self.alpha)
        };
        match self.kind {
            Kind::F32 => {
                if (y >> 23) & 0xFF == 0xFF && y & 0x7F_FFFF != 0 {
                    u64::from(NAN)
                } else {
                    u64::from(y)
                }
            }
            Kind::Narrow16 => self.narrow.apply(y),
            Kind::Fp8 => {
                // A second binary32 multiply by the result scale, then the FP8 rounding.
                let y = self.result.map_or(y, |s| self.fp.mul(y, s));
                self.narrow.apply(y)
            }
        }
    }
}
