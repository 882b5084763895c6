//! Model steps whose best formulation depends on the vector width's instructions, on a trait
//! above [`Vector`]: the widths' own operations stay free of the models, and a model routine
//! that needs one of these steps asks for `V: Steps` instead of `V: Vector`.
//!
//! - [`Steps::tr_late`]: the late-C steps of a TR-FDPA or GTR-FDPA block (`tr_late.rs`), in
//!   64-bit integer lanes (AVX2's `Ymm`, NEON's `Neon`), with the shorter f64 formulation
//!   AVX-512 allows on `Zmm` (`x86/tr_late.rs`).
//! - [`Steps::efdpa_block`]: one short E-FDPA block, the `f64` sum with an a priori bracket
//!   (`e_fdpa.rs`: `Ymm`, `Neon`), sums rounded down and up (`x86/e_fdpa_directed.rs`,
//!   AVX-512's per-instruction rounding) on `Zmm`.
//!
//! The implementations live with their widths (`x86/steps.rs`, `aarch64/mod.rs`).

use super::stage::WDec;
use super::vector::Vector;
use crate::kernel::plan::TrParams;

/// The model steps of one vector width (see the module docs).
pub trait Steps: Vector {
    /// From the product sum `dot · 2^(e_dot - F)` and C (fp32 words), the fp32 results of a
    /// TR-FDPA or GTR-FDPA block.
    /// The integer formulation by default (AVX2, NEON).
    #[inline(always)]
    fn tr_late(t: &TrParams, dot: Self::I, e_dot: Self::I, c: Self::I) -> Self::I {
        super::tr_late::int::<Self>(t, dot, e_dot, c)
    }
    /// One E-FDPA block of `N <= 8` elements from its columns in pairs ([`Vector::pack16`]
    /// layout, `N / 2` per operand), C the fp32 word in each lane of `c`: the results and the
    /// lanes to recompute.
    fn efdpa_block<const N: usize, A: WDec, B: WDec>(
        pairs: (&[Self::I], &[Self::I]),
        wp: i64,
        c: Self::I,
    ) -> (Self::I, u32) {
        // The `f64` sum with an a priori bracket by default (AVX2, NEON).
        super::e_fdpa::short_block::<Self, N, A, B>(pairs, wp, c)
    }
}
