//! The entry points of the x86-64 lane routines: each [`Lanes`] routine compiled for AVX2
//! ([`on_ymm`], groups of eight) and for AVX-512 ([`on_zmm`], groups of sixteen), as
//! [`Entry`] gives them to the tables of `kernel/lanes/mod.rs`; and GST-FDPA's lanes
//! ([`gst_dots`], AVX2 only: `gst.rs`). Soundness: `x86/mod.rs`.

use super::gst;
use super::ymm::Ymm;
use super::zmm::Zmm;
use crate::kernel::lanes::{run, Entry, LaneFn, Lanes};
use crate::kernel::plan::GLanes;
use crate::kernel::words::Word;
use crate::kernel::{Kernel, Rows};

impl Entry for Ymm {
    type Fma = Ymm;
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        on_ymm::<L, W>
    }
}

impl Entry for Zmm {
    // In sixteen lanes the FMA chains gained nothing (see `lanes::lane_fns_of`).
    type Fma = Ymm;
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        on_zmm::<L, W>
    }
}

/// `L` compiled for AVX2: groups of eight. Never inlined: the AVX-512 entry calls it for its
/// last group, and one copy of the AVX2 code serves both.
/// # Safety
/// The CPU must support [`crate::Isa::Avx2`]: a kernel holds this routine only when it was
/// planned for that instruction set or for [`crate::Isa::Avx512`] (which has it).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
#[inline(never)]
unsafe fn on_ymm<L: Lanes<W>, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    scales: (&[u64], &[u64], usize),
    c: &[u64],
    d: &mut [u64],
) {
    run::<Ymm, L, W>(kern, a, b, scales, c, d)
}

/// `L` compiled for AVX-512: groups of sixteen, then a last group of eight (the AVX2 entry
/// [`on_ymm`]) where the batch has one.
/// # Safety
/// The CPU must support [`crate::Isa::Avx512`]: a kernel holds this routine only when it was
/// planned for that instruction set.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn on_zmm<L: Lanes<W>, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    (sa, sb, s): (&[u64], &[u64], usize),
    c: &[u64],
    d: &mut [u64],
) {
    let (n, wide) = (c.len(), c.len() / 16 * 16);
    let (ca, cb) = c.split_at(wide);
    let (da, db) = d.split_at_mut(wide);
    let (a0, a1) = (a.part(0, wide), a.part(wide, n - wide));
    let (b0, b1) = (b.part(0, wide), b.part(wide, n - wide));
    let (sa0, sa1) = sa.split_at(wide * s);
    let (sb0, sb1) = sb.split_at(wide * s);
    run::<Zmm, L, W>(kern, a0, b0, (sa0, sb0, s), ca, da);
    if wide < n {
        // SAFETY: a CPU with AVX-512 as `Isa::Avx512` defines it has AVX2.
        unsafe { on_ymm::<L, W>(kern, a1, b1, (sa1, sb1, s), cb, db) };
    }
}

/// GST-FDPA dot products of one block of four-bit elements with fp32 C and D, eight at a time
/// ([`gst::gst`]), with the table `t` of a plan whose lanes take this unit and K (the caller
/// decides; `dots.rs`). Writes every D word (lanes the lanes flag through [`Kernel::dot`]).
/// # Safety
/// The CPU must support [`crate::Isa::Avx2`]: a kernel calls this only when it was planned for
/// a vector instruction set (which has it).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
pub(super) unsafe fn gst_dots(
    kern: &Kernel,
    t: &GLanes,
    (a, b): (Rows<'_>, Rows<'_>),
    (sa, sb): (&[u64], &[u64]),
    c: &[u64],
    d: &mut [u64],
) {
    let k = a.k();
    let s = k / t.per;
    for (g, (cg, dg)) in c.chunks_exact(8).zip(d.chunks_exact_mut(8)).enumerate() {
        let (ra, rb) = (a.part(8 * g, 8), b.part(8 * g, 8));
        let (sa8, sb8) = (
            &sa[8 * g * s..8 * (g + 1) * s],
            &sb[8 * g * s..8 * (g + 1) * s],
        );
        let (c8, d8) = (cg.try_into().expect("eight"), dg.try_into().expect("eight"));
        let redo = match k {
            64 => gst::gst::<64, 4>(t, ra, rb, sa8, sb8, c8, d8),
            32 => gst::gst::<32, 2>(t, ra, rb, sa8, sb8, c8, d8),
            16 => gst::gst::<16, 1>(t, ra, rb, sa8, sb8, c8, d8),
            _ => 0xff,
        };
        if redo != 0 {
            kern.redo((ra, rb), (sa8, sb8, s), cg, dg, redo);
        }
    }
}
