//! The I-DPA kernel (the integer `mma`/`wgmma`/`tcgen05.mma` and `v_mfma_i32_*` instructions):
//! the model's exact sum of products (or XORs, for `.b1`'s `.xor.popc`; `.and.popc` is the
//! product of single bits) plus C, wrapped to D's width or clamped once, without the model's
//! `i128` per term and `Format::int_value` per element.
//!
//! Why it is exact: the plan takes elements of at most eight bits only ([`IPath`]), so every
//! term is below `2^16` in magnitude and [`CHUNK`] = 64 of them sum within `i32` (below
//! `2^22`); the chunk sums and C (at most 32 bits) add in `i64`, exact for any K below `2^40`.
//! The model's sum is the same integer, so the wrap (`& mask`) and the clamp give its word.
//!
//! Why it is fast: each word is decoded once, in the loop that multiplies, by a mask and two
//! shifts by loop-invariant amounts to `i16` ([`IntDec`]), no branch on the format; the chunk
//! sums are plain `i32` reductions of widened `i16` products that the compiler vectorizes
//! (`kernel/x86/` compiles the same body for AVX2 and AVX-512). Rows of many dot products ([`int_dots`]) read the words in the width
//! the caller stored them (`u8` for every integer format), without widening them to `u64`.

use crate::kernel::plan::{IPath, IntDec};
use crate::kernel::words::Word;
use crate::model::{BlockIn, Formats};

/// Terms per `i32` partial sum: 64 terms of magnitude below `2^16` stay below `2^22`.
const CHUNK: usize = 64;

/// The value of an element's word (see [`IntDec`]), in `i16`: products of two such values
/// widened to `i32` are the multiply-adds of pairs of `i16` lanes (`pmaddwd`) that the compiler
/// picks for the sums below.
#[inline(always)]
fn dec(w: u64, d: IntDec) -> i16 {
    (((w as u16) & d.mask) << d.shift) as i16 >> d.shift
}

/// The exact sum of the terms of `a` and `b` (equal lengths), `XOR` or products.
#[inline(always)]
fn terms<W: Word, const XOR: bool>(p: &IPath, a: &[W], b: &[W]) -> i64 {
    let mut s = 0i64;
    for (ca, cb) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        let part: i32 = ca
            .iter()
            .zip(cb)
            .map(|(&x, &y)| {
                let (x, y) = (dec(x.into(), p.a), dec(y.into(), p.b));
                if XOR {
                    i32::from(x ^ y)
                } else {
                    i32::from(x) * i32::from(y)
                }
            })
            .sum();
        s += i64::from(part);
    }
    s
}

/// The exact sum of a block's terms.
#[inline(always)]
fn sum<W: Word>(p: &IPath, a: &[W], b: &[W]) -> i64 {
    if p.xor {
        terms::<W, true>(p, a, b)
    } else {
        terms::<W, false>(p, a, b)
    }
}

/// The word of D for the exact sum `s`: clamped once or wrapped to D's width.
#[inline(always)]
fn finish(p: &IPath, s: i64) -> u64 {
    let v = if p.saturate { s.clamp(p.lo, p.hi) } else { s };
    (v as u64) & p.mask
}

/// One block, as the model's ([`IDpa::block_traced`](crate::models::int_dpa::IDpa)).
#[inline(always)]
pub(in crate::kernel) fn int_block(p: &IPath, x: &BlockIn<'_>) -> u64 {
    let c = x.c_fmt.int_value(x.c).unwrap_or(0);
    finish(p, c + sum(p, x.a, x.b))
}

/// `d[i] = a_i·b_i + c[i]` for rows of `k` words (`a_i = a[i·k..][..k]`), chained in blocks
/// of `block` as [`DotUnit::chain`](crate::DotUnit) chains them: C in C's format into the first
/// block, each block's D (D's format) into the next, an empty K one block of C alone. (Copies
/// for the catalogs' constant block lengths, 16, 32 and 64, measured slower: the compiler
/// unrolled them into longer code than its vector loop.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(in crate::kernel) fn int_dots<W: Word>(
    p: &IPath,
    f: &Formats,
    block: usize,
    k: usize,
    a: &[W],
    b: &[W],
    c: &[u64],
    d: &mut [u64],
) {
    let block = block.max(1);
    for (i, (&ci, di)) in c.iter().zip(d.iter_mut()).enumerate() {
        let (ra, rb) = (&a[i * k..(i + 1) * k], &b[i * k..(i + 1) * k]);
        let k1 = block.min(k);
        let c0 = f.c.int_value(ci).unwrap_or(0);
        let mut acc = finish(p, c0 + sum(p, &ra[..k1], &rb[..k1]));
        let mut k0 = k1;
        while k0 < k {
            let k1 = (k0 + block).min(k);
            let c = f.d.int_value(acc).unwrap_or(0);
            acc = finish(p, c + sum(p, &ra[k0..k1], &rb[k0..k1]));
            k0 = k1;
        }
        *di = acc;
    }
}
