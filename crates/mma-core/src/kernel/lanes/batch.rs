//! Evaluation across dot products: a group of independent dot products at a time, one per
//! 32-bit lane of a [`Vector`] (eight with AVX2, sixteen with AVX-512), for
//! [`crate::kernel::Kernel::dots`] and the matrix driver (through `kernel/dots.rs`).
//!
//! The per-dot kernels vectorise *within* one dot product and still pay, per dot, for the
//! horizontal reductions, decoding C, the alignment of C, the rounding and the branches between
//! them. Here the operand rows of the group ([`Rows`]) are transposed eight words at a time
//! ([`Vector::columns`]) so that vector `k` holds element `k` of every dot product, lane `j`
//! being dot product `j`. Every step of the model is then a lane-wise operation: the largest
//! exponent is a vertical max, the sum a vertical add, and C, the normalisation and the
//! rounding are computed for every dot product of the group by the same instructions.
//!
//! - FTZ-MulAdd ([`ftz`]) uses the machine's fp32 multiply and add, exactly as the scalar
//!   [`crate::kernel::scalar::ftz_mul_add::ftz_block`] does (its module docs say why that is bit-exact), with the same
//!   flushes as lane masks. It covers every input; there is no fallback.
//! - T-FDPA ([`tfdpa`]) takes its products from a [`Stage`] (`kernel/lanes/stage.rs`: the aligned,
//!   truncated product sum and the largest exponent, as `crate::kernel::tfdpa_n` computes them), adds
//!   C and rounds like [`crate::kernel::round::FastRound`] for results in the normal range and
//!   beyond it (overflow to Inf), and passes an infinite C on when every product is finite. A
//!   lane whose dot product leaves that common case (an Inf/NaN operand, a NaN C, a sum beyond
//!   the 32-bit lanes, an exact zero, a subnormal result) is flagged, and the caller
//!   recomputes that dot product with the per-dot kernel. Chained blocks stay in registers: a
//!   block's fp32 result is the next block's C.
//! - TR-FDPA and GTR-FDPA ([`tr`]) take their products from the same stages, then add C late
//!   and round in 64-bit integer and f64 lanes, or with AVX-512 in f64 lanes throughout
//!   (`tr_late.rs`); only Inf/NaN inputs and products at the Inf threshold are flagged.
//!
//! `tests/fast_paths.rs` compares every batch path with the plain model on random inputs with
//! specials, subnormals and cancellations, for batch lengths that are not multiples of eight;
//! `tests/gemm.rs` the matrix driver's use.

use super::stage::{OnRows, Products, Stage};
use super::steps::Steps;
use super::vector::Vector;
pub(in crate::kernel) use crate::kernel::plan::{TLanes, TrParams};
pub use crate::kernel::words::{Rows, Word};

// ---------------------------------------------------------------------------------------------
// FTZ-MulAdd
// ---------------------------------------------------------------------------------------------

/// A 16-bit IEEE format decoded to `f32` lanes with the input flush of FTZ-MulAdd (zero
/// exponent field: `+0`), as [`crate::kernel::scalar::ftz_mul_add::H16`] does for one word.
pub trait VH16 {
    fn ftz<V: Vector>(x: V::I) -> V::F;
}

impl VH16 for crate::kernel::scalar::ftz_mul_add::F16In {
    #[inline(always)]
    fn ftz<V: Vector>(x: V::I) -> V::F {
        let set = V::splat;
        let h = V::and(x, set(0xffff));
        let sign = V::shl(V::and(h, set(0x8000)), 16);
        let em = V::and(h, set(0x7fff));
        let e = V::shr(em, 10);
        // Rebias 15 -> 127; Inf/NaN (field 31) once more to reach 255.
        let body = V::add(V::shl(em, 13), set(112 << 23));
        let inf = V::keep(V::eq(e, set(31)), set(112 << 23));
        let r = V::or(sign, V::add(body, inf));
        V::as_f(V::clear(V::eq(e, V::zero()), r))
    }
}

impl VH16 for crate::kernel::scalar::ftz_mul_add::Bf16In {
    #[inline(always)]
    fn ftz<V: Vector>(x: V::I) -> V::F {
        let r = V::shl(x, 16);
        let e = V::and(r, V::splat(0x7f80_0000));
        V::as_f(V::clear(V::eq(e, V::zero()), r))
    }
}

/// The output flush, lane-wise: a result below the smallest normal number becomes a zero of
/// its sign ([`crate::kernel::scalar::ftz_mul_add::flush`]).
#[inline(always)]
fn flush<V: Vector>(x: V::F) -> V::F {
    let b = V::as_i(x);
    let e = V::and(b, V::splat(0x7f80_0000));
    let tiny = V::eq(e, V::zero());
    V::as_f(V::select(tiny, b, V::and(b, V::splat(i32::MIN))))
}

/// `flush(x + y)` (IEEE binary32, RNE: Rust's default MXCSR).
#[inline(always)]
fn add<V: Vector>(x: V::F, y: V::F) -> V::F {
    flush::<V>(V::f_add(x, y))
}

/// FTZ-MulAdd of a group of dot products of `N` elements (2, 4 or a multiple of 8) in groups
/// of `P` (a power of two dividing `N`): `a` and `b` are the rows, `c` the C words; writes the
/// D words. The operations and their order are [`crate::kernel::scalar::ftz_mul_add::ftz_block`]'s.
#[inline(always)]
pub fn ftz<V: Vector, const N: usize, const P: usize, D: VH16, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    nan_bits: u64,
    out: &mut [u64],
) {
    const {
        assert!(
            (N == 2 || N == 4 || N.is_multiple_of(8))
                && P.is_power_of_two()
                && N.is_multiple_of(P)
                && N <= 64
        )
    };
    let mut prod = [V::f_zero(); N];
    for k0 in (0..N).step_by(8) {
        let ca = a.block_columns::<V, N>(k0);
        let cb = b.block_columns::<V, N>(k0);
        for e in 0..N.min(8) {
            prod[k0 + e] = flush::<V>(V::f_mul(D::ftz::<V>(ca[e]), D::ftz::<V>(cb[e])));
        }
    }
    let cw = V::lanes(c);
    let c_exp = V::and(cw, V::splat(0x7f80_0000));
    let mut acc = V::as_f(V::clear(V::eq(c_exp, V::zero()), cw));
    for g in 0..N / P {
        let grp = &mut prod[g * P..(g + 1) * P];
        let mut len = P;
        while len > 1 {
            for i in 0..len / 2 {
                grp[i] = add::<V>(grp[2 * i], grp[2 * i + 1]);
            }
            len /= 2;
        }
        acc = add::<V>(acc, grp[0]);
    }
    let bits = V::select(
        V::f_nan(acc),
        V::as_i(acc),
        V::splat(nan_bits as u32 as i32),
    );
    V::store(bits, out);
}

// ---------------------------------------------------------------------------------------------
// T-FDPA
// ---------------------------------------------------------------------------------------------

/// One T-FDPA block of `N` products (4 or a multiple of 8) for a group of dot products, C a
/// word of `t.cd` in each lane of `c`; of the operands bound in `p` this block reads elements
/// `k0 .. k0 + N`. Returns the results (words of `t.cd`) and a mask of the lanes outside the
/// common case (see the module docs), whose results are meaningless.
#[inline(always)]
pub fn tfdpa<V: Vector, const N: usize, P: Products>(
    t: &TLanes,
    p: P,
    k0: usize,
    off: V::I,
    c: V::I,
) -> (V::I, V::M) {
    let set = V::splat;
    let zero = V::zero();
    let bias = p.bias();
    let cd = t.cd;
    // C: its fields; its exponent is biased like the products' (by `bias`).
    let all_ones = (1i32 << cd.exp) - 1;
    let ef = V::and(V::shr(c, cd.man), set(all_ones));
    let c_man = V::and(c, set((1 << cd.man) - 1));
    let c_normal = V::gt(ef, zero);
    let c_sig = V::or(c_man, V::keep(c_normal, set(1 << cd.man)));
    let c_e = V::select(
        V::eq(c_sig, zero),
        V::add(V::max(ef, set(1)), set(bias - cd.bias)),
        set(t.e_zero + bias),
    );
    let sign_at = cd.exp + cd.man;
    let c_neg = V::sar(V::shl(c, 31 - sign_at), 31);
    let c_special = V::eq(ef, set(all_ones));
    let ([acc], [emax], special) =
        p.block::<V, N, 1>(k0, t.e_zero + bias, off, [c_e], t.f, t.shift);
    // C = ±Inf with every product finite (the stage flags none): D is that Inf, whatever
    // the sum (the plain model's IEEE rule for a fused sum, `term::scan_specials`); such a
    // lane takes C's word and is not flagged. Other C specials (NaN) are flagged.
    let c_inf = V::m_andnot(special, V::m_and(c_special, V::eq(c_man, zero)));
    let special = V::m_or(special, c_special);
    // C aligned to F fraction bits below e_max, truncated (magnitude), then signed.
    let d = V::sub(emax, c_e);
    let (lsh, rsh) = if t.f >= cd.man {
        (t.f - cd.man, 0)
    } else {
        (0, cd.man - t.f)
    };
    let c_al = V::shr_v(V::shl(c_sig, lsh), V::add(d, set(rsh as i32)));
    let c_al = V::sub(V::xor(c_al, c_neg), c_neg);
    let total = V::add(acc, c_al);
    // Signed overflow: both addends of one sign, the sum of the other.
    let ov = V::and(V::xor(acc, total), V::xor(c_al, total));
    let mut bad = V::m_or(special, V::negative(ov));
    // An exact zero (sign rules) and |total| = 2^31 go to the scalar kernel.
    let mag = V::abs(total);
    bad = V::m_or(bad, V::gt(set(1), mag));

    // floor(log2(mag)): the exponent of the rounded f32 conversion, one too large where the
    // conversion rounded up to the next power of two.
    let fe = V::sub(V::shr(V::as_i(V::i_to_f(mag)), 23), set(127));
    let top = V::dec_where(V::eq(V::shr_v(mag, fe), zero), fe);
    // Scientific exponent of the unrounded result: e_max - F + top (unbiased).
    let e_res = V::add(V::sub(emax, set(bias + t.f as i32)), top);
    // Only normal results (before the carry of the rounding: the scalar rounding of a
    // subnormal uses the coarser subnormal quantum).
    bad = V::m_or(bad, V::gt(set(1 - cd.bias), e_res));
    let man = t.man as i32;
    let shift = V::sub(top, set(man));
    let rsh = V::max(shift, zero);
    let lsh = V::max(V::sub(zero, shift), zero);
    let kept = V::shl_v(V::shr_v(mag, rsh), lsh);
    let sig = if t.nearest {
        // Counts of 32 or more (rsh = 0) give 0: no half bit, no increment.
        let r1 = V::sub(rsh, set(1));
        let half = V::and(V::shr_v(mag, r1), set(1));
        let below = V::sub(V::shl_v(set(1), r1), set(1));
        let rest = V::clear(V::eq(V::and(mag, below), zero), set(1));
        let odd = V::and(kept, set(1));
        V::add(kept, V::and(half, V::or(rest, odd)))
    } else {
        kept
    };
    // A carry out of the significand (rounding up to the next binade).
    let carry = V::shr(V::shr_v(sig, set(man)), 1);
    let sig = V::shr_v(sig, carry);
    let e_res = V::add(e_res, carry);
    // Overflow: a result above the largest binade is Inf of its sign, with RZ as with RNE
    // (the lanes' outputs overflow to Inf, see `FastRound::new`); a chained block that
    // takes it as C is flagged.
    let over = V::gt(e_res, set(all_ones - 1 - cd.bias));
    let frac = V::shl(V::sub(sig, V::shl_v(set(1), set(man))), cd.man - t.man);
    let body = V::or(V::shl(V::add(e_res, set(cd.bias)), cd.man), frac);
    let body = V::select(over, body, set(all_ones << cd.man));
    let sign = V::shl(V::shr(total, 31), sign_at);
    let d = V::select(c_inf, V::or(sign, body), c);
    (d, V::m_andnot(c_inf, bad))
}

/// A chain of T-FDPA blocks of `N` over the group's rows of `k` words (a multiple of `N`, the
/// same for every row): writes the D words and returns the bit mask of the lanes the caller
/// must recompute (any block outside the common case).
#[inline(always)]
pub fn tfdpa_chain<V: Vector, const N: usize, S: Stage, W: Word>(
    (t, stage): (&TLanes, S),
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    out: &mut [u64],
) -> u32 {
    tfdpa_chain_off::<V, N, S, W>((t, stage), a, b, V::zero(), c, out)
}

/// As [`tfdpa_chain`], every non-zero product's exponent raised by `off` (per lane): ST-FDPA
/// with one power-of-two scale pair per dot product (K equal to the scale block).
#[inline(always)]
pub fn tfdpa_chain_off<V: Vector, const N: usize, S: Stage, W: Word>(
    (t, stage): (&TLanes, S),
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    off: V::I,
    c: &[u64],
    out: &mut [u64],
) -> u32 {
    let p = OnRows::<S, W> { a, b, stage };
    let (acc, bad) = tfdpa_blocks::<V, N, _>(t, p, a.k(), off, V::lanes(c));
    V::store(acc, out);
    bad
}

/// The T-FDPA blocks of `N` over elements `0 .. k` of `p` (a multiple of `N`) from the C words
/// `c`: the D words and the bit mask of the lanes to recompute.
#[inline(always)]
pub fn tfdpa_blocks<V: Vector, const N: usize, P: Products>(
    t: &TLanes,
    p: P,
    k: usize,
    off: V::I,
    c: V::I,
) -> (V::I, u32) {
    let ([acc], [bad]) = tfdpa_blocks_rows::<V, N, P, 1>(t, [p], k, off, [c]);
    (acc, bad)
}

/// [`tfdpa_blocks`] for `R` independent chains at once, block by block (the matrix driver's
/// rows). Each block's C is the previous block's D, so a chain's blocks cannot overlap; two
/// chains interleaved gave the matrix driver 5-8% on the EPYC (Zen 4), where the blocks are
/// mostly bound by the vector pipes rather than by that latency.
#[inline(always)]
pub fn tfdpa_blocks_rows<V: Vector, const N: usize, P: Products, const R: usize>(
    t: &TLanes,
    p: [P; R],
    k: usize,
    off: V::I,
    c: [V::I; R],
) -> ([V::I; R], [u32; R]) {
    let mut acc = c;
    let mut bad = [V::none(); R];
    for k0 in (0..k).step_by(N) {
        // Two rows written out: see `tr_blocks_rows`.
        if let ([a0, a1], [b0, b1], [p0, p1]) = (&mut acc[..], &mut bad[..], &p[..]) {
            let (d0, m0) = tfdpa::<V, N, P>(t, *p0, k0, off, *a0);
            let (d1, m1) = tfdpa::<V, N, P>(t, *p1, k0, off, *a1);
            (*a0, *a1) = (d0, d1);
            (*b0, *b1) = (V::m_or(*b0, m0), V::m_or(*b1, m1));
            continue;
        }
        for ((acc, bad), p) in acc.iter_mut().zip(&mut bad).zip(&p) {
            let (d, b2) = tfdpa::<V, N, P>(t, *p, k0, off, *acc);
            *acc = d;
            *bad = V::m_or(*bad, b2);
        }
    }
    let mut bits = [0; R];
    for (bits, bad) in bits.iter_mut().zip(bad) {
        *bits = V::bits(bad);
    }
    (acc, bits)
}

// ---------------------------------------------------------------------------------------------
// TR-FDPA and GTR-FDPA
// ---------------------------------------------------------------------------------------------

/// Value of the exponent lanes of a block without non-zero products ([`crate::kernel::scalar::tr_fdpa`]'s `NONE`).
pub(in crate::kernel) const NONE: i32 = -(1 << 20);

/// One TR-FDPA (`GTR` false) or GTR-FDPA block of `N` products (4 or a multiple of 8) for a
/// group of dot products, as [`tfdpa`]: the products as x86's per-dot `simd::tfdpa` and
/// `simd::gtr` form them (GTR-FDPA: even elements in group 0, odd in group 1), then the
/// steps of [`crate::kernel::scalar::tr_fdpa`]'s `late_c` (late C, the floor to `F2` fraction bits,
/// the RNE rounding to fp32) by [`Steps::tr_late`] (`tr_late.rs`). Inf/NaN inputs and products at the Inf threshold
/// are flagged. The caller ensures that a negative result rounding to zero keeps its sign
/// (`-0`), as IEEE conversion does.
#[inline(always)]
pub fn tr<V: Steps, const N: usize, const GTR: bool, P: Products>(
    t: &TrParams,
    p: P,
    k0: usize,
    c: V::I,
) -> (V::I, V::M) {
    let set = V::splat;
    let zero = V::zero();
    let bias = p.bias();
    let ez = set(NONE + bias);
    let (acc, emax, special) = if GTR {
        p.block::<V, N, 2>(k0, NONE + bias, zero, [ez, ez], t.f, t.shift)
    } else {
        let ([acc], [emax], sp) = p.block::<V, N, 1>(k0, NONE + bias, zero, [ez], t.f, t.shift);
        ([acc, zero], [emax, ez], sp)
    };
    // The product sum `dot · 2^(e_dot - F)`, exponents unbiased.
    let (dot, e_dot, dot_ov) = if GTR {
        let e_dot = V::max(emax[0], emax[1]);
        let d0 = V::sar_v(acc[0], V::sub(e_dot, emax[0]));
        let d1 = V::sar_v(acc[1], V::sub(e_dot, emax[1]));
        let sum = V::add(d0, d1);
        // Signed overflow of the group sum (flagged below).
        let ov = V::and(V::xor(d0, sum), V::xor(d1, sum));
        (sum, V::sub(e_dot, set(bias)), V::negative(ov))
    } else {
        (acc[0], V::sub(emax[0], set(bias)), V::none())
    };
    let mut bad = V::m_or(special, V::gt(e_dot, set(t.e_prod_limit - 1)));
    bad = V::m_or(bad, dot_ov);

    // An Inf/NaN C (exponent field all ones).
    bad = V::m_or(bad, V::eq(V::and(V::shr(c, 23), set(0xff)), set(0xff)));
    (V::tr_late(t, dot, e_dot, c), bad)
}

/// A chain of TR-FDPA or GTR-FDPA blocks, as [`tfdpa_chain`].
#[inline(always)]
pub fn tr_chain<V: Steps, const N: usize, const GTR: bool, S: Stage, W: Word>(
    (t, stage): (&TrParams, S),
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    out: &mut [u64],
) -> u32 {
    let p = OnRows::<S, W> { a, b, stage };
    let (acc, bad) = tr_blocks::<V, N, GTR, _>(t, p, a.k(), V::lanes(c));
    V::store(acc, out);
    bad
}

/// The TR-FDPA or GTR-FDPA blocks of `N` over elements `0 .. k` of `p`, as [`tfdpa_blocks`].
#[inline(always)]
pub fn tr_blocks<V: Steps, const N: usize, const GTR: bool, P: Products>(
    t: &TrParams,
    p: P,
    k: usize,
    c: V::I,
) -> (V::I, u32) {
    let ([acc], [bad]) = tr_blocks_rows::<V, N, GTR, P, 1>(t, [p], k, [c]);
    (acc, bad)
}

/// [`tr_blocks`] for `R` independent chains at once, as [`tfdpa_blocks_rows`].
#[inline(always)]
pub fn tr_blocks_rows<V: Steps, const N: usize, const GTR: bool, P: Products, const R: usize>(
    t: &TrParams,
    p: [P; R],
    k: usize,
    c: [V::I; R],
) -> ([V::I; R], [u32; R]) {
    let mut acc = c;
    let mut bad = [V::none(); R];
    for k0 in (0..k).step_by(N) {
        // Two rows written out: the compiler does not unroll a loop over the rows (its body is
        // large), and each block's D then went through memory before the other row's block
        // (seen in the machine code).
        if let ([a0, a1], [b0, b1], [p0, p1]) = (&mut acc[..], &mut bad[..], &p[..]) {
            let (d0, m0) = tr::<V, N, GTR, P>(t, *p0, k0, *a0);
            let (d1, m1) = tr::<V, N, GTR, P>(t, *p1, k0, *a1);
            (*a0, *a1) = (d0, d1);
            (*b0, *b1) = (V::m_or(*b0, m0), V::m_or(*b1, m1));
            continue;
        }
        for ((acc, bad), p) in acc.iter_mut().zip(&mut bad).zip(&p) {
            let (d, b2) = tr::<V, N, GTR, P>(t, *p, k0, *acc);
            *acc = d;
            *bad = V::m_or(*bad, b2);
        }
    }
    let mut bits = [0; R];
    for (bits, bad) in bits.iter_mut().zip(bad) {
        *bits = V::bits(bad);
    }
    (acc, bits)
}
