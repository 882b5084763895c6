//! Sliced-FDPA's last addition ([`LastAdd`](crate::kernel::scalar::sliced::LastAdd)) eight
//! dot products at a time: D = C + the passes' result, one addition rounded to nearest even,
//! for fp32 or fp16 words.
//!
//! Step by step, for eight pairs of words:
//!
//! 1. The low 32 bits of eight `u64` words into one vector (two loads, a shuffle and a
//!    permutation); fp16 words are then narrowed to their 16 bits and converted to f32
//!    (`vcvtph2ps`, exact).
//! 2. The native f32 addition. For fp32 words this is the addition `LastAdd` computes: IEEE
//!    binary32 with round-to-nearest-even, gradual underflow and overflow to Inf (Rust never
//!    sets FTZ/DAZ). For fp16 words the f32 sum is rounded once more to fp16 (`vcvtps2ph`,
//!    RNE, subnormals, overflow to Inf). Rounding twice is innocuous here: an operation on
//!    p-bit numbers rounded first to at least 2p + 2 bits and then to p bits gives the
//!    correctly rounded result (S. A. Figueroa, "When is double rounding innocuous?", ACM
//!    SIGNUM Newsletter 30(3), 1995), and f32's 24 bits are 2·11 + 2 for fp16's 11. Where the
//!    sum is an fp16 subnormal it has at most 10 significant bits and the f32 sum is exact.
//! 3. A zero sum: IEEE gives -0 only for (-0) + (-0), which is `LastAdd`'s rule; with the
//!    output convention "-0 to +0" every zero becomes +0. A non-zero sum never rounds to zero
//!    (both terms are multiples of the smallest subnormal).
//! 4. Inf and NaN, as the plain model's `add_c_last` takes them (IEEE): a NaN term, or Infs of
//!    opposite signs, give the unit's NaN word ([`LastLanes::nan`]), which the lanes put
//!    where the f32 sum is a NaN; an Inf with a finite term or the same Inf gives that Inf,
//!    which the native addition gives (and the conversion to fp16 keeps); the model encodes
//!    Inf in fp16 and fp32 D as IEEE does.
//!
//! `kernel/checks.rs` compares this with `LastAdd` and the plain model's `add_c_last` on every
//! fp16 word (Inf and NaN included) against a set of partners and on random fp32 pairs.

use std::arch::x86_64::*;

use crate::kernel::scalar::sliced::{LastLanes, LastWidth, ZeroSign};

/// `cd[i] = acc[i] + cd[i]` (C in, D out) for the leading multiple of eight of the pairs, as
/// the module docs say. Returns how many pairs were taken.
/// # Safety
/// The CPU must have AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn add(l: LastLanes, acc: &[u64], cd: &mut [u64]) -> usize {
    let n = acc.len().min(cd.len()) / 8 * 8;
    let nan = _mm256_set1_epi32(l.nan as i32);
    for i in (0..n).step_by(8) {
        // SAFETY: words `i .. i + 8` lie within both slices (`i + 8 <= n`).
        let (s, c) = unsafe { (low32(acc.as_ptr().add(i)), low32(cd.as_ptr().add(i))) };
        let (sum, is_nan) = match l.width {
            LastWidth::Half => half(s, c),
            LastWidth::Single => single(s, c),
        };
        let sum = match (l.zero, l.width) {
            (ZeroSign::Keep, _) => sum,
            (ZeroSign::Positive, LastWidth::Half) => positive_zero(sum, 0x7fff),
            (ZeroSign::Positive, LastWidth::Single) => positive_zero(sum, 0x7fff_ffff),
        };
        // SAFETY: as above.
        unsafe { store(_mm256_blendv_epi8(sum, nan, is_nan), cd.as_mut_ptr().add(i)) };
    }
    n
}

/// fp16 words (their low 16 bits): the sums as words and the lanes whose sum is a NaN.
#[target_feature(enable = "avx2,f16c")]
#[inline]
fn half(s: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let sum = _mm256_add_ps(half_to_f32(s), half_to_f32(c));
    let words = _mm256_cvtepu16_epi32(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(sum));
    (words, is_nan(sum))
}

/// The low 16 bits of the lanes as binary16, converted (exactly) to f32.
#[target_feature(enable = "avx2,f16c")]
#[inline]
fn half_to_f32(x: __m256i) -> __m256 {
    let x = _mm256_and_si256(x, _mm256_set1_epi32(0xffff));
    _mm256_cvtph_ps(_mm_packus_epi32(
        _mm256_castsi256_si128(x),
        _mm256_extracti128_si256::<1>(x),
    ))
}

/// fp32 words: the sums as words and the lanes whose sum is a NaN.
#[target_feature(enable = "avx2")]
#[inline]
fn single(s: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let sum = _mm256_add_ps(_mm256_castsi256_ps(s), _mm256_castsi256_ps(c));
    (_mm256_castps_si256(sum), is_nan(sum))
}

/// All-ones lanes where `x` is a NaN.
#[target_feature(enable = "avx2")]
#[inline]
fn is_nan(x: __m256) -> __m256i {
    _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x))
}

/// A zero lane (every bit of `body`, all but the sign, clear) made +0.
#[target_feature(enable = "avx2")]
#[inline]
fn positive_zero(x: __m256i, body: i32) -> __m256i {
    let zero = _mm256_cmpeq_epi32(
        _mm256_and_si256(x, _mm256_set1_epi32(body)),
        _mm256_setzero_si256(),
    );
    _mm256_andnot_si256(zero, x)
}

/// The low 32 bits of the eight words at `p`, in order.
/// # Safety
/// `p` points to eight readable words; the CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn low32(p: *const u64) -> __m256i {
    // SAFETY: the caller's contract: two loads of four words.
    let (lo, hi) = unsafe {
        (
            _mm256_loadu_si256(p.cast()),
            _mm256_loadu_si256(p.add(4).cast()),
        )
    };
    // Words 0, 1, 4, 5 | 2, 3, 6, 7, then the 64-bit pairs in order.
    let mixed = _mm256_shuffle_ps::<0x88>(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
    _mm256_permute4x64_epi64::<0xd8>(_mm256_castps_si256(mixed))
}

/// The lanes of `v`, zero-extended, as the eight words at `p`.
/// # Safety
/// `p` points to eight writable words; the CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store(v: __m256i, p: *mut u64) {
    let (lo, hi) = (
        _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),
        _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v)),
    );
    // SAFETY: the caller's contract: two stores within eight words.
    unsafe {
        _mm256_storeu_si256(p.cast(), lo);
        _mm256_storeu_si256(p.add(4).cast(), hi);
    }
}
