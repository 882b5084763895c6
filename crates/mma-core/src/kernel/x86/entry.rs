//! The entry points of the x86-64 lane routines: each [`Lanes`] routine compiled for AVX2
//! (`on_ymm`, groups of eight) and for AVX-512 (`on_zmm`, groups of sixteen), each for `u64`
//! words and for the storage width (four modules, below), as
//! [`Entry`] gives them to the tables of `kernel/lanes/mod.rs`; and GST-FDPA's lanes
//! ([`gst_dots`], AVX2 only: `kernel/lanes/gst.rs`). Soundness: `x86/mod.rs`.

use super::ymm::Ymm;
use super::zmm::Zmm;
use crate::kernel::lanes::{self, Entry, LaneFn, Lanes};
use crate::kernel::plan::GLanes;
use crate::kernel::words::Word;
use crate::kernel::{Kernel, Rows};

impl Entry for Ymm {
    type Fma = Ymm;
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        wide_ymm::on_ymm::<L, W>
    }
    fn of_stored<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        stored_ymm::on_ymm::<L, W>
    }
}

impl Entry for Zmm {
    // In sixteen lanes the FMA chains gained nothing (see `lanes::lane_fns_of`).
    type Fma = Ymm;
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        wide_zmm::on_zmm::<L, W>
    }
    fn of_stored<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        stored_zmm::on_zmm::<L, W>
    }
}

/// `on_ymm`: a [`Lanes`] routine compiled for AVX2, groups of eight.
macro_rules! ymm_entry {
    () => {
        use super::Ymm;
        use crate::kernel::lanes::{run, Lanes};
        use crate::kernel::words::Word;
        use crate::kernel::{Kernel, Rows};

        /// `L` compiled for AVX2: groups of eight. Never inlined: the AVX-512 entry calls it
        /// for its last group, and one copy of the AVX2 code serves both.
        /// # Safety
        /// The CPU must support [`crate::Isa::Avx2`]: a kernel holds this routine only when
        /// it was planned for that instruction set or for [`crate::Isa::Avx512`] (which has
        /// it).
        #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
        #[inline(never)]
        pub(super) unsafe fn on_ymm<L: Lanes<W>, W: Word>(
            kern: &Kernel,
            a: Rows<'_, W>,
            b: Rows<'_, W>,
            scales: (&[u64], &[u64], usize),
            c: &[u64],
            d: &mut [u64],
        ) {
            run::<Ymm, L, W>(kern, a, b, scales, c, d)
        }
    };
}

/// `on_zmm`: a [`Lanes`] routine compiled for AVX-512, groups of sixteen, then a last group
/// of eight through `on_ymm` of the module `$ymm`.
macro_rules! zmm_entry {
    ($ymm:path) => {
        use super::Zmm;
        use crate::kernel::lanes::{run, Lanes};
        use crate::kernel::words::Word;
        use crate::kernel::{Kernel, Rows};
        use $ymm as ymm;

        /// `L` compiled for AVX-512: groups of sixteen, then a last group of eight (the AVX2
        /// entry `on_ymm`) where the batch has one.
        /// # Safety
        /// The CPU must support [`crate::Isa::Avx512`]: a kernel holds this routine only when
        /// it was planned for that instruction set.
        #[target_feature(
            enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi1,bmi2,fma,f16c,lzcnt"
        )]
        pub(super) unsafe fn on_zmm<L: Lanes<W>, W: Word>(
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
                unsafe { ymm::on_ymm::<L, W>(kern, a1, b1, (sa1, sb1, s), cb, db) };
            }
        }
    };
}
// The entry points are written once (the two macros above) and compiled in four modules: for
// `u64` words and for the storage width, each under AVX2 and AVX-512. Same code, but rustc
// puts the instances of a generic function into the code-generation unit of the module that
// defines it, and these instances (every lane routine, with all of `lanes/` inlined into it)
// are most of the crate's machine code: in one module they were one unit that LLVM optimised
// on one core while the other waited (docs/performance.md, "Build time"). Four modules are four
// units of about the same size, which the cores optimise side by side.
mod wide_ymm {
    ymm_entry!();
}
mod stored_ymm {
    ymm_entry!();
}
mod wide_zmm {
    zmm_entry!(super::wide_ymm);
}
mod stored_zmm {
    zmm_entry!(super::stored_ymm);
}

/// GST-FDPA dot products of one block of four-bit elements with fp32 C and D, eight at a time
/// ([`lanes::gst::in_groups`] on [`Ymm`]: the group sums are per dot product, so AVX-512's wider
/// lanes would speed up only the smaller part), with the table `t` of a plan whose lanes take
/// this unit and K (the caller decides; `dots.rs`). Writes every D word (lanes the lanes flag
/// through [`Kernel::dot`]).
/// # Safety
/// The CPU must support [`crate::Isa::Avx2`]: a kernel calls this only when it was planned for
/// a vector instruction set (which has it).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
pub(super) unsafe fn gst_dots(
    kern: &Kernel,
    t: &GLanes,
    rows: (Rows<'_>, Rows<'_>),
    scales: (&[u64], &[u64]),
    c: &[u64],
    d: &mut [u64],
) {
    lanes::gst::in_groups::<Ymm>(kern, t, rows, scales, c, d)
}
