//! AVX2 T-FDPA, TR-FDPA and GTR-FDPA blocks: decode, multiply, align and sum eight products
//! per instruction.
//!
//! The only `unsafe` code of the fast paths. Compiled only where the build enables AVX2
//! (`.cargo/config.toml` builds for `x86-64-v3`); elsewhere the scalar loops of
//! `crate::kernel::tfdpa_n` and of [`crate::kernel::scalar::tr_fdpa`] (`tr_n`, `gtr_n`) run. TR-FDPA uses [`tfdpa`]
//! with C left out (C is added by `tr_fdpa::late_c`), GTR-FDPA [`gtr`]. Bit-identical to it (and so to the plain model): the same integer
//! operations, lane by lane, in a different order of an exact integer sum.
//!
//! Lanes are 32 bits wide. A product significand is below `2^(ma+mb+2)`, shifted left by
//! `F - ma - mb` it is below `2^(F+2)`; the plan (`fits32` in `kernel/plan.rs`) admits a block of `n` products only when
//! `n · 2^(F+2) <= 2^31`, so every partial sum of the products' magnitudes, in any order, fits
//! an `i32` (C is added afterwards in `i64`). Operand words are `u64`; only their low 32 bits
//! are read, and of those only the format's own bits, as [`crate::Format::decode`] does.
//! Elements are taken in the order the packing gives (a permutation within each group of
//! eight, the same for A and B), which a max and an exact sum do not see.

#![allow(unused_unsafe)]

use super::ymm::Ymm;
use crate::kernel::lanes::dec::*;
use core::arch::x86_64::*;

/// The products of one block: their aligned, truncated, signed sum, the largest exponent of
/// all terms (products and C) plus `bias_a + bias_b`, and whether every product is negative.
pub struct Products {
    pub sum: i64,
    pub e_max: i32,
    pub all_neg: bool,
}

/// Low 32 bits of eight consecutive `u64` words (in a fixed permutation).
#[inline(always)]
fn load8(p: &[u64]) -> __m256i {
    assert!(p.len() >= 8);
    // SAFETY: `p` has at least 8 words (asserted; the assert folds away for fixed-size
    // callers), read unaligned; the shuffle is register-only.
    unsafe {
        let lo = _mm256_loadu_si256(p.as_ptr().cast());
        let hi = _mm256_loadu_si256(p.as_ptr().add(4).cast());
        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
            _mm256_castsi256_ps(lo),
            _mm256_castsi256_ps(hi),
        ))
    }
}

/// One T-FDPA block of `N` (a multiple of 8, at most 64) products, all finite: `None` when an
/// operand is Inf/NaN. Exponents are biased by `bias_a + bias_b`: `e_zero` is the zero
/// products' exponent and `c_e` C's, both so biased; `shift = F - ma - mb`. The caller ensures
/// that `N` products fit the lanes (see the module docs).
#[inline(always)]
pub fn tfdpa<const N: usize, A: VDec, B: VDec>(
    a: &[u64; N],
    b: &[u64; N],
    shift: u32,
    e_zero: i32,
    c_e: i32,
) -> Option<Products> {
    // SAFETY: register-only AVX2 arithmetic (loads go through `load8`); this module is
    // compiled only with AVX2 enabled.
    unsafe {
        let zero = _mm256_setzero_si256();
        let ez = _mm256_set1_epi32(e_zero);
        let mut sv = [zero; 8];
        let mut ev = [zero; 8];
        let mut gv = [zero; 8];
        let mut emax = _mm256_set1_epi32(c_e);
        let mut special = zero;
        let mut all_neg = _mm256_set1_epi32(-1);
        for j in 0..N / 8 {
            let (sa, fa, xa, na) = A::dec::<Ymm>(load8(&a[8 * j..]));
            let (sb, fb, xb, nb) = B::dec::<Ymm>(load8(&b[8 * j..]));
            let s = _mm256_mullo_epi32(sa, sb);
            let e = _mm256_blendv_epi8(_mm256_add_epi32(fa, fb), ez, _mm256_cmpeq_epi32(s, zero));
            let g = _mm256_xor_si256(na, nb);
            special = _mm256_or_si256(special, _mm256_or_si256(xa, xb));
            all_neg = _mm256_and_si256(all_neg, g);
            emax = _mm256_max_epi32(emax, e);
            sv[j] = s;
            ev[j] = e;
            gv[j] = g;
        }
        if _mm256_testz_si256(special, special) == 0 {
            return None;
        }
        // Horizontal max, broadcast to every lane.
        let m = _mm256_max_epi32(emax, _mm256_permute2x128_si256::<1>(emax, emax));
        let m = _mm256_max_epi32(m, _mm256_shuffle_epi32::<0b01_00_11_10>(m));
        let m = _mm256_max_epi32(m, _mm256_shuffle_epi32::<0b10_11_00_01>(m));
        let sh = _mm_cvtsi32_si128(shift as i32);
        let mut acc = zero;
        for j in 0..N / 8 {
            let d = _mm256_sub_epi32(m, ev[j]);
            // Counts of 32 or more give 0, as the scalar shift of a value below 2^31 does.
            let mag = _mm256_srlv_epi32(_mm256_sll_epi32(sv[j], sh), d);
            acc = _mm256_add_epi32(acc, _mm256_sub_epi32(_mm256_xor_si256(mag, gv[j]), gv[j]));
        }
        let s4 = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let s2 = _mm_add_epi32(s4, _mm_shuffle_epi32::<0b01_00_11_10>(s4));
        let s1 = _mm_add_epi32(s2, _mm_shuffle_epi32::<0b10_11_00_01>(s2));
        Some(Products {
            sum: _mm_cvtsi128_si32(s1) as i64,
            e_max: _mm256_cvtsi256_si32(m),
            all_neg: _mm256_movemask_ps(_mm256_castsi256_ps(all_neg)) == 0xff,
        })
    }
}

/// The two product groups of one GTR-FDPA block of `N` (a multiple of 8) products,
/// all finite: even-indexed products are group 0, odd-indexed group 1. Returns each group's
/// largest exponent (`e_zero` where the group has no non-zero product; exponents biased by
/// `bias_a + bias_b`) and its products aligned to `F` fraction bits below that exponent,
/// truncated toward zero, summed: `(sum0, e0, sum1, e1)`. `None` when an operand is Inf/NaN.
///
/// `load8` puts even words in even lanes and odd words in odd lanes, so the groups are the
/// lane parities: the horizontal max and sum below combine only lanes of equal parity.
#[inline(always)]
pub fn gtr<const N: usize, A: VDec, B: VDec>(
    a: &[u64; N],
    b: &[u64; N],
    shift: u32,
    e_zero: i32,
) -> Option<(i32, i32, i32, i32)> {
    // SAFETY: register-only AVX2 arithmetic (loads go through `load8`); this module is
    // compiled only with AVX2 enabled.
    unsafe {
        let zero = _mm256_setzero_si256();
        let ez = _mm256_set1_epi32(e_zero);
        let mut sv = [zero; 8];
        let mut ev = [zero; 8];
        let mut gv = [zero; 8];
        let mut emax = ez;
        let mut special = zero;
        for j in 0..N / 8 {
            let (sa, fa, xa, na) = A::dec::<Ymm>(load8(&a[8 * j..]));
            let (sb, fb, xb, nb) = B::dec::<Ymm>(load8(&b[8 * j..]));
            let s = _mm256_mullo_epi32(sa, sb);
            let e = _mm256_blendv_epi8(_mm256_add_epi32(fa, fb), ez, _mm256_cmpeq_epi32(s, zero));
            special = _mm256_or_si256(special, _mm256_or_si256(xa, xb));
            emax = _mm256_max_epi32(emax, e);
            sv[j] = s;
            ev[j] = e;
            gv[j] = _mm256_xor_si256(na, nb);
        }
        if _mm256_testz_si256(special, special) == 0 {
            return None;
        }
        // Max over the lanes of each parity, broadcast to the lanes of that parity.
        let m = _mm256_max_epi32(emax, _mm256_permute2x128_si256::<1>(emax, emax));
        let m = _mm256_max_epi32(m, _mm256_shuffle_epi32::<0b01_00_11_10>(m));
        let sh = _mm_cvtsi32_si128(shift as i32);
        let mut acc = zero;
        for j in 0..N / 8 {
            let d = _mm256_sub_epi32(m, ev[j]);
            // Counts of 32 or more give 0, as the scalar shift (count capped at 31) of a
            // value below 2^31 does.
            let mag = _mm256_srlv_epi32(_mm256_sll_epi32(sv[j], sh), d);
            acc = _mm256_add_epi32(acc, _mm256_sub_epi32(_mm256_xor_si256(mag, gv[j]), gv[j]));
        }
        let s4 = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let s2 = _mm_add_epi32(s4, _mm_shuffle_epi32::<0b01_00_11_10>(s4));
        let m4 = _mm256_castsi256_si128(m);
        Some((
            _mm_cvtsi128_si32(s2),
            _mm_cvtsi128_si32(m4),
            _mm_extract_epi32::<1>(s2),
            _mm_extract_epi32::<1>(m4),
        ))
    }
}

/// The group sums of a GST-FDPA block of `N = 16 · G` elements of 4-bit formats without
/// Inf/NaN codes, in groups of 16: each product `ta[a] · tb[b]` (the codes' signed values in
/// units of their smallest quantum, so the exact product in units of the smallest product
/// quantum) summed exactly per group, and a bit mask of the groups with a non-zero product.
/// Only the low 4 bits of each word are read, as the scalar table lookup does. Each value is
/// an `i8`, each product below `2^14`, each group sum below `2^18`.
#[inline(always)]
pub fn gst4<const N: usize, const G: usize>(
    a: &[u64; N],
    b: &[u64; N],
    ta: &[i8; 16],
    tb: &[i8; 16],
) -> ([i32; G], u32) {
    const { assert!(N == 16 * G) };
    // SAFETY: the 16-byte tables are read unaligned from arrays of 16 bytes; the rest is
    // register-only AVX2 arithmetic (element loads go through `load8`); this module is
    // compiled only with AVX2 enabled.
    unsafe {
        let la = _mm256_broadcastsi128_si256(_mm_loadu_si128(ta.as_ptr().cast()));
        let lb = _mm256_broadcastsi128_si256(_mm_loadu_si128(tb.as_ptr().cast()));
        let m15 = _mm256_set1_epi32(15);
        // Byte 0 of each lane indexes the table; the other bytes (index 0) are shifted out,
        // and the looked-up byte is sign-extended.
        // A macro, not a closure: a closure does not inherit the target features, and where
        // LLVM does not inline it its intrinsics become calls.
        macro_rules! look {
            ($t:expr, $x:expr) => {{
                let v = _mm256_shuffle_epi8($t, _mm256_and_si256($x, m15));
                _mm256_srai_epi32::<24>(_mm256_slli_epi32::<24>(v))
            }};
        }
        let mut sums = [0i32; G];
        let mut nonzero = 0u32;
        for (j, sum) in sums.iter_mut().enumerate() {
            let p0 = _mm256_mullo_epi32(
                look!(la, load8(&a[16 * j..])),
                look!(lb, load8(&b[16 * j..])),
            );
            let p1 = _mm256_mullo_epi32(
                look!(la, load8(&a[16 * j + 8..])),
                look!(lb, load8(&b[16 * j + 8..])),
            );
            let any = _mm256_or_si256(p0, p1);
            if _mm256_testz_si256(any, any) == 0 {
                nonzero |= 1 << j;
            }
            let s = _mm256_add_epi32(p0, p1);
            let s4 = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
            let s2 = _mm_add_epi32(s4, _mm_shuffle_epi32::<0b01_00_11_10>(s4));
            let s1 = _mm_add_epi32(s2, _mm_shuffle_epi32::<0b10_11_00_01>(s2));
            *sum = _mm_cvtsi128_si32(s1);
        }
        (sums, nonzero)
    }
}
