//! [`Vector`] for AVX2: eight 32-bit lanes per `__m256i`, masks as all-ones lanes, halves of
//! four 64-bit lanes. The row loads transpose eight words of eight rows in registers.

use crate::kernel::lanes::vector::{gathers_fit, Vector};
use crate::kernel::words::{Rows, Word};
use core::arch::x86_64::*;

/// AVX2 (with FMA and F16C): eight lanes.
#[derive(Clone, Copy, Debug)]
pub struct Ymm;

/// A uniform shift count.
#[inline(always)]
fn count(n: u32) -> __m128i {
    // SAFETY: register-only SSE2.
    unsafe { _mm_cvtsi32_si128(n as i32) }
}

/// Position, in a [`row8`] vector, of word `e` (the permutation is its own inverse).
const POS: [usize; 8] = [0, 1, 4, 5, 2, 3, 6, 7];

/// Low 32 bits of the eight `u64` words at `p`, in the lane order `w0 w1 w4 w5 w2 w3 w6 w7`.
///
/// # Safety
/// `p` must point to eight readable `u64`.
#[inline(always)]
unsafe fn row8(p: *const u64) -> __m256i {
    let lo = _mm256_loadu_si256(p.cast());
    let hi = _mm256_loadu_si256(p.add(4).cast());
    _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
        _mm256_castsi256_ps(lo),
        _mm256_castsi256_ps(hi),
    ))
}

/// Eight words at `p` zero-extended to 32-bit lanes: the low 32 bits of `u64` words in the lane
/// order `w0 w1 w4 w5 w2 w3 w6 w7` ([`row8`]), narrower words in order.
///
/// # Safety
/// `p` must point to eight readable `W`.
#[inline(always)]
pub(super) unsafe fn load8<W: Word>(p: *const W) -> __m256i {
    // A constant after monomorphisation: each width compiles to its one load.
    match W::BYTES {
        1 => _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast())),
        2 => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
        4 => _mm256_loadu_si256(p.cast()),
        _ => row8(p.cast()),
    }
}

/// Four words at `p` zero-extended to the 32-bit lanes of a 128-bit vector (the low 32 bits of
/// `u64` words), in order.
///
/// # Safety
/// `p` must point to four readable `W`.
#[inline(always)]
pub(super) unsafe fn load4<W: Word>(p: *const W) -> __m128i {
    // A constant after monomorphisation, as in `load8`.
    match W::BYTES {
        1 => _mm_cvtepu8_epi32(_mm_cvtsi32_si128(p.cast::<i32>().read_unaligned())),
        2 => _mm_cvtepu16_epi32(_mm_loadl_epi64(p.cast())),
        4 => _mm_loadu_si128(p.cast()),
        _ => {
            // The even 32-bit halves of four `u64`: their low words.
            let v = _mm256_loadu_si256(p.cast());
            let low = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
            _mm256_castsi256_si128(low)
        }
    }
}

/// [`Vector::columns4`] of eight rows of four 16-bit words that follow each other (`p` at
/// element `k0` of the first): the 64 bytes in two loads, row `j`'s elements 0 and 1 the
/// 32-bit word `2j`, elements 2 and 3 word `2j + 1`, gathered by a shuffle within 128-bit
/// lanes and a 64-bit permutation, then split by a mask and a shift (as `zmm.rs`'s form).
/// # Safety
/// `p` must point to 32 readable `W` (two-byte words).
#[inline(always)]
unsafe fn columns4_packed16<W: Word>(p: *const W) -> [__m256i; 8] {
    // SAFETY: two loads of 32 bytes from the 32 words the caller guarantees; the rest
    // is register-only.
    unsafe {
        let lo = _mm256_castsi256_ps(_mm256_loadu_si256(p.cast()));
        let hi = _mm256_castsi256_ps(_mm256_loadu_si256(p.add(16).cast()));
        // Per 128-bit lane: rows 0 1 4 5 | 2 3 6 7, put in order by the permutation (written
        // out: a closure need not be inlined into the entry point compiled for AVX2).
        let e01 = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi));
        let e23 = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(lo, hi));
        let e01 = _mm256_permute4x64_epi64::<0b11_01_10_00>(e01);
        let e23 = _mm256_permute4x64_epi64::<0b11_01_10_00>(e23);
        split_pairs16::<Ymm, 2>([e01, e23])
    }
}

/// [`Vector::columns`] of eight rows of eight 16-bit words, row `j` at `p + j·stride` (any
/// stride): each row is one 128-bit load, rows `j` and `j + 4` in the two halves of a
/// register. Its 32-bit word `m` holds elements `2m` and `2m + 1`, so a 4×4 transpose of
/// 32-bit words within each half gives the pairs of every row in order, split by a mask and a
/// shift: 8 loads, 12 shuffles (4 of them the inserts) and 8 masks or shifts, where the
/// widening row loads and the 8×8 transpose take 32 shuffles.
///
/// # Safety
/// Each row `j < 8` must have eight readable `W` (two-byte words) at `p + j·stride`.
#[inline(always)]
unsafe fn columns16<W: Word>(p: *const W, stride: usize) -> [__m256i; 8] {
    // SAFETY: as the caller's.
    split_pairs16::<Ymm, 4>(unsafe { row_pairs16(p, stride) })
}

/// The pairs of elements of eight rows of eight 16-bit words (see [`columns16`]): lane `j` of
/// `out[m]` holds row `j`'s elements `2m` (low half) and `2m + 1` (high half).
///
/// # Safety
/// As [`columns16`].
#[inline(always)]
unsafe fn row_pairs16<W: Word>(p: *const W, stride: usize) -> [__m256i; 4] {
    // SAFETY: eight 16-byte loads from the rows the caller guarantees; the rest is
    // register-only.
    unsafe {
        let mut x = [_mm256_setzero_si256(); 4];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = _mm256_set_m128i(
                _mm_loadu_si128(p.add((j + 4) * stride).cast()),
                _mm_loadu_si128(p.add(j * stride).cast()),
            );
        }
        transpose4_halves(x)
    }
}

/// Pairs of 16-bit words per 32-bit lane (low, high) into the [`Vector::pack16`] layout: the
/// low words of the eight lanes, then the high words.
#[inline(always)]
fn unzip16(x: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 shuffles.
    unsafe {
        // Per 128-bit half: the four low words, then the four high words.
        let order = _mm256_setr_epi8(
            0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3,
            6, 7, 10, 11, 14, 15,
        );
        let h = _mm256_shuffle_epi8(x, order);
        _mm256_permute4x64_epi64::<0b11_01_10_00>(h)
    }
}

/// A 4×4 transpose of 32-bit lanes within each 128-bit half: lane `j` of half `h` of `out[m]`
/// is lane `m` of half `h` of `x[j]`.
#[inline(always)]
fn transpose4_halves(x: [__m256i; 4]) -> [__m256i; 4] {
    // SAFETY: register-only AVX2 shuffles.
    unsafe {
        let t0 = _mm256_unpacklo_epi32(x[0], x[1]);
        let t1 = _mm256_unpackhi_epi32(x[0], x[1]);
        let t2 = _mm256_unpacklo_epi32(x[2], x[3]);
        let t3 = _mm256_unpackhi_epi32(x[2], x[3]);
        [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ]
    }
}

/// 8×8 transpose of 32-bit lanes: lane `j` of `out[p]` is lane `p` of `r[j]`.
#[inline(always)]
pub(super) fn transpose8(r: &[__m256i; 8]) -> [__m256i; 8] {
    // SAFETY: register-only AVX2 shuffles.
    unsafe {
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
        let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
        let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
        let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
        let u0 = _mm256_unpacklo_epi64(t0, t2);
        let u1 = _mm256_unpackhi_epi64(t0, t2);
        let u2 = _mm256_unpacklo_epi64(t1, t3);
        let u3 = _mm256_unpackhi_epi64(t1, t3);
        let u4 = _mm256_unpacklo_epi64(t4, t6);
        let u5 = _mm256_unpackhi_epi64(t4, t6);
        let u6 = _mm256_unpacklo_epi64(t5, t7);
        let u7 = _mm256_unpackhi_epi64(t5, t7);
        [
            _mm256_permute2x128_si256::<0x20>(u0, u4),
            _mm256_permute2x128_si256::<0x20>(u1, u5),
            _mm256_permute2x128_si256::<0x20>(u2, u6),
            _mm256_permute2x128_si256::<0x20>(u3, u7),
            _mm256_permute2x128_si256::<0x31>(u0, u4),
            _mm256_permute2x128_si256::<0x31>(u1, u5),
            _mm256_permute2x128_si256::<0x31>(u2, u6),
            _mm256_permute2x128_si256::<0x31>(u3, u7),
        ]
    }
}

/// Methods whose body is one expression of register-only intrinsics: `fn name(args) -> ret =
/// expr;`.
macro_rules! register_ops {
    ($(fn $name:ident($($a:ident: $t:ty),*) -> $r:ty = $e:expr;)*) => {
        $(
            #[inline(always)]
            fn $name($($a: $t),*) -> $r {
                // SAFETY: register-only AVX2/FMA/F16C arithmetic, reached only from routines
                // compiled for these features (module docs of `vector.rs`).
                unsafe { $e }
            }
        )*
    };
}

// Every method: register-only AVX2/FMA/F16C arithmetic unless a comment says
// otherwise; reached only from routines compiled for these features (module docs of
// `vector.rs`).
impl Vector for Ymm {
    const LANES: usize = 8;
    type I = __m256i;
    type F = __m256;
    type M = __m256i;
    type M16 = __m256i;
    type Q = __m256i;
    type D = __m256d;
    type MQ = __m256i;
    type Fh = __m128;

    register_ops! {
        fn zero() -> __m256i = _mm256_setzero_si256();
        fn splat(x: i32) -> __m256i = _mm256_set1_epi32(x);
    }
    #[inline(always)]
    fn load(x: &[i32]) -> __m256i {
        let x = &x[..8];
        // SAFETY: an unaligned load of the eight values of a checked slice.
        unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
    }
    register_ops! {
        fn add(a: __m256i, b: __m256i) -> __m256i = _mm256_add_epi32(a, b);
        fn sub(a: __m256i, b: __m256i) -> __m256i = _mm256_sub_epi32(a, b);
        fn and(a: __m256i, b: __m256i) -> __m256i = _mm256_and_si256(a, b);
        fn or(a: __m256i, b: __m256i) -> __m256i = _mm256_or_si256(a, b);
        fn xor(a: __m256i, b: __m256i) -> __m256i = _mm256_xor_si256(a, b);
        fn max(a: __m256i, b: __m256i) -> __m256i = _mm256_max_epi32(a, b);
        fn min(a: __m256i, b: __m256i) -> __m256i = _mm256_min_epi32(a, b);
        fn min_u(a: __m256i, b: __m256i) -> __m256i = _mm256_min_epu32(a, b);
        fn abs(a: __m256i) -> __m256i = _mm256_abs_epi32(a);
        fn mul_lo(a: __m256i, b: __m256i) -> __m256i = _mm256_mullo_epi32(a, b);
        fn shl(a: __m256i, n: u32) -> __m256i = _mm256_sll_epi32(a, count(n));
        fn shr(a: __m256i, n: u32) -> __m256i = _mm256_srl_epi32(a, count(n));
        fn sar(a: __m256i, n: u32) -> __m256i = _mm256_sra_epi32(a, count(n));
        fn shl_v(a: __m256i, n: __m256i) -> __m256i = _mm256_sllv_epi32(a, n);
        fn shr_v(a: __m256i, n: __m256i) -> __m256i = _mm256_srlv_epi32(a, n);
        fn sar_v(a: __m256i, n: __m256i) -> __m256i = _mm256_srav_epi32(a, n);
        fn gt(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpgt_epi32(a, b);
        fn eq(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpeq_epi32(a, b);
        fn negative(a: __m256i) -> __m256i = _mm256_srai_epi32::<31>(a);
        fn select(m: __m256i, no: __m256i, yes: __m256i) -> __m256i =
            _mm256_blendv_epi8(no, yes, m);
        fn keep(m: __m256i, a: __m256i) -> __m256i = _mm256_and_si256(m, a);
        fn clear(m: __m256i, a: __m256i) -> __m256i = _mm256_andnot_si256(m, a);
    }
    #[inline(always)]
    fn dec_where(m: __m256i, a: __m256i) -> __m256i {
        // A mask lane is -1.
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe { _mm256_add_epi32(a, m) }
    }

    register_ops! {
        fn none() -> __m256i = _mm256_setzero_si256();
        fn m_or(a: __m256i, b: __m256i) -> __m256i = _mm256_or_si256(a, b);
        fn m_and(a: __m256i, b: __m256i) -> __m256i = _mm256_and_si256(a, b);
        fn m_andnot(a: __m256i, b: __m256i) -> __m256i = _mm256_andnot_si256(a, b);
        fn bits(m: __m256i) -> u32 = _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32;
        fn as_f(a: __m256i) -> __m256 = _mm256_castsi256_ps(a);
        fn as_i(a: __m256) -> __m256i = _mm256_castps_si256(a);
        fn f_zero() -> __m256 = _mm256_setzero_ps();
        fn f_add(a: __m256, b: __m256) -> __m256 = _mm256_add_ps(a, b);
        fn f_sub(a: __m256, b: __m256) -> __m256 = _mm256_sub_ps(a, b);
        fn f_mul(a: __m256, b: __m256) -> __m256 = _mm256_mul_ps(a, b);
        fn f_fma(a: __m256, b: __m256, c: __m256) -> __m256 = _mm256_fmadd_ps(a, b, c);
        fn f_trunc_i(a: __m256) -> __m256i = _mm256_cvttps_epi32(a);
        fn i_to_f(a: __m256i) -> __m256 = _mm256_cvtepi32_ps(a);
        fn f_nan(a: __m256) -> __m256i = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(a, a));
        fn splat16(x: i16) -> __m256i = _mm256_set1_epi16(x);
        fn add16(a: __m256i, b: __m256i) -> __m256i = _mm256_add_epi16(a, b);
        fn max16(a: __m256i, b: __m256i) -> __m256i = _mm256_max_epi16(a, b);
        fn shl16(a: __m256i, n: u32) -> __m256i = _mm256_sll_epi16(a, count(n));
        fn shr16(a: __m256i, n: u32) -> __m256i = _mm256_srl_epi16(a, count(n));
        fn gt16(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpgt_epi16(a, b);
        fn eq16(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpeq_epi16(a, b);
        fn select16(m: __m256i, no: __m256i, yes: __m256i) -> __m256i =
            _mm256_blendv_epi8(no, yes, m);
        fn none16() -> __m256i = _mm256_setzero_si256();
        fn m16_or(a: __m256i, b: __m256i) -> __m256i = _mm256_or_si256(a, b);
        fn m16_andnot(a: __m256i, b: __m256i) -> __m256i = _mm256_andnot_si256(a, b);
    }
    #[inline(always)]
    fn fold16(m: __m256i) -> __m256i {
        let (lo, hi) = Ymm::widen16(m);
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe { _mm256_or_si256(lo, hi) }
    }
    #[inline(always)]
    fn pack16(x: __m256i, y: __m256i) -> __m256i {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            let m = _mm256_set1_epi32(0xffff);
            let p = _mm256_packus_epi32(_mm256_and_si256(x, m), _mm256_and_si256(y, m));
            // packus interleaves by 128-bit lane: x0-3 y0-3 | x4-7 y4-7.
            _mm256_permute4x64_epi64::<0b11_01_10_00>(p)
        }
    }
    #[inline(always)]
    fn widen16(v: __m256i) -> (__m256i, __m256i) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            (
                _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)),
                _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(v)),
            )
        }
    }
    #[inline(always)]
    fn f16_to_f(v: __m256i) -> (__m256, __m256) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            (
                _mm256_cvtph_ps(_mm256_castsi256_si128(v)),
                _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(v)),
            )
        }
    }
    #[inline(always)]
    fn bf16_to_f(v: __m256i) -> (__m256, __m256) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            let lo = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)));
            let hi =
                _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(v)));
            (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi))
        }
    }

    #[inline(always)]
    fn half_q(a: __m256i, h: usize) -> __m256i {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm256_cvtepi32_epi64(_mm256_castsi256_si128(a))
            } else {
                _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(a))
            }
        }
    }
    #[inline(always)]
    fn half_d(a: __m256, h: usize) -> __m256d {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm256_cvtps_pd(_mm256_castps256_ps128(a))
            } else {
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(a))
            }
        }
    }
    #[inline(always)]
    fn half_i_d(a: __m256i, h: usize) -> __m256d {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm256_cvtepi32_pd(_mm256_castsi256_si128(a))
            } else {
                _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(a))
            }
        }
    }
    register_ops! {
        fn q_splat(x: i64) -> __m256i = _mm256_set1_epi64x(x);
        fn q_add(a: __m256i, b: __m256i) -> __m256i = _mm256_add_epi64(a, b);
        fn q_sub(a: __m256i, b: __m256i) -> __m256i = _mm256_sub_epi64(a, b);
        fn q_and(a: __m256i, b: __m256i) -> __m256i = _mm256_and_si256(a, b);
        fn q_shl(a: __m256i, n: u32) -> __m256i = _mm256_sll_epi64(a, count(n));
        fn q_shr(a: __m256i, n: u32) -> __m256i = _mm256_srl_epi64(a, count(n));
        fn q_shl_v(a: __m256i, n: __m256i) -> __m256i = _mm256_sllv_epi64(a, n);
        fn q_gt(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpgt_epi64(a, b);
        fn q_eq(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpeq_epi64(a, b);
        fn q_select(m: __m256i, no: __m256i, yes: __m256i) -> __m256i =
            _mm256_blendv_epi8(no, yes, m);
        fn as_d(a: __m256i) -> __m256d = _mm256_castsi256_pd(a);
        fn as_q(a: __m256d) -> __m256i = _mm256_castpd_si256(a);
        fn d_splat(x: f64) -> __m256d = _mm256_set1_pd(x);
        fn d_add(a: __m256d, b: __m256d) -> __m256d = _mm256_add_pd(a, b);
        fn d_sub(a: __m256d, b: __m256d) -> __m256d = _mm256_sub_pd(a, b);
        fn d_mul(a: __m256d, b: __m256d) -> __m256d = _mm256_mul_pd(a, b);
        fn d_fma(a: __m256d, b: __m256d, c: __m256d) -> __m256d = _mm256_fmadd_pd(a, b, c);
        fn d_max(a: __m256d, b: __m256d) -> __m256d = _mm256_max_pd(a, b);
        fn d_min(a: __m256d, b: __m256d) -> __m256d = _mm256_min_pd(a, b);
        fn d_abs(a: __m256d) -> __m256d =
            _mm256_and_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)));
        fn d_floor(a: __m256d) -> __m256d =
            _mm256_round_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(a);
        fn d_trunc(a: __m256d) -> __m256d =
            _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(a);
        fn d_eq(a: __m256d, b: __m256d) -> __m256i =
            _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_EQ_OQ>(a, b));
        fn d_nan(a: __m256d) -> __m256i = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_UNORD_Q>(a, a));
        fn d_select(m: __m256i, no: __m256d, yes: __m256d) -> __m256d =
            _mm256_blendv_pd(no, yes, _mm256_castsi256_pd(m));
        fn narrow(a: __m256d) -> __m128 = _mm256_cvtpd_ps(a);
        fn join(lo: __m128, hi: __m128) -> __m256 = _mm256_set_m128(hi, lo);
    }
    #[inline(always)]
    fn m_join(lo: __m256i, hi: __m256i) -> __m256i {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            // The low 32 bits of each 64-bit lane (all ones or zero), half 0 then half 1.
            let even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
            let (l, h) = (
                _mm256_permutevar8x32_epi32(lo, even),
                _mm256_permutevar8x32_epi32(hi, even),
            );
            _mm256_permute2x128_si256::<0x20>(l, h)
        }
    }

    #[inline(always)]
    fn columns<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m256i; 8] {
        assert!(r.n() >= 8 && k0 + 8 <= r.k());
        let (words, stride) = (r.words, r.stride);
        let p = words.as_ptr();
        if W::BYTES == 2 {
            // SAFETY: row `j < 8 <= n` reads words `j·stride + k0 .. j·stride + k0 + 8`, below
            // `(n - 1)·stride + k <= words.len()` (as below).
            return unsafe { columns16(p.add(k0), stride) };
        }
        // Plain loops, not `core::array::from_fn`: its internal adapter is compiled without
        // the caller's target features and would keep these intrinsics out of line.
        let mut rows = [Ymm::zero(); 8];
        for (j, rj) in rows.iter_mut().enumerate() {
            // SAFETY: row `j < 8 <= n` reads words `j·stride + k0 .. j·stride + k0 + 8`,
            // below `(n - 1)·stride + k <= words.len()` (checked by `Rows::new` and kept by
            // `Rows::group`; `n >= 8` and `k0 + 8 <= k` asserted).
            *rj = unsafe { load8(p.add(j * stride + k0)) };
        }
        let t = transpose8(&rows);
        if W::BYTES != 8 {
            return t;
        }
        let mut out = rows;
        for (e, oe) in out.iter_mut().enumerate() {
            *oe = t[POS[e]];
        }
        out
    }

    #[inline(always)]
    fn pairs16<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m256i; 4] {
        assert!(W::BYTES == 2 && r.n() >= 8 && k0 + 8 <= r.k());
        // SAFETY: as in `columns`.
        let x = unsafe { row_pairs16(r.words.as_ptr().add(k0), r.stride) };
        [unzip16(x[0]), unzip16(x[1]), unzip16(x[2]), unzip16(x[3])]
    }

    #[inline(always)]
    fn pairs16_4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m256i; 2] {
        assert!(W::BYTES == 2 && r.stride == 4 && r.n() >= 8 && k0 + 4 <= r.k());
        // SAFETY: rows `j < 8` of stride 4 from `k0` are the words `k0 .. k0 + 32`, below
        // `7·4 + k0 + 4 <= (n - 1)·stride + k <= words.len()` (asserted; `Rows::new` checks the
        // length).
        let c = unsafe { columns4_packed16(r.words.as_ptr().add(k0)) };
        // Split and packed again: after the shuffles that gather these pairs, reordering their
        // 16-bit lanes (`unzip16`: `vpshufb` and `vpermq`) measured 3-4% slower on CDNA1 bf16
        // and the CDNA3 `_2b` forms (EPYC Zen 4, AVX2), unlike `pairs16`.
        [Ymm::pack16(c[0], c[1]), Ymm::pack16(c[2], c[3])]
    }

    #[inline(always)]
    fn columns4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m256i; 8] {
        assert!(r.n() >= 8 && k0 + 4 <= r.k());
        let (words, stride) = (r.words, r.stride);
        let p = words.as_ptr();
        if W::BYTES == 2 && stride == 4 {
            // SAFETY: rows `j < 8` of stride 4 from `k0` are the words `k0 .. k0 + 32`, below
            // `7·4 + k0 + 4 <= (n - 1)·stride + k <= words.len()` (`n >= 8` and `k0 + 4 <= k`
            // asserted above; `Rows::new` checks the length).
            return unsafe { columns4_packed16(p.add(k0)) };
        }
        // SAFETY: row `j < 8 <= n` reads words `j·stride + k0 .. j·stride + k0 + 4`, below
        // `(n - 1)·stride + k <= words.len()` (as in `columns`; `k0 + 4 <= k` asserted). The
        // rest is register-only.
        unsafe {
            let mut x = [_mm_setzero_si128(); 8];
            for (j, xj) in x.iter_mut().enumerate() {
                *xj = load4(p.add(j * stride + k0));
            }
            // Rows j and j + 4 in the two halves, then a 4×4 transpose within each half.
            // Macros, not closures, in this file: a closure does not inherit the target
            // features, and where LLVM does not inline it its intrinsics become calls.
            macro_rules! y {
                ($j:expr) => {
                    _mm256_set_m128i(x[$j + 4], x[$j])
                };
            }
            let [c0, c1, c2, c3] = transpose4_halves([y!(0), y!(1), y!(2), y!(3)]);
            let z = _mm256_setzero_si256();
            [c0, c1, c2, c3, z, z, z, z]
        }
    }

    #[inline(always)]
    fn columns2<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m256i; 8] {
        assert!(r.n() >= 8 && k0 + 2 <= r.k());
        let z = Ymm::zero();
        if W::BYTES == 2 && r.stride == 2 {
            // Rows of two 16-bit words that follow each other: row `j`'s pair is the 32-bit
            // word `j` of one load.
            // SAFETY: the words `k0 .. k0 + 16`, below `7·2 + k0 + 2 <= (n - 1)·stride + k
            // <= words.len()` (`n >= 8` and `k0 + 2 <= k` asserted; `Rows::new` checks the
            // length).
            let x = unsafe { _mm256_loadu_si256(r.words.as_ptr().add(k0).cast()) };
            let [c0, c1, ..] = split_pairs16::<Ymm, 1>([x]);
            return [c0, c1, z, z, z, z, z, z];
        }
        // Word by word through checked slices, with plain loops rather than closures (a
        // closure need not be inlined into the entry point compiled for AVX2).
        let (mut e0, mut e1) = ([0i32; 8], [0i32; 8]);
        for j in 0..8 {
            let row = &r.row(j)[k0..k0 + 2];
            let (x, y): (u64, u64) = (row[0].into(), row[1].into());
            (e0[j], e1[j]) = (x as i32, y as i32);
        }
        [Ymm::load(&e0), Ymm::load(&e1), z, z, z, z, z, z]
    }

    #[inline(always)]
    fn lanes(w: &[u64]) -> __m256i {
        let w = &w[..8];
        // SAFETY: `w` has eight words; the permute is register-only.
        unsafe { _mm256_permute4x64_epi64::<0b11_01_10_00>(row8(w.as_ptr())) }
    }

    #[inline(always)]
    fn store(v: __m256i, out: &mut [u64]) {
        let out = &mut out[..8];
        // SAFETY: `out` has eight words, written unaligned; the rest is register-only.
        unsafe {
            let lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
            let hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v));
            _mm256_storeu_si256(out.as_mut_ptr().cast(), lo);
            _mm256_storeu_si256(out.as_mut_ptr().add(4).cast(), hi);
        }
    }

    #[inline(always)]
    fn load_d(w: &[u64], h: usize) -> __m256d {
        let w = &w[4 * h..4 * h + 4];
        // SAFETY: an unaligned load of four words of a checked slice.
        unsafe { _mm256_loadu_pd(w.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_d(v: __m256d, out: &mut [u64], h: usize) {
        let out = &mut out[4 * h..4 * h + 4];
        // SAFETY: an unaligned store of four words into a checked slice.
        unsafe { _mm256_storeu_pd(out.as_mut_ptr().cast(), v) }
    }

    #[inline(always)]
    fn gather32<W: Word>(r: &Rows<'_, W>, e: usize) -> __m256i {
        assert!(r.n() >= 8 && e < r.k() && gathers_fit(r) && W::BYTES >= 4);
        let words = r.words;
        // 32-bit units per word: 1 or 2.
        let u = (W::BYTES / 4) as i32;
        let (s, e) = (u * r.stride as i32, u * e as i32);
        // SAFETY: lane `j` reads the low 32 bits of word `j·stride + e < (n - 1)·stride + k <=
        // words.len()` (`Rows::new`; `n >= 8` and `e < k` asserted); on little-endian x86-64
        // that is `i32` number `u(j·stride + e)` of the words, an index that fits `i32`
        // (asserted).
        unsafe {
            let idx = _mm256_setr_epi32(
                e,
                s + e,
                2 * s + e,
                3 * s + e,
                4 * s + e,
                5 * s + e,
                6 * s + e,
                7 * s + e,
            );
            _mm256_i32gather_epi32::<4>(words.as_ptr().cast(), idx)
        }
    }

    #[inline(always)]
    fn gather64<W: Word>(r: &Rows<'_, W>, e: usize, h: usize) -> __m256d {
        assert!(r.n() >= 8 && e < r.k() && h < 2 && gathers_fit(r) && W::BYTES == 8);
        let words = r.words;
        let s = r.stride as i32;
        let at = |j: i32| (4 * h as i32 + j) * s + e as i32;
        // SAFETY: as in `gather32`, whole words of rows `4h + j < 8 <= n`.
        unsafe {
            let idx = _mm_setr_epi32(at(0), at(1), at(2), at(3));
            _mm256_i32gather_pd::<8>(words.as_ptr().cast(), idx)
        }
    }

    #[inline(always)]
    fn rows32<W: Word>(r: &Rows<'_, W>) -> Option<[__m256i; 2]> {
        let k = r.k();
        if r.stride != k || r.n() < 8 || W::BYTES != 4 || !(k == 1 || k == 2) {
            return None;
        }
        // The eight rows: the first `8k` words (`8k <= (n - 1)·k + k <= words.len()`).
        let p = r.words[..8 * k].as_ptr().cast::<i32>();
        // SAFETY: `p` points to `8k` words of `u32` of a checked slice: one load of eight for
        // K = 1, two for K = 2; the shuffles are register-only.
        unsafe {
            let z = _mm256_setzero_si256();
            if k == 1 {
                return Some([_mm256_loadu_si256(p.cast()), z]);
            }
            let (lo, hi) = (_mm256_loadu_ps(p.cast()), _mm256_loadu_ps(p.add(8).cast()));
            // Even and odd words of rows 0,1,4,5 | 2,3,6,7, then in row order.
            macro_rules! fix {
                ($x:expr) => {
                    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256($x))
                };
            }
            let e0 = fix!(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi));
            let e1 = fix!(_mm256_shuffle_ps::<0b11_01_11_01>(lo, hi));
            Some([e0, e1])
        }
    }

    #[inline(always)]
    fn rows64<W: Word>(r: &Rows<'_, W>, h: usize) -> Option<[__m256d; 4]> {
        let k = r.k();
        if r.stride != k || r.n() < 8 || W::BYTES != 8 || !(k == 1 || k == 2 || k == 4) || h > 1 {
            return None;
        }
        // Rows 4h .. 4h + 4: the 4k words from 4hk.
        let p = r.words[4 * h * k..4 * h * k + 4 * k].as_ptr().cast::<f64>();
        // SAFETY: `p` points to `4k` words of a checked slice: one load for K = 1, two for K =
        // 2, four for K = 4; the rest is register-only.
        unsafe {
            let z = _mm256_setzero_pd();
            macro_rules! ld {
                ($i:expr) => {
                    _mm256_loadu_pd(p.add(4 * $i))
                };
            }
            match k {
                1 => Some([ld!(0), z, z, z]),
                2 => {
                    let (lo, hi) = (ld!(0), ld!(1));
                    // [r0 r2 | r1 r3] of each element, then in row order.
                    macro_rules! fix {
                        ($x:expr) => {
                            _mm256_permute4x64_pd::<0b11_01_10_00>($x)
                        };
                    }
                    Some([
                        fix!(_mm256_unpacklo_pd(lo, hi)),
                        fix!(_mm256_unpackhi_pd(lo, hi)),
                        z,
                        z,
                    ])
                }
                _ => {
                    let (r0, r1, r2, r3) = (ld!(0), ld!(1), ld!(2), ld!(3));
                    let (t0, t1) = (_mm256_unpacklo_pd(r0, r1), _mm256_unpackhi_pd(r0, r1));
                    let (t2, t3) = (_mm256_unpacklo_pd(r2, r3), _mm256_unpackhi_pd(r2, r3));
                    Some([
                        _mm256_permute2f128_pd::<0x20>(t0, t2),
                        _mm256_permute2f128_pd::<0x20>(t1, t3),
                        _mm256_permute2f128_pd::<0x31>(t0, t2),
                        _mm256_permute2f128_pd::<0x31>(t1, t3),
                    ])
                }
            }
        }
    }
}

/// The columns of rows of 16-bit words read in pairs (`columns` and `columns4` of [`Ymm`]
/// and [`Zmm`](super::zmm::Zmm)): lane `j` of `pairs[m]` holds row `j`'s elements `2m` (low half, as memory
/// has them) and `2m + 1` (high half); `pairs16` reorders the same vectors' 16-bit lanes instead. Returns the `2·P` columns as [`Vector::columns`] does,
/// one word per 32-bit lane, the other vectors zero. Generic because only the loads and the
/// shuffles that made the pairs differ by width.
#[inline(always)]
pub(super) fn split_pairs16<V: Vector, const P: usize>(pairs: [V::I; P]) -> [V::I; 8] {
    const { assert!(P <= 4) };
    let low = V::splat(0xffff);
    let mut out = [V::zero(); 8];
    for (m, &x) in pairs.iter().enumerate() {
        out[2 * m] = V::and(x, low);
        out[2 * m + 1] = V::shr(x, 16);
    }
    out
}
