//! The per-dot GST-FDPA block (`kind::mxf4`, `mxf4nvf4`): group sums of fp4 products (AVX2
//! `pshufb` lookups, or the exact product table), scale pairs, C, and one rounding.

use super::{c_aligned, c_term, finish, signed};
use crate::kernel::plan::GPath;
use crate::kernel::round::FastRound;
use crate::kernel::table::{self, Dec, SPECIAL};
use crate::model::{BlockIn, Formats, MAX_BLOCK};
use crate::models::gst_fdpa::GstFdpa;

/// GST-FDPA over one block with fp4-sized elements, all inputs finite, scales not NaN.
#[inline(always)]
pub(in crate::kernel) fn gst_block(
    m: &GstFdpa,
    f: &Formats,
    p: &GPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let GPath {
        ta,
        tb,
        ts,
        prods,
        round,
        lsb0,
        ms,
        ..
    } = *p;
    let (_, per) = f.scale?;
    let n = x.a.len();
    // lsb0: products of two elements of at most 4 bits, the smallest possible product quantum.
    let (ma, mb) = (f.a.man_bits as i32, f.b.man_bits as i32);
    let mut any = 0u32;
    let mut terms = [(0u64, 0i32, 0i32, 0u32); MAX_BLOCK / 4 + 1];
    let mut groups = 0;
    let mut e_max = i32::MIN;
    for g0 in (0..n).step_by(m.g) {
        let g1 = (g0 + m.g).min(n);
        let mut sum = 0i64;
        let mut nonzero = 0u32;
        if let Some(pt) = prods {
            // Formats without specials: one load per exact product.
            for k in g0..g1 {
                let v = pt[((x.a[k] & 15) << 4 | (x.b[k] & 15)) as usize];
                nonzero |= v as u32;
                sum += v as i64;
            }
        } else {
            for k in g0..g1 {
                let ea = ta.get(x.a[k]);
                let eb = tb.get(x.b[k]);
                any |= ea | eb;
                let s = table::sig(ea) * table::sig(eb);
                nonzero |= s;
                // lsb of the product, relative to the smallest quantum (>= 0).
                let sh = (table::exp(ea) - ma + table::exp(eb) - mb - lsb0) as u32;
                let mag = ((s as u64) << sh.min(40)) as i64;
                sum += signed(mag as u64, table::neg(ea ^ eb));
            }
        }
        let si = g0 / per;
        let (qa, qb) = (ts.get(x.scale_a[si]), ts.get(x.scale_b[si]));
        any |= qa | qb;
        let ss = table::sig(qa) * table::sig(qb);
        let term = if nonzero == 0 || ss == 0 {
            (0u64, m.e_zero, m.e_zero, 0u32)
        } else {
            let e_s = table::exp(qa) + table::exp(qb);
            let neg = (sum < 0) as u32;
            (sum.unsigned_abs() * ss as u64, lsb0 + e_s - ms, e_s, neg)
        };
        e_max = e_max.max(term.2);
        terms[groups] = term;
        groups += 1;
    }
    if any & SPECIAL != 0 {
        return None;
    }
    gst_tail(m, f, &round, &terms[..groups], e_max, x)
}

/// The group terms `(|sum| · scale product, lsb exponent, scientific exponent of the scale
/// product, sign)` of a GST-FDPA block with C added, rounded and encoded.
#[inline(always)]
pub(in crate::kernel) fn gst_tail(
    m: &GstFdpa,
    f: &Formats,
    round: &Option<FastRound>,
    terms: &[(u64, i32, i32, u32)],
    e_max: i32,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let (c_sig, c_e, c_neg) = c_term(x, m.e_zero)?;
    let e_max = e_max.max(c_e);
    let quantum = e_max - m.f as i32;
    let mut sum = signed(
        c_aligned(c_sig, c_e, x.c_fmt.man_bits, m.f, e_max),
        c_neg as u32,
    );
    for &(sig, lsb, _, neg) in terms {
        let sh = lsb - quantum;
        let mag = if sh >= 0 {
            // |group sum| < 2^12 and the scale product < 2^8 (see `Kernel::new`): < 2^(F+12).
            sig << sh
        } else {
            sig >> (-sh).min(63)
        };
        sum += signed(mag, neg);
    }
    Some(finish(&m.out, &f.d, round, sum, quantum, false))
}
