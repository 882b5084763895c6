//! Many dot products at once: [`Kernel::dots`], and the lane-wise routine ("eight") of a unit,
//! which evaluates eight dot products together across AVX2 lanes ([`super::batch`]). The
//! matrix driver ([`crate::gemm`]) uses the same routine for eight columns of a row of D.

use super::{Isa, Kernel, Path};
use crate::unit::{DotUnit, ShapeError};

/// The operand rows of a multiple of eight dot products: row `j` is `words[j · stride ..][..
/// k]`. Rows of a batch of dot products follow each other (`stride = k`); a matrix product
/// shares one row of A between columns of B (`stride = 0`) and takes the columns of B at the
/// matrix's K.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    words: &'a [u64],
    stride: usize,
    k: usize,
    n: usize,
}

impl<'a> Rows<'a> {
    /// `n` rows (a multiple of 8); `None` when `words` is too short for them or `n` is not a
    /// multiple of 8.
    #[inline]
    pub fn new(words: &'a [u64], stride: usize, k: usize, n: usize) -> Option<Rows<'a>> {
        (n % 8 == 0 && (n == 0 || words.len() >= (n - 1) * stride + k)).then_some(Rows {
            words,
            stride,
            k,
            n,
        })
    }

    /// Elements per row.
    #[inline(always)]
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of rows.
    #[inline(always)]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Rows `8g .. 8g + 8`.
    #[inline(always)]
    pub fn group(&self, g: usize) -> Rows<'a> {
        assert!(8 * g + 8 <= self.n);
        Rows {
            words: &self.words[8 * g * self.stride..],
            stride: self.stride,
            k: self.k,
            n: 8,
        }
    }

    /// The words and the distance between rows.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(super) fn words(&self) -> &'a [u64] {
        self.words
    }

    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(super) fn stride(&self) -> usize {
        self.stride
    }

    /// Row `j`.
    #[inline(always)]
    pub fn row(&self, j: usize) -> &'a [u64] {
        &self.words[j * self.stride..j * self.stride + self.k]
    }
}

/// Dot products of one length `k` in groups of eight, no scale factors: `(kernel, a rows, b
/// rows, c, d)` with as many rows as C and D words, a multiple of 8. Lanes outside the
/// routine's common case, and a `k` it does not take, are computed by [`Kernel::dot`].
/// Compiled for [`super::Isa::Avx2`] (hence `unsafe`): planned only where the CPU has it,
/// which makes the call sound (SAFETY at each call).
pub(super) type Eight = unsafe fn(&Kernel, Rows<'_>, Rows<'_>, &[u64], &mut [u64]);

/// The scale factors of unscaled units, for [`Kernel::groups`].
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const NO_SCALES: (&[u64], &[u64], usize) = (&[], &[], 0);

/// As [`Eight`], with one scale factor per dot product and operand: `(kernel, a rows, b rows,
/// scale_a, scale_b, c, d)` (ST-FDPA with K equal to the scale block). `unsafe` for the same
/// reason (SAFETY at each call).
pub(super) type EightScaled =
    unsafe fn(&Kernel, Rows<'_>, Rows<'_>, &[u64], &[u64], &[u64], &mut [u64]);

impl Kernel {
    /// Whether [`Kernel::dots`] (and the matrix driver) evaluate dot products eight at a time
    /// across vector lanes.
    pub fn is_batched(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.lanes.g.is_some() {
            return true;
        }
        self.eight.is_some() || self.eight_scaled.is_some()
    }

    /// `n = c.len()` independent dot products of `k` elements: `d[i] = a_i·b_i + c[i]`, where
    /// `a_i = a[i·k .. (i+1)·k]` (likewise `b_i`) and, with block scaling, `s = scales_for(k)`
    /// scale factors per dot product in `scale_a` and `scale_b`. The fastest way to evaluate
    /// many dot products: where the model and formats allow, eight at a time across vector
    /// lanes, bit-identical to [`Kernel::dot`]. Operand encodings are not checked (see
    /// [`DotUnit::check`]); lengths are.
    #[allow(clippy::too_many_arguments)]
    pub fn dots(
        &self,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        let s = self.check_batch(k, a, b, c, scale_a, scale_b, d)?;
        let n = c.len();
        // Whole groups of eight through a lane routine where there is one.
        let whole = if k > 0 { n / 8 * 8 } else { 0 };
        let (Some(ra), Some(rb)) = (
            Rows::new(&a[..whole * k], k, k, whole),
            Rows::new(&b[..whole * k], k, k, whole),
        ) else {
            unreachable!("whole rows of k words: lengths checked above")
        };
        let (sa, sb) = (&scale_a[..whole * s], &scale_b[..whole * s]);
        let (cw, dw) = (&c[..whole], &mut d[..whole]);
        // SAFETY (all three calls): lane routines are planned only for `Isa::Avx2`, which
        // this CPU supports (`Kernel::for_isa`).
        let done = match (s, self.eight, self.eight_scaled) {
            (0, Some(run), _) => {
                unsafe { run(self, ra, rb, cw, dw) };
                true
            }
            (1, _, Some(run)) if k == self.unit.block => {
                unsafe { run(self, ra, rb, sa, sb, cw, dw) };
                true
            }
            // SAFETY: as above; `gst_dots` is compiled for `Isa::Avx2`.
            #[cfg(target_arch = "x86_64")]
            (1.., _, _) if self.isa == Isa::Avx2 => unsafe {
                self.gst_dots(ra, rb, sa, sb, cw, dw)
            },
            _ => false,
        };
        let first = if done { whole } else { 0 };
        for i in first..n {
            d[i] = self.dot(
                &a[i * k..(i + 1) * k],
                &b[i * k..(i + 1) * k],
                c[i],
                &scale_a[i * s..(i + 1) * s],
                &scale_b[i * s..(i + 1) * s],
            );
        }
        Ok(())
    }

    /// The operand lengths of a batch of `c.len()` dot products of `k` elements; the scale
    /// factors per dot product.
    #[allow(clippy::too_many_arguments)]
    fn check_batch(
        &self,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &[u64],
    ) -> Result<usize, ShapeError> {
        let n = c.len();
        let s = self.unit.scales_for(k);
        crate::unit::check_lengths(&[
            ("A", a.len(), n, k),
            ("B", b.len(), n, k),
            ("D", d.len(), n, 1),
            ("scale_a", scale_a.len(), n, s),
            ("scale_b", scale_b.len(), n, s),
        ])?;
        Ok(s)
    }

    /// GST-FDPA dot products of one block of four-bit elements with fp32 C and D, eight at a
    /// time ([`super::batch::gst`]); `false` (nothing written) where the unit, K or the
    /// output does not fit the lanes.
    /// # Safety
    /// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
    /// it was planned for that instruction set.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    unsafe fn gst_dots(
        &self,
        a: Rows<'_>,
        b: Rows<'_>,
        sa: &[u64],
        sb: &[u64],
        c: &[u64],
        d: &mut [u64],
    ) -> bool {
        use super::batch::gst;
        let k = a.k();
        let Some(t) = self.lanes.g else {
            return false;
        };
        if k != self.unit.block {
            return false;
        }
        let s = k / t.per;
        self.groups(
            a,
            b,
            (sa, sb, s),
            c,
            d,
            |ra, rb, (sa8, sb8), c8, d8| match k {
                64 => gst::<64, 4>(&t, ra, rb, sa8, sb8, c8, d8),
                32 => gst::<32, 2>(&t, ra, rb, sa8, sb8, c8, d8),
                16 => gst::<16, 1>(&t, ra, rb, sa8, sb8, c8, d8),
                _ => 0xff,
            },
        );
        true
    }

    /// [`Kernel::dots`] spread over threads: `threads` 0 uses rayon's global pool, 1 the
    /// calling thread, `t > 1` a pool of `t` threads (without the `parallel` feature, always
    /// the calling thread). Every dot product is computed by the same operations whatever the
    /// thread count, so `d` does not depend on it.
    #[allow(clippy::too_many_arguments)]
    pub fn dots_threaded(
        &self,
        threads: usize,
        k: usize,
        a: &[u64],
        b: &[u64],
        c: &[u64],
        scale_a: &[u64],
        scale_b: &[u64],
        d: &mut [u64],
    ) -> Result<(), ShapeError> {
        // Lengths first, so that every chunk below is well formed.
        let s = self.check_batch(k, a, b, c, scale_a, scale_b, d)?;
        // Dot products per task: a multiple of 8, large enough to amortise the task.
        const CHUNK: usize = 4096;
        crate::gemm::run(d, CHUNK, threads, |(t, dt)| {
            let (i0, i1) = (t * CHUNK, t * CHUNK + dt.len());
            self.dots(
                k,
                &a[i0 * k..i1 * k],
                &b[i0 * k..i1 * k],
                &c[i0..i1],
                &scale_a[i0 * s..i1 * s],
                &scale_b[i0 * s..i1 * s],
                dt,
            )
            .expect("chunks of checked lengths");
        });
        Ok(())
    }

    /// Dot products of one length in groups of eight (`c` and `d` hold as many words as `a` and
    /// `b` rows), without scale factors, lane-wise where the kernel has the routine.
    #[inline]
    pub(crate) fn eight(&self, a: Rows<'_>, b: Rows<'_>, c: &[u64], d: &mut [u64]) {
        let n = c.len();
        assert!(a.n() == n && b.n() == n && d.len() == n);
        match self.eight {
            Some(run) if a.k() > 0 && a.k() == b.k() && self.unit.formats.scale.is_none() => {
                // SAFETY: planned only for `Isa::Avx2`, which this CPU supports.
                unsafe { run(self, a, b, c, d) }
            }
            _ => {
                for (i, (di, &ci)) in d.iter_mut().zip(c).enumerate() {
                    *di = self.dot(a.row(i), b.row(i), ci, &[], &[]);
                }
            }
        }
    }

    /// Runs `eight` over each group of eight dot products (their rows, and their scale
    /// factors: `scales = (scale_a, scale_b, per dot product)`) and [`Kernel::dot`] over the
    /// lanes it flags.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    fn groups(
        &self,
        a: Rows<'_>,
        b: Rows<'_>,
        (sa, sb, s): (&[u64], &[u64], usize),
        c: &[u64],
        d: &mut [u64],
        eight: impl Fn(Rows<'_>, Rows<'_>, (&[u64], &[u64]), &[u64; 8], &mut [u64; 8]) -> u32,
    ) {
        for (g, (c8, d8)) in c.chunks_exact(8).zip(d.chunks_exact_mut(8)).enumerate() {
            let (ra, rb) = (a.group(g), b.group(g));
            let scales = (
                &sa[8 * g * s..8 * (g + 1) * s],
                &sb[8 * g * s..8 * (g + 1) * s],
            );
            let c8: &[u64; 8] = c8.try_into().expect("eight words");
            let d8: &mut [u64; 8] = d8.try_into().expect("eight words");
            let mut redo = eight(ra, rb, scales, c8, d8);
            while redo != 0 {
                let j = redo.trailing_zeros() as usize;
                redo &= redo - 1;
                let (sa_j, sb_j) = (&scales.0[j * s..(j + 1) * s], &scales.1[j * s..(j + 1) * s]);
                d8[j] = self.dot(ra.row(j), rb.row(j), c8[j], sa_j, sb_j);
            }
        }
    }
}

/// The lane parameters of a unit, prepared once with its kernel (the lane routines run per
/// group of eight dot products, and the matrix driver calls them per instruction step).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(super) struct Prepared {
    /// T-FDPA and ST-FDPA.
    t: Option<super::batch::TLanes>,
    /// ST-FDPA's scale decode table.
    st_scales: Option<super::table::Table8>,
    /// GST-FDPA.
    g: Option<super::batch::GLanes>,
}

/// [`Prepared`] for a unit and its chosen path.
#[cfg(target_arch = "x86_64")]
pub(super) fn prepare(unit: &DotUnit, path: &Path, isa: Isa) -> Prepared {
    use crate::unit::Model;
    if isa != Isa::Avx2 {
        return Prepared {
            t: None,
            st_scales: None,
            g: None,
        };
    }
    let f = &unit.formats;
    let t = match &unit.model {
        Model::TFdpa(m) => t_lanes(f, m.f, m.e_zero, &m.out),
        Model::StFdpa(m) => t_lanes(f, m.f, m.e_zero, &m.out),
        _ => None,
    };
    Prepared {
        t,
        st_scales: match &unit.model {
            Model::StFdpa(_) => f.scale.and_then(|(sf, _)| super::table::Table8::of(&sf)),
            _ => None,
        },
        g: gst_lanes(unit, path),
    }
}

/// The GST-FDPA lane parameters, where the unit has four-bit elements in groups of 16 with a
/// scale per 16 or 32 elements, fp32 C and D, an RZ/RNE fp32 output, and sums that the f64
/// lanes hold exactly.
#[cfg(target_arch = "x86_64")]
fn gst_lanes(unit: &DotUnit, path: &Path) -> Option<super::batch::GLanes> {
    use crate::format;
    let (Path::Gst(p), crate::unit::Model::GstFdpa(m)) = (path, &unit.model) else {
        return None;
    };
    let f = &unit.formats;
    let (Some((va, vb)), Some((sf, per)), Some((nearest, 23))) =
        (p.vals, f.scale, p.round.and_then(|r| r.lanes(&f.d)))
    else {
        return None;
    };
    if m.g != 16
        || !(per == 16 || per == 32)
        || unit.block % per != 0
        || f.c != format::FP32
        || f.d != format::FP32
    {
        return None;
    }
    // Exactness bounds of the f64 lanes (see `batch::gst`): a scaled group sum within
    // i32, and every aligned term below 2^50 so that five of them sum exactly.
    let max = |v: &[i8; 16]| v.iter().map(|x| x.unsigned_abs() as u64).max().unwrap_or(0);
    let sig_max = (1u64 << (sf.man_bits + 1)) - 1;
    let term = 16 * max(&va) * max(&vb) * sig_max * sig_max;
    let bits = 64 - term.leading_zeros() as i32;
    if term >= 1 << 31 || bits + p.lsb0 - p.ms + m.f as i32 > 50 {
        return None;
    }
    Some(super::batch::GLanes {
        f: m.f,
        e_zero: m.e_zero,
        lsb0: p.lsb0,
        ms: p.ms,
        nearest,
        per,
        scales: p.ts.0,
        va,
        vb,
    })
}

/// Calls `$table!` with every pair of the fp8/fp6/fp4 formats of `kind::f8f6f4` and
/// `kind::mxf8f6f4` (the [`VFmt`] names and the lane decoders of A and B), then `$extra`: the
/// one list of those pairs for every lane table.
#[cfg(target_arch = "x86_64")]
macro_rules! f8f6f4_pairs {
    ($table:ident $(, $extra:tt)*) => {
        $table!(
            (E4M3, E4M3, VE4M3, VE4M3),
            (E4M3, E5M2, VE4M3, VE5M2),
            (E4M3, E3M2, VE4M3, VE3M2),
            (E4M3, E2M3, VE4M3, VE2M3),
            (E4M3, E2M1, VE4M3, VE2M1),
            (E5M2, E4M3, VE5M2, VE4M3),
            (E5M2, E5M2, VE5M2, VE5M2),
            (E5M2, E3M2, VE5M2, VE3M2),
            (E5M2, E2M3, VE5M2, VE2M3),
            (E5M2, E2M1, VE5M2, VE2M1),
            (E3M2, E4M3, VE3M2, VE4M3),
            (E3M2, E5M2, VE3M2, VE5M2),
            (E3M2, E3M2, VE3M2, VE3M2),
            (E3M2, E2M3, VE3M2, VE2M3),
            (E3M2, E2M1, VE3M2, VE2M1),
            (E2M3, E4M3, VE2M3, VE4M3),
            (E2M3, E5M2, VE2M3, VE5M2),
            (E2M3, E3M2, VE2M3, VE3M2),
            (E2M3, E2M3, VE2M3, VE2M3),
            (E2M3, E2M1, VE2M3, VE2M1),
            (E2M1, E4M3, VE2M1, VE4M3),
            (E2M1, E5M2, VE2M1, VE5M2),
            (E2M1, E3M2, VE2M1, VE3M2),
            (E2M1, E2M3, VE2M1, VE2M3),
            (E2M1, E2M1, VE2M1, VE2M1),
            $($extra,)*
        )
    };
}

/// The lane-wise routine for a unit and its chosen path, where the build has one.
#[allow(unused_variables)]
pub(super) fn eight_of(unit: &DotUnit, path: &Path, isa: Isa) -> Option<Eight> {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 {
        use super::{fits32, simd, stage, VFmt};
        use crate::format;
        use crate::models::gtr_fdpa::GtrFdpa;
        use crate::models::tr_fdpa::TrFdpa;
        use crate::unit::Model;
        let f = &unit.formats;
        if f.scale.is_some() {
            return None;
        }
        match (path, &unit.model) {
            (&Path::Ftz(f16, _), Model::FtzMulAdd(m)) => {
                use super::amd::{Bf16In, F16In};
                return match (f16, unit.block, m.p) {
                    (true, 8, 4) => Some(ftz8::<8, 4, F16In> as Eight),
                    (true, 16, 4) => Some(ftz8::<16, 4, F16In> as Eight),
                    (true, 8, 2) => Some(ftz8::<8, 2, F16In> as Eight),
                    (true, 16, 2) => Some(ftz8::<16, 2, F16In> as Eight),
                    (false, 8, 4) => Some(ftz8::<8, 4, Bf16In> as Eight),
                    (false, 16, 4) => Some(ftz8::<16, 4, Bf16In> as Eight),
                    (false, 8, 2) => Some(ftz8::<8, 2, Bf16In> as Eight),
                    (false, 16, 2) => Some(ftz8::<16, 2, Bf16In> as Eight),
                    _ => None,
                };
            }
            // Any path: tf32 has no per-dot kernel but lanes.
            (_, Model::TFdpa(m))
                if f.c == f.d
                    && (f.d == format::FP32 || f.d == format::FP16)
                    && fits32(unit.block / 2, m.f) =>
            {
                use simd::*;
                use stage::FloatStage as Fs;
                // The output rounding has a lane form and F >= ma + mb.
                t_lanes(f, m.f, m.e_zero, &m.out)?;
                macro_rules! table {
                    ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
                        return match (VFmt::of(&f.a)?, VFmt::of(&f.b)?, unit.block) {
                            $(
                                (VFmt::$va, VFmt::$vb, 8) => Some(tfdpa8::<8, Fs<$ta, $tb>> as Eight),
                                (VFmt::$va, VFmt::$vb, 16) => Some(tfdpa8::<16, Fs<$ta, $tb>> as Eight),
                                (VFmt::$va, VFmt::$vb, 32) => Some(tfdpa8::<32, Fs<$ta, $tb>> as Eight),
                            )*
                            (VFmt::Tf32, VFmt::Tf32, 8) => Some(tfdpa8::<8, stage::Tf32Stage> as Eight),
                            (VFmt::Tf32, VFmt::Tf32, 16) => Some(tfdpa8::<16, stage::Tf32Stage> as Eight),
                            (VFmt::Tf32, VFmt::Tf32, 32) => Some(tfdpa8::<32, stage::Tf32Stage> as Eight),
                            _ => None,
                        }
                    };
                }
                // Every fp8/fp6/fp4 pair (`kind::f8f6f4`), fp16, bf16; tf32 by its own stage.
                f8f6f4_pairs!(table, (F16, F16, VF16, VF16), (Bf16, Bf16, VBf16, VBf16));
            }
            (Path::Tr(p), Model::TrFdpa(TrFdpa { out, .. }))
            | (Path::Gtr(p), Model::GtrFdpa(GtrFdpa { out, .. }))
                if fits32(unit.block / 2, p.params.f)
                    && !out.neg_zero_to_pos
                    && f.d == format::FP32
                    && p.round.and_then(|r| r.lanes(&f.d)) == Some((true, 23)) =>
            {
                let gtr = matches!(path, Path::Gtr(_));
                use simd::*;
                use stage::{FloatStage as Fs, IntStage as Is};
                macro_rules! table {
                    ($(($va:ident, $vb:ident, $st:ty)),* $(,)?) => {
                        return match (VFmt::of(&f.a)?, VFmt::of(&f.b)?, unit.block, gtr) {
                            $(
                                (VFmt::$va, VFmt::$vb, 8, false) => Some(tr8::<8, false, $st> as Eight),
                                (VFmt::$va, VFmt::$vb, 16, false) => Some(tr8::<16, false, $st> as Eight),
                                (VFmt::$va, VFmt::$vb, 8, true) => Some(tr8::<8, true, $st> as Eight),
                                (VFmt::$va, VFmt::$vb, 16, true) => Some(tr8::<16, true, $st> as Eight),
                            )*
                            _ => None,
                        }
                    };
                }
                // E5M2 FNUZ's top exponent code is finite: not an f16 exponent (integer stage).
                table!(
                    (F16, F16, Fs<VF16, VF16>),
                    (Bf16, Bf16, Fs<VBf16, VBf16>),
                    (E4M3Fnuz, E4M3Fnuz, Fs<VE4M3Fnuz, VE4M3Fnuz>),
                    (E5M2Fnuz, E5M2Fnuz, Is<VE5M2Fnuz, VE5M2Fnuz>),
                    (E4M3Fnuz, E5M2Fnuz, Is<VE4M3Fnuz, VE5M2Fnuz>),
                    (E5M2Fnuz, E4M3Fnuz, Is<VE5M2Fnuz, VE4M3Fnuz>),
                    (E4M3, E4M3, Fs<VE4M3, VE4M3>),
                    (E5M2, E5M2, Fs<VE5M2, VE5M2>),
                    (E4M3, E5M2, Fs<VE4M3, VE5M2>),
                    (E5M2, E4M3, Fs<VE5M2, VE4M3>),
                );
            }
            _ => {}
        }
    }
    None
}

/// The lane-wise ST-FDPA routine: one power-of-two scale per block (ue8m0, no zero codes) and
/// operand, fp32 C and D, the fp8/fp6/fp4 pairs of `kind::mxf8f6f4`.
#[allow(unused_variables)]
pub(super) fn eight_scaled_of(unit: &DotUnit, isa: Isa) -> Option<EightScaled> {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 {
        use super::{fits32, simd::*, stage::FloatStage as Fs, VFmt};
        use crate::format;
        use crate::unit::Model;
        let f = &unit.formats;
        let Model::StFdpa(m) = &unit.model else {
            return None;
        };
        let (sf, per) = f.scale?;
        if sf.man_bits != 0
            || per != unit.block
            || f.c != format::FP32
            || f.d != format::FP32
            || !fits32(unit.block / 2, m.f)
            || super::table::Table8::of(&sf).is_none()
        {
            return None;
        }
        t_lanes(f, m.f, m.e_zero, &m.out)?;
        macro_rules! table {
            ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
                return match (VFmt::of(&f.a)?, VFmt::of(&f.b)?, unit.block) {
                    $(
                        (VFmt::$va, VFmt::$vb, 32) => Some(st8::<32, Fs<$ta, $tb>> as EightScaled),
                    )*
                    _ => None,
                }
            };
        }
        f8f6f4_pairs!(table);
    }
    None
}

/// ST-FDPA over one block of `N` with one power-of-two scale per dot product and operand: the
/// T-FDPA lanes with every non-zero product's exponent raised by the scale pair's
/// ([`super::batch::tfdpa_chain_off`]); a NaN scale sends the lane to [`Kernel::dot`].
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn st8<const N: usize, S: super::stage::Stage>(
    kern: &Kernel,
    a: Rows<'_>,
    b: Rows<'_>,
    sa: &[u64],
    sb: &[u64],
    c: &[u64],
    d: &mut [u64],
) {
    use super::table::{self, Dec, SPECIAL};
    use core::arch::x86_64::_mm256_loadu_si256;
    let scales = (sa, sb, 1);
    let (Some(t), Some(ts)) = (kern.lanes.t, kern.lanes.st_scales) else {
        return kern.groups(a, b, scales, c, d, |_, _, _, _, _| 0xff);
    };
    if a.k() != N {
        return kern.groups(a, b, scales, c, d, |_, _, _, _, _| 0xff);
    }
    kern.groups(a, b, scales, c, d, |ra, rb, (sa8, sb8), c8, d8| {
        // The scale pairs' exponents (powers of two: no significand), NaN scales flagged.
        let mut off = [0i32; 8];
        let mut nan = 0u32;
        for j in 0..8 {
            let (qa, qb) = (ts.get(sa8[j]), ts.get(sb8[j]));
            off[j] = table::exp(qa) + table::exp(qb);
            nan |= (((qa | qb) & SPECIAL != 0) as u32) << j;
        }
        // SAFETY: an unaligned load of eight i32.
        let off = unsafe { _mm256_loadu_si256(off.as_ptr().cast()) };
        super::batch::tfdpa_chain_off::<N, S>(&t, ra, rb, off, c8, d8) | nan
    });
}

/// The T-FDPA lane parameters of a unit's formats, `F`, zero exponent and output, where the
/// output rounding has a lane form (RZ/RNE to an IEEE format of at most 32 bits) and
/// `F >= ma + mb`.
#[cfg(target_arch = "x86_64")]
fn t_lanes(
    f: &crate::model::Formats,
    f_bits: u32,
    e_zero: i32,
    out: &crate::model::Output,
) -> Option<super::batch::TLanes> {
    let fd = &f.d;
    let (nearest, man) = super::round::FastRound::new(out, fd)?.lanes(fd)?;
    Some(super::batch::TLanes {
        shift: f_bits.checked_sub(f.a.man_bits + f.b.man_bits)?,
        f: f_bits,
        e_zero,
        cd: super::batch::Ieee {
            exp: fd.exp_bits,
            man: fd.man_bits,
            bias: fd.bias,
        },
        nearest,
        man,
    })
}

/// FTZ-MulAdd over exactly one block of `N` ([`super::batch::ftz`]); it covers every input.
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn ftz8<const N: usize, const P: usize, D: super::batch::VH16>(
    kern: &Kernel,
    a: Rows<'_>,
    b: Rows<'_>,
    c: &[u64],
    d: &mut [u64],
) {
    match kern.path {
        Path::Ftz(_, nan) if a.k() == N => kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
            super::batch::ftz::<N, P, D>(a, b, c, nan, d);
            0
        }),
        _ => kern.groups(a, b, NO_SCALES, c, d, |_, _, _, _, _| 0xff),
    }
}

/// T-FDPA over a multiple of the block `N` ([`super::batch::tfdpa_chain`]).
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn tfdpa8<const N: usize, S: super::stage::Stage>(
    kern: &Kernel,
    a: Rows<'_>,
    b: Rows<'_>,
    c: &[u64],
    d: &mut [u64],
) {
    let Some(t) = kern.lanes.t else {
        return kern.groups(a, b, NO_SCALES, c, d, |_, _, _, _, _| 0xff);
    };
    if a.k() % N != 0 {
        return kern.groups(a, b, NO_SCALES, c, d, |_, _, _, _, _| 0xff);
    }
    kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
        super::batch::tfdpa_chain::<N, S>(&t, a, b, c, d)
    });
}

/// TR-FDPA (`GTR` false) or GTR-FDPA over a multiple of the block `N`
/// ([`super::batch::tr_chain`]).
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn tr8<const N: usize, const GTR: bool, S: super::stage::Stage>(
    kern: &Kernel,
    a: Rows<'_>,
    b: Rows<'_>,
    c: &[u64],
    d: &mut [u64],
) {
    let p = match kern.path {
        Path::Tr(p) if !GTR => p,
        Path::Gtr(p) if GTR => p,
        _ => return kern.groups(a, b, NO_SCALES, c, d, |_, _, _, _, _| 0xff),
    };
    if a.k() % N != 0 {
        return kern.groups(a, b, NO_SCALES, c, d, |_, _, _, _, _| 0xff);
    }
    let q = &p.params;
    let t = super::batch::TrLanes {
        f: q.f,
        f2: q.f2,
        e_zero_c: q.e_zero_c,
        e_norm_min: q.e_norm_min,
        e_prod_limit: q.e_prod_limit,
        c_drop: q.c_drop,
        shift: q.shift,
    };
    kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
        super::batch::tr_chain::<N, GTR, S>(&t, a, b, c, d)
    });
}
