//! AVX-512's formulation of the late-C steps of a TR-FDPA or GTR-FDPA block (`Zmm`'s
//! [`Steps::tr_late`](crate::kernel::lanes::steps::Steps::tr_late)): the same bits as the
//! integer formulation of `kernel/lanes/tr_late.rs`, whose module docs describe both, with every
//! value in f64 lanes (`vscalefpd`, `vgetexppd`, `vrndscalepd`).

#![allow(unused_unsafe)]

use crate::kernel::plan::TrParams;
use core::arch::x86_64::*;

/// The late-C steps in f64 lanes with AVX-512's scaling instructions (see the module docs);
/// the lanes of [`super::zmm::Zmm`].
#[inline(always)]
pub fn scalef(t: &TrParams, dot: __m512i, e_dot: __m512i, c: __m512i) -> __m512i {
    // SAFETY: register-only AVX-512F intrinsics, reached only from the entry points compiled
    // for AVX-512 (module docs of `vector.rs`).
    unsafe {
        let set = _mm512_set1_epi32;
        // Step 1. A zero C (either sign) is the lanes without a bit outside the sign.
        let ef = _mm512_and_si512(_mm512_srli_epi32::<23>(c), set(0xff));
        let nonzero = _mm512_test_epi32_mask(c, set(0x7fff_ffff));
        let c_e = _mm512_mask_sub_epi32(
            set(t.e_zero_c),
            nonzero,
            _mm512_max_epi32(ef, set(1)),
            set(127),
        );
        let e_max = _mm512_max_epi32(e_dot, c_e);
        // The scale exponents of step 2: the product sum 2^(e_dot - F) onto 2^q2, C onto
        // 2^(e_max - F).
        let up = (t.f2 + 1 - t.f) as i32;
        let s_dot = _mm512_add_epi32(_mm512_sub_epi32(e_dot, e_max), set(up));
        let s_c = _mm512_sub_epi32(set(t.f as i32), e_max);
        let q2 = _mm512_sub_epi32(e_max, set(t.f2 as i32 + 1));
        let c = match t.c_drop {
            Some(cd) => {
                let dropped = _mm512_cmpgt_epi32_mask(_mm512_sub_epi32(e_max, set(cd as i32)), c_e);
                _mm512_mask_mov_epi32(c, dropped, _mm512_setzero_si512())
            }
            None => c,
        };
        // Written out rather than through `array::map`, whose closure call need not be
        // inlined into the AVX-512 entry point (see `gemm.rs` on closures).
        let lo = [low(dot), low(s_dot), low(c), low(s_c), low(q2)];
        let hi = [high(dot), high(s_dot), high(c), high(s_c), high(q2)];
        let (lo, hi) = (scalef_round(t, lo, up), scalef_round(t, hi, up));
        _mm512_castps_si512(_mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi))
    }
}

/// Lanes 0 to 7.
#[inline(always)]
fn low(x: __m512i) -> __m256i {
    // SAFETY: as in `scalef`.
    unsafe { _mm512_castsi512_si256(x) }
}

/// Lanes 8 to 15.
#[inline(always)]
fn high(x: __m512i) -> __m256i {
    // SAFETY: as in `scalef`.
    unsafe { _mm512_extracti64x4_epi64::<1>(x) }
}

/// Eight i32 lanes converted (exactly) to f64.
#[inline(always)]
fn f64s(x: __m256i) -> __m512d {
    // SAFETY: as in `scalef`.
    unsafe { _mm512_cvtepi32_pd(x) }
}

/// `floor(x)` in f64 lanes.
#[inline(always)]
fn floor(x: __m512d) -> __m512d {
    // SAFETY: as in `scalef`.
    unsafe { _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x) }
}

/// Steps 2 and 3 of [`scalef`] on eight lanes: `[dot, s_dot, c, s_c, q2]` as there.
#[inline(always)]
fn scalef_round(t: &TrParams, [dot, s_dot, c, s_c, q2]: [__m256i; 5], up: i32) -> __m256 {
    // SAFETY: as in `scalef`.
    unsafe {
        let dp = floor(_mm512_scalef_pd(f64s(dot), f64s(s_dot)));
        let cp = floor(_mm512_scalef_pd(
            _mm512_cvtps_pd(_mm256_castsi256_ps(c)),
            f64s(s_c),
        ));
        // Both integers on the grid 2^q2; the sum is exact, and never -0 (`dp` is +0 or
        // non-zero, and an exact zero sum is +0 under RNE), so a zero total gives +0.
        let two_up = f64::from_bits(((up + 1023) as u64) << 52);
        let x = _mm512_fmadd_pd(cp, _mm512_set1_pd(two_up), dp);
        // -r = min(F2 - top, q2 - (e_norm_min - F2)) with r as in `int_round`; top is -Inf
        // for a zero total, which then takes the second term (its floor is 0 either way).
        let top = _mm512_getexp_pd(x);
        let q2 = f64s(q2);
        let f2 = t.f2 as i32;
        let neg_r = _mm512_min_pd(
            _mm512_sub_pd(_mm512_set1_pd(f64::from(f2)), top),
            _mm512_sub_pd(q2, _mm512_set1_pd(f64::from(t.e_norm_min - f2))),
        );
        let v = floor(_mm512_scalef_pd(x, neg_r));
        // v · 2^(q2 + r), exact; the narrowing rounds as `int_round`'s does.
        _mm512_cvtpd_ps(_mm512_scalef_pd(v, _mm512_sub_pd(q2, neg_r)))
    }
}
