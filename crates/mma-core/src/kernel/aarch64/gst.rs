//! GST-FDPA's group sums for one dot product with NEON's table lookup (`TBL`), the counterpart
//! of AVX2's `pshufb` in `x86/simd.rs` ([`Steps::group_sums`](crate::kernel::lanes::steps::Steps)
//! states the contract). Sixteen words of a row narrow to their low bytes in seven `UZP1`s,
//! one `TBL` per operand gives the sixteen codes' signed values, two widening multiplies the
//! products (each below `2^14` in magnitude: an `i16`), and pairwise widening adds the exact
//! sum. Soundness: `aarch64/mod.rs`.

use core::arch::aarch64::*;

/// The low bytes of the first sixteen words of `w` (in order).
#[inline(always)]
fn low_bytes(w: &[u64]) -> uint8x16_t {
    assert!(w.len() >= 16);
    // SAFETY: the eight loads read two words each of the first sixteen (`2i + 1 < 16`, the
    // length asserted); the rest is register-only.
    unsafe {
        let p = w.as_ptr();
        let q = |i: usize| vreinterpretq_u32_u64(vld1q_u64(p.add(2 * i)));
        // The low 32 bits of each word, then the low 16 bits of those, then the low bytes.
        let w32 = |i: usize| vreinterpretq_u16_u32(vuzp1q_u32(q(2 * i), q(2 * i + 1)));
        let w16 = |i: usize| vreinterpretq_u8_u16(vuzp1q_u16(w32(2 * i), w32(2 * i + 1)));
        vuzp1q_u8(w16(0), w16(1))
    }
}

/// The group sums of a block of `N = 16 · G` elements (see the module docs).
#[inline(always)]
pub(super) fn group_sums<const N: usize, const G: usize>(
    a: &[u64; N],
    b: &[u64; N],
    ta: &[i8; 16],
    tb: &[i8; 16],
) -> ([i32; G], u32) {
    const { assert!(N == 16 * G) };
    // SAFETY: the tables are read from arrays of sixteen bytes; the rest is register-only.
    unsafe {
        let (la, lb) = (vld1q_s8(ta.as_ptr()), vld1q_s8(tb.as_ptr()));
        let m15 = vdupq_n_u8(15);
        let mut sums = [0i32; G];
        let mut nonzero = 0u32;
        for (g, sum) in sums.iter_mut().enumerate() {
            // Only the low four bits index the tables, as the portable lookup reads them.
            let va = vqtbl1q_s8(la, vandq_u8(low_bytes(&a[16 * g..]), m15));
            let vb = vqtbl1q_s8(lb, vandq_u8(low_bytes(&b[16 * g..]), m15));
            let lo = vmull_s8(vget_low_s8(va), vget_low_s8(vb));
            let hi = vmull_high_s8(va, vb);
            if vmaxvq_u16(vreinterpretq_u16_s16(vorrq_s16(lo, hi))) != 0 {
                nonzero |= 1 << g;
            }
            *sum = vaddvq_s32(vaddq_s32(vpaddlq_s16(lo), vpaddlq_s16(hi)));
        }
        (sums, nonzero)
    }
}
