//! A chain of E-FDPA blocks over a group's rows of `k` words, one dot product per lane (the
//! block and why its sums are exact or bracketed: `e_fdpa.rs`). Each block's D is the next
//! block's C. Blocks of two are summed in `f32` lanes (`e_fdpa_sum3.rs`), blocks of up to eight
//! through the width's own step ([`Steps::efdpa_block`]), longer ones through `e_fdpa.rs`'s
//! `f64` sum. This file sits above [`Steps`], whose implementations are the blocks below it.

use super::dec::WDec;
use super::e_fdpa::{add_products, finish, start};
use super::e_fdpa_sum3;
use super::steps::Steps;
use crate::kernel::words::{Rows, Word};

/// A chain of E-FDPA blocks of `N` (2, 4 or a multiple of 8) over the group's rows of `k`
/// words (a multiple of `N`): writes the D words (fp32; a block's D is the next block's C) and
/// returns the bit mask of the lanes the caller must recompute.
#[inline(always)]
pub fn chain<V: Steps, const N: usize, A: WDec, B: WDec, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    out: &mut [u64],
) -> u32 {
    let wp = (A::MAN_BITS + B::MAN_BITS + 1) as i64;
    let mut acc = V::lanes(c);
    let mut bad = 0;
    if N == 2 {
        // Blocks of two in f32 lanes (`e_fdpa_sum3.rs`), in pairs from one read of four
        // columns where K allows, each block's pair at a fixed place, written out: taking two
        // of four at a run-time place (as a loop over the two places also compiled) kept the
        // columns in memory.
        let mut k0 = 0;
        while k0 + 4 <= a.k() {
            let (pa, pb) = (a.block_pairs16::<V, 4>(k0), b.block_pairs16::<V, 4>(k0));
            let (d, flag) = e_fdpa_sum3::block::<V, A, B>(pa[0], pb[0], acc);
            let (d, flag_2) = e_fdpa_sum3::block::<V, A, B>(pa[1], pb[1], d);
            acc = d;
            bad |= flag | flag_2;
            k0 += 4;
        }
        if k0 < a.k() {
            let (pa, pb) = (a.block_pairs16::<V, 2>(k0), b.block_pairs16::<V, 2>(k0));
            let (d, flag) = e_fdpa_sum3::block::<V, A, B>(pa[0], pb[0], acc);
            acc = d;
            bad |= flag;
        }
    } else if N == 4 && a.k().is_multiple_of(8) {
        // Blocks of four in pairs from one read of eight columns, as above.
        for k0 in (0..a.k()).step_by(8) {
            let (pa, pb) = (a.block_pairs16::<V, 8>(k0), b.block_pairs16::<V, 8>(k0));
            let (d, flag) = V::efdpa_block::<N, A, B>((&pa[..2], &pb[..2]), wp, acc);
            let (d, flag_2) = V::efdpa_block::<N, A, B>((&pa[2..], &pb[2..]), wp, d);
            acc = d;
            bad |= flag | flag_2;
        }
    } else if N <= 8 {
        for k0 in (0..a.k()).step_by(N) {
            let (pa, pb) = (a.block_pairs16::<V, N>(k0), b.block_pairs16::<V, N>(k0));
            let (d, flag) = V::efdpa_block::<N, A, B>((&pa[..N / 2], &pb[..N / 2]), wp, acc);
            acc = d;
            bad |= flag;
        }
    } else {
        for k0 in (0..a.k()).step_by(N) {
            let mut s = start::<V>(acc);
            for j in (0..N).step_by(8) {
                let pa = a.block_pairs16::<V, N>(k0 + j);
                let pb = b.block_pairs16::<V, N>(k0 + j);
                add_products::<V, A, B>(&mut s, &pa, &pb);
            }
            let (d, flag) = finish::<V, N>(&s, wp, acc);
            acc = d;
            bad |= flag;
        }
    }
    V::store(acc, out);
    bad
}
