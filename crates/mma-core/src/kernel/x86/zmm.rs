//! [`Vector`] for AVX-512 (F, BW, DQ, VL): sixteen 32-bit lanes per `__m512i`, masks in mask
//! registers, halves of eight 64-bit lanes. The row loads put rows `j` and `j + 8` in the two
//! 256-bit halves of a register and transpose both halves at once.

use super::ymm::split_pairs16;
use crate::kernel::lanes::vector::{gathers_fit, Vector};
use crate::kernel::words::{Rows, Word};
use core::arch::x86_64::*;

/// AVX-512 F/BW/DQ/VL (with AVX2, FMA and F16C): sixteen lanes.
#[derive(Clone, Copy, Debug)]
pub struct Zmm;

/// A uniform shift count.
#[inline(always)]
fn count(n: u32) -> __m128i {
    // SAFETY: register-only SSE2.
    unsafe { _mm_cvtsi32_si128(n as i32) }
}

/// Indices of the even 32-bit words of two vectors (`vpermt2d`): the low halves of sixteen
/// `u64` words, in order.
#[inline(always)]
fn even32() -> __m512i {
    // SAFETY: register-only.
    unsafe { _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30) }
}

/// Eight words of row `j` (low half) and of row `j + 8` (high half) zero-extended to 32-bit
/// lanes, in order (the low 32 bits of `u64` words).
///
/// # Safety
/// `p` and `q` must each point to eight readable `W`.
#[inline(always)]
unsafe fn load8x2<W: Word>(p: *const W, q: *const W) -> __m512i {
    // A constant after monomorphisation: each width compiles to its one load.
    match W::BYTES {
        1 => _mm512_cvtepu8_epi32(_mm_unpacklo_epi64(
            _mm_loadl_epi64(p.cast()),
            _mm_loadl_epi64(q.cast()),
        )),
        2 => _mm512_cvtepu16_epi32(_mm256_inserti128_si256::<1>(
            _mm256_castsi128_si256(_mm_loadu_si128(p.cast())),
            _mm_loadu_si128(q.cast()),
        )),
        4 => _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm256_loadu_si256(p.cast())),
            _mm256_loadu_si256(q.cast()),
        ),
        _ => _mm512_permutex2var_epi32(
            _mm512_loadu_si512(p.cast()),
            even32(),
            _mm512_loadu_si512(q.cast()),
        ),
    }
}

/// Rows `j`, `j + 4`, `j + 8` and `j + 12` (four words each, from `p + r·stride`) in the four
/// 128-bit lanes.
///
/// # Safety
/// Each of the four rows must have four readable `W` there.
#[inline(always)]
unsafe fn load4x4<W: Word>(p: *const W, stride: usize) -> __m512i {
    use super::ymm::load4;
    let lo = _mm256_set_m128i(load4(p.add(4 * stride)), load4(p));
    let hi = _mm256_set_m128i(load4(p.add(12 * stride)), load4(p.add(8 * stride)));
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// [`Vector::columns4`] of sixteen rows of four 16-bit words that follow each other (a
/// batch's rows of K = 4 in their storage width, `p` at element `k0` of the first): the 128
/// bytes in two loads, then per pair of elements one two-source permutation of 32-bit words
/// (row `j`'s elements 0 and 1 are 32-bit word `2j`, elements 2 and 3 word `2j + 1`), split
/// by a mask and a shift: 8 operations for the four columns where the sixteen row loads and
/// their transpose take about 40 (and keep sixteen addresses). docs/performance.md, "E-FDPA
/// (CDNA1) in lanes", has the design; CHANGELOG.md, "Earlier history", the rates.
/// # Safety
/// `p` must point to 64 readable `W` (two-byte words).
#[inline(always)]
unsafe fn columns4_packed16<W: Word>(p: *const W) -> [__m512i; 8] {
    // SAFETY: as the caller's.
    split_pairs16::<Zmm, 2>(unsafe { row_pairs4_packed16(p) })
}

/// The pairs of elements of [`columns4_packed16`]'s rows: lane `j` of `out[m]` holds row
/// `j`'s elements `2m` (low half) and `2m + 1` (high half).
///
/// # Safety
/// As [`columns4_packed16`].
#[inline(always)]
unsafe fn row_pairs4_packed16<W: Word>(p: *const W) -> [__m512i; 2] {
    // SAFETY: two loads of 64 bytes from the 64 words the caller guarantees; the rest
    // is register-only.
    unsafe {
        let lo = _mm512_loadu_si512(p.cast());
        let hi = _mm512_loadu_si512(p.add(32).cast());
        let odd = _mm512_add_epi32(even32(), _mm512_set1_epi32(1));
        let e01 = _mm512_permutex2var_epi32(lo, even32(), hi);
        let e23 = _mm512_permutex2var_epi32(lo, odd, hi);
        [e01, e23]
    }
}

/// [`Vector::columns`] of sixteen rows of eight 16-bit words that follow each other (a batch's
/// rows of K = 8 in their storage width, `p` at element `k0` of the first): the 256 bytes in
/// four loads. Row `j`'s elements `2m` and `2m + 1` are 32-bit word `4j + m`; one two-source
/// permutation per pair of elements and half of the rows takes words `m` and `m + 1` of rows
/// `0 .. 8` (or `8 .. 16`), and a 128-bit shuffle joins the halves: 8 shuffles for the
/// sixteen rows, then the split by a mask and a shift, where the widening row loads and their
/// transpose take about 48 shuffles.
///
/// # Safety
/// `p` must point to 128 readable `W` (two-byte words).
#[inline(always)]
unsafe fn columns_packed16<W: Word>(p: *const W) -> [__m512i; 8] {
    // SAFETY: as the caller's.
    split_pairs16::<Zmm, 4>(unsafe { row_pairs_packed16(p) })
}

/// The pairs of elements of [`columns_packed16`]'s rows: lane `j` of `out[m]` holds row `j`'s
/// elements `2m` (low half) and `2m + 1` (high half).
///
/// # Safety
/// As [`columns_packed16`].
#[inline(always)]
unsafe fn row_pairs_packed16<W: Word>(p: *const W) -> [__m512i; 4] {
    // SAFETY: four loads of 64 bytes from the 128 words the caller guarantees; the rest is
    // register-only.
    unsafe {
        let mut l = [_mm512_setzero_si512(); 4];
        for (i, li) in l.iter_mut().enumerate() {
            *li = _mm512_loadu_si512(p.add(32 * i).cast());
        }
        // Words m (lanes 0-7) and m + 1 (lanes 8-15) of eight rows, for m = 0 and m = 2.
        let idx = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
        let idx2 = _mm512_add_epi32(idx, _mm512_set1_epi32(2));
        let x01 = _mm512_permutex2var_epi32(l[0], idx, l[1]);
        let y01 = _mm512_permutex2var_epi32(l[2], idx, l[3]);
        let x23 = _mm512_permutex2var_epi32(l[0], idx2, l[1]);
        let y23 = _mm512_permutex2var_epi32(l[2], idx2, l[3]);
        // Low 256 bits of both (pair m, rows 0-15), then the high 256 bits (pair m + 1).
        [
            _mm512_shuffle_i64x2::<0b01_00_01_00>(x01, y01),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(x01, y01),
            _mm512_shuffle_i64x2::<0b01_00_01_00>(x23, y23),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(x23, y23),
        ]
    }
}

/// [`Vector::columns`] of sixteen rows of eight 16-bit words, row `j` at `p + j·stride` (any
/// stride): each row one 128-bit load, rows `j`, `j + 4`, `j + 8` and `j + 12` in the four
/// 128-bit lanes of a register, then a 4×4 transpose of 32-bit words (pairs of elements)
/// within each lane and the split, as `ymm.rs`'s `columns16`.
///
/// # Safety
/// Each row `j < 16` must have eight readable `W` (two-byte words) at `p + j·stride`.
#[inline(always)]
unsafe fn columns16<W: Word>(p: *const W, stride: usize) -> [__m512i; 8] {
    // SAFETY: as the caller's.
    split_pairs16::<Zmm, 4>(unsafe { row_pairs16(p, stride) })
}

/// The pairs of elements of [`columns16`]'s rows: lane `j` of `out[m]` holds row `j`'s
/// elements `2m` (low half) and `2m + 1` (high half).
///
/// # Safety
/// As [`columns16`].
#[inline(always)]
unsafe fn row_pairs16<W: Word>(p: *const W, stride: usize) -> [__m512i; 4] {
    // SAFETY: sixteen 16-byte loads from the rows the caller guarantees; the rest is
    // register-only.
    unsafe {
        let mut x = [_mm512_setzero_si512(); 4];
        for (j, xj) in x.iter_mut().enumerate() {
            // Macros, not closures, in this file: a closure does not inherit the target
            // features, and where LLVM does not inline it its intrinsics become calls.
            macro_rules! row {
                ($r:expr) => {
                    _mm_loadu_si128(p.add($r * stride).cast())
                };
            }
            let lo = _mm256_set_m128i(row!(j + 4), row!(j));
            let hi = _mm256_set_m128i(row!(j + 12), row!(j + 8));
            *xj = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
        }
        transpose4_lanes(x)
    }
}

/// Pairs of 16-bit words per 32-bit lane (low, high) into the [`Vector::pack16`] layout: the
/// low words of the sixteen lanes, then the high words (one `vpermw`).
#[inline(always)]
fn unzip16(x: __m512i) -> __m512i {
    // SAFETY: register-only AVX-512BW.
    unsafe {
        let order = _mm512_set_epi16(
            31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1, 30, 28, 26, 24, 22, 20, 18,
            16, 14, 12, 10, 8, 6, 4, 2, 0,
        );
        _mm512_permutexvar_epi16(order, x)
    }
}

/// A 4×4 transpose of 32-bit lanes within each 128-bit lane: lane `j` of 128-bit lane `h` of
/// `out[m]` is lane `m` of 128-bit lane `h` of `x[j]`.
#[inline(always)]
fn transpose4_lanes(x: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: register-only AVX-512F shuffles.
    unsafe {
        let t0 = _mm512_unpacklo_epi32(x[0], x[1]);
        let t1 = _mm512_unpackhi_epi32(x[0], x[1]);
        let t2 = _mm512_unpacklo_epi32(x[2], x[3]);
        let t3 = _mm512_unpackhi_epi32(x[2], x[3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
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
                // SAFETY: register-only AVX-512 F/BW/DQ/VL arithmetic, reached only from routines
                // compiled for these features (module docs of `vector.rs`).
                unsafe { $e }
            }
        )*
    };
}

// Every method: register-only AVX-512 F/BW/DQ/VL arithmetic unless a comment says
// otherwise; reached only from routines compiled for these features (module docs of
// `vector.rs`).
impl Vector for Zmm {
    const LANES: usize = 16;
    type I = __m512i;
    type F = __m512;
    type M = __mmask16;
    type M16 = __mmask32;
    type Q = __m512i;
    type D = __m512d;
    type MQ = __mmask8;
    type Fh = __m256;

    register_ops! {
        fn zero() -> __m512i = _mm512_setzero_si512();
        fn splat(x: i32) -> __m512i = _mm512_set1_epi32(x);
    }
    #[inline(always)]
    fn load(x: &[i32]) -> __m512i {
        let x = &x[..16];
        // SAFETY: an unaligned load of the sixteen values of a checked slice.
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
    }
    register_ops! {
        fn add(a: __m512i, b: __m512i) -> __m512i = _mm512_add_epi32(a, b);
        fn sub(a: __m512i, b: __m512i) -> __m512i = _mm512_sub_epi32(a, b);
        fn and(a: __m512i, b: __m512i) -> __m512i = _mm512_and_si512(a, b);
        fn or(a: __m512i, b: __m512i) -> __m512i = _mm512_or_si512(a, b);
        fn xor(a: __m512i, b: __m512i) -> __m512i = _mm512_xor_si512(a, b);
        fn max(a: __m512i, b: __m512i) -> __m512i = _mm512_max_epi32(a, b);
        fn min(a: __m512i, b: __m512i) -> __m512i = _mm512_min_epi32(a, b);
        fn min_u(a: __m512i, b: __m512i) -> __m512i = _mm512_min_epu32(a, b);
        fn abs(a: __m512i) -> __m512i = _mm512_abs_epi32(a);
        fn mul_lo(a: __m512i, b: __m512i) -> __m512i = _mm512_mullo_epi32(a, b);
        fn shl(a: __m512i, n: u32) -> __m512i = _mm512_sll_epi32(a, count(n));
        fn shr(a: __m512i, n: u32) -> __m512i = _mm512_srl_epi32(a, count(n));
        fn sar(a: __m512i, n: u32) -> __m512i = _mm512_sra_epi32(a, count(n));
        fn shl_v(a: __m512i, n: __m512i) -> __m512i = _mm512_sllv_epi32(a, n);
        fn shr_v(a: __m512i, n: __m512i) -> __m512i = _mm512_srlv_epi32(a, n);
        fn sar_v(a: __m512i, n: __m512i) -> __m512i = _mm512_srav_epi32(a, n);
        fn gt(a: __m512i, b: __m512i) -> __mmask16 = _mm512_cmpgt_epi32_mask(a, b);
        fn eq(a: __m512i, b: __m512i) -> __mmask16 = _mm512_cmpeq_epi32_mask(a, b);
        fn negative(a: __m512i) -> __mmask16 = _mm512_movepi32_mask(a);
        fn select(m: __mmask16, no: __m512i, yes: __m512i) -> __m512i =
            _mm512_mask_blend_epi32(m, no, yes);
        fn keep(m: __mmask16, a: __m512i) -> __m512i = _mm512_maskz_mov_epi32(m, a);
        fn clear(m: __mmask16, a: __m512i) -> __m512i = _mm512_maskz_mov_epi32(!m, a);
        fn dec_where(m: __mmask16, a: __m512i) -> __m512i =
            _mm512_mask_sub_epi32(a, m, a, _mm512_set1_epi32(1));
    }

    #[inline(always)]
    fn none() -> __mmask16 {
        0
    }
    #[inline(always)]
    fn m_or(a: __mmask16, b: __mmask16) -> __mmask16 {
        a | b
    }
    #[inline(always)]
    fn m_and(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & b
    }
    #[inline(always)]
    fn m_andnot(a: __mmask16, b: __mmask16) -> __mmask16 {
        !a & b
    }
    #[inline(always)]
    fn bits(m: __mmask16) -> u32 {
        m as u32
    }

    register_ops! {
        fn as_f(a: __m512i) -> __m512 = _mm512_castsi512_ps(a);
        fn as_i(a: __m512) -> __m512i = _mm512_castps_si512(a);
        fn f_zero() -> __m512 = _mm512_setzero_ps();
        fn f_add(a: __m512, b: __m512) -> __m512 = _mm512_add_ps(a, b);
        fn f_sub(a: __m512, b: __m512) -> __m512 = _mm512_sub_ps(a, b);
        fn f_mul(a: __m512, b: __m512) -> __m512 = _mm512_mul_ps(a, b);
        fn f_fma(a: __m512, b: __m512, c: __m512) -> __m512 = _mm512_fmadd_ps(a, b, c);
        fn f_trunc_i(a: __m512) -> __m512i = _mm512_cvttps_epi32(a);
        fn i_to_f(a: __m512i) -> __m512 = _mm512_cvtepi32_ps(a);
        fn f_nan(a: __m512) -> __mmask16 = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, a);
        fn splat16(x: i16) -> __m512i = _mm512_set1_epi16(x);
        fn add16(a: __m512i, b: __m512i) -> __m512i = _mm512_add_epi16(a, b);
        fn max16(a: __m512i, b: __m512i) -> __m512i = _mm512_max_epi16(a, b);
        fn shl16(a: __m512i, n: u32) -> __m512i = _mm512_sll_epi16(a, count(n));
        fn shr16(a: __m512i, n: u32) -> __m512i = _mm512_srl_epi16(a, count(n));
        fn gt16(a: __m512i, b: __m512i) -> __mmask32 = _mm512_cmpgt_epi16_mask(a, b);
        fn eq16(a: __m512i, b: __m512i) -> __mmask32 = _mm512_cmpeq_epi16_mask(a, b);
        fn select16(m: __mmask32, no: __m512i, yes: __m512i) -> __m512i =
            _mm512_mask_blend_epi16(m, no, yes);
    }
    #[inline(always)]
    fn none16() -> __mmask32 {
        0
    }
    #[inline(always)]
    fn m16_or(a: __mmask32, b: __mmask32) -> __mmask32 {
        a | b
    }
    #[inline(always)]
    fn m16_andnot(a: __mmask32, b: __mmask32) -> __mmask32 {
        !a & b
    }
    #[inline(always)]
    fn fold16(m: __mmask32) -> __mmask16 {
        (m as __mmask16) | ((m >> 16) as __mmask16)
    }
    #[inline(always)]
    fn pack16(x: __m512i, y: __m512i) -> __m512i {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            let m = _mm512_set1_epi32(0xffff);
            let p = _mm512_packus_epi32(_mm512_and_si512(x, m), _mm512_and_si512(y, m));
            // packus interleaves by 128-bit lane: x0-3 y0-3 | x4-7 y4-7 | ...
            _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), p)
        }
    }
    #[inline(always)]
    fn widen16(v: __m512i) -> (__m512i, __m512i) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            (
                _mm512_cvtepi16_epi32(_mm512_castsi512_si256(v)),
                _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64::<1>(v)),
            )
        }
    }
    #[inline(always)]
    fn f16_to_f(v: __m512i) -> (__m512, __m512) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            (
                _mm512_cvtph_ps(_mm512_castsi512_si256(v)),
                _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(v)),
            )
        }
    }
    #[inline(always)]
    fn bf16_to_f(v: __m512i) -> (__m512, __m512) {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            let lo = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)));
            let hi =
                _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(v)));
            (_mm512_castsi512_ps(lo), _mm512_castsi512_ps(hi))
        }
    }

    #[inline(always)]
    fn half_q(a: __m512i, h: usize) -> __m512i {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a))
            } else {
                _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(a))
            }
        }
    }
    #[inline(always)]
    fn half_d(a: __m512, h: usize) -> __m512d {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm512_cvtps_pd(_mm512_castps512_ps256(a))
            } else {
                _mm512_cvtps_pd(_mm512_extractf32x8_ps::<1>(a))
            }
        }
    }
    #[inline(always)]
    fn half_i_d(a: __m512i, h: usize) -> __m512d {
        // SAFETY: register-only (module docs of `vector.rs`).
        unsafe {
            if h == 0 {
                _mm512_cvtepi32_pd(_mm512_castsi512_si256(a))
            } else {
                _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64::<1>(a))
            }
        }
    }
    register_ops! {
        fn q_splat(x: i64) -> __m512i = _mm512_set1_epi64(x);
        fn q_add(a: __m512i, b: __m512i) -> __m512i = _mm512_add_epi64(a, b);
        fn q_sub(a: __m512i, b: __m512i) -> __m512i = _mm512_sub_epi64(a, b);
        fn q_and(a: __m512i, b: __m512i) -> __m512i = _mm512_and_si512(a, b);
        fn q_shl(a: __m512i, n: u32) -> __m512i = _mm512_sll_epi64(a, count(n));
        fn q_shr(a: __m512i, n: u32) -> __m512i = _mm512_srl_epi64(a, count(n));
        fn q_shl_v(a: __m512i, n: __m512i) -> __m512i = _mm512_sllv_epi64(a, n);
        fn q_gt(a: __m512i, b: __m512i) -> __mmask8 = _mm512_cmpgt_epi64_mask(a, b);
        fn q_eq(a: __m512i, b: __m512i) -> __mmask8 = _mm512_cmpeq_epi64_mask(a, b);
        fn q_select(m: __mmask8, no: __m512i, yes: __m512i) -> __m512i =
            _mm512_mask_blend_epi64(m, no, yes);
        fn as_d(a: __m512i) -> __m512d = _mm512_castsi512_pd(a);
        fn as_q(a: __m512d) -> __m512i = _mm512_castpd_si512(a);
        fn d_splat(x: f64) -> __m512d = _mm512_set1_pd(x);
        fn d_add(a: __m512d, b: __m512d) -> __m512d = _mm512_add_pd(a, b);
        fn d_sub(a: __m512d, b: __m512d) -> __m512d = _mm512_sub_pd(a, b);
        fn d_mul(a: __m512d, b: __m512d) -> __m512d = _mm512_mul_pd(a, b);
        fn d_fma(a: __m512d, b: __m512d, c: __m512d) -> __m512d = _mm512_fmadd_pd(a, b, c);
        fn d_max(a: __m512d, b: __m512d) -> __m512d = _mm512_max_pd(a, b);
        fn d_min(a: __m512d, b: __m512d) -> __m512d = _mm512_min_pd(a, b);
        fn d_abs(a: __m512d) -> __m512d = _mm512_abs_pd(a);
        fn d_floor(a: __m512d) -> __m512d =
            _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(a);
        fn d_trunc(a: __m512d) -> __m512d =
            _mm512_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(a);
        fn d_eq(a: __m512d, b: __m512d) -> __mmask8 = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b);
        fn d_nan(a: __m512d) -> __mmask8 = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a);
        fn d_select(m: __mmask8, no: __m512d, yes: __m512d) -> __m512d =
            _mm512_mask_blend_pd(m, no, yes);
        fn narrow(a: __m512d) -> __m256 = _mm512_cvtpd_ps(a);
        fn join(lo: __m256, hi: __m256) -> __m512 =
            _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi);
    }
    #[inline(always)]
    fn m_join(lo: __mmask8, hi: __mmask8) -> __mmask16 {
        lo as __mmask16 | (hi as __mmask16) << 8
    }

    #[inline(always)]
    fn columns<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m512i; 8] {
        assert!(r.n() >= 16 && k0 + 8 <= r.k());
        let (words, stride) = (r.words, r.stride);
        let p = words.as_ptr();
        if W::BYTES == 2 {
            // SAFETY: row `j < 16 <= n` reads words `j·stride + k0 .. j·stride + k0 + 8`, below
            // `(n - 1)·stride + k <= words.len()` (as below); with stride 8 these are the words
            // `k0 .. k0 + 128`.
            return unsafe {
                if stride == 8 {
                    columns_packed16(p.add(k0))
                } else {
                    columns16(p.add(k0), stride)
                }
            };
        }
        // Plain loops, not `core::array::from_fn` (see `Ymm::columns`).
        let mut x = [Zmm::zero(); 8];
        for (j, xj) in x.iter_mut().enumerate() {
            // SAFETY: rows `j` and `j + 8 < 16 <= n` read words `row·stride + k0 .. row·stride
            // + k0 + 8`, below `(n - 1)·stride + k <= words.len()` (checked by `Rows::new` and
            // kept by `Rows::group`; `n >= 16` and `k0 + 8 <= k` asserted).
            *xj = unsafe { load8x2(p.add(j * stride + k0), p.add((j + 8) * stride + k0)) };
        }
        // An 8×8 transpose within each 256-bit half, as `ymm::transpose8` does.
        unsafe {
            let t0 = _mm512_unpacklo_epi32(x[0], x[1]);
            let t1 = _mm512_unpackhi_epi32(x[0], x[1]);
            let t2 = _mm512_unpacklo_epi32(x[2], x[3]);
            let t3 = _mm512_unpackhi_epi32(x[2], x[3]);
            let t4 = _mm512_unpacklo_epi32(x[4], x[5]);
            let t5 = _mm512_unpackhi_epi32(x[4], x[5]);
            let t6 = _mm512_unpacklo_epi32(x[6], x[7]);
            let t7 = _mm512_unpackhi_epi32(x[6], x[7]);
            let u0 = _mm512_unpacklo_epi64(t0, t2);
            let u1 = _mm512_unpackhi_epi64(t0, t2);
            let u2 = _mm512_unpacklo_epi64(t1, t3);
            let u3 = _mm512_unpackhi_epi64(t1, t3);
            let u4 = _mm512_unpacklo_epi64(t4, t6);
            let u5 = _mm512_unpackhi_epi64(t4, t6);
            let u6 = _mm512_unpacklo_epi64(t5, t7);
            let u7 = _mm512_unpackhi_epi64(t5, t7);
            // Per half: the low (or high) 128-bit lanes of `a` and `b`.
            let low = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
            let high = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
            macro_rules! two {
                ($idx:expr, $a:expr, $b:expr) => {
                    _mm512_permutex2var_epi64($a, $idx, $b)
                };
            }
            [
                two!(low, u0, u4),
                two!(low, u1, u5),
                two!(low, u2, u6),
                two!(low, u3, u7),
                two!(high, u0, u4),
                two!(high, u1, u5),
                two!(high, u2, u6),
                two!(high, u3, u7),
            ]
        }
    }

    #[inline(always)]
    fn pairs16<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m512i; 4] {
        assert!(W::BYTES == 2 && r.n() >= 16 && k0 + 8 <= r.k());
        let p = r.words.as_ptr();
        // SAFETY: as in `columns`.
        let x = unsafe {
            if r.stride == 8 {
                row_pairs_packed16(p.add(k0))
            } else {
                row_pairs16(p.add(k0), r.stride)
            }
        };
        [unzip16(x[0]), unzip16(x[1]), unzip16(x[2]), unzip16(x[3])]
    }

    #[inline(always)]
    fn pairs16_4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m512i; 2] {
        assert!(W::BYTES == 2 && r.stride == 4 && r.n() >= 16 && k0 + 4 <= r.k());
        // SAFETY: rows `j < 16` of stride 4 from `k0` are the words `k0 .. k0 + 64`, below
        // `15·4 + k0 + 4 <= (n - 1)·stride + k <= words.len()` (asserted; `Rows::new` checks the
        // length).
        let x = unsafe { row_pairs4_packed16(r.words.as_ptr().add(k0)) };
        [unzip16(x[0]), unzip16(x[1])]
    }

    #[inline(always)]
    fn columns4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m512i; 8] {
        assert!(r.n() >= 16 && k0 + 4 <= r.k());
        let (words, stride) = (r.words, r.stride);
        let p = words.as_ptr();
        if W::BYTES == 2 && stride == 4 {
            // SAFETY: rows `j < 16` of stride 4 from `k0` are the words `k0 .. k0 + 64`, below
            // `15·4 + k0 + 4 <= (n - 1)·stride + k <= words.len()` (`n >= 16` and `k0 + 4 <= k`
            // asserted above; `Rows::new` checks the length).
            return unsafe { columns4_packed16(p.add(k0)) };
        }
        // SAFETY: row `r < 16 <= n` reads words `r·stride + k0 .. r·stride + k0 + 4`, below
        // `(n - 1)·stride + k <= words.len()` (as in `columns`; `k0 + 4 <= k` asserted). The
        // rest is register-only.
        unsafe {
            let mut x = [_mm512_setzero_si512(); 4];
            for (j, xj) in x.iter_mut().enumerate() {
                *xj = load4x4(p.add(j * stride + k0), stride);
            }
            // Lane 4L + j of `x[j']` is word j' of row j + 4L: a 4×4 transpose per 128-bit lane.
            let [c0, c1, c2, c3] = transpose4_lanes(x);
            let z = _mm512_setzero_si512();
            [c0, c1, c2, c3, z, z, z, z]
        }
    }

    #[inline(always)]
    fn columns2<W: Word>(r: &Rows<'_, W>, k0: usize) -> [__m512i; 8] {
        assert!(r.n() >= 16 && k0 + 2 <= r.k());
        let z = Zmm::zero();
        if W::BYTES == 2 && r.stride == 2 {
            // Rows of two 16-bit words that follow each other: row `j`'s pair is the 32-bit
            // word `j` of one load.
            // SAFETY: the words `k0 .. k0 + 32`, below `15·2 + k0 + 2 <= (n - 1)·stride + k
            // <= words.len()` (`n >= 16` and `k0 + 2 <= k` asserted; `Rows::new` checks the
            // length).
            let x = unsafe { _mm512_loadu_si512(r.words.as_ptr().add(k0).cast()) };
            let [c0, c1, ..] = split_pairs16::<Zmm, 1>([x]);
            return [c0, c1, z, z, z, z, z, z];
        }
        let mut e0 = [0i32; 16];
        let mut e1 = [0i32; 16];
        for j in 0..16 {
            let row = &r.row(j)[k0..k0 + 2];
            let (x, y): (u64, u64) = (row[0].into(), row[1].into());
            (e0[j], e1[j]) = (x as i32, y as i32);
        }
        [Zmm::load(&e0), Zmm::load(&e1), z, z, z, z, z, z]
    }

    #[inline(always)]
    fn lanes(w: &[u64]) -> __m512i {
        let w = &w[..16];
        // SAFETY: two unaligned loads of eight words each from a slice of sixteen.
        unsafe {
            let lo = _mm512_loadu_si512(w.as_ptr().cast());
            let hi = _mm512_loadu_si512(w.as_ptr().add(8).cast());
            _mm512_permutex2var_epi32(lo, even32(), hi)
        }
    }

    #[inline(always)]
    fn store(v: __m512i, out: &mut [u64]) {
        let out = &mut out[..16];
        // SAFETY: two unaligned stores of eight words each into a slice of sixteen.
        unsafe {
            let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
            let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(v));
            _mm512_storeu_si512(out.as_mut_ptr().cast(), lo);
            _mm512_storeu_si512(out.as_mut_ptr().add(8).cast(), hi);
        }
    }

    #[inline(always)]
    fn load_d(w: &[u64], h: usize) -> __m512d {
        let w = &w[8 * h..8 * h + 8];
        // SAFETY: an unaligned load of eight words of a checked slice.
        unsafe { _mm512_loadu_pd(w.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_d(v: __m512d, out: &mut [u64], h: usize) {
        let out = &mut out[8 * h..8 * h + 8];
        // SAFETY: an unaligned store of eight words into a checked slice.
        unsafe { _mm512_storeu_pd(out.as_mut_ptr().cast(), v) }
    }

    #[inline(always)]
    fn gather32<W: Word>(r: &Rows<'_, W>, e: usize) -> __m512i {
        assert!(r.n() >= 16 && e < r.k() && gathers_fit(r) && W::BYTES >= 4);
        let words = r.words;
        // 32-bit units per word: 1 or 2.
        let u = (W::BYTES / 4) as i32;
        let (s, e) = (u * r.stride as i32, u * e as i32);
        // SAFETY: lane `j` reads the low 32 bits of word `j·stride + e < (n - 1)·stride + k <=
        // words.len()` (`Rows::new`; `n >= 16` and `e < k` asserted); on little-endian x86-64
        // that is `i32` number `u(j·stride + e)` of the words, an index that fits `i32`
        // (`gathers_fit`, asserted).
        unsafe {
            let j = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let idx = _mm512_add_epi32(
                _mm512_mullo_epi32(j, _mm512_set1_epi32(s)),
                _mm512_set1_epi32(e),
            );
            _mm512_i32gather_epi32::<4>(idx, words.as_ptr().cast())
        }
    }

    #[inline(always)]
    fn gather64<W: Word>(r: &Rows<'_, W>, e: usize, h: usize) -> __m512d {
        assert!(r.n() >= 16 && e < r.k() && h < 2 && gathers_fit(r) && W::BYTES == 8);
        let words = r.words;
        let (s, e) = (r.stride as i32, e as i32);
        // SAFETY: as in `gather32`, whole words of rows `8h + j < 16 <= n`.
        unsafe {
            let j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let j = _mm256_add_epi32(j, _mm256_set1_epi32(8 * h as i32));
            let idx = _mm256_add_epi32(
                _mm256_mullo_epi32(j, _mm256_set1_epi32(s)),
                _mm256_set1_epi32(e),
            );
            _mm512_i32gather_pd::<8>(idx, words.as_ptr().cast())
        }
    }

    #[inline(always)]
    fn rows32<W: Word>(r: &Rows<'_, W>) -> Option<[__m512i; 2]> {
        let k = r.k();
        if r.stride != k || r.n() < 16 || W::BYTES != 4 || !(k == 1 || k == 2) {
            return None;
        }
        // The sixteen rows: the first `16k` words (`16k <= (n - 1)·k + k <= words.len()`).
        let p = r.words[..16 * k].as_ptr().cast::<i32>();
        // SAFETY: `p` points to `16k` words of `u32` of a checked slice: one load of sixteen
        // for K = 1, two for K = 2; the permutes are register-only.
        unsafe {
            let z = _mm512_setzero_si512();
            if k == 1 {
                return Some([_mm512_loadu_si512(p.cast()), z]);
            }
            let (lo, hi) = (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(16).cast()),
            );
            let odd = _mm512_add_epi32(even32(), _mm512_set1_epi32(1));
            Some([
                _mm512_permutex2var_epi32(lo, even32(), hi),
                _mm512_permutex2var_epi32(lo, odd, hi),
            ])
        }
    }

    #[inline(always)]
    fn rows64<W: Word>(r: &Rows<'_, W>, h: usize) -> Option<[__m512d; 4]> {
        let k = r.k();
        if r.stride != k || r.n() < 16 || W::BYTES != 8 || !(k == 1 || k == 2 || k == 4) || h > 1 {
            return None;
        }
        // Rows 8h .. 8h + 8: the 8k words from 8hk.
        let p = r.words[8 * h * k..8 * h * k + 8 * k].as_ptr().cast::<f64>();
        // SAFETY: `p` points to `8k` words of a checked slice: one load of eight for K = 1, two
        // for K = 2, four for K = 4; the permutes are register-only.
        unsafe {
            let z = _mm512_setzero_pd();
            macro_rules! ld {
                ($i:expr) => {
                    _mm512_loadu_pd(p.add(8 * $i))
                };
            }
            macro_rules! perm {
                ($a:expr, $i:expr, $b:expr) => {{
                    let i: [i64; 8] = $i;
                    let idx = _mm512_setr_epi64(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
                    _mm512_permutex2var_pd($a, idx, $b)
                }};
            }
            match k {
                1 => Some([ld!(0), z, z, z]),
                2 => {
                    let (lo, hi) = (ld!(0), ld!(1));
                    Some([
                        perm!(lo, [0, 2, 4, 6, 8, 10, 12, 14], hi),
                        perm!(lo, [1, 3, 5, 7, 9, 11, 13, 15], hi),
                        z,
                        z,
                    ])
                }
                _ => {
                    // Two rows per load; elements 0, 1 (then 2, 3) of four rows per vector.
                    let (l0, l1, l2, l3) = (ld!(0), ld!(1), ld!(2), ld!(3));
                    let t0 = perm!(l0, [0, 4, 8, 12, 1, 5, 9, 13], l1);
                    let t1 = perm!(l0, [2, 6, 10, 14, 3, 7, 11, 15], l1);
                    let t2 = perm!(l2, [0, 4, 8, 12, 1, 5, 9, 13], l3);
                    let t3 = perm!(l2, [2, 6, 10, 14, 3, 7, 11, 15], l3);
                    let (first, second) =
                        ([0, 1, 2, 3, 8, 9, 10, 11], [4, 5, 6, 7, 12, 13, 14, 15]);
                    Some([
                        perm!(t0, first, t2),
                        perm!(t0, second, t2),
                        perm!(t1, first, t3),
                        perm!(t1, second, t3),
                    ])
                }
            }
        }
    }
}
