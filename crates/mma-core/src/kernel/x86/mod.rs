//! The x86-64 leaf: every use of its vector instructions (AVX2 with BMI1/2, FMA, F16C and
//! LZCNT; AVX-512 F/BW/DQ/VL). It implements the lane routines' trait for its two widths
//! (`ymm.rs`: `Ymm`, AVX2, eight lanes; `zmm.rs`: `Zmm`, AVX-512, sixteen; each with its row
//! loads) and the width-dependent steps (`steps.rs`, with AVX-512's forms in `tr_late.rs` and
//! `e_fdpa_directed.rs`), and compiles the routines of `kernel/lanes/` in its entry points
//! (`entry.rs`), GST-FDPA's lanes with AVX2's byte lookups for the group sums. Besides the
//! lanes it has routines no other leaf has: the vector block of one
//! dot product (`per_dot.rs` over `simd.rs`), the matrix driver's
//! lanes (`gemm.rs`), Sliced-FDPA's byte reordering (`permute.rs`) and last addition
//! (`last_add.rs`), and I-DPA's rows compiled for AVX2 and AVX-512 (`int_dpa.rs`). The rest of the kernel reaches this module only through the names
//! re-exported below (as `arch`), when a kernel is planned for [`Isa::Avx2`] or
//! [`Isa::Avx512`].
//!
//! Soundness, once for the whole module: every function compiled with `#[target_feature]` is an
//! `unsafe fn` whose contract is "the CPU supports the instruction set it is compiled for"
//! (AVX2, or AVX-512 with AVX2). A kernel holds such a function (as a pointer, or by its plan's
//! `isa`) only when it was planned for that instruction set, which `Isa::detect`/
//! `Isa::is_supported` confirmed on this CPU; every call site says so in a `SAFETY:` comment.
//! The per-dot routines and the GST-FDPA lanes are compiled for AVX2 only and serve AVX-512
//! kernels too (every AVX-512 CPU the plan accepts has AVX2). The remaining `unsafe` blocks are
//! unaligned loads and stores of whole vectors from slices whose lengths the surrounding code
//! has checked, each with its argument.

mod e_fdpa_directed;
mod entry;
mod gemm;
mod int_dpa;
mod last_add;
mod per_dot;
mod permute;
mod simd;
mod steps;
mod tr_late;
mod ymm;
mod zmm;

pub(crate) use gemm::GemmLanes;
pub(super) use int_dpa::int_dots;
pub(super) use per_dot::gst_v;

pub(super) use crate::kernel::lanes::{LaneRoutine, LaneRoutineScaled, Stored};

use crate::kernel::lanes;
use crate::kernel::plan::{GLanes, LaneKey, StKey, VDotKey};
use crate::kernel::scalar::sliced::LastLanes;
use crate::kernel::{Isa, Kernel, Rows};
use crate::model::BlockIn;
use per_dot::VDotFn;
use std::ops::Range;
use ymm::Ymm;
use zmm::Zmm;

/// Whether routines compiled for the vector instruction set `isa` may be handed out: the
/// kernel is planned for AVX2 or AVX-512 and this CPU has it. Every [`LaneRoutine`], [`Stored`],
/// [`LaneRoutineScaled`], [`VDot`] and matrix lane routine is made behind this check, which is what
/// makes calling them safe.
fn vector_here(isa: Isa) -> bool {
    matches!(isa, Isa::Avx2 | Isa::Avx512) && isa.is_supported()
}

/// The matrix driver's lanes of `kern`'s unit ([`gemm::gemm_lanes`]), where the kernel is
/// planned for a vector instruction set this CPU has: the check that makes their routines safe
/// to call.
pub(super) fn gemm_lanes(
    kern: &Kernel,
    nk: (usize, usize),
    k_step: usize,
    b_cols: &[u64],
) -> Option<GemmLanes> {
    vector_here(kern.plan.isa)
        .then(|| gemm::gemm_lanes(kern, nk, k_step, b_cols))
        .flatten()
}

/// Whether this thread's SSE arithmetic is IEEE 754 as the library GEMM's binary32 steps need
/// it: round to nearest even, neither flush-to-zero nor denormals-are-zero (a caller may have
/// set them: `torch.set_flush_denormal(True)` does). MXCSR is per thread.
pub(crate) fn host_binary32_is_ieee() -> bool {
    // FTZ (bit 15), DAZ (bit 6) and the rounding control (bits 13-14, 00: nearest).
    const NOT_IEEE: u32 = (1 << 15) | (1 << 6) | (3 << 13);
    // SAFETY: reading MXCSR has no effect; SSE is part of the x86-64 baseline.
    #[allow(deprecated)]
    let csr = unsafe { core::arch::x86_64::_mm_getcsr() };
    csr & NOT_IEEE == 0
}

/// A vector dot product this CPU can run (see [`VDotFn`]); made only by [`vdot_of`].
#[derive(Clone, Copy, Debug)]
pub(super) struct VDot(VDotFn);

impl VDot {
    #[inline(always)]
    pub(super) fn call(self, k: &Kernel, a: &[u64], b: &[u64], c: u64) -> u64 {
        // SAFETY: as `LaneRoutine::run`: made only where `vector_here` held (the routine needs
        // AVX2, which both vector instruction sets have).
        unsafe { (self.0)(k, a, b, c) }
    }
}

/// The lane routine compiled for a plan's lane key, for a kernel planned for `isa`, and its
/// copy for the operands' storage width where that is narrower than `u64`.
pub(super) fn lane_routine_of(key: LaneKey, isa: Isa) -> Option<(LaneRoutine, Option<Stored>)> {
    let fns = match isa {
        _ if !vector_here(isa) => None,
        Isa::Avx512 => lanes::lane_fns_of::<Zmm>(key),
        _ => lanes::lane_fns_of::<Ymm>(key),
    };
    // SAFETY: `vector_here` confirmed that this CPU has the instruction set of the entry
    // points (`Zmm`'s for AVX-512, `Ymm`'s for AVX2).
    fns.map(|f| unsafe { lanes::checked(f) })
}

/// The scaled lane routine compiled for a plan's ST-FDPA key, for a kernel planned for `isa`.
pub(super) fn lane_scaled_of(key: StKey, isa: Isa) -> Option<LaneRoutineScaled> {
    let f = match isa {
        _ if !vector_here(isa) => None,
        Isa::Avx512 => lanes::scaled_fn_of::<Zmm>(key),
        _ => lanes::scaled_fn_of::<Ymm>(key),
    };
    // SAFETY: as in `lane_routine_of`.
    f.map(|f| unsafe { lanes::checked_scaled(f) })
}

/// The vector dot product compiled for a plan's key, for a kernel planned for `isa`.
pub(super) fn vdot_of(key: VDotKey, isa: Isa) -> Option<VDot> {
    vector_here(isa)
        .then(|| per_dot::vdot_fn_of(key))
        .flatten()
        .map(VDot)
}

/// `Kernel::dot` after the length check: the copy compiled for AVX2 where the kernel was planned
/// for a vector instruction set, the portable one otherwise.
#[inline(always)]
pub(super) fn dot(k: &Kernel, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
    if k.plan.isa.has_avx2() {
        // SAFETY: a kernel's `isa` is one this CPU supports (`Kernel::new` takes
        // `Isa::detect`, `Kernel::with_isa` checks `Isa::is_supported`), and it has AVX2.
        return unsafe { per_dot::dot(k, a, b, c, sa, sb) };
    }
    k.dot_any(a, b, c, sa, sb)
}

/// Zero-extends `x` into `out` (of the same length): compiled for AVX2 (`vpmovzx`, four words
/// per instruction) where the kernel was planned for it.
#[inline]
pub(super) fn widen<W: Copy + Into<u64>>(k: &Kernel, x: &[W], out: &mut [u64]) {
    /// # Safety
    /// Compiled for AVX2: the CPU must have it (the kernel's `isa` says so).
    #[target_feature(enable = "avx2")]
    unsafe fn widen_avx2<W: Copy + Into<u64>>(x: &[W], out: &mut [u64]) {
        super::words::widen_words(x, out)
    }
    if k.plan.isa.has_avx2() {
        // SAFETY: as in `dot`: the kernel's `isa` is supported by this CPU.
        return unsafe { widen_avx2(x, out) };
    }
    super::words::widen_words(x, out)
}

/// `Kernel::block`, as [`dot`].
#[inline(always)]
pub(super) fn block(k: &Kernel, x: &BlockIn<'_>) -> u64 {
    if k.plan.isa.has_avx2() {
        // SAFETY: as in `dot`: the kernel's `isa` is supported by this CPU.
        return unsafe { per_dot::block(k, x) };
    }
    k.block_any(x)
}

/// `Words::permute` for one-byte words: one byte shuffle per row of a block of 16 or 32
/// ([`permute::bytes`]) where the kernel was planned for a vector instruction set; `false`,
/// nothing written, elsewhere or where the block does not fit it.
pub(super) fn permute_bytes(
    k: &Kernel,
    x: &[u8],
    rows: Range<usize>,
    stride: usize,
    at: (usize, &[usize]),
    out: &mut Vec<u8>,
) -> bool {
    // SAFETY: as in `dot`: the kernel's `isa` is supported by this CPU, and it has AVX2.
    k.plan.isa.has_avx2() && unsafe { permute::bytes(x, rows, stride, at, out) }
}

/// Sliced-FDPA's last addition eight dot products at a time ([`last_add::add`]) where `isa` is
/// a vector instruction set: the pairs taken (0 elsewhere).
pub(super) fn last_add(isa: Isa, l: LastLanes, acc: &[u64], cd: &mut [u64]) -> usize {
    if !vector_here(isa) {
        return 0;
    }
    // SAFETY: `vector_here` holds, so this CPU has AVX2 and F16C (the AVX2 set includes F16C).
    unsafe { last_add::add(l, acc, cd) }
}

/// GST-FDPA dot products eight at a time ([`entry::gst_dots`]) with the plan's table `t`, where
/// the dispatch found that the lanes take the unit and K; `false` (nothing written) where the
/// kernel is not planned for a vector instruction set.
pub(super) fn gst_dots(
    k: &Kernel,
    t: &GLanes,
    rows: (Rows<'_>, Rows<'_>),
    scales: (&[u64], &[u64]),
    c: &[u64],
    d: &mut [u64],
) -> bool {
    if !k.plan.isa.has_avx2() {
        return false;
    }
    // SAFETY: as in `dot`: the kernel's `isa` is supported by this CPU.
    unsafe { entry::gst_dots(k, t, rows, scales, c, d) };
    true
}
