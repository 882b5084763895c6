//! [`Steps`] for the x86-64 widths: the integer late-C steps and the `f64` E-FDPA block on
//! [`Ymm`], AVX-512's shorter formulations on [`Zmm`] (`kernel/lanes/steps.rs` says why the
//! steps are per width).

use super::ymm::Ymm;
use super::zmm::Zmm;
use crate::kernel::lanes::stage::WDec;
use crate::kernel::lanes::steps::Steps;
use crate::kernel::plan::TrParams;
use core::arch::x86_64::__m512i;

/// The default (integer and `f64`) formulations.
impl Steps for Ymm {}

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
}
