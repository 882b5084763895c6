//! The product stage of the lane-wise T-FDPA, TR-FDPA and GTR-FDPA blocks ([`super::batch`]):
//! for eight dot products, the products of one block, the largest product exponent of each
//! product group, and the products aligned to `F` fraction bits below it, truncated toward
//! zero and summed.
//!
//! Two implementations compute the same integers:
//!
//! - [`IntStage`] decodes each element to a significand and an exponent in 32-bit lanes
//!   ([`VDec`]), multiplies the significands and shifts each product by its distance to the
//!   largest exponent, as the per-dot kernels do.
//! - [`FloatStage`] (formats of at most 16 bits whose values are exactly `f16` values up to a
//!   power of two, and bf16) packs two columns of 16-bit words per vector, so that the exponent
//!   fields, zero tests and the largest exponent take one 16-bit operation for sixteen elements;
//!   it converts the elements to `f32` (`vcvtph2ps`, or a shift for bf16) and multiplies them
//!   there. The product of two such values is exact in `f32` (at most 22 significant bits;
//!   bf16 products whose exponent could leave the normal range are flagged). Aligning it is a
//!   multiplication by `2^(F - e_max)` (a power of two: exact unless the result is below
//!   `2^-126`, where the truncation gives 0 either way) and the truncation toward zero is
//!   `vcvttps2dq`. The model's exponent of a product is the sum of the inputs' exponents (not
//!   the normalised exponent of the `f32` product), so it is taken from the fields.

#![allow(unused_unsafe)]

use super::batch::{Rows, Word};
use super::simd::{VDec, SP_ALL_ONES, SP_IEEE, SP_NEG_ZERO, V};
use core::arch::x86_64::*;
use core::marker::PhantomData;

/// The product stage of one block of `N` elements (4 or a multiple of 8) in `G` groups (1, or 2:
/// even elements in group 0, odd in group 1).
pub trait Stage {
    /// `bias_a + bias_b`: the exponents below are biased by it.
    const BIAS: i32;

    /// Reads elements `k0 .. k0 + N` of the eight rows `a` and `b`. A zero
    /// product has exponent `ez`; every other product's exponent is raised by `off` (per lane:
    /// the exponent of a power-of-two scale pair of ST-FDPA, 0 otherwise), its value scaled
    /// alike; `floor[g]` is where group `g`'s largest exponent starts (C's exponent for T-FDPA,
    /// `ez` otherwise). Returns, per group, the aligned sum and the largest exponent, and a
    /// mask of the lanes with an Inf/NaN input (or a product the stage cannot form exactly).
    #[allow(clippy::too_many_arguments)]
    fn block<const N: usize, const G: usize, W: Word>(
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i);
}

/// A block's products with their operands bound: what [`super::batch::tfdpa`] and
/// [`super::batch::tr`] evaluate a block through. [`OnRows`] binds a [`Stage`] to operand rows;
/// the matrix driver's pre-decoded operands (`x86/gemm.rs`) are the other kind.
pub trait Products: Copy {
    /// The bias of the exponents the block returns.
    fn bias(&self) -> i32;

    /// [`Stage::block`] of elements `k0 .. k0 + N` of the bound operands.
    #[allow(clippy::too_many_arguments)]
    fn block<const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i);
}

/// A [`Stage`] over the eight rows `a` and `b`.
#[derive(Debug)]
pub struct OnRows<'a, S, W: Word> {
    pub a: Rows<'a, W>,
    pub b: Rows<'a, W>,
    pub stage: PhantomData<S>,
}

impl<S, W: Word> Clone for OnRows<'_, S, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, W: Word> Copy for OnRows<'_, S, W> {}

impl<S: Stage, W: Word> Products for OnRows<'_, S, W> {
    #[inline(always)]
    fn bias(&self) -> i32 {
        S::BIAS
    }

    #[inline(always)]
    fn block<const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i) {
        S::block::<N, G, W>(self.a, self.b, k0, ez, off, floor, f, shift)
    }
}

/// The integer stage over [`VDec`] decoders.
#[derive(Clone, Copy, Debug)]
pub struct IntStage<A, B>(A, B);

impl<A: VDec, B: VDec> Stage for IntStage<A, B> {
    const BIAS: i32 = A::BIAS + B::BIAS;

    #[inline(always)]
    fn block<const N: usize, const G: usize, W: Word>(
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        _f: u32,
        shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i) {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let zero = _mm256_setzero_si256();
            let ez = _mm256_set1_epi32(ez);
            let mut sv = [zero; N];
            let mut ev = [zero; N];
            let mut gv = [zero; N];
            let mut emax = floor;
            let mut special = zero;
            for j in (0..N).step_by(8) {
                let ca = a.block_columns::<N>(k0 + j);
                let cb = b.block_columns::<N>(k0 + j);
                for e in 0..N.min(8) {
                    let (sa, fa, xa, na) = A::dec(ca[e]);
                    let (sb, fb, xb, nb) = B::dec(cb[e]);
                    let s = _mm256_mullo_epi32(sa, sb);
                    let ex = _mm256_blendv_epi8(
                        _mm256_add_epi32(_mm256_add_epi32(fa, fb), off),
                        ez,
                        _mm256_cmpeq_epi32(s, zero),
                    );
                    special = _mm256_or_si256(special, _mm256_or_si256(xa, xb));
                    let g = (j + e) % G;
                    emax[g] = _mm256_max_epi32(emax[g], ex);
                    sv[j + e] = s;
                    ev[j + e] = ex;
                    gv[j + e] = _mm256_xor_si256(na, nb);
                }
            }
            let sh = _mm_cvtsi32_si128(shift as i32);
            let acc = sum_halves::<N, G>(
                |i| {
                    let d = _mm256_sub_epi32(emax[i % G], ev[i]);
                    // Counts of 32 or more give 0, as the scalar shift of a value below 2^31
                    // does.
                    let mag = _mm256_srlv_epi32(_mm256_sll_epi32(sv[i], sh), d);
                    _mm256_sub_epi32(_mm256_xor_si256(mag, gv[i]), gv[i])
                },
                &mut special,
            );
            (acc, emax, special)
        }
    }
}

/// The aligned products `term(i)` summed by group (`i % G`) in two halves of the block, each
/// within `i32` (the kernels admit a block when `N / 2` aligned products, each below
/// `2^(F+2)`, sum within it), then the halves added with a check: a lane whose sum leaves
/// `i32` is flagged in `bad`.
#[inline(always)]
pub(super) fn sum_halves<const N: usize, const G: usize>(
    term: impl Fn(usize) -> __m256i,
    bad: &mut __m256i,
) -> [__m256i; G] {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let mut lo = [_mm256_setzero_si256(); G];
        let mut hi = [_mm256_setzero_si256(); G];
        // Eight terms at a time: a constant inner loop that the compiler unrolls for every N.
        for j in (0..N).step_by(8) {
            for e in 0..N.min(8) {
                let i = j + e;
                let half = if i < N / 2 { &mut lo } else { &mut hi };
                half[i % G] = _mm256_add_epi32(half[i % G], term(i));
            }
        }
        // Loops, not `core::array::from_fn` (see `Rows::columns`).
        let mut sum = lo;
        for g in 0..G {
            let s = _mm256_add_epi32(lo[g], hi[g]);
            // Signed overflow: both addends of one sign, the sum of the other.
            let ov = _mm256_and_si256(_mm256_xor_si256(lo[g], s), _mm256_xor_si256(hi[g], s));
            *bad = _mm256_or_si256(*bad, _mm256_srai_epi32::<31>(ov));
            sum[g] = s;
        }
        sum
    }
}

/// The exact f32 products aligned to `F` fraction bits below their group's largest exponent,
/// truncated toward zero and summed ([`sum_halves`]): each is multiplied by
/// `2^(F - e_max + off)` (`fb = F + bias`, exponents biased) and converted with truncation.
/// The power of two is exact while it stays in f32's normal range; out of it the lane is
/// flagged, unless `e_max` is the zero exponent `ez`: then no product of the group is non-zero
/// (a real product exponent lies above T-FDPA's e_zero: fp16, fp8 and fp4 products by far,
/// bf16 and tf32 products that low are flagged by the stages; TR/GTR's is NONE), and any scale
/// gives 0.
#[inline(always)]
fn aligned_sum<const N: usize, const G: usize>(
    prod: &[__m256; N],
    fb: i32,
    off: __m256i,
    emax: [__m256i; G],
    ez: i32,
    bad: &mut __m256i,
) -> [__m256i; G] {
    let scale = align_scales(fb, off, emax, ez, bad);
    sum_halves::<N, G>(
        // SAFETY: register-only AVX arithmetic.
        |i| unsafe { _mm256_cvttps_epi32(_mm256_mul_ps(prod[i], scale[i % G])) },
        bad,
    )
}

/// Per group, the power of two `2^(F - e_max + off)` that aligns a product ([`aligned_sum`]),
/// lanes where it leaves f32's normal range flagged in `bad` (unless no product is non-zero).
#[inline(always)]
pub(super) fn align_scales<const G: usize>(
    fb: i32,
    off: __m256i,
    emax: [__m256i; G],
    ez: i32,
    bad: &mut __m256i,
) -> [__m256; G] {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let set = _mm256_set1_epi32;
        let mut scale = [_mm256_setzero_ps(); G];
        for g in 0..G {
            let x = _mm256_sub_epi32(_mm256_add_epi32(set(fb), off), emax[g]);
            let out = _mm256_or_si256(
                _mm256_cmpgt_epi32(x, set(127)),
                _mm256_cmpgt_epi32(set(-126), x),
            );
            let none = _mm256_cmpeq_epi32(emax[g], set(ez));
            *bad = _mm256_or_si256(*bad, _mm256_andnot_si256(none, out));
            let x = _mm256_min_epi32(_mm256_max_epi32(x, set(-126)), set(127));
            scale[g] = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(x, set(127))));
        }
        scale
    }
}

/// A format decoded from 16-bit lanes (two columns per vector, see `pack`) for
/// [`FloatStage`].
pub trait WDec: VDec {
    /// Exponent field bits (8: bf16, converted by a shift; else through `f16`).
    const EXP_BITS: i32;
    /// Mantissa bits.
    const MAN_BITS: i32;
    /// Per 16-bit lane: `max(exponent field, 1)`, a mask of zeros, a mask of Inf/NaN codes.
    fn fields(w: __m256i) -> (__m256i, __m256i, __m256i);
    /// The values of the low and the high column as `f32`.
    fn values(w: __m256i) -> (__m256, __m256);
}

impl<const EXP: i32, const MAN: i32, const SP: u8> WDec for V<EXP, MAN, SP> {
    const EXP_BITS: i32 = EXP;
    const MAN_BITS: i32 = MAN;

    #[inline(always)]
    fn fields(w: __m256i) -> (__m256i, __m256i, __m256i) {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let set = _mm256_set1_epi16;
            let body = set(((1 << (EXP + MAN)) - 1) as i16);
            let top = (1 << EXP) - 1;
            let ef = _mm256_and_si256(_mm256_srli_epi16::<MAN>(w), set(top as i16));
            let wb = _mm256_and_si256(w, body);
            let zero = _mm256_cmpeq_epi16(wb, _mm256_setzero_si256());
            let special = match SP {
                SP_IEEE => _mm256_cmpeq_epi16(ef, set(top as i16)),
                SP_ALL_ONES => _mm256_cmpeq_epi16(wb, body),
                SP_NEG_ZERO => {
                    let sign_body = set(((1 << (1 + EXP + MAN)) - 1) as i16);
                    _mm256_cmpeq_epi16(
                        _mm256_and_si256(w, sign_body),
                        set((1 << (EXP + MAN)) as i16),
                    )
                }
                _ => _mm256_setzero_si256(),
            };
            (_mm256_max_epi16(ef, set(1)), zero, special)
        }
    }

    #[inline(always)]
    fn values(w: __m256i) -> (__m256, __m256) {
        // SAFETY: register-only AVX2/F16C arithmetic.
        unsafe {
            if EXP == 8 {
                // bf16: the upper half of an f32.
                let lo = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(w)));
                let hi = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(
                    _mm256_extracti128_si256::<1>(w),
                ));
                return (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
            }
            // The code as an f16 with the same exponent and mantissa fields (bias 15), then
            // scaled by 2^(15 - bias): exact, subnormals included (they are f16 subnormals, or
            // normals, scaled by a power of two).
            let set = _mm256_set1_epi16;
            let body = _mm256_and_si256(w, set(((1 << (EXP + MAN)) - 1) as i16));
            let sign = _mm256_and_si256(w, set((1 << (EXP + MAN)) as i16));
            let count = |n: i32| _mm_cvtsi32_si128(n);
            let h = _mm256_or_si256(
                _mm256_slli_epi16::<10>(_mm256_srli_epi16::<MAN>(body)),
                _mm256_sll_epi16(
                    _mm256_and_si256(body, set(((1 << MAN) - 1) as i16)),
                    count(10 - MAN),
                ),
            );
            let h = _mm256_or_si256(h, _mm256_sll_epi16(sign, count(15 - EXP - MAN)));
            let lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
            let hi = _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h));
            let bias = <Self as VDec>::BIAS;
            if bias == 15 {
                (lo, hi)
            } else {
                let s = _mm256_castsi256_ps(_mm256_set1_epi32((127 + 15 - bias) << 23));
                (_mm256_mul_ps(lo, s), _mm256_mul_ps(hi, s))
            }
        }
    }
}

/// Two columns of 32-bit lanes as one vector of 16-bit lanes: the low half holds `x`, the high
/// half `y`, each in dot-product order. Only the low 16 bits of each lane are kept.
#[inline(always)]
pub(super) fn pack(x: __m256i, y: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 shuffles.
    unsafe {
        let m = _mm256_set1_epi32(0xffff);
        let p = _mm256_packus_epi32(_mm256_and_si256(x, m), _mm256_and_si256(y, m));
        // packus interleaves by 128-bit lane: x0-3 y0-3 | x4-7 y4-7.
        _mm256_permute4x64_epi64::<0b11_01_10_00>(p)
    }
}

/// Widens the low and high halves of a 16-bit vector to 32-bit lanes.
#[inline(always)]
fn widen(v: __m256i) -> (__m256i, __m256i) {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        (
            _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)),
            _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(v)),
        )
    }
}

/// The float stage over [`WDec`] decoders (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct FloatStage<A, B>(A, B);

impl<A: WDec, B: WDec> Stage for FloatStage<A, B> {
    const BIAS: i32 = A::BIAS + B::BIAS;

    #[inline(always)]
    fn block<const N: usize, const G: usize, W: Word>(
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        _shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i) {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let bias = Self::BIAS;
            // Zero products in 16-bit lanes: `ez` where it fits, else the smallest i16, below
            // every real exponent, mapped back to `ez` after widening.
            let ez16 = ez.clamp(i16::MIN as i32, i16::MAX as i32);
            let ezv = _mm256_set1_epi16(ez16 as i16);
            let wide = A::EXP_BITS == 8 || B::EXP_BITS == 8;
            // bf16: products whose f32 value could leave the normal range (exponent sum e,
            // value in [2^(e - ma - mb), 2^(e + 2))).
            let hi = _mm256_set1_epi16((126 + bias) as i16);
            let lo = _mm256_set1_epi16((-126 + A::MAN_BITS + B::MAN_BITS + bias) as i16);
            // The offset in both halves' 16-bit lanes (|off| <= 2 · 254).
            let off16 = pack(off, off);
            let mut prod = [_mm256_setzero_ps(); N];
            let mut emax16 = _mm256_set1_epi16(i16::MIN);
            let mut flags = _mm256_setzero_si256();
            for j in (0..N).step_by(8) {
                let ca = a.block_columns::<N>(k0 + j);
                let cb = b.block_columns::<N>(k0 + j);
                for e in (0..N.min(8)).step_by(2) {
                    let wa = pack(ca[e], ca[e + 1]);
                    let wb = pack(cb[e], cb[e + 1]);
                    let (fa, za, xa) = A::fields(wa);
                    let (fb, zb, xb) = B::fields(wb);
                    let z = _mm256_or_si256(za, zb);
                    let sum = _mm256_add_epi16(fa, fb);
                    let ex = _mm256_blendv_epi8(_mm256_add_epi16(sum, off16), ezv, z);
                    // Even elements in the low half: with two groups, the halves are the groups.
                    emax16 = _mm256_max_epi16(emax16, ex);
                    flags = _mm256_or_si256(flags, _mm256_or_si256(xa, xb));
                    if wide {
                        // The range of the f32 product itself (before the scale).
                        let out = _mm256_or_si256(
                            _mm256_cmpgt_epi16(sum, hi),
                            _mm256_cmpgt_epi16(lo, sum),
                        );
                        flags = _mm256_or_si256(flags, _mm256_andnot_si256(z, out));
                    }
                    let (a0, a1) = A::values(wa);
                    let (b0, b1) = B::values(wb);
                    prod[j + e] = _mm256_mul_ps(a0, b0);
                    prod[j + e + 1] = _mm256_mul_ps(a1, b1);
                }
            }
            let set = _mm256_set1_epi32;
            let (f0, f1) = widen(flags);
            let mut bad = _mm256_or_si256(f0, f1);
            let back = |v: __m256i| {
                _mm256_blendv_epi8(v, set(ez), _mm256_cmpeq_epi32(v, set(i16::MIN as i32)))
            };
            let (l, h) = widen(emax16);
            // With two groups the halves are the groups; with one, both halves are.
            let mut emax = [l; G];
            for (g, eg) in emax.iter_mut().enumerate() {
                let e = match (G, g) {
                    (2, 0) => l,
                    (2, _) => h,
                    _ => _mm256_max_epi32(l, h),
                };
                *eg = _mm256_max_epi32(floor[g], back(e));
            }
            let acc = aligned_sum::<N, G>(&prod, f as i32 + bias, off, emax, ez, &mut bad);
            (acc, emax, bad)
        }
    }
}

/// tf32 operands (19 bits in the top of a 32-bit word: fp32's exponent, 10 mantissa bits) in
/// 32-bit lanes: the words with the 13 ignored low bits cleared are the values as f32; the
/// product of two is exact in f32 (at most 22 significant bits) when its exponent stays in the
/// normal range, and flagged otherwise, as bf16 products are in [`FloatStage`].
#[derive(Clone, Copy, Debug)]
pub struct Tf32Stage;

impl Stage for Tf32Stage {
    const BIAS: i32 = 254;

    #[inline(always)]
    fn block<const N: usize, const G: usize, W: Word>(
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        _shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i) {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let set = _mm256_set1_epi32;
            let zero = _mm256_setzero_si256();
            let bias = Self::BIAS;
            // Exponent sums e (biased) whose product value, in [2^(e - 20), 2^(e + 2)), could
            // leave f32's normal range.
            let (lo, hi) = (set(-126 + 20 + bias), set(126 + bias));
            // Per word: the value bits, max(exponent field, 1), zero and Inf/NaN masks.
            let dec = |x: __m256i| {
                let v = _mm256_and_si256(x, set(!0x1fff));
                let ef = _mm256_and_si256(_mm256_srli_epi32::<23>(v), set(0xff));
                let z = _mm256_cmpeq_epi32(_mm256_and_si256(v, set(0x7fff_ffff)), zero);
                let x = _mm256_cmpeq_epi32(ef, set(0xff));
                (v, _mm256_max_epi32(ef, set(1)), z, x)
            };
            let ezv = set(ez);
            let mut prod = [_mm256_setzero_ps(); N];
            let mut emax = floor;
            let mut bad = zero;
            for j in (0..N).step_by(8) {
                let ca = a.block_columns::<N>(k0 + j);
                let cb = b.block_columns::<N>(k0 + j);
                for e in 0..N.min(8) {
                    let (va, fa, za, xa) = dec(ca[e]);
                    let (vb, fb, zb, xb) = dec(cb[e]);
                    let z = _mm256_or_si256(za, zb);
                    let sum = _mm256_add_epi32(fa, fb);
                    let ex = _mm256_blendv_epi8(_mm256_add_epi32(sum, off), ezv, z);
                    let g = (j + e) % G;
                    emax[g] = _mm256_max_epi32(emax[g], ex);
                    let out =
                        _mm256_or_si256(_mm256_cmpgt_epi32(sum, hi), _mm256_cmpgt_epi32(lo, sum));
                    bad = _mm256_or_si256(bad, _mm256_or_si256(xa, xb));
                    bad = _mm256_or_si256(bad, _mm256_andnot_si256(z, out));
                    prod[j + e] = _mm256_mul_ps(_mm256_castsi256_ps(va), _mm256_castsi256_ps(vb));
                }
            }
            let acc = aligned_sum::<N, G>(&prod, f as i32 + bias, off, emax, ez, &mut bad);
            (acc, emax, bad)
        }
    }
}
