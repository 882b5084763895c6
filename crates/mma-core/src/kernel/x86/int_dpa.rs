//! I-DPA's rows of dot products ([`scalar::int_dpa::int_dots`]) compiled for the vector
//! instruction set the kernel was planned for: the portable body unchanged, in copies with
//! `#[target_feature]` (AVX-512 BW/VL for sixteen 32-bit lanes, AVX2 for eight), so that the
//! compiler vectorizes its decode and `i32` sums with the wider registers. No intrinsics: the
//! loop is a plain integer reduction, which the compiler vectorizes as well as a hand-written
//! one. Soundness: `x86/mod.rs`.

use crate::kernel::plan::IPath;
use crate::kernel::scalar::int_dpa;
use crate::kernel::words::Word;
use crate::kernel::{Isa, Kernel};

/// # Safety
/// Compiled for AVX2: the CPU must have it.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn dots_avx2<W: Word>(
    k: &Kernel,
    p: &IPath,
    kk: usize,
    a: &[W],
    b: &[W],
    c: &[u64],
    d: &mut [u64],
) {
    int_dpa::int_dots(p, &k.unit.formats, k.unit.block, kk, a, b, c, d)
}

/// # Safety
/// Compiled for AVX-512 (F, BW, DQ, VL) with AVX2: the CPU must have them.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi1,bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn dots_avx512<W: Word>(
    k: &Kernel,
    p: &IPath,
    kk: usize,
    a: &[W],
    b: &[W],
    c: &[u64],
    d: &mut [u64],
) {
    int_dpa::int_dots(p, &k.unit.formats, k.unit.block, kk, a, b, c, d)
}

/// `c.len()` I-DPA dot products of `kk` elements: the copy for the kernel's instruction set.
#[allow(clippy::too_many_arguments)]
pub(in crate::kernel) fn int_dots<W: Word>(
    k: &Kernel,
    p: &IPath,
    kk: usize,
    a: &[W],
    b: &[W],
    c: &[u64],
    d: &mut [u64],
) {
    match k.plan.isa {
        // SAFETY: a kernel's `isa` is one this CPU supports (`Kernel::new` takes
        // `Isa::detect`, `Kernel::with_isa` checks `Isa::is_supported`); `Isa::Avx512` is
        // planned only where the CPU has AVX-512 F/BW/DQ/VL and AVX2.
        Isa::Avx512 => unsafe { dots_avx512(k, p, kk, a, b, c, d) },
        // SAFETY: as above, and the kernel's `isa` has AVX2.
        i if i.has_avx2() => unsafe { dots_avx2(k, p, kk, a, b, c, d) },
        _ => int_dpa::int_dots(p, &k.unit.formats, k.unit.block, kk, a, b, c, d),
    }
}
