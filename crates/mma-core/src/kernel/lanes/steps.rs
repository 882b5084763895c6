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
//! - [`Steps::group_sums`]: GST-FDPA's group sums of one dot product (`gst.rs`), a byte-table
//!   lookup per element: AVX2's `pshufb` (`x86/simd.rs`, also on `Zmm`), NEON's `tbl`
//!   (`aarch64/gst.rs`).
//!
//! The implementations live with their widths (`x86/steps.rs`, `aarch64/mod.rs`).

use super::dec::WDec;
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
    #[inline(always)]
    fn efdpa_block<const N: usize, A: WDec, B: WDec>(
        pairs: (&[Self::I], &[Self::I]),
        wp: i64,
        c: Self::I,
    ) -> (Self::I, u32) {
        // The `f64` sum with an a priori bracket by default (AVX2, NEON).
        super::e_fdpa::short_block::<Self, N, A, B>(pairs, wp, c)
    }
    /// The group sums of one GST-FDPA block of `N = 16 · G` elements of four-bit formats
    /// without Inf/NaN codes, in groups of 16: each product `ta[a] · tb[b]` (the codes' signed
    /// values in units of their smallest quantum, so the exact product in units of the
    /// smallest product quantum) summed exactly per group, and a bit mask of the groups with
    /// a non-zero product. Only the low four bits of each word are read, as the portable
    /// table lookup does. Each value is an `i8`, each product below `2^14`, each sum below
    /// `2^18`.
    fn group_sums<const N: usize, const G: usize>(
        a: &[u64; N],
        b: &[u64; N],
        ta: &[i8; 16],
        tb: &[i8; 16],
    ) -> ([i32; G], u32);
}
