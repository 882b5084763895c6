//! The stand-in for an architecture leaf (`x86/`, `aarch64/`): the same names, and no vector
//! routine. Where no leaf exists, `Isa::detect` never returns a vector instruction set, so no
//! routine is ever planned; the names exist so that `kernel/mod.rs` needs a single gate. The
//! `aarch64/` leaf takes from here what it does not compile (the per-dot vector block, the
//! GST-FDPA lanes, the byte shuffle, the matrix lanes). `.ci/run` builds and tests it under
//! qemu for `aarch64-unknown-linux-gnu`.

#![cfg_attr(target_arch = "aarch64", allow(dead_code, unused_imports))]

pub(super) use crate::kernel::lanes::{LaneRoutine, LaneRoutineScaled, Stored};

use crate::kernel::plan::{GPath, IPath, LaneKey, StKey, VDotKey};
use crate::kernel::words::Word;
use crate::kernel::{Isa, Kernel, Rows};
use crate::model::{BlockIn, Formats};
use crate::models::gst_fdpa::GstFdpa;

/// Zero-extends `x` into `out` (portable).
pub(super) fn widen<W: Copy + Into<u64>>(_: &Kernel, x: &[W], out: &mut [u64]) {
    crate::kernel::words::widen_words(x, out)
}

/// I-DPA's rows of dot products: the portable body.
#[allow(clippy::too_many_arguments)]
pub(super) fn int_dots<W: Word>(
    k: &Kernel,
    p: &IPath,
    kk: usize,
    a: &[W],
    b: &[W],
    c: &[u64],
    d: &mut [u64],
) {
    let (f, block) = (&k.unit.formats, k.unit.block);
    crate::kernel::scalar::int_dpa::int_dots(p, f, block, kk, a, b, c, d)
}

/// No vector dot product: uninhabited.
#[derive(Clone, Copy, Debug)]
pub(super) enum VDot {}

impl VDot {
    pub(super) fn call(self, _: &Kernel, _: &[u64], _: &[u64], _: u64) -> u64 {
        match self {}
    }
}

pub(super) fn lane_routine_of(_: LaneKey, _: Isa) -> Option<(LaneRoutine, Option<Stored>)> {
    None
}

pub(super) fn lane_scaled_of(_: StKey, _: Isa) -> Option<LaneRoutineScaled> {
    None
}

pub(super) fn vdot_of(_: VDotKey, _: Isa) -> Option<VDot> {
    None
}

pub(super) fn gst_v(
    _: &GstFdpa,
    _: &Formats,
    _: &GPath,
    _: &[i8; 16],
    _: &[i8; 16],
    _: &BlockIn<'_>,
) -> Option<Option<u64>> {
    None
}

/// The portable path.
pub(super) fn dot(k: &Kernel, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
    k.dot_any(a, b, c, sa, sb)
}

/// The portable path.
pub(super) fn block(k: &Kernel, x: &BlockIn<'_>) -> u64 {
    k.block_any(x)
}

/// No GST-FDPA lanes: nothing written.
pub(super) fn gst_dots(
    _: &Kernel,
    _: &crate::kernel::plan::GLanes,
    _: (Rows<'_>, Rows<'_>),
    _: (&[u64], &[u64]),
    _: &[u64],
    _: &mut [u64],
) -> bool {
    false
}

/// No byte shuffle: the portable reordering takes every block.
pub(super) fn permute_bytes(
    _: &Kernel,
    _: &[u8],
    _: std::ops::Range<usize>,
    _: usize,
    _: (usize, &[usize]),
    _: &mut Vec<u8>,
) -> bool {
    false
}

/// No vector last addition: every pair goes through `LastAdd`.
pub(super) fn last_add(
    _: Isa,
    _: crate::kernel::scalar::sliced::LastLanes,
    _: &[u64],
    _: &mut [u64],
) -> usize {
    0
}

/// No matrix lanes: a type without values.
#[derive(Debug)]
pub(crate) enum GemmLanes {}

impl GemmLanes {
    pub(crate) fn rows(&self, _: &Kernel, _: usize, _: &crate::kernel::GemmIn<'_>, _: &mut [u64]) {
        match *self {}
    }
}

/// No matrix lanes.
pub(super) fn gemm_lanes(_: &Kernel, _: (usize, usize), _: usize, _: &[u64]) -> Option<GemmLanes> {
    None
}

/// Other architectures: the library GEMM keeps to its integer binary32 steps.
pub(crate) fn host_binary32_is_ieee() -> bool {
    false
}
