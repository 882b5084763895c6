//! [`Steps`] for the x86-64 widths: the integer late-C steps and the `f64` E-FDPA block on
//! [`Ymm`], AVX-512's shorter formulations on [`Zmm`], AVX2's byte lookups for GST-FDPA's
//! group sums on both (`kernel/lanes/steps.rs` says why the steps are per width).

use super::ymm::Ymm;
use super::zmm::Zmm;
use crate::kernel::lanes::dec::WDec;
use crate::kernel::lanes::steps::Steps;
use crate::kernel::plan::TrParams;
use core::arch::x86_64::__m512i;

/// The default (integer and `f64`) formulations; AVX2's byte lookups for GST-FDPA.
impl Steps for Ymm {
    #[inline(always)]
    fn group_sums<const N: usize, const G: usize>(
        a: &[u64; N],
        b: &[u64; N],
        ta: &[i8; 16],
        tb: &[i8; 16],
    ) -> ([i32; G], u32) {
        super::simd::gst4::<N, G>(a, b, ta, tb)
    }
}

impl Steps for Zmm {
    #[inline(always)]
    fn tr_late(t: &TrParams, dot: __m512i, e_dot: __m512i, c: __m512i) -> __m512i {
        super::tr_late::scalef(t, dot, e_dot, c)
    }

    #[inline(always)]
    fn efdpa_block<const N: usize, A: WDec, B: WDec>(
        pairs: (&[__m512i], &[__m512i]),
        wp: i64,
        c: __m512i,
    ) -> (__m512i, u32) {
        super::e_fdpa_directed::block::<N, A, B>(pairs, wp, c)
    }

    /// AVX2's (the group sums are per dot product: wider lanes would not shorten them).
    #[inline(always)]
    fn group_sums<const N: usize, const G: usize>(
        a: &[u64; N],
        b: &[u64; N],
        ta: &[i8; 16],
        tb: &[i8; 16],
    ) -> ([i32; G], u32) {
        super::simd::gst4::<N, G>(a, b, ta, tb)
    }
}
