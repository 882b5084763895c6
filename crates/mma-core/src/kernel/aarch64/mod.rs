//! The AArch64 leaf: the lane routines of `kernel/lanes/` compiled for Advanced SIMD
//! ([`Neon`]: four dot products per 128-bit vector), for every lane key the x86-64 leaf
//! compiles (T-FDPA with ST-FDPA and Sliced-FDPA's passes, TR/GTR-FDPA, E-FDPA, FTZ-MulAdd, the
//! FMA chains, GST-FDPA), with the integer late-C steps and the `f64` E-FDPA block as AVX2 has
//! them and GST-FDPA's group sums by `TBL` lookups (`gst.rs`) ([`Steps`]). What the x86-64
//! leaf compiles besides the lanes (the per-dot vector block, the byte shuffle of Sliced-FDPA's
//! permutation, the matrix driver's lanes, the library GEMM's binary32 steps) is not compiled
//! here: those names come from the stand-in (`no_vector.rs`), and the kernel takes the portable
//! paths for them, with the same bits.
//!
//! Soundness: Advanced SIMD is part of the AArch64 baseline every supported target enables, so
//! the entry points need no `#[target_feature]`; a kernel still holds them only when planned
//! for [`Isa::Neon`], which `Isa::is_supported` confirmed. The remaining `unsafe` blocks are
//! loads and stores of whole vectors from slices whose lengths the surrounding code checked
//! (`neon.rs`, each with its argument).

mod gst;
mod neon;

pub(super) use super::no_vector::{
    block, dot, gemm_lanes, gst_v, int_dots, last_add, permute_bytes, vdot_of, widen, VDot,
};
pub(crate) use super::no_vector::{host_binary32_is_ieee, GemmLanes};
pub(super) use crate::kernel::lanes::{LaneRoutine, LaneRoutineScaled, Stored};

use crate::kernel::lanes::steps::Steps;
use crate::kernel::lanes::{self, Entry, LaneFn, Lanes};
use crate::kernel::plan::{GLanes, LaneKey, StKey};
use crate::kernel::words::Word;
use crate::kernel::{Isa, Kernel, Rows};
use neon::Neon;

/// Whether the NEON routines may be handed out: the kernel is planned for [`Isa::Neon`] and
/// this CPU has it.
fn neon_here(isa: Isa) -> bool {
    isa == Isa::Neon && isa.is_supported()
}

/// The lane routine compiled for a plan's lane key, for a kernel planned for `isa`, and its
/// copy for the operands' storage width where that is narrower than `u64`.
pub(super) fn lane_routine_of(key: LaneKey, isa: Isa) -> Option<(LaneRoutine, Option<Stored>)> {
    let fns = neon_here(isa)
        .then(|| lanes::lane_fns_of::<Neon>(key))
        .flatten();
    // SAFETY: `neon_here` confirmed that this CPU has Advanced SIMD.
    fns.map(|f| unsafe { lanes::checked(f) })
}

/// The scaled lane routine compiled for a plan's ST-FDPA key, for a kernel planned for `isa`.
pub(super) fn lane_scaled_of(key: StKey, isa: Isa) -> Option<LaneRoutineScaled> {
    let f = neon_here(isa)
        .then(|| lanes::scaled_fn_of::<Neon>(key))
        .flatten();
    // SAFETY: as in `lane_routine_of`.
    f.map(|f| unsafe { lanes::checked_scaled(f) })
}

impl Entry for Neon {
    type Fma = Neon;
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        wide::on_neon::<L, W>
    }
    fn of_stored<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        stored::on_neon::<L, W>
    }
}

/// `on_neon`: `L` compiled for Advanced SIMD, groups of four (the batches are multiples of
/// eight). Defined in two modules, for `u64` words and for the storage width, so that their
/// instances fall into two code-generation units, which the cores optimise side by side
/// (`x86/entry.rs` says why).
macro_rules! neon_entry {
    () => {
        use super::Neon;
        use crate::kernel::lanes::{run, Lanes};
        use crate::kernel::words::Word;
        use crate::kernel::{Kernel, Rows};

        pub(super) fn on_neon<L: Lanes<W>, W: Word>(
            kern: &Kernel,
            a: Rows<'_, W>,
            b: Rows<'_, W>,
            scales: (&[u64], &[u64], usize),
            c: &[u64],
            d: &mut [u64],
        ) {
            run::<Neon, L, W>(kern, a, b, scales, c, d)
        }
    };
}

mod wide {
    neon_entry!();
}

mod stored {
    neon_entry!();
}

/// GST-FDPA dot products four at a time ([`lanes::gst::in_groups`]) with the plan's table
/// `t`, where the dispatch found that the lanes take the unit and K; `false` (nothing written)
/// where the kernel is not planned for [`Isa::Neon`].
pub(super) fn gst_dots(
    k: &Kernel,
    t: &GLanes,
    rows: (Rows<'_>, Rows<'_>),
    scales: (&[u64], &[u64]),
    c: &[u64],
    d: &mut [u64],
) -> bool {
    if !neon_here(k.plan.isa) {
        return false;
    }
    lanes::gst::in_groups::<Neon>(k, t, rows, scales, c, d);
    true
}

/// The default (integer and `f64`) formulations; `TBL` lookups for GST-FDPA's group sums.
impl Steps for Neon {
    #[inline(always)]
    fn group_sums<const N: usize, const G: usize>(
        a: &[u64; N],
        b: &[u64; N],
        ta: &[i8; 16],
        tb: &[i8; 16],
    ) -> ([i32; G], u32) {
        gst::group_sums::<N, G>(a, b, ta, tb)
    }
}
