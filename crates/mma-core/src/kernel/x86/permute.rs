//! Sliced-FDPA's reordering of one-byte operands (`Words::permute` for `u8` words): the
//! elements of a block of 16 or 32 put in pass order by one byte shuffle per row instead of a
//! load and a store per element (the reordering had been the larger part of a Sliced-FDPA
//! batch's time).
//!
//! `vpshufb` picks bytes within each 128-bit half only. A block of 16 is one half: one shuffle.
//! For a block of 32, output byte `j` takes source byte `order[j]` either from the same half
//! (a shuffle of the row) or from the other (a shuffle of the row with its halves swapped,
//! `vpermq`); each control zeroes the bytes the other supplies (index bit 7), and an `or`
//! joins them. Any permutation of the block is taken, not only the passes' one.

use std::arch::x86_64::*;
use std::ops::Range;

/// Elements `from + order[j]` of rows `rows` (`stride` bytes apart) into `out`, row after
/// row; `false`, with `out` untouched, where the block is not 16 or 32 bytes, `order` is not
/// a permutation of it, or a row would read past `x`.
/// # Safety
/// The CPU must have AVX2.
pub(super) unsafe fn bytes(
    x: &[u8],
    rows: Range<usize>,
    stride: usize,
    (from, order): (usize, &[usize]),
    out: &mut Vec<u8>,
) -> bool {
    let n = order.len();
    if !(n == 16 || n == 32) {
        return false;
    }
    let mut seen = 0u32;
    for &j in order {
        if j >= n {
            return false;
        }
        seen |= 1 << j;
    }
    let in_bounds = rows
        .end
        .checked_sub(1)
        .and_then(|last| last.checked_mul(stride))
        .and_then(|at| at.checked_add(from + n))
        .is_none_or(|end| end <= x.len());
    if seen.count_ones() as usize != n || !in_bounds {
        return false;
    }
    out.clear();
    out.resize(rows.len() * n, 0);
    // SAFETY: the CPU has AVX2 (this function's contract).
    unsafe { shuffle_rows(x, rows, stride, (from, order), out) };
    true
}

/// [`bytes`] after its checks: `order` a permutation of `0..n` (`n` 16 or 32), every row's
/// `n` bytes within `x`, `out` holding `rows.len() · n` bytes.
/// # Safety
/// Compiled for AVX2: the CPU must have it.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_rows(
    x: &[u8],
    rows: Range<usize>,
    stride: usize,
    (from, order): (usize, &[usize]),
    out: &mut [u8],
) {
    let n = order.len();
    // The two shuffle controls: `same` for bytes from the output byte's own half, `cross` for
    // bytes from the other half; 0x80 zeroes the byte (the other control supplies it).
    let (mut same, mut cross) = ([0x80u8; 32], [0x80u8; 32]);
    for (j, &src) in order.iter().enumerate() {
        if src / 16 == j / 16 {
            same[j] = (src % 16) as u8;
        } else {
            cross[j] = (src % 16) as u8;
        }
    }
    // SAFETY (every load and store below): row `r` reads `x[r·stride + from ..][..n]`, within
    // `x` (checked by `bytes` for the last row, hence for every row); output row `i` writes
    // `out[i·n ..][..n]`, within `out` (`rows.len() · n` bytes).
    unsafe {
        if n == 16 {
            let ctl = _mm_loadu_si128(same.as_ptr().cast());
            for (i, r) in rows.enumerate() {
                let v = _mm_loadu_si128(x.as_ptr().add(r * stride + from).cast());
                _mm_storeu_si128(
                    out.as_mut_ptr().add(i * 16).cast(),
                    _mm_shuffle_epi8(v, ctl),
                );
            }
        } else {
            let same = _mm256_loadu_si256(same.as_ptr().cast());
            let cross = _mm256_loadu_si256(cross.as_ptr().cast());
            for (i, r) in rows.enumerate() {
                let v = _mm256_loadu_si256(x.as_ptr().add(r * stride + from).cast());
                let swapped = _mm256_permute4x64_epi64(v, 0b01_00_11_10);
                let o = _mm256_or_si256(
                    _mm256_shuffle_epi8(v, same),
                    _mm256_shuffle_epi8(swapped, cross),
                );
                _mm256_storeu_si256(out.as_mut_ptr().add(i * 32).cast(), o);
            }
        }
    }
}
