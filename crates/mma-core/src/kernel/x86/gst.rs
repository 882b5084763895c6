//! GST-FDPA (fp4 `kind::mxf4`/`mxf4nvf4`) for eight dot products at a time (AVX2): the group
//! sums per dot product and the rest in lanes (see [`gst`]). Its AVX-512 kernels use this
//! routine too: the group sums are per dot product, so wider lanes would speed up only the
//! smaller part. Soundness: `x86/mod.rs`.

use super::ymm::Ymm;
use crate::kernel::lanes::vector::Vector;
use crate::kernel::plan::GLanes;
use crate::kernel::words::Rows;
use core::arch::x86_64::*;

/// Eight GST-FDPA dot products of one block of `N = 16 · G` elements: the group sums per dot
/// product ([`super::simd::gst4`], whose row loads are cheaper than transposing 64 words per
/// row), then the rest of `gst::gst_v` and `gst_tail` lane-wise: scale pairs, group terms,
/// C, the largest exponent, and the truncated sum and rounding in f64 lanes, where every value
/// is an integer below `2^53` times a power of two (the comments give the bounds). `sa` and `sb`
/// hold the scale words of each dot product (`N / per`), one after another. Returns the mask of lanes
/// to recompute: a NaN scale, an Inf/NaN C, a result outside fp32's normal range.
#[inline(always)]
pub fn gst<const N: usize, const G: usize>(
    t: &GLanes,
    a: Rows<'_>,
    b: Rows<'_>,
    sa: &[u64],
    sb: &[u64],
    c: &[u64; 8],
    out: &mut [u64; 8],
) -> u32 {
    assert!(t.per.is_multiple_of(16) && N.is_multiple_of(t.per));
    // Scale factors per dot product.
    let spd = N / t.per;
    assert!(a.k() == N && b.k() == N && sa.len() >= 8 * spd && sb.len() >= 8 * spd);
    let mut sums = [[0i32; 8]; G];
    let mut live = [[0i32; 8]; G];
    let mut qa = [[0u32; 8]; G];
    let mut qb = [[0u32; 8]; G];
    for j in 0..8 {
        let (Ok(ra), Ok(rb)) = (
            <&[u64; N]>::try_from(a.row(j)),
            <&[u64; N]>::try_from(b.row(j)),
        ) else {
            unreachable!("rows of N words (asserted)")
        };
        let (s, nonzero) = super::simd::gst4::<N, G>(ra, rb, &t.va, &t.vb);
        for g in 0..G {
            sums[g][j] = s[g];
            live[g][j] = -((nonzero >> g & 1) as i32);
            let si = j * spd + 16 * g / t.per;
            qa[g][j] = t.scales[(sa[si] & 0xff) as usize];
            qb[g][j] = t.scales[(sb[si] & 0xff) as usize];
        }
    }
    // SAFETY: register-only AVX2 arithmetic; the loads read arrays of eight 32-bit words.
    unsafe {
        let set = _mm256_set1_epi32;
        let zero = _mm256_setzero_si256();
        let load = |x: &[i32; 8]| _mm256_loadu_si256(x.as_ptr().cast());
        let loadu = |x: &[u32; 8]| _mm256_loadu_si256(x.as_ptr().cast());
        // C (fp32): scientific exponent (e_zero for a zero), Inf/NaN flag.
        let cw = Ymm::lanes(c);
        let ef = _mm256_and_si256(_mm256_srli_epi32::<23>(cw), set(0xff));
        let c_zero = _mm256_cmpeq_epi32(_mm256_and_si256(cw, set(0x7fff_ffff)), zero);
        let c_e = _mm256_blendv_epi8(
            _mm256_sub_epi32(_mm256_max_epi32(ef, set(1)), set(127)),
            set(t.e_zero),
            c_zero,
        );
        let mut bad = _mm256_cmpeq_epi32(ef, set(0xff));
        let mut emax = c_e;
        let mut vals = [zero; G];
        let mut lsbs = [zero; G];
        for g in 0..G {
            let (ea, eb) = (loadu(&qa[g]), loadu(&qb[g]));
            let special = set(crate::kernel::table::SPECIAL as i32);
            let flagged = _mm256_and_si256(_mm256_or_si256(ea, eb), special);
            bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(flagged, special));
            let sig = set(0xfff);
            let ss = _mm256_mullo_epi32(_mm256_and_si256(ea, sig), _mm256_and_si256(eb, sig));
            let e_s = _mm256_add_epi32(_mm256_srai_epi32::<14>(ea), _mm256_srai_epi32::<14>(eb));
            // A group with no non-zero product or a zero scale product is a zero term at
            // e_zero; any other keeps its scale exponent, even when its sum cancels to zero.
            let on = _mm256_andnot_si256(_mm256_cmpeq_epi32(ss, zero), load(&live[g]));
            emax = _mm256_max_epi32(emax, _mm256_blendv_epi8(set(t.e_zero), e_s, on));
            // |group sum| < 2^12 and the scale product < 2^8: exact in i32.
            vals[g] = _mm256_and_si256(on, _mm256_mullo_epi32(load(&sums[g]), ss));
            lsbs[g] = _mm256_add_epi32(e_s, set(t.lsb0 - t.ms));
        }
        // 2^x in f64 lanes for i32 lanes x (clamped to f64's normal exponents: beyond them the
        // values scaled here are zero or far below 1 and truncate to 0 either way).
        let pow2 = |x: __m128i| {
            let x = _mm_min_epi32(
                _mm_max_epi32(x, _mm_set1_epi32(-1022)),
                _mm_set1_epi32(1023),
            );
            let x = _mm256_cvtepi32_epi64(x);
            _mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_add_epi64(
                x,
                _mm256_set1_epi64x(1023),
            )))
        };
        let half = |v: __m256i, h: usize| {
            if h == 0 {
                _mm256_castsi256_si128(v)
            } else {
                _mm256_extracti128_si256::<1>(v)
            }
        };
        let trunc = |x: __m256d| _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(x);
        let q = _mm256_sub_epi32(emax, set(t.f as i32));
        let c_f = _mm256_castsi256_ps(cw);
        let mut res = [_mm_setzero_ps(); 2];
        let mut small = [zero; 2];
        for (h, r) in res.iter_mut().enumerate() {
            // C truncated to F fraction bits below e_max (a C below the quantum gives 0).
            let c_d = if h == 0 {
                _mm256_cvtps_pd(_mm256_castps256_ps128(c_f))
            } else {
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(c_f))
            };
            let qh = half(q, h);
            let mut total = trunc(_mm256_mul_pd(
                c_d,
                pow2(_mm_sub_epi32(_mm_setzero_si128(), qh)),
            ));
            for g in 0..G {
                // The term |sum| · ss · 2^lsb, at most 20 bits, aligned to the quantum 2^q and
                // truncated toward zero: each below 2^(F+12), their sum with C below 2^50.
                let v = _mm256_cvtepi32_pd(half(vals[g], h));
                let x = _mm_sub_epi32(half(lsbs[g], h), qh);
                total = _mm256_add_pd(total, trunc(_mm256_mul_pd(v, pow2(x))));
            }
            // An exact zero is +0 (x + 0 turns -0 into +0, leaves the rest alone).
            let total = _mm256_add_pd(total, _mm256_setzero_pd());
            let value = _mm256_mul_pd(total, pow2(qh));
            let value = if t.nearest {
                value
            } else {
                // RZ to 24 significant bits: clear the 29 low mantissa bits of the f64.
                _mm256_castsi256_pd(_mm256_and_si256(
                    _mm256_castpd_si256(value),
                    _mm256_set1_epi64x(!((1i64 << 29) - 1)),
                ))
            };
            // Non-zero results below fp32's smallest normal go to the per-dot kernel (the
            // sign and flush rules of tiny results); overflow too.
            let mag = _mm256_and_pd(value, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)));
            let tiny = _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_LT_OQ>(mag, _mm256_set1_pd(f32::MIN_POSITIVE as f64)),
                _mm256_cmp_pd::<_CMP_NEQ_OQ>(mag, _mm256_setzero_pd()),
            );
            let huge = _mm256_cmp_pd::<_CMP_GE_OQ>(mag, _mm256_set1_pd(2f64.powi(128)));
            small[h] = _mm256_castpd_si256(_mm256_or_pd(tiny, huge));
            // Exact for normal results (RNE: the IEEE conversion is the rounding).
            *r = _mm256_cvtpd_ps(value);
        }
        let bits = _mm256_castps_si256(_mm256_set_m128(res[1], res[0]));
        Ymm::store(bits, out);
        let m = _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32;
        let m0 = _mm256_movemask_pd(_mm256_castsi256_pd(small[0])) as u32;
        let m1 = _mm256_movemask_pd(_mm256_castsi256_pd(small[1])) as u32;
        m | m0 | m1 << 4
    }
}
