//! The per-dot FMA chains (fp32 and fp64, RNE: AMD MFMA, NVIDIA DMMA) with the machine's
//! fused multiply-add: one IEEE FMA per element, which is what the plain model's exact
//! product and single rounding give.

use crate::model::BlockIn;

/// fp32 or fp64 words as the machine's float type, with its fused multiply-add.
pub trait NativeFloat: Copy {
    fn from_word(w: u64) -> Self;
    fn to_word(self) -> u64;
    fn fused(self, b: Self, c: Self) -> Self;
    fn nan(self) -> bool;
}

impl NativeFloat for f32 {
    #[inline(always)]
    fn from_word(w: u64) -> f32 {
        f32::from_bits(w as u32)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline(always)]
    fn fused(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl NativeFloat for f64 {
    #[inline(always)]
    fn from_word(w: u64) -> f64 {
        f64::from_bits(w)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn fused(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// [`crate::models::fma::Fma`] with RNE when A, B, C and D are all fp32 or all fp64: `c = fma(a_k,
/// b_k, c)` in the machine's fused multiply-add, which is the IEEE operation the plain model
/// computes exactly (Rust's `mul_add` is always fused: the FMA instruction in `x86-64-v3`
/// builds, a correctly rounded library call otherwise; the default MXCSR rounds to nearest
/// even with subnormals). Zero signs and Inf/NaN follow IEEE in both; a NaN result takes the
/// unit's NaN bits, as the plain model encodes it. No fallback; `tests/fast_paths.rs` compares
/// it with the plain model on words with every special.
#[inline(always)]
pub fn fma_block<F: NativeFloat>(nan_bits: u64, x: &BlockIn<'_>) -> u64 {
    let mut c = F::from_word(x.c);
    for (&a, &b) in x.a.iter().zip(x.b) {
        c = F::from_word(a).fused(F::from_word(b), c);
    }
    if c.nan() {
        nan_bits
    } else {
        c.to_word()
    }
}
