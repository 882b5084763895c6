//! Fast paths of the hot models, bit-identical to the plain models they shadow.
//!
//! A [`Kernel`] is a [`DotUnit`] prepared once: its operand formats' decode tables
//! ([`table`]) and the specialised block routine its model allows. Every fast block handles the
//! common case only (all inputs finite, sums that fit in `i64`) and hands any other block to the
//! plain model ([`BlockModel::block`]), so the two agree by construction on specials; the tests
//! in `tests/fast_paths.rs` compare them on random inputs with specials and subnormals.
//!
//! Many dot products at once go through [`Kernel::dots`], which on AVX2 CPUs evaluates eight
//! of them at a time across vector lanes (`batch`, `stage`, `dots`). The instruction set is
//! chosen when the kernel is made ([`Isa::detect`], run-time CPU detection): the AVX2 code is
//! compiled with `#[target_feature]` in every build and taken only where the CPU has it.
//!
//! Why `i64` suffices in `tfdpa_block`: a product significand is below
//! `2^(ma+mb+2)` (each decoded significand is below `2^(m+1)`), and its exponent is at most
//! `e_max`, so after alignment to `F` fraction bits below `e_max` its magnitude is below
//! `2^(F+2)`; C's is below `2^(F+1)`. With at most [`MAX_BLOCK`]` = 64` products the sum stays
//! below `2^(F+9)`, and the kernel is only chosen for `F <= 48`.

mod amd;
#[cfg(target_arch = "x86_64")]
mod batch;
mod isa;
pub use isa::Isa;
mod dots;
mod gst;
pub use dots::Rows;
mod round;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(target_arch = "x86_64")]
mod stage;
mod table;
#[cfg(test)]
mod tests;

use crate::format::{self, Format};
use crate::model::{BlockIn, BlockModel, Formats, Output, MAX_BLOCK};
use crate::models::t_fdpa::TFdpa;
use crate::unit::{DotUnit, Model};
use crate::value::Value;
use gst::{gst_block, ts_man, values4};
use round::FastRound;
use table::{Bf16Dec, Dec, F16Dec, Table8, SPECIAL};

/// Largest `F` for which the `i64` sums of the fast paths cannot overflow (see module docs).
const MAX_FAST_F: u32 = 48;

#[derive(Clone, Copy, Debug)]
enum Path {
    Plain,
    TFdpa(TPath),
    Gst(GPath),
    /// FTZ-MulAdd in native fp32: fp16 (true) or bf16 operands, and the NaN bits of D.
    Ftz(bool, u64),
    Tr(TrPath),
    Gtr(TrPath),
    /// FMA chain with RNE in the machine's fused multiply-add: fp64 (true) or fp32 operands, C
    /// and D, and the NaN bits of D.
    Fma(bool, u64),
}

/// Prepared TR-FDPA or GTR-FDPA: decoders, parameters, the output rounding.
#[derive(Clone, Copy, Debug)]
struct TrPath {
    decs: Decs,
    params: amd::TrParams,
    round: Option<FastRound>,
    /// The vector dot product, where the build has one for the formats and block.
    vec: Option<VDot>,
}

/// Decoders of A and B.
#[derive(Clone, Copy, Debug)]
enum Decs {
    T8(Table8, Table8),
    F16,
    Bf16,
}

impl Decs {
    fn of(f: &Formats) -> Option<Decs> {
        if f.a == format::FP16 && f.b == format::FP16 {
            Some(Decs::F16)
        } else if f.a == format::BF16 && f.b == format::BF16 {
            Some(Decs::Bf16)
        } else {
            Some(Decs::T8(Table8::of(&f.a)?, Table8::of(&f.b)?))
        }
    }
}

/// Prepared T-FDPA: decoders, `shift = F - ma - mb`, the output rounding, and the A/B format
/// pair of the vector block where the build has one and the block fits its 32-bit lanes.
#[derive(Clone, Copy, Debug)]
struct TPath {
    decs: Decs,
    shift: u32,
    round: Option<FastRound>,
    vec: Option<VDot>,
}

/// A whole dot product through the vector block, monomorphised for a format pair and a block
/// length: no per-block dispatch. Compiled for [`Isa::Avx2`] (hence `unsafe`): a kernel holds
/// one only when the CPU has those features, which makes calling it sound (SAFETY at each
/// call).
type VDot = unsafe fn(&Kernel, &[u64], &[u64], u64) -> u64;

/// Formats the vector T-FDPA block decodes arithmetically (`simd::V`); unused in builds
/// without AVX2.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VFmt {
    F16,
    Bf16,
    E4M3,
    E5M2,
    E3M2,
    E2M3,
    E2M1,
    E4M3Fnuz,
    E5M2Fnuz,
    /// tf32 (the lane paths only: `stage::Tf32Stage`).
    Tf32,
}

impl VFmt {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn of(f: &Format) -> Option<VFmt> {
        let same = |g: &Format| table::same_encoding(f, g);
        [
            (format::FP16, VFmt::F16),
            (format::BF16, VFmt::Bf16),
            (format::E4M3, VFmt::E4M3),
            (format::E5M2, VFmt::E5M2),
            (format::E3M2, VFmt::E3M2),
            (format::E2M3, VFmt::E2M3),
            (format::E2M1, VFmt::E2M1),
            (format::E4M3_FNUZ, VFmt::E4M3Fnuz),
            (format::E5M2_FNUZ, VFmt::E5M2Fnuz),
            (format::TF32, VFmt::Tf32),
        ]
        .into_iter()
        .find_map(|(g, v)| same(&g).then_some(v))
    }

    /// The vector dot product for a unit's formats, block length and `F`, when the build has
    /// the vector block and the block's products fit its 32-bit lanes.
    #[allow(unused_variables)]
    fn vdot(f: &Formats, block: usize, f_bits: u32, isa: Isa) -> Option<VDot> {
        if isa != Isa::Avx2 || f.scale.is_some() || !fits32(block, f_bits) {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use simd::*;
            macro_rules! table {
                ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
                    match (VFmt::of(&f.a)?, VFmt::of(&f.b)?, block) {
                        $(
                            (VFmt::$va, VFmt::$vb, 8) => Some(vdot::<8, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 16) => Some(vdot::<16, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 32) => Some(vdot::<32, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 64) => Some(vdot::<64, $ta, $tb> as VDot),
                        )*
                        _ => None,
                    }
                };
            }
            table!(
                (F16, F16, VF16, VF16),
                (Bf16, Bf16, VBf16, VBf16),
                (E4M3, E4M3, VE4M3, VE4M3),
                (E5M2, E5M2, VE5M2, VE5M2),
                (E4M3, E5M2, VE4M3, VE5M2),
                (E5M2, E4M3, VE5M2, VE4M3),
                (E3M2, E3M2, VE3M2, VE3M2),
                (E2M3, E2M3, VE2M3, VE2M3),
                (E2M1, E2M1, VE2M1, VE2M1),
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// The vector dot product of a TR-FDPA (`gtr` false) or GTR-FDPA unit, as [`VFmt::vdot`].
    #[allow(unused_variables)]
    fn amd_vdot(f: &Formats, block: usize, f_bits: u32, is_gtr: bool, isa: Isa) -> Option<VDot> {
        if isa != Isa::Avx2 || f.scale.is_some() || !fits32(block, f_bits) {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use simd::*;
            macro_rules! table {
                ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
                    match (VFmt::of(&f.a)?, VFmt::of(&f.b)?, block, is_gtr) {
                        $(
                            (VFmt::$va, VFmt::$vb, 8, false) => Some(amd_dot::<8, false, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 16, false) => Some(amd_dot::<16, false, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 8, true) => Some(amd_dot::<8, true, $ta, $tb> as VDot),
                            (VFmt::$va, VFmt::$vb, 16, true) => Some(amd_dot::<16, true, $ta, $tb> as VDot),
                        )*
                        _ => None,
                    }
                };
            }
            table!(
                (F16, F16, VF16, VF16),
                (Bf16, Bf16, VBf16, VBf16),
                (E4M3Fnuz, E4M3Fnuz, VE4M3Fnuz, VE4M3Fnuz),
                (E5M2Fnuz, E5M2Fnuz, VE5M2Fnuz, VE5M2Fnuz),
                (E4M3Fnuz, E5M2Fnuz, VE4M3Fnuz, VE5M2Fnuz),
                (E5M2Fnuz, E4M3Fnuz, VE5M2Fnuz, VE4M3Fnuz),
                (E4M3, E4M3, VE4M3, VE4M3),
                (E5M2, E5M2, VE5M2, VE5M2),
                (E4M3, E5M2, VE4M3, VE5M2),
                (E5M2, E4M3, VE5M2, VE4M3),
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }
}

/// Whether `n` products with `F = f` sum within `i32` (the vector block's lanes): each
/// aligned product is below `2^(F+2)`.
fn fits32(n: usize, f: u32) -> bool {
    n <= MAX_BLOCK && f <= 29 && ((n as u64) << (f + 2)) <= 1 << 31
}

/// Prepared GST-FDPA: element and scale tables, the output rounding.
#[derive(Clone, Copy, Debug)]
struct GPath {
    ta: Table8,
    tb: Table8,
    ts: Table8,
    /// Exact signed products of every pair of 4-bit codes, in units of the smallest product
    /// quantum, when neither format has Inf/NaN codes.
    prods: Option<&'static [i32; 256]>,
    /// The codes' signed values of A and B for the vector group sums (`simd::gst4`), where
    /// their products are exactly `prods`.
    vals: Option<([i8; 16], [i8; 16])>,
    /// `min_lsb_exp(a) + min_lsb_exp(b)` and twice the scale format's mantissa bits.
    lsb0: i32,
    ms: i32,
    round: Option<FastRound>,
}

/// A [`DotUnit`] prepared for repeated evaluation; cheap to copy, built by [`DotUnit::kernel`].
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub unit: DotUnit,
    isa: Isa,
    path: Path,
    eight: Option<dots::Eight>,
    eight_scaled: Option<dots::EightScaled>,
    #[cfg(target_arch = "x86_64")]
    lanes: dots::Prepared,
}

impl Kernel {
    /// Prepares `unit`: picks the fast path its model and formats allow, for the best
    /// instruction set of this CPU ([`Isa::detect`]).
    pub fn new(unit: DotUnit) -> Kernel {
        Kernel::for_isa(unit, Isa::detect())
    }

    /// As [`Kernel::new`] for a given instruction set (the portable kernels on any CPU, to
    /// compare them with the vector ones); `None` where this CPU lacks it.
    pub fn with_isa(unit: DotUnit, isa: Isa) -> Option<Kernel> {
        isa.is_supported().then(|| Kernel::for_isa(unit, isa))
    }

    /// The instruction set this kernel's paths were compiled for.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The plan: every choice of path, table and lane routine, made once. `isa` must be
    /// supported by this CPU (the AVX2 routines are called on that premise).
    fn for_isa(unit: DotUnit, isa: Isa) -> Kernel {
        let f = &unit.formats;
        let path = match (&unit.model, Decs::of(f)) {
            (Model::TFdpa(m), Some(decs))
                if m.f <= MAX_FAST_F && m.f >= f.a.man_bits + f.b.man_bits =>
            {
                Path::TFdpa(TPath {
                    decs,
                    shift: m.f - f.a.man_bits - f.b.man_bits,
                    round: FastRound::new(&m.out, &f.d),
                    vec: VFmt::vdot(f, unit.block, m.f, isa),
                })
            }
            (Model::GstFdpa(m), Some(Decs::T8(ta, tb))) if m.f <= MAX_FAST_F && m.g <= 16 => {
                match f.scale.and_then(|(s, _)| Table8::of(&s)) {
                    Some(ts) if f.a.width() <= 4 && f.b.width() <= 4 => Path::Gst(GPath {
                        ta,
                        tb,
                        ts,
                        prods: table::products4(&f.a, &f.b),
                        vals: if isa == Isa::Avx2 {
                            values4(&f.a, &f.b)
                        } else {
                            None
                        },
                        lsb0: f.a.min_lsb_exp() + f.b.min_lsb_exp(),
                        ms: 2 * ts_man(f),
                        round: FastRound::new(&m.out, &f.d),
                    }),
                    _ => Path::Plain,
                }
            }
            (Model::FtzMulAdd(m), Some(d @ (Decs::F16 | Decs::Bf16)))
                if m.acc == format::FP32 && f.c == format::FP32 && f.d == format::FP32 =>
            {
                Path::Ftz(matches!(d, Decs::F16), m.nan.bits(&f.d))
            }
            (Model::TrFdpa(m), Some(decs))
                if tr_fits(m.f, m.f2, f) && f.c == format::FP32 && f.d == format::FP32 =>
            {
                Path::Tr(TrPath {
                    decs,
                    params: amd::TrParams::tr(m, f.a.man_bits, f.b.man_bits),
                    round: FastRound::new(&m.out, &f.d),
                    vec: VFmt::amd_vdot(f, unit.block, m.f, false, isa),
                })
            }
            (Model::GtrFdpa(m), Some(decs))
                if tr_fits(m.f, m.f2, f) && f.c == format::FP32 && f.d == format::FP32 =>
            {
                Path::Gtr(TrPath {
                    decs,
                    params: amd::TrParams::gtr(m, f.a.man_bits, f.b.man_bits),
                    round: FastRound::new(&m.out, &f.d),
                    vec: VFmt::amd_vdot(f, unit.block, m.f, true, isa),
                })
            }
            (Model::Fma(m), _) if m.mode == crate::round::Rounding::NearestEven => {
                let all = |g: Format| f.a == g && f.b == g && f.c == g && f.d == g;
                if all(format::FP64) {
                    Path::Fma(true, m.nan.bits(&f.d))
                } else if all(format::FP32) {
                    Path::Fma(false, m.nan.bits(&f.d))
                } else {
                    Path::Plain
                }
            }
            _ => Path::Plain,
        };
        let eight = dots::eight_of(&unit, &path, isa);
        let eight_scaled = dots::eight_scaled_of(&unit, isa);
        Kernel {
            unit,
            isa,
            path,
            eight,
            eight_scaled,
            #[cfg(target_arch = "x86_64")]
            lanes: dots::prepare(&unit, &path, isa),
        }
    }

    /// Whether a fast path was chosen (false: every block runs the plain model).
    pub fn is_fast(&self) -> bool {
        !matches!(self.path, Path::Plain)
    }

    /// Whether blocks run through a vector (AVX2) routine (GST-FDPA: for blocks of 16, 32 or 64
    /// elements in groups of 16).
    pub fn is_vector(&self) -> bool {
        matches!(
            self.path,
            Path::TFdpa(TPath { vec: Some(_), .. })
                | Path::Tr(TrPath { vec: Some(_), .. })
                | Path::Gtr(TrPath { vec: Some(_), .. })
                | Path::Gst(GPath { vals: Some(_), .. })
        )
    }

    /// One block, fast where possible.
    #[inline]
    pub fn block(&self, x: &BlockIn<'_>) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.isa == Isa::Avx2 {
            // SAFETY: the kernel was planned for `Isa::Avx2`, which this CPU supports.
            return unsafe { v3::block(self, x) };
        }
        self.block_any(x)
    }

    /// [`Kernel::block`], inlined into each instruction set's copy.
    #[inline(always)]
    fn block_any(&self, x: &BlockIn<'_>) -> u64 {
        let f = &self.unit.formats;
        let fast = match (&self.path, &self.unit.model) {
            (Path::TFdpa(p), Model::TFdpa(m)) => tfdpa_block(m, f, p, x),
            (Path::Gst(p), Model::GstFdpa(m)) => gst_block(m, f, p, x),
            (&Path::Fma(wide, nan), _) => {
                return if wide {
                    amd::fma_block::<f64>(nan, x)
                } else {
                    amd::fma_block::<f32>(nan, x)
                };
            }
            (&Path::Ftz(f16, nan), Model::FtzMulAdd(m)) => {
                return if f16 {
                    amd::ftz_block::<amd::F16In>(m, nan, x)
                } else {
                    amd::ftz_block::<amd::Bf16In>(m, nan, x)
                };
            }
            (Path::Tr(p), Model::TrFdpa(m)) => {
                let (pa, o, r) = (&p.params, &m.out, &p.round);
                match p.decs {
                    Decs::T8(da, db) => amd::tr_block(pa, o, &f.d, r, da, db, x),
                    Decs::F16 => amd::tr_block(pa, o, &f.d, r, F16Dec {}, F16Dec {}, x),
                    Decs::Bf16 => amd::tr_block(pa, o, &f.d, r, Bf16Dec {}, Bf16Dec {}, x),
                }
            }
            (Path::Gtr(p), Model::GtrFdpa(m)) => {
                let (pa, o, r) = (&p.params, &m.out, &p.round);
                match p.decs {
                    Decs::T8(da, db) => amd::gtr_block(pa, o, &f.d, r, da, db, x),
                    Decs::F16 => amd::gtr_block(pa, o, &f.d, r, F16Dec {}, F16Dec {}, x),
                    Decs::Bf16 => amd::gtr_block(pa, o, &f.d, r, Bf16Dec {}, Bf16Dec {}, x),
                }
            }
            _ => None,
        };
        match fast {
            Some(d) => d,
            None => self.unit.model.block(f, x),
        }
    }

    /// `d = a·b + c` over any K, as [`DotUnit::dot`].
    ///
    /// # Panics
    /// As [`DotUnit::dot`]: when the lengths of A, B and the scale lists do not fit.
    #[inline]
    #[track_caller]
    pub fn dot(&self, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
        self.unit.assert_lengths(a, b, sa, sb);
        #[cfg(target_arch = "x86_64")]
        if self.isa == Isa::Avx2 {
            // SAFETY: the kernel was planned for `Isa::Avx2`, which this CPU supports.
            return unsafe { v3::dot(self, a, b, c, sa, sb) };
        }
        self.dot_any(a, b, c, sa, sb)
    }

    /// [`Kernel::dot`] after the length check, inlined into each instruction set's copy.
    #[inline(always)]
    fn dot_any(&self, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
        let vec = match self.path {
            Path::TFdpa(TPath { vec, .. }) => vec,
            Path::Tr(TrPath { vec, .. }) | Path::Gtr(TrPath { vec, .. }) => vec,
            _ => None,
        };
        if let Some(g) = vec {
            // SAFETY: a vector routine is planned only for `Isa::Avx2` (`VFmt::vdot`), which
            // this CPU supports.
            return unsafe { g(self, a, b, c) };
        }
        self.unit.chain(a, b, c, sa, sb, |x| self.block_any(x))
    }
}

/// The per-dot entry points compiled for [`Isa::Avx2`]: the same code as the portable ones,
/// with the scalar kernels (inlined here) free to use BMI2 shifts, LZCNT, FMA and AVX2.
#[cfg(target_arch = "x86_64")]
mod v3 {
    use super::Kernel;
    use crate::model::BlockIn;

    /// # Safety
    /// The CPU must support [`super::Isa::Avx2`].
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    pub(super) unsafe fn dot(
        k: &Kernel,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
    ) -> u64 {
        k.dot_any(a, b, c, sa, sb)
    }

    /// # Safety
    /// The CPU must support [`super::Isa::Avx2`].
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    pub(super) unsafe fn block(k: &Kernel, x: &BlockIn<'_>) -> u64 {
        k.block_any(x)
    }
}

/// Whether a TR-FDPA or GTR-FDPA unit's widths keep the fast path's sums within `i64` (see
/// [`amd`]) and its alignment shifts non-negative.
fn tr_fits(f_bits: u32, f2: u32, f: &Formats) -> bool {
    f_bits <= 25 && f2 <= MAX_FAST_F && f2 + 1 >= f_bits && f_bits >= f.a.man_bits + f.b.man_bits
}

/// Decoded C: significand, scientific exponent (`e_zero` for a zero), sign; `None` for Inf/NaN.
/// IEEE formats (fp32, fp16, bf16) are decoded from their bits directly, the rest through
/// [`Format::decode`].
#[inline(always)]
fn c_term(x: &BlockIn<'_>, e_zero: i32) -> Option<(u64, i32, bool)> {
    let f = x.c_fmt;
    if f.specials == format::Specials::Ieee
        && f.signed
        && f.subnormals
        && f.lsb == 0
        && f.storage_bits <= 32
    {
        let top = (1u64 << f.exp_bits) - 1;
        let ef = (x.c >> f.man_bits) & top;
        let man = x.c & ((1u64 << f.man_bits) - 1);
        let neg = (x.c >> (f.exp_bits + f.man_bits)) & 1 != 0;
        if ef == top {
            return None;
        }
        let sig = man | ((ef != 0) as u64) << f.man_bits;
        if sig == 0 {
            return Some((0, e_zero, neg));
        }
        return Some((sig, ef.max(1) as i32 - f.bias, neg));
    }
    match x.c_fmt.decode(x.c) {
        Value::Finite { neg, sig, exp } => Some((sig, exp + x.c_fmt.man_bits as i32, neg)),
        Value::Zero { neg } => Some((0, e_zero, neg)),
        _ => None,
    }
}

/// C aligned to `f` fraction bits below `e_max`, truncated toward zero (magnitude).
#[inline(always)]
fn c_aligned(sig: u64, e: i32, man_bits: u32, f: u32, e_max: i32) -> u64 {
    let d = (e_max - e) as u32;
    if f >= man_bits {
        (sig << (f - man_bits)) >> d.min(63)
    } else {
        sig >> (man_bits - f + d).min(63)
    }
}

/// Applies a sign bit (0 or 1) to a magnitude.
#[inline(always)]
fn signed(mag: u64, neg: u32) -> i64 {
    let s = -(neg as i64);
    (mag as i64 ^ s) - s
}

/// T-FDPA over one block, all inputs finite: dispatches on the block length so that the
/// per-product arrays have a length known at compile time (filled without zeroing first).
#[inline(always)]
fn tfdpa_block(m: &TFdpa, f: &Formats, p: &TPath, x: &BlockIn<'_>) -> Option<u64> {
    match p.decs {
        Decs::T8(da, db) => tfdpa_len(m, f, p, da, db, x),
        Decs::F16 => tfdpa_len(m, f, p, F16Dec {}, F16Dec {}, x),
        Decs::Bf16 => tfdpa_len(m, f, p, Bf16Dec {}, Bf16Dec {}, x),
    }
}

/// `d = a·b + c` through the vector block (a [`VDot`]): K a multiple of the block `N`, each
/// block with Inf/NaN handed to the plain model; any other K through [`DotUnit::chain`].
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn vdot<const N: usize, A: simd::VDec, B: simd::VDec>(
    k: &Kernel,
    a: &[u64],
    b: &[u64],
    c: u64,
) -> u64 {
    let (Path::TFdpa(p), Model::TFdpa(m)) = (&k.path, &k.unit.model) else {
        return k.unit.chain(a, b, c, &[], &[], |x| k.block_any(x));
    };
    if a.is_empty() || a.len() % N != 0 || b.len() != a.len() {
        return k.unit.chain(a, b, c, &[], &[], |x| k.block_any(x));
    }
    let f = &k.unit.formats;
    let block = |x: &BlockIn<'_>| match tfdpa_v::<N, A, B>(m, f, p, x) {
        Some(d) => d,
        None => m.block(f, x),
    };
    chain_fixed::<N>(f, a, b, c, block)
}

/// Chains blocks of exactly `N` elements (the caller checked that `N` divides K), with the
/// single-block case first; `block` is inlined into each monomorphised caller.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn chain_fixed<const N: usize>(
    f: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    block: impl Fn(&BlockIn<'_>) -> u64,
) -> u64 {
    let one = |a, b, c, c_fmt| BlockIn {
        a,
        b,
        c,
        c_fmt,
        scale_a: &[],
        scale_b: &[],
    };
    if a.len() == N {
        // One block, the common case (K equal to the block).
        return block(&one(a, b, c, &f.c));
    }
    let mut acc = c;
    let mut c_fmt = &f.c;
    for (ca, cb) in a.chunks_exact(N).zip(b.chunks_exact(N)) {
        acc = block(&one(ca, cb, acc, c_fmt));
        c_fmt = &f.d;
    }
    acc
}

/// `d = a·b + c` through the vector TR-FDPA (`GTR` false) or GTR-FDPA block, as [`vdot`].
/// # Safety
/// The CPU must support [`Isa::Avx2`](super::Isa::Avx2): a kernel holds this routine only when
/// it was planned for that instruction set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn amd_dot<const N: usize, const GTR: bool, A: simd::VDec, B: simd::VDec>(
    k: &Kernel,
    a: &[u64],
    b: &[u64],
    c: u64,
) -> u64 {
    let (p, out) = match (&k.path, &k.unit.model) {
        (Path::Tr(p), Model::TrFdpa(m)) if !GTR => (p, &m.out),
        (Path::Gtr(p), Model::GtrFdpa(m)) if GTR => (p, &m.out),
        _ => return k.unit.chain(a, b, c, &[], &[], |x| k.block_any(x)),
    };
    if a.is_empty() || a.len() % N != 0 || b.len() != a.len() {
        return k.unit.chain(a, b, c, &[], &[], |x| k.block_any(x));
    }
    let f = &k.unit.formats;
    // Inlined in both uses (a closure was left out of line: a call and spills per dot).
    #[inline(always)]
    fn run<const N: usize, const GTR: bool, A: simd::VDec, B: simd::VDec>(
        k: &Kernel,
        p: &TrPath,
        out: &Output,
        x: &BlockIn<'_>,
    ) -> u64 {
        let f = &k.unit.formats;
        let r = if GTR {
            amd::gtr_v::<N, A, B>(&p.params, out, &f.d, &p.round, x)
        } else {
            amd::tr_v::<N, A, B>(&p.params, out, &f.d, &p.round, x)
        };
        match r {
            Some(d) => d,
            None => k.unit.model.block(f, x),
        }
    }
    let block = |x: &BlockIn<'_>| run::<N, GTR, A, B>(k, p, out, x);
    chain_fixed::<N>(f, a, b, c, block)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tfdpa_v<const N: usize, A: simd::VDec, B: simd::VDec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let (c_sig, c_e, c_neg) = c_term(x, m.e_zero)?;
    let bias = A::BIAS + B::BIAS;
    let r = simd::tfdpa::<N, A, B>(a, b, p.shift, m.e_zero + bias, c_e + bias)?;
    let e_max = r.e_max - bias;
    let sum = signed(
        c_aligned(c_sig, c_e, x.c_fmt.man_bits, m.f, e_max),
        c_neg as u32,
    ) + r.sum;
    Some(finish(
        &m.out,
        &f.d,
        &p.round,
        sum,
        e_max - m.f as i32,
        r.all_neg && c_neg,
    ))
}

#[inline(always)]
fn tfdpa_len<DA: Dec, DB: Dec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match x.a.len() {
        4 => tfdpa_n::<4, DA, DB>(m, f, p, da, db, x),
        8 => tfdpa_n::<8, DA, DB>(m, f, p, da, db, x),
        16 => tfdpa_n::<16, DA, DB>(m, f, p, da, db, x),
        32 => tfdpa_n::<32, DA, DB>(m, f, p, da, db, x),
        64 => tfdpa_n::<64, DA, DB>(m, f, p, da, db, x),
        _ => None,
    }
}

#[inline(always)]
fn tfdpa_n<const N: usize, DA: Dec, DB: Dec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    // Straight loops over arrays of compile-time length, which the compiler turns into SIMD
    // code where the target has variable vector shifts (AVX2).
    let mut ea = [0u32; N];
    let mut eb = [0u32; N];
    for k in 0..N {
        ea[k] = da.get(a[k]);
        eb[k] = db.get(b[k]);
    }
    let mut any = 0u32;
    let mut all_neg = 1u32;
    let mut s = [0u32; N];
    let mut e = [0i32; N];
    for k in 0..N {
        any |= ea[k] | eb[k];
        all_neg &= table::neg(ea[k] ^ eb[k]);
        s[k] = table::sig(ea[k]) * table::sig(eb[k]);
        let sum_e = table::exp(ea[k]) + table::exp(eb[k]);
        e[k] = if s[k] == 0 { m.e_zero } else { sum_e };
    }
    if any & SPECIAL != 0 {
        return None;
    }
    let (c_sig, c_e, c_neg) = c_term(x, m.e_zero)?;
    let mut e_max = c_e;
    for &ek in &e {
        e_max = e_max.max(ek);
    }
    all_neg &= c_neg as u32;
    let mut sum = signed(
        c_aligned(c_sig, c_e, x.c_fmt.man_bits, m.f, e_max),
        c_neg as u32,
    );
    for k in 0..N {
        let d = ((e_max - e[k]) as u32).min(63);
        let mag = ((s[k] as u64) << p.shift) >> d;
        sum += signed(mag, table::neg(ea[k] ^ eb[k]));
    }
    Some(finish(
        &m.out,
        &f.d,
        &p.round,
        sum,
        e_max - m.f as i32,
        all_neg == 1,
    ))
}

/// Rounds and encodes a fast path's sum, through [`FastRound`] where the output allows.
#[inline(always)]
pub(crate) fn finish(
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    sum: i64,
    exp: i32,
    zero_neg: bool,
) -> u64 {
    match fr {
        Some(r) => r.round(sum, exp, zero_neg),
        None => round::reference(out, d, sum, exp, zero_neg),
    }
}
