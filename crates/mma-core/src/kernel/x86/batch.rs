//! Evaluation across dot products: eight independent dot products at a time, one per 32-bit
//! lane of an AVX2 vector ([`crate::kernel::Kernel::dots`] and the matrix driver, through
//! `kernel/dots.rs`).
//!
//! The per-dot kernels vectorise *within* one dot product and still pay, per dot, for the
//! horizontal reductions, decoding C, the alignment of C, the rounding and the branches between
//! them. Here the operand rows of eight dot products ([`Rows`]) are transposed eight words at a
//! time (`Rows::columns`, `x86/rows.rs`) so that vector `k` holds element `k` of every dot product, lane `j`
//! being dot product `j`. Every step of the model is then a lane-wise operation: the largest
//! exponent is a vertical max, the sum a vertical add, and C, the normalisation and the
//! rounding are computed for eight dot products by the same instructions.
//!
//! - FTZ-MulAdd ([`ftz`]) uses the machine's fp32 multiply and add, exactly as the scalar
//!   [`crate::kernel::scalar::amd::ftz_block`] does (its module docs say why that is bit-exact), with the same
//!   flushes as lane masks. It covers every input; there is no fallback.
//! - T-FDPA ([`tfdpa`]) takes its products from a [`Stage`] (`kernel/x86/stage.rs`: the aligned,
//!   truncated product sum and the largest exponent, as `crate::kernel::tfdpa_n` computes them), adds
//!   C and rounds like [`crate::kernel::round::FastRound`] for results in the normal range and
//!   beyond it (overflow to Inf), and passes an infinite C on when every product is finite. A
//!   lane whose dot product leaves that common case (an Inf/NaN operand, a NaN C, a sum beyond
//!   the 32-bit lanes, an exact zero, a subnormal result) is flagged, and the caller
//!   recomputes that dot product with the per-dot kernel. Chained blocks stay in registers: a
//!   block's fp32 result is the next block's C.
//! - TR-FDPA and GTR-FDPA ([`tr`]) take their products from the same stages, then add C late
//!   and round in 64-bit integer and f64 lanes; only Inf/NaN inputs and products at the Inf
//!   threshold are flagged.
//!
//! `tests/fast_paths.rs` compares every batch path with the plain model on random inputs with
//! specials, subnormals and cancellations, for batch lengths that are not multiples of eight;
//! `tests/gemm.rs` the matrix driver's use.

#![allow(unused_unsafe)]

use super::rows::{lanes, store};
use super::stage::{OnRows, Products, Stage};
pub use crate::kernel::dots::{Rows, Word};
pub(super) use crate::kernel::plan::{GLanes, TLanes};
use core::arch::x86_64::*;
use core::marker::PhantomData;

// ---------------------------------------------------------------------------------------------
// FTZ-MulAdd
// ---------------------------------------------------------------------------------------------

/// A 16-bit IEEE format decoded to `f32` lanes with the input flush of FTZ-MulAdd (zero
/// exponent field: `+0`), as [`crate::kernel::scalar::amd::H16`] does for one word.
pub trait VH16 {
    fn ftz(x: __m256i) -> __m256;
}

impl VH16 for crate::kernel::scalar::amd::F16In {
    #[inline(always)]
    fn ftz(x: __m256i) -> __m256 {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let set = _mm256_set1_epi32;
            let h = _mm256_and_si256(x, set(0xffff));
            let sign = _mm256_slli_epi32::<16>(_mm256_and_si256(h, set(0x8000)));
            let em = _mm256_and_si256(h, set(0x7fff));
            let e = _mm256_srli_epi32::<10>(em);
            // Rebias 15 -> 127; Inf/NaN (field 31) once more to reach 255.
            let body = _mm256_add_epi32(_mm256_slli_epi32::<13>(em), set(112 << 23));
            let inf = _mm256_and_si256(_mm256_cmpeq_epi32(e, set(31)), set(112 << 23));
            let r = _mm256_or_si256(sign, _mm256_add_epi32(body, inf));
            let zero = _mm256_cmpeq_epi32(e, _mm256_setzero_si256());
            _mm256_castsi256_ps(_mm256_andnot_si256(zero, r))
        }
    }
}

impl VH16 for crate::kernel::scalar::amd::Bf16In {
    #[inline(always)]
    fn ftz(x: __m256i) -> __m256 {
        // SAFETY: register-only AVX2 arithmetic.
        unsafe {
            let r = _mm256_slli_epi32::<16>(x);
            let e = _mm256_and_si256(r, _mm256_set1_epi32(0x7f80_0000));
            let zero = _mm256_cmpeq_epi32(e, _mm256_setzero_si256());
            _mm256_castsi256_ps(_mm256_andnot_si256(zero, r))
        }
    }
}

/// The output flush, lane-wise: a result below the smallest normal number becomes a zero of
/// its sign ([`crate::kernel::scalar::amd::flush`]).
#[inline(always)]
fn flush(x: __m256) -> __m256 {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let b = _mm256_castps_si256(x);
        let e = _mm256_and_si256(b, _mm256_set1_epi32(0x7f80_0000));
        let tiny = _mm256_cmpeq_epi32(e, _mm256_setzero_si256());
        let clear = _mm256_and_si256(tiny, _mm256_set1_epi32(0x7fff_ffff));
        _mm256_castsi256_ps(_mm256_andnot_si256(clear, b))
    }
}

/// `flush(x + y)`.
#[inline(always)]
fn add(x: __m256, y: __m256) -> __m256 {
    // SAFETY: register-only AVX arithmetic (IEEE binary32, RNE: Rust's default MXCSR).
    flush(unsafe { _mm256_add_ps(x, y) })
}

/// FTZ-MulAdd of eight dot products of `N` elements (2, 4 or a multiple of 8) in groups of `P` (a power
/// of two dividing `N`): `a` and `b` are the eight rows, `c` the eight C words; writes the
/// eight D words. The operations and their order are [`crate::kernel::scalar::amd::ftz_block`]'s.
#[inline(always)]
pub fn ftz<const N: usize, const P: usize, D: VH16, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64; 8],
    nan_bits: u64,
    out: &mut [u64; 8],
) {
    const { assert!((N == 2 || N == 4 || N % 8 == 0) && P.is_power_of_two() && N % P == 0 && N <= 64) };
    // SAFETY: register-only AVX arithmetic.
    unsafe {
        let mut prod = [_mm256_setzero_ps(); N];
        for k0 in (0..N).step_by(8) {
            let ca = a.block_columns::<N>(k0);
            let cb = b.block_columns::<N>(k0);
            for e in 0..N.min(8) {
                prod[k0 + e] = flush(_mm256_mul_ps(D::ftz(ca[e]), D::ftz(cb[e])));
            }
        }
        let cw = lanes(c);
        let c_exp = _mm256_and_si256(cw, _mm256_set1_epi32(0x7f80_0000));
        let c_zero = _mm256_cmpeq_epi32(c_exp, _mm256_setzero_si256());
        let mut acc = _mm256_castsi256_ps(_mm256_andnot_si256(c_zero, cw));
        for g in 0..N / P {
            let grp = &mut prod[g * P..(g + 1) * P];
            let mut len = P;
            while len > 1 {
                for i in 0..len / 2 {
                    grp[i] = add(grp[2 * i], grp[2 * i + 1]);
                }
                len /= 2;
            }
            acc = add(acc, grp[0]);
        }
        let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(acc, acc));
        let bits = _mm256_blendv_epi8(
            _mm256_castps_si256(acc),
            _mm256_set1_epi32(nan_bits as u32 as i32),
            nan,
        );
        store(bits, out);
    }
}

// ---------------------------------------------------------------------------------------------
// T-FDPA
// ---------------------------------------------------------------------------------------------

/// One T-FDPA block of `N` products (4 or a multiple of 8) for eight dot products, C a word of
/// `t.cd` in each lane of `c`; of the operands bound in `p` this block reads elements
/// `k0 .. k0 + N`. Returns the results (words of `t.cd`) and a mask of the lanes outside the
/// common case (see the module docs), whose results are meaningless.
#[inline(always)]
pub fn tfdpa<const N: usize, P: Products>(
    t: &TLanes,
    p: P,
    k0: usize,
    off: __m256i,
    c: __m256i,
) -> (__m256i, __m256i) {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let set = _mm256_set1_epi32;
        let zero = _mm256_setzero_si256();
        let bias = p.bias();
        let cd = t.cd;
        let count = |n: u32| _mm_cvtsi32_si128(n as i32);
        // C: its fields; its exponent is biased like the products' (by `bias`).
        let all_ones = (1i32 << cd.exp) - 1;
        let ef = _mm256_and_si256(_mm256_srl_epi32(c, count(cd.man)), set(all_ones));
        let c_man = _mm256_and_si256(c, set((1 << cd.man) - 1));
        let c_normal = _mm256_cmpgt_epi32(ef, zero);
        let c_sig = _mm256_or_si256(c_man, _mm256_and_si256(c_normal, set(1 << cd.man)));
        let c_e = _mm256_blendv_epi8(
            _mm256_add_epi32(_mm256_max_epi32(ef, set(1)), set(bias - cd.bias)),
            set(t.e_zero + bias),
            _mm256_cmpeq_epi32(c_sig, zero),
        );
        let sign_at = cd.exp + cd.man;
        let c_neg = _mm256_srai_epi32::<31>(_mm256_sll_epi32(c, count(31 - sign_at)));
        let c_special = _mm256_cmpeq_epi32(ef, set(all_ones));
        let ([acc], [emax], special) =
            p.block::<N, 1>(k0, t.e_zero + bias, off, [c_e], t.f, t.shift);
        // C = ±Inf with every product finite (the stage flags none): D is that Inf, whatever
        // the sum (the plain model's IEEE rule for a fused sum, `term::scan_specials`); such a
        // lane takes C's word and is not flagged. Other C specials (NaN) are flagged.
        let c_inf = _mm256_andnot_si256(
            special,
            _mm256_and_si256(c_special, _mm256_cmpeq_epi32(c_man, zero)),
        );
        let special = _mm256_or_si256(special, c_special);
        // C aligned to F fraction bits below e_max, truncated (magnitude), then signed.
        let d = _mm256_sub_epi32(emax, c_e);
        let (lsh, rsh) = if t.f >= cd.man {
            (t.f - cd.man, 0)
        } else {
            (0, cd.man - t.f)
        };
        let c_al = _mm256_srlv_epi32(
            _mm256_sll_epi32(c_sig, _mm_cvtsi32_si128(lsh as i32)),
            _mm256_add_epi32(d, set(rsh as i32)),
        );
        let c_al = _mm256_sub_epi32(_mm256_xor_si256(c_al, c_neg), c_neg);
        let total = _mm256_add_epi32(acc, c_al);
        // Signed overflow: both addends of one sign, the sum of the other.
        let ov = _mm256_and_si256(_mm256_xor_si256(acc, total), _mm256_xor_si256(c_al, total));
        let mut bad = _mm256_or_si256(special, _mm256_srai_epi32::<31>(ov));
        // An exact zero (sign rules) and |total| = 2^31 go to the scalar kernel.
        let mag = _mm256_abs_epi32(total);
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(set(1), mag));

        // floor(log2(mag)): the exponent of the rounded f32 conversion, one too large where the
        // conversion rounded up to the next power of two.
        let fe = _mm256_sub_epi32(
            _mm256_srli_epi32::<23>(_mm256_castps_si256(_mm256_cvtepi32_ps(mag))),
            set(127),
        );
        let over = _mm256_cmpeq_epi32(_mm256_srlv_epi32(mag, fe), zero);
        // `over` is -1 where fe is one too large.
        let top = _mm256_add_epi32(fe, over);
        // Scientific exponent of the unrounded result: e_max - F + top (unbiased).
        let e_res = _mm256_add_epi32(_mm256_sub_epi32(emax, set(bias + t.f as i32)), top);
        // Only normal results (before the carry of the rounding: the scalar rounding of a
        // subnormal uses the coarser subnormal quantum).
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(set(1 - cd.bias), e_res));
        let man = t.man as i32;
        let shift = _mm256_sub_epi32(top, set(man));
        let rsh = _mm256_max_epi32(shift, zero);
        let lsh = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
        let kept = _mm256_sllv_epi32(_mm256_srlv_epi32(mag, rsh), lsh);
        let sig = if t.nearest {
            // Counts of 32 or more (rsh = 0) give 0: no half bit, no increment.
            let r1 = _mm256_sub_epi32(rsh, set(1));
            let half = _mm256_and_si256(_mm256_srlv_epi32(mag, r1), set(1));
            let below = _mm256_sub_epi32(_mm256_sllv_epi32(set(1), r1), set(1));
            let rest = _mm256_andnot_si256(
                _mm256_cmpeq_epi32(_mm256_and_si256(mag, below), zero),
                set(1),
            );
            let odd = _mm256_and_si256(kept, set(1));
            _mm256_add_epi32(kept, _mm256_and_si256(half, _mm256_or_si256(rest, odd)))
        } else {
            kept
        };
        // A carry out of the significand (rounding up to the next binade).
        let carry = _mm256_srli_epi32::<1>(_mm256_srlv_epi32(sig, set(man)));
        let sig = _mm256_srlv_epi32(sig, carry);
        let e_res = _mm256_add_epi32(e_res, carry);
        // Overflow: a result above the largest binade is Inf of its sign, with RZ as with RNE
        // (the lanes' outputs overflow to Inf, see `FastRound::new`); a chained block that
        // takes it as C is flagged.
        let over = _mm256_cmpgt_epi32(e_res, set(all_ones - 1 - cd.bias));
        let frac = _mm256_sll_epi32(
            _mm256_sub_epi32(sig, _mm256_sllv_epi32(set(1), set(man))),
            count(cd.man - t.man),
        );
        let body = _mm256_or_si256(
            _mm256_sll_epi32(_mm256_add_epi32(e_res, set(cd.bias)), count(cd.man)),
            frac,
        );
        let body = _mm256_blendv_epi8(body, set(all_ones << cd.man), over);
        let sign = _mm256_sll_epi32(_mm256_srli_epi32::<31>(total), count(sign_at));
        let d = _mm256_blendv_epi8(_mm256_or_si256(sign, body), c, c_inf);
        (d, _mm256_andnot_si256(c_inf, bad))
    }
}

/// A chain of T-FDPA blocks of `N` over eight rows of `k` words (a multiple of `N`, the same
/// for every row) for eight dot products: writes the eight D words and returns the bit mask of the lanes the caller must
/// recompute (any block outside the common case).
#[inline(always)]
pub fn tfdpa_chain<const N: usize, S: Stage, W: Word>(
    t: &TLanes,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64; 8],
    out: &mut [u64; 8],
) -> u32 {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe { tfdpa_chain_off::<N, S, W>(t, a, b, _mm256_setzero_si256(), c, out) }
}

/// As [`tfdpa_chain`], every non-zero product's exponent raised by `off` (per lane): ST-FDPA
/// with one power-of-two scale pair per dot product (K equal to the scale block).
#[inline(always)]
pub fn tfdpa_chain_off<const N: usize, S: Stage, W: Word>(
    t: &TLanes,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    off: __m256i,
    c: &[u64; 8],
    out: &mut [u64; 8],
) -> u32 {
    let p = OnRows::<S, W> {
        a,
        b,
        stage: PhantomData,
    };
    let (acc, bad) = tfdpa_blocks::<N, _>(t, p, a.k(), off, lanes(c));
    store(acc, out);
    bad
}

/// The T-FDPA blocks of `N` over elements `0 .. k` of `p` (a multiple of `N`) from the C words
/// `c`: the D words and the bit mask of the lanes to recompute.
#[inline(always)]
pub fn tfdpa_blocks<const N: usize, P: Products>(
    t: &TLanes,
    p: P,
    k: usize,
    off: __m256i,
    c: __m256i,
) -> (__m256i, u32) {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let mut acc = c;
        let mut bad = _mm256_setzero_si256();
        for k0 in (0..k).step_by(N) {
            let (d, b2) = tfdpa::<N, P>(t, p, k0, off, acc);
            acc = d;
            bad = _mm256_or_si256(bad, b2);
        }
        (acc, _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32)
    }
}

// ---------------------------------------------------------------------------------------------
// TR-FDPA and GTR-FDPA
// ---------------------------------------------------------------------------------------------

/// Value of the exponent lanes of a block without non-zero products ([`crate::kernel::scalar::amd`]'s `NONE`).
const NONE: i32 = -(1 << 20);

/// A TR-FDPA or GTR-FDPA unit prepared for the lanes (see [`crate::kernel::scalar::amd::TrParams`]); the output
/// is fp32 with RNE (the only rounding of these units).
#[derive(Clone, Copy, Debug)]
pub struct TrLanes {
    pub f: u32,
    pub f2: u32,
    pub e_zero_c: i32,
    pub e_norm_min: i32,
    pub e_prod_limit: i32,
    /// GTR-FDPA: C is dropped below `e_max - c_drop`.
    pub c_drop: Option<u32>,
    pub shift: u32,
}

impl TrLanes {
    /// The lanes' copy of a unit's TR/GTR-FDPA parameters.
    pub fn of(q: &crate::kernel::scalar::amd::TrParams) -> TrLanes {
        TrLanes {
            f: q.f,
            f2: q.f2,
            e_zero_c: q.e_zero_c,
            e_norm_min: q.e_norm_min,
            e_prod_limit: q.e_prod_limit,
            c_drop: q.c_drop,
            shift: q.shift,
        }
    }
}

/// One TR-FDPA (`GTR` false) or GTR-FDPA block of `N` products (4 or a multiple of 8) for eight dot
/// products, as [`tfdpa`]: the products as [`super::simd::tfdpa`] and [`super::simd::gtr`]
/// form them (GTR-FDPA: even elements in group 0, odd in group 1), then the steps of
/// [`crate::kernel::scalar::amd`]'s `late_c` (late C, the floor to `F2` fraction bits, the RNE rounding to fp32)
/// in two halves of four 64-bit lanes, the last two in f64 arithmetic, which is exact there
/// (see the comments). Inf/NaN inputs and products at the Inf threshold are flagged. The caller
/// ensures that a negative result rounding to zero keeps its sign (`-0`), as IEEE conversion
/// does.
#[inline(always)]
pub fn tr<const N: usize, const GTR: bool, P: Products>(
    t: &TrLanes,
    p: P,
    k0: usize,
    c: __m256i,
) -> (__m256i, __m256i) {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let set = _mm256_set1_epi32;
        let zero = _mm256_setzero_si256();
        let bias = p.bias();
        let ez = set(NONE + bias);
        let (acc, emax, special) = if GTR {
            let (acc, emax, sp) = p.block::<N, 2>(k0, NONE + bias, zero, [ez, ez], t.f, t.shift);
            (acc, emax, sp)
        } else {
            let ([acc], [emax], sp) = p.block::<N, 1>(k0, NONE + bias, zero, [ez], t.f, t.shift);
            ([acc, zero], [emax, ez], sp)
        };
        // The product sum `dot · 2^(e_dot - F)`, exponents unbiased.
        let (dot, e_dot, dot_ov) = if GTR {
            let e_dot = _mm256_max_epi32(emax[0], emax[1]);
            let d0 = _mm256_srav_epi32(acc[0], _mm256_sub_epi32(e_dot, emax[0]));
            let d1 = _mm256_srav_epi32(acc[1], _mm256_sub_epi32(e_dot, emax[1]));
            let sum = _mm256_add_epi32(d0, d1);
            // Signed overflow of the group sum (flagged below).
            let ov = _mm256_and_si256(_mm256_xor_si256(d0, sum), _mm256_xor_si256(d1, sum));
            (
                sum,
                _mm256_sub_epi32(e_dot, set(bias)),
                _mm256_srai_epi32::<31>(ov),
            )
        } else {
            (acc[0], _mm256_sub_epi32(emax[0], set(bias)), zero)
        };
        let mut bad = _mm256_or_si256(special, _mm256_cmpgt_epi32(e_dot, set(t.e_prod_limit - 1)));
        bad = _mm256_or_si256(bad, dot_ov);

        // C (fp32): signed significand, lsb exponent, scientific exponent.
        let ef = _mm256_and_si256(_mm256_srli_epi32::<23>(c), set(0xff));
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(ef, set(0xff)));
        let c_neg = _mm256_srai_epi32::<31>(c);
        let c_man = _mm256_and_si256(c, set(0x7f_ffff));
        let c_mag = _mm256_or_si256(
            c_man,
            _mm256_and_si256(_mm256_cmpgt_epi32(ef, zero), set(1 << 23)),
        );
        let c_sig = _mm256_sub_epi32(_mm256_xor_si256(c_mag, c_neg), c_neg);
        let ef1 = _mm256_max_epi32(ef, set(1));
        let c_lsb = _mm256_sub_epi32(ef1, set(150));
        let c_e = _mm256_blendv_epi8(
            _mm256_sub_epi32(ef1, set(127)),
            set(t.e_zero_c),
            _mm256_cmpeq_epi32(c_mag, zero),
        );
        let e_max = _mm256_max_epi32(e_dot, c_e);
        let up = (t.f2 + 1 - t.f) as i32;
        // The product sum on the grid q2 = e_max - (F2 + 1): a right shift (floor) here, a left
        // shift of at most F2 + 1 - F bits in 64-bit lanes below.
        let sd = _mm256_sub_epi32(_mm256_sub_epi32(e_max, e_dot), set(up));
        let dot_r = _mm256_srav_epi32(dot, _mm256_max_epi32(sd, zero));
        let dot_l = _mm256_max_epi32(_mm256_sub_epi32(zero, sd), zero);
        // C floored to F fraction bits below e_max (then moved to q2 by `up` bits).
        let sc = _mm256_sub_epi32(_mm256_sub_epi32(e_max, set(t.f as i32)), c_lsb);
        let mut c_fl = _mm256_sllv_epi32(
            _mm256_srav_epi32(c_sig, _mm256_max_epi32(sc, zero)),
            _mm256_max_epi32(_mm256_sub_epi32(zero, sc), zero),
        );
        if let Some(cd) = t.c_drop {
            let dropped = _mm256_cmpgt_epi32(_mm256_sub_epi32(e_max, set(cd as i32)), c_e);
            c_fl = _mm256_andnot_si256(dropped, c_fl);
        }
        let q2 = _mm256_sub_epi32(e_max, set(t.f2 as i32 + 1));

        let half = |v: __m256i, h: usize| {
            if h == 0 {
                _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v))
            } else {
                _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(v))
            }
        };
        let set64 = _mm256_set1_epi64x;
        // 2^x for integer lanes x within the normal range of f64.
        let pow2 = |x: __m256i| {
            _mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_add_epi64(x, set64(1023))))
        };
        let magic = set64(0x4338_0000_0000_0000); // 2^52 + 2^51
        let mut out = [_mm_setzero_ps(); 2];
        for (h, o) in out.iter_mut().enumerate() {
            // The total on the grid 2^q2: below 2^40 in magnitude, so exact in f64 (converted
            // by the 2^52 + 2^51 bias trick, valid below 2^51).
            let dot = _mm256_sllv_epi64(half(dot_r, h), half(dot_l, h));
            let cp = _mm256_sll_epi64(half(c_fl, h), _mm_cvtsi32_si128(up));
            let total = _mm256_add_epi64(dot, cp);
            let x = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_add_epi64(total, magic)),
                _mm256_castsi256_pd(magic),
            );
            let q2 = half(q2, h);
            // floor(log2 |total|) from the exponent field (-1023 for a zero total, whose floor
            // is 0 whatever the grid).
            let top = _mm256_sub_epi64(
                _mm256_srli_epi64::<52>(_mm256_and_si256(
                    _mm256_castpd_si256(x),
                    set64(0x7fff_ffff_ffff_ffff),
                )),
                set64(1023),
            );
            // The floor to F2 fraction bits, not below the exponent e_norm_min: the grid
            // 2^(q2 + r) with r = max(top - F2, e_norm_min - F2 - q2). Where r <= 0, x · 2^-r is
            // already an integer and the floor changes nothing.
            let r_top = _mm256_sub_epi64(top, set64(t.f2 as i64));
            let r_min = _mm256_sub_epi64(set64((t.e_norm_min - t.f2 as i32) as i64), q2);
            let r = _mm256_blendv_epi8(r_top, r_min, _mm256_cmpgt_epi64(r_min, r_top));
            let v = _mm256_round_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(
                _mm256_mul_pd(x, pow2(_mm256_sub_epi64(_mm256_setzero_si256(), r))),
            );
            // v · 2^(q2 + r) is exact in f64 (at most 33 significant bits, exponent in range);
            // its conversion to fp32 rounds to nearest even with IEEE subnormals and overflow to
            // Inf, as the scalar `FastRound` does. An exact zero is +0 in both.
            let val = _mm256_mul_pd(v, pow2(_mm256_add_epi64(q2, r)));
            *o = _mm256_cvtpd_ps(val);
        }
        let bits = _mm256_castps_si256(_mm256_set_m128(out[1], out[0]));
        (bits, bad)
    }
}

/// A chain of TR-FDPA or GTR-FDPA blocks, as [`tfdpa_chain`].
#[inline(always)]
pub fn tr_chain<const N: usize, const GTR: bool, S: Stage, W: Word>(
    t: &TrLanes,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64; 8],
    out: &mut [u64; 8],
) -> u32 {
    let p = OnRows::<S, W> {
        a,
        b,
        stage: PhantomData,
    };
    let (acc, bad) = tr_blocks::<N, GTR, _>(t, p, a.k(), lanes(c));
    store(acc, out);
    bad
}

/// The TR-FDPA or GTR-FDPA blocks of `N` over elements `0 .. k` of `p`, as [`tfdpa_blocks`].
#[inline(always)]
pub fn tr_blocks<const N: usize, const GTR: bool, P: Products>(
    t: &TrLanes,
    p: P,
    k: usize,
    c: __m256i,
) -> (__m256i, u32) {
    // SAFETY: register-only AVX2 arithmetic.
    unsafe {
        let mut acc = c;
        let mut bad = _mm256_setzero_si256();
        for k0 in (0..k).step_by(N) {
            let (d, b2) = tr::<N, GTR, P>(t, p, k0, acc);
            acc = d;
            bad = _mm256_or_si256(bad, b2);
        }
        (acc, _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32)
    }
}

// ---------------------------------------------------------------------------------------------
// GST-FDPA
// ---------------------------------------------------------------------------------------------

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
    assert!(t.per % 16 == 0 && N % t.per == 0);
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
        let cw = lanes(c);
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
        store(bits, out);
        let m = _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32;
        let m0 = _mm256_movemask_pd(_mm256_castsi256_pd(small[0])) as u32;
        let m1 = _mm256_movemask_pd(_mm256_castsi256_pd(small[1])) as u32;
        m | m0 | m1 << 4
    }
}
