//! GST-FDPA (fp4 `kind::mxf4`, `mxf4nvf4`) in lanes: `V::LANES` dot products of one block of
//! `N = 16 · G` four-bit elements at a time, the block model of `models/gst_fdpa.rs` (group sums
//! of exact products, scale pairs, C, the largest exponent, a sum truncated to `F` fraction
//! bits below it, one rounding to fp32).
//!
//! The group sums are per dot product ([`Steps::group_sums`]: a byte-table lookup per element,
//! AVX2's `pshufb` or NEON's `tbl`, whose row loads cost less than transposing 16 to 64 words
//! per row into columns). Everything after them is lane-wise and exact: every value is an
//! integer below `2^53` times a power of two (the comments give the bounds, which the plan
//! checks: `gst_lanes` in `plan.rs`), so the f64 operations that combine them round nothing but
//! the truncations and the final rounding the model prescribes. Lanes the routine does not take
//! (a NaN scale, an Inf/NaN C, a result outside fp32's normal range) are recomputed per dot
//! product by the caller, with the per-dot kernel's sign and flush rules.

use super::steps::Steps;
use super::vector::Vector;
use crate::kernel::plan::GLanes;
use crate::kernel::table::SPECIAL;
use crate::kernel::words::Rows;
use crate::kernel::Kernel;

/// The most lanes of any width (AVX-512's sixteen).
const MAX_LANES: usize = 16;

/// GST-FDPA dot products of one block of four-bit elements with fp32 C and D, `V::LANES` at a
/// time, with the table `t` of a plan whose lanes take this unit and K (the caller decides:
/// `dots.rs`). Writes every D word; lanes the group flags go through the per-dot kernel. The
/// rows are a whole number of groups (`dots.rs` hands over multiples of eight).
#[inline(always)]
pub(in crate::kernel) fn in_groups<V: Steps>(
    kern: &Kernel,
    t: &GLanes,
    (a, b): (Rows<'_>, Rows<'_>),
    (sa, sb): (&[u64], &[u64]),
    c: &[u64],
    d: &mut [u64],
) {
    let (k, l) = (a.k(), V::LANES);
    let s = k / t.per;
    for (g, (cg, dg)) in c.chunks_exact(l).zip(d.chunks_exact_mut(l)).enumerate() {
        let (ra, rb) = (a.part(l * g, l), b.part(l * g, l));
        let (sal, sbl) = (
            &sa[l * g * s..l * (g + 1) * s],
            &sb[l * g * s..l * (g + 1) * s],
        );
        let redo = match k {
            64 => group::<V, 64, 4>(t, (ra, rb), (sal, sbl), cg, dg),
            32 => group::<V, 32, 2>(t, (ra, rb), (sal, sbl), cg, dg),
            16 => group::<V, 16, 1>(t, (ra, rb), (sal, sbl), cg, dg),
            // A K the plan does not give the lanes: every lane per dot product.
            _ => u32::MAX >> (32 - l),
        };
        if redo != 0 {
            kern.redo((ra, rb), (sal, sbl, s), cg, dg, redo);
        }
    }
}

/// One group of `V::LANES` dot products of a block of `N = 16 · G` elements: the group sums per
/// dot product, then scale pairs, group terms, C, the largest exponent, the truncated sum and
/// the rounding in lanes. `sa` and `sb` hold the scale words of each dot product (`N / per`),
/// one after another. Returns the mask of lanes to recompute.
#[inline(always)]
fn group<V: Steps, const N: usize, const G: usize>(
    t: &GLanes,
    (a, b): (Rows<'_>, Rows<'_>),
    (sa, sb): (&[u64], &[u64]),
    c: &[u64],
    out: &mut [u64],
) -> u32 {
    let l = V::LANES;
    assert!(t.per.is_multiple_of(16) && N.is_multiple_of(t.per));
    // Scale factors per dot product.
    let spd = N / t.per;
    assert!(l <= MAX_LANES && a.k() == N && b.k() == N);
    assert!(sa.len() >= l * spd && sb.len() >= l * spd && c.len() >= l && out.len() >= l);
    let mut sums = [[0i32; MAX_LANES]; G];
    let mut live = [[0i32; MAX_LANES]; G];
    let mut qa = [[0i32; MAX_LANES]; G];
    let mut qb = [[0i32; MAX_LANES]; G];
    for j in 0..l {
        let (Ok(ra), Ok(rb)) = (
            <&[u64; N]>::try_from(a.row(j)),
            <&[u64; N]>::try_from(b.row(j)),
        ) else {
            unreachable!("rows of N words (asserted)")
        };
        let (s, nonzero) = V::group_sums::<N, G>(ra, rb, &t.va, &t.vb);
        for g in 0..G {
            sums[g][j] = s[g];
            live[g][j] = -((nonzero >> g & 1) as i32);
            let si = j * spd + 16 * g / t.per;
            // Scale table entries: significand in bits 0..12, SPECIAL, exponent from bit 14.
            qa[g][j] = t.scales[(sa[si] & 0xff) as usize] as i32;
            qb[g][j] = t.scales[(sb[si] & 0xff) as usize] as i32;
        }
    }
    let set = V::splat;
    // C (fp32): scientific exponent (e_zero for a zero), Inf/NaN flag.
    let cw = V::lanes(c);
    let ef = V::and(V::shr(cw, 23), set(0xff));
    let c_zero = V::eq(V::and(cw, set(0x7fff_ffff)), V::zero());
    let c_e = V::select(c_zero, V::sub(V::max(ef, set(1)), set(127)), set(t.e_zero));
    let mut bad = V::eq(ef, set(0xff));
    let mut emax = c_e;
    let mut vals = [V::zero(); G];
    let mut lsbs = [V::zero(); G];
    let special = set(SPECIAL as i32);
    for g in 0..G {
        let (ea, eb) = (V::load(&qa[g]), V::load(&qb[g]));
        bad = V::m_or(bad, V::eq(V::and(V::or(ea, eb), special), special));
        let sig = set(0xfff);
        let ss = V::mul_lo(V::and(ea, sig), V::and(eb, sig));
        let e_s = V::add(V::sar(ea, 14), V::sar(eb, 14));
        // A group with no non-zero product or a zero scale product is a zero term at e_zero;
        // any other keeps its scale exponent, even when its sum cancels to zero.
        let on = V::m_andnot(V::eq(ss, V::zero()), V::negative(V::load(&live[g])));
        emax = V::max(emax, V::select(on, set(t.e_zero), e_s));
        // |group sum| · scale product < 2^31 (the plan's bound): exact in i32.
        vals[g] = V::keep(on, V::mul_lo(V::load(&sums[g]), ss));
        lsbs[g] = V::add(e_s, set(t.lsb0 - t.ms));
    }
    let q = V::sub(emax, set(t.f as i32));
    let c_f = V::as_f(cw);
    let (r0, z0, b0, h0) = half::<V, G>(t.nearest, q, c_f, (&vals, &lsbs), 0);
    let (r1, z1, b1, h1) = half::<V, G>(t.nearest, q, c_f, (&vals, &lsbs), 1);
    V::store(V::as_i(V::join(r0, r1)), out);
    // Non-zero results below fp32's smallest normal go to the per-dot kernel (the sign and
    // flush rules of tiny results); overflow too.
    let tiny = V::m_andnot(V::m_join(z0, z1), V::m_join(b0, b1));
    V::bits(V::m_or(bad, V::m_or(tiny, V::m_join(h0, h1))))
}

/// 2^x in f64 lanes for half `h` of the i32 lanes `x`, clamped to f64's normal exponents:
/// beyond them the values scaled here are zero or far below 1 and truncate to 0 either way.
/// (Functions, not closures: a closure does not inherit its caller's `#[target_feature]`, so
/// the intrinsics in it would not be inlined.)
#[inline(always)]
fn pow2<V: Vector>(x: V::I, h: usize) -> V::D {
    let x = V::half_q(V::min(V::max(x, V::splat(-1022)), V::splat(1023)), h);
    V::as_d(V::q_shl(V::q_add(x, V::q_splat(1023)), 52))
}

/// Half `h` of the lanes from the quantum exponent `q`, C (`c_f`) and the group terms: the
/// rounded results, and the lanes whose magnitude is zero, below fp32's smallest normal, or
/// at least 2^128.
#[inline(always)]
fn half<V: Vector, const G: usize>(
    nearest: bool,
    q: V::I,
    c_f: V::F,
    (vals, lsbs): (&[V::I; G], &[V::I; G]),
    h: usize,
) -> (V::Fh, V::MQ, V::MQ, V::MQ) {
    // C truncated to F fraction bits below e_max (a C below the quantum gives 0).
    let minus_q = V::sub(V::zero(), q);
    let mut total = V::d_trunc(V::d_mul(V::half_d(c_f, h), pow2::<V>(minus_q, h)));
    for g in 0..G {
        // The term sum · ss · 2^lsb aligned to the quantum 2^q and truncated toward zero: each
        // below 2^(F+12), their sum with C below 2^50.
        let v = V::half_i_d(vals[g], h);
        let x = V::sub(lsbs[g], q);
        total = V::d_add(total, V::d_trunc(V::d_mul(v, pow2::<V>(x, h))));
    }
    // An exact zero is +0 (x + 0 turns -0 into +0, leaves the rest alone).
    let total = V::d_add(total, V::d_splat(0.0));
    let value = V::d_mul(total, pow2::<V>(q, h));
    let value = if nearest {
        value
    } else {
        // RZ to 24 significant bits: clear the 29 low mantissa bits of the f64.
        V::as_d(V::q_and(V::as_q(value), V::q_splat(!((1i64 << 29) - 1))))
    };
    // Magnitudes compared as integers: the bits of non-negative f64 values order as the
    // values do (a NaN's above every number).
    let mag = V::as_q(V::d_abs(value));
    let zero = V::q_eq(mag, V::q_splat(0));
    let below = V::q_gt(V::q_splat((f32::MIN_POSITIVE as f64).to_bits() as i64), mag);
    let huge = V::q_gt(mag, V::q_splat(2f64.powi(128).to_bits() as i64 - 1));
    // Exact for normal results (RNE: the IEEE conversion is the rounding).
    (V::narrow(value), zero, below, huge)
}
