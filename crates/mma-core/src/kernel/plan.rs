//! The plan: every choice a [`Kernel`](super::Kernel) makes, made once per unit, here.
//!
//! [`Plan::new`] looks at the unit (model, formats, block length, output) and the instruction
//! set, in this order:
//!
//! 1. the per-dot path ([`Path`]): which scalar block routine of `kernel/` the model and formats
//!    allow (T-FDPA, and the passes of Sliced-FDPA, with `F <= 48` and `F >= ma + mb`;
//!    GST-FDPA with four-bit elements; CDNA2 FTZ-MulAdd with fp16/bf16 into fp32; TR/GTR-FDPA
//!    within the `i64` bounds of [`tr_fits`]; E-FDPA; FMA chains in fp32 or fp64 with RNE;
//!    I-DPA with elements of at most eight bits, [`IPath::of`]), or the plain model;
//! 2. for the vector instruction sets ([`Isa::Avx2`], [`Isa::Avx512`]) only: the vector block
//!    of one dot product ([`VDotKey`]), the lane family that evaluates a group of dot products
//!    per vector (eight or sixteen; [`LaneKey`], [`StKey`]) and the
//!    parameters of the lane arithmetic ([`TLanes`], [`GLanes`]), each under the exactness bound
//!    its comment states.
//!
//! The keys name routines without holding them: `x86/` maps a key to its compiled routine (or
//! to none, where no routine is compiled for that pair of formats and block length) and decides
//! nothing else; on other architectures no key is made. Every condition under which a fast
//! path may be taken is in this file.

use super::round::FastRound;
use super::table::{self, Table8};
use super::Isa;
use crate::format::{self, Format};
use crate::model::{Formats, Output, MAX_BLOCK};
use crate::models::gtr_fdpa::GtrFdpa;
use crate::models::int_dpa::{IDpa, IntOp};
use crate::models::tr_fdpa::TrFdpa;
use crate::unit::{DotUnit, Model};

/// Largest `F` for which the `i64` sums of the fast paths cannot overflow (see `kernel/mod.rs`).
pub(super) const MAX_FAST_F: u32 = 48;

/// Every choice of a kernel (see the module docs).
// Read only by the lane routines of `x86/`.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    pub(super) isa: Isa,
    pub(super) path: Path,
    /// The vector block of one dot product.
    pub(super) vdot: Option<VDotKey>,
    /// The lane family of unscaled dot products.
    pub(super) lanes: Option<LaneKey>,
    /// The lane family of ST-FDPA dot products with one scale per block.
    pub(super) st: Option<StKey>,
    /// T-FDPA and ST-FDPA lane parameters.
    pub(super) t: Option<TLanes>,
    /// ST-FDPA's scale decode table.
    pub(super) st_scales: Option<Table8>,
    /// GST-FDPA lane parameters.
    pub(super) g: Option<GLanes>,
}

/// The per-dot path of a unit.
#[derive(Clone, Copy, Debug)]
pub(super) enum Path {
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
    /// E-FDPA: the exact sum in `i128`, rounded by the reference routine
    /// (`kernel/scalar/e_fdpa.rs`).
    EFdpa(Decs),
    /// Sliced-FDPA: each pass through the T-FDPA kernel, prepared for the pass
    /// (`kernel/scalar/sliced.rs`).
    Sliced(TPath),
    /// I-DPA with elements of at most eight bits and C and D of at most 32: the exact sum in
    /// `i32` partial sums and an `i64` total (`kernel/scalar/int_dpa.rs`).
    Int(IPath),
}

/// Prepared I-DPA ([`IPath::of`]): the decoders of A and B, XOR or products, and D's range.
#[derive(Clone, Copy, Debug)]
pub(super) struct IPath {
    pub(super) a: IntDec,
    pub(super) b: IntDec,
    /// `a XOR b` (`.xor.popc`) rather than `a·b`.
    pub(super) xor: bool,
    /// One clamp to `[lo, hi]` (`.satfinite`) rather than the wrap to D's width.
    pub(super) saturate: bool,
    pub(super) lo: i64,
    pub(super) hi: i64,
    /// D's width as a word mask.
    pub(super) mask: u64,
}

/// How the word of an integer format of at most eight bits decodes without a branch: the
/// value is `((w as u16 & mask) << shift) as i16 >> shift` (signed: `mask` all ones and
/// `shift = 16 - width`, the arithmetic shift extending the sign; unsigned: `mask` the width's
/// bits, `shift = 0`), the bits above the width ignored as [`Format::int_value`] ignores them.
#[derive(Clone, Copy, Debug)]
pub(super) struct IntDec {
    pub(super) mask: u16,
    pub(super) shift: u16,
}

impl IntDec {
    fn of(f: &Format) -> Option<IntDec> {
        let w = f.width();
        if !f.integer || !(1..=8).contains(&w) {
            return None;
        }
        Some(if f.signed {
            IntDec {
                mask: u16::MAX,
                shift: 16 - w as u16,
            }
        } else {
            IntDec {
                mask: (1 << w) - 1,
                shift: 0,
            }
        })
    }
}

impl IPath {
    /// The fast I-DPA path, where its sums are exact in `i64`: elements of at most eight bits
    /// (each term below `2^16` in magnitude, so that 64 of them sum within `i32`), C and D
    /// integers of at most 32 bits, no scale factors.
    fn of(m: &IDpa, unit: &DotUnit) -> Option<IPath> {
        let f = &unit.formats;
        let small = |g: &Format| g.integer && (1..=32).contains(&g.width());
        if !small(&f.c) || !small(&f.d) || f.scale.is_some() || unit.block == 0 {
            return None;
        }
        let (lo, hi) = f.d.int_range()?;
        Some(IPath {
            a: IntDec::of(&f.a)?,
            b: IntDec::of(&f.b)?,
            xor: m.op == IntOp::Xor,
            saturate: m.saturate,
            lo,
            hi,
            mask: (1u64 << f.d.width()) - 1,
        })
    }
}

/// Prepared TR-FDPA or GTR-FDPA: decoders, parameters, the output rounding.
#[derive(Clone, Copy, Debug)]
pub(super) struct TrPath {
    pub(super) decs: Decs,
    pub(super) params: TrParams,
    pub(super) round: Option<FastRound>,
}

/// Decoders of A and B.
#[derive(Clone, Copy, Debug)]
pub(super) enum Decs {
    T8(Table8, Table8),
    F16,
    Bf16,
    /// tf32 in fp32 words (NVIDIA tf32, AMD xf32): [`table::Tf32Dec`].
    Tf32,
}

impl Decs {
    fn of(f: &Formats) -> Option<Decs> {
        if f.a == format::FP16 && f.b == format::FP16 {
            Some(Decs::F16)
        } else if f.a == format::BF16 && f.b == format::BF16 {
            Some(Decs::Bf16)
        } else if table::same_encoding(&f.a, &format::TF32)
            && table::same_encoding(&f.b, &format::TF32)
        {
            Some(Decs::Tf32)
        } else {
            Some(Decs::T8(Table8::of(&f.a)?, Table8::of(&f.b)?))
        }
    }
}

/// Prepared T-FDPA: decoders, `shift = F - ma - mb`, the output rounding.
#[derive(Clone, Copy, Debug)]
pub(super) struct TPath {
    pub(super) decs: Decs,
    pub(super) shift: u32,
    pub(super) round: Option<FastRound>,
}

/// Prepared GST-FDPA: element and scale tables, the output rounding.
#[derive(Clone, Copy, Debug)]
pub(super) struct GPath {
    pub(super) ta: Table8,
    pub(super) tb: Table8,
    pub(super) ts: Table8,
    /// Exact signed products of every pair of 4-bit codes, in units of the smallest product
    /// quantum, when neither format has Inf/NaN codes.
    pub(super) prods: Option<&'static [i32; 256]>,
    /// The codes' signed values of A and B for the vector group sums (`simd::gst4`), where
    /// their products are exactly `prods`; only in a plan for a vector instruction set.
    pub(super) vals: Option<([i8; 16], [i8; 16])>,
    /// `min_lsb_exp(a) + min_lsb_exp(b)` and twice the scale format's mantissa bits.
    pub(super) lsb0: i32,
    pub(super) ms: i32,
    pub(super) round: Option<FastRound>,
}

/// Formats the vector code decodes arithmetically; the keys name routines by them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VFmt {
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
    pub(super) fn of(f: &Format) -> Option<VFmt> {
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
}

/// Which model a vector block of one dot product computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VModel {
    TFdpa,
    Tr,
    Gtr,
}

/// The vector block of one dot product: model, formats of A and B, block length `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct VDotKey {
    pub(super) model: VModel,
    pub(super) a: VFmt,
    pub(super) b: VFmt,
    pub(super) n: usize,
}

/// A lane family of unscaled dot products and what its routine is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LaneKey {
    /// FMA chain: fp64 (true) or fp32.
    Fma { wide: bool },
    /// FTZ-MulAdd: fp16 (true) or bf16, block `n`, pairing `p`.
    Ftz { f16: bool, n: usize, p: usize },
    /// T-FDPA with C and D of one format (fp32 or fp16), block `n`.
    TFdpa { a: VFmt, b: VFmt, n: usize },
    /// E-FDPA of fp16 or bf16 into fp32 with RNE, block `n`.
    EFdpa { a: VFmt, b: VFmt, n: usize },
    /// TR-FDPA (`gtr` false) or GTR-FDPA into fp32, block `n`.
    Tr {
        a: VFmt,
        b: VFmt,
        n: usize,
        gtr: bool,
    },
}

/// The ST-FDPA lanes: one power-of-two scale per block of `n` and operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StKey {
    pub(super) a: VFmt,
    pub(super) b: VFmt,
    pub(super) n: usize,
}

/// An IEEE binary format of at most 32 bits (fp32 or fp16) in the lanes: exponent and mantissa
/// bits, bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ieee {
    pub(super) exp: u32,
    pub(super) man: u32,
    pub(super) bias: i32,
}

/// A T-FDPA unit prepared for the lanes: `shift = F - ma - mb`, `F`, the zero exponent, the
/// format of C and D (the same: a block's D is the next block's C), and the output rounding
/// (RZ or RNE to `man` fraction bits with D's exponent range, widened to D's mantissa).
// Read only by the lane routines (`lanes/`).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(super) struct TLanes {
    pub(super) shift: u32,
    pub(super) f: u32,
    pub(super) e_zero: i32,
    pub(super) cd: Ieee,
    pub(super) nearest: bool,
    pub(super) man: u32,
    /// C is fp16 and D fp32: the lanes widen the first block's C (a subnormal one, whose
    /// exponent the model takes from fp16's field, goes to the per-dot kernel).
    pub(super) c_fp16: bool,
}

/// A GST-FDPA unit (groups of 16 four-bit elements without Inf/NaN codes) prepared for the
/// lanes: `F`, the zero exponent, `lsb0` (the smallest product quantum's exponent), `ms` (twice
/// the scale format's mantissa bits), the output rounding (RZ or RNE to fp32), the scale
/// format's decode table and the elements' signed values for the vector group sums.
// Read only by the GST-FDPA lanes (`lanes/gst.rs`), which the stand-in leaf does not compile.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(super) struct GLanes {
    pub(super) f: u32,
    pub(super) e_zero: i32,
    pub(super) lsb0: i32,
    pub(super) ms: i32,
    pub(super) nearest: bool,
    /// Elements per scale factor: 16 or 32 (a multiple of the group of 16).
    pub(super) per: usize,
    pub(super) scales: &'static [u32; 256],
    pub(super) va: [i8; 16],
    pub(super) vb: [i8; 16],
}

impl Plan {
    /// The plan of `unit` for `isa` (which the caller has confirmed this CPU supports).
    pub(super) fn new(unit: &DotUnit, isa: Isa) -> Plan {
        let path = per_dot_path(unit, isa);
        if isa.lanes() == 0 {
            return Plan {
                isa,
                path,
                vdot: None,
                lanes: None,
                st: None,
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
        let st_scales = match &unit.model {
            Model::StFdpa(_) => f.scale.and_then(|(sf, _)| Table8::of(&sf)),
            _ => None,
        };
        Plan {
            isa,
            path,
            // The per-dot vector block is compiled for AVX2 only; GST-FDPA's lanes for every
            // vector instruction set (AVX2 and AVX-512 through AVX2's, NEON).
            vdot: vdot_key(unit, &path).filter(|_| isa.has_avx2()),
            lanes: lane_key(unit, &path, t.is_some()),
            st: st_key(unit, t.is_some() && st_scales.is_some()),
            t,
            st_scales,
            g: gst_lanes(unit, &path),
        }
    }
}

/// The length of the last block the TR-FDPA/GTR-FDPA lanes take besides whole blocks (see
/// [`Plan::lanes_take`]).
pub(super) const TR_SHORT: usize = 4;

impl Plan {
    /// Whether the lane routine of this plan (where `x86/` compiled one) takes dot products of
    /// `k` elements; every other K runs one dot product at a time. The lanes chain whole blocks
    /// of the key's `n` (FMA chains: any K); TR/GTR-FDPA also a last block of [`TR_SHORT`] (the
    /// chain's shorter last block, as in CDNA3's `_2b`/`_4b`/`_16b` forms: K = 4, blocks of 8);
    /// FTZ-MulAdd, ST-FDPA and GST-FDPA exactly one block (`block`, the unit's).
    pub(super) fn lanes_take(&self, block: usize, k: usize) -> bool {
        if k == 0 {
            return false;
        }
        if let Some(st) = self.st {
            return k == st.n;
        }
        if self.g.is_some() {
            return k == block;
        }
        match self.lanes {
            Some(LaneKey::Fma { .. }) => true,
            Some(LaneKey::Ftz { n, .. }) => k == n,
            Some(LaneKey::TFdpa { n, .. } | LaneKey::EFdpa { n, .. }) => k.is_multiple_of(n),
            Some(LaneKey::Tr { n, .. }) => {
                k.is_multiple_of(n) || (n > TR_SHORT && k % n == TR_SHORT)
            }
            None => false,
        }
    }
}

/// Step 1: the per-dot path.
fn per_dot_path(unit: &DotUnit, isa: Isa) -> Path {
    let f = &unit.formats;
    match (&unit.model, Decs::of(f)) {
        (Model::TFdpa(m), Some(decs))
            if m.f <= MAX_FAST_F && m.f >= f.a.man_bits + f.b.man_bits =>
        {
            Path::TFdpa(TPath {
                decs,
                shift: m.f - f.a.man_bits - f.b.man_bits,
                round: FastRound::new(&m.out, &f.d),
            })
        }
        // The per-dot GST block holds at most `MAX_BLOCK / 4 + 1` group terms
        // (`scalar/gst.rs`): groups shorter than four in a long block go to the plain model, as
        // does an open question's `group_floor` (a second pass no fast path has).
        (Model::GstFdpa(m), Some(Decs::T8(ta, tb)))
            if m.group_floor.is_none()
                && m.f <= MAX_FAST_F
                && m.g <= 16
                && m.g > 0
                && unit.block.div_ceil(m.g) <= MAX_BLOCK / 4 =>
        {
            match f.scale.and_then(|(s, _)| Table8::of(&s)) {
                Some(ts) if f.a.width() <= 4 && f.b.width() <= 4 => Path::Gst(GPath {
                    ta,
                    tb,
                    ts,
                    prods: table::products4(&f.a, &f.b),
                    vals: if isa.has_avx2() {
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
                params: TrParams::tr(m, f.a.man_bits, f.b.man_bits),
                round: FastRound::new(&m.out, &f.d),
            })
        }
        // A block-scaled GTR-FDPA (CDNA4 `v_mfma_scale_*`) goes to the plain model: the fast
        // GTR block applies no scale factors.
        (Model::GtrFdpa(m), Some(decs))
            if f.scale.is_none()
                && tr_fits(m.f, m.f2, f)
                && f.c == format::FP32
                && f.d == format::FP32 =>
        {
            Path::Gtr(TrPath {
                decs,
                params: TrParams::gtr(m, f.a.man_bits, f.b.man_bits),
                round: FastRound::new(&m.out, &f.d),
            })
        }
        (Model::EFdpa(_), Some(decs)) => Path::EFdpa(decs),
        (Model::SlicedFdpa(m), Some(decs))
            if m.pass.f <= MAX_FAST_F && m.pass.f >= f.a.man_bits + f.b.man_bits =>
        {
            Path::Sliced(TPath {
                decs,
                shift: m.pass.f - f.a.man_bits - f.b.man_bits,
                round: FastRound::new(&m.pass.out, &f.d),
            })
        }
        (Model::IDpa(m), _) => IPath::of(m, unit).map_or(Path::Plain, Path::Int),
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
    }
}

/// Whether a TR-FDPA or GTR-FDPA unit's widths keep the fast path's sums within `i64` (see
/// `kernel/scalar/tr_fdpa.rs`) and its alignment shifts non-negative.
fn tr_fits(f_bits: u32, f2: u32, f: &Formats) -> bool {
    f_bits <= 25 && f2 <= MAX_FAST_F && f2 + 1 >= f_bits && f_bits >= f.a.man_bits + f.b.man_bits
}

/// Whether `n` products with `F = f` sum within `i32` (the vector block's lanes): each
/// aligned product is below `2^(F+2)`.
fn fits32(n: usize, f: u32) -> bool {
    n <= MAX_BLOCK && f <= 29 && ((n as u64) << (f + 2)) <= 1 << 31
}

/// Step 2a: the vector block of one dot product (T-FDPA, TR/GTR-FDPA; no scale factors), where
/// the whole block sums within `i32`.
fn vdot_key(unit: &DotUnit, path: &Path) -> Option<VDotKey> {
    let f = &unit.formats;
    let (model, f_bits) = match (path, &unit.model) {
        (Path::TFdpa(_), Model::TFdpa(m)) => (VModel::TFdpa, m.f),
        (Path::Tr(_), Model::TrFdpa(m)) => (VModel::Tr, m.f),
        (Path::Gtr(_), Model::GtrFdpa(m)) => (VModel::Gtr, m.f),
        _ => return None,
    };
    if f.scale.is_some() || !fits32(unit.block, f_bits) {
        return None;
    }
    Some(VDotKey {
        model,
        a: VFmt::of(&f.a)?,
        b: VFmt::of(&f.b)?,
        n: unit.block,
    })
}

/// Step 2b: the lane family of unscaled dot products. The lanes sum half a block in `i32`
/// (two halves per block), hence `fits32(block / 2, F)`.
fn lane_key(unit: &DotUnit, path: &Path, has_t_lanes: bool) -> Option<LaneKey> {
    let f = &unit.formats;
    if f.scale.is_some() {
        return None;
    }
    let pair = || Some((VFmt::of(&f.a)?, VFmt::of(&f.b)?));
    match (path, &unit.model) {
        (&Path::Fma(wide, _), Model::Fma(_)) => Some(LaneKey::Fma { wide }),
        (&Path::Ftz(f16, _), Model::FtzMulAdd(m)) => Some(LaneKey::Ftz {
            f16,
            n: unit.block,
            p: m.p,
        }),
        // Any path: the lanes have their own bounds (below), not the per-dot kernel's. C of
        // D's format, or fp16 C with fp32 D (Volta), widened by the lane routine.
        (_, Model::TFdpa(m))
            if (f.c == f.d || (f.c == format::FP16 && f.d == format::FP32))
                && (f.d == format::FP32 || f.d == format::FP16)
                && fits32(unit.block / 2, m.f)
                && has_t_lanes =>
        {
            let (a, b) = pair()?;
            Some(LaneKey::TFdpa {
                a,
                b,
                n: unit.block,
            })
        }
        (Path::EFdpa(_), Model::EFdpa(m)) if efdpa_lanes(unit, &m.out) => {
            let (a, b) = pair()?;
            Some(LaneKey::EFdpa {
                a,
                b,
                n: unit.block,
            })
        }
        (Path::Tr(p), Model::TrFdpa(m)) if tr_lanes(unit, p, &m.out) => {
            let (a, b) = pair()?;
            let n = unit.block;
            Some(LaneKey::Tr {
                a,
                b,
                n,
                gtr: false,
            })
        }
        (Path::Gtr(p), Model::GtrFdpa(m)) if tr_lanes(unit, p, &m.out) => {
            let (a, b) = pair()?;
            let n = unit.block;
            Some(LaneKey::Tr { a, b, n, gtr: true })
        }
        _ => None,
    }
}

/// Whether a TR/GTR-FDPA unit's output has the lanes' form: RNE to fp32 with signed zeros kept,
/// half-block sums within `i32`.
fn tr_lanes(unit: &DotUnit, p: &TrPath, out: &Output) -> bool {
    let f = &unit.formats;
    fits32(unit.block / 2, p.params.f)
        && !out.neg_zero_to_pos
        && f.d == format::FP32
        && p.round.and_then(|r| r.lanes(&f.d)) == Some((true, 23))
}

/// Whether an E-FDPA unit has the lanes' form (`lanes/e_fdpa.rs`): fp32 C and D, RNE to fp32
/// with IEEE subnormals and signed zeros kept (what the conversion from `f64` does).
fn efdpa_lanes(unit: &DotUnit, out: &Output) -> bool {
    let f = &unit.formats;
    f.c == format::FP32
        && f.d == format::FP32
        && !out.neg_zero_to_pos
        && FastRound::new(out, &f.d).and_then(|r| r.lanes(&f.d)) == Some((true, 23))
}

/// Step 2c: the ST-FDPA lanes: one power-of-two scale (no mantissa bits, a decode table) per
/// block and operand, fp32 C and D, T-FDPA lane parameters.
fn st_key(unit: &DotUnit, has_lanes: bool) -> Option<StKey> {
    let f = &unit.formats;
    let Model::StFdpa(m) = &unit.model else {
        return None;
    };
    let (sf, per) = f.scale?;
    let fits = sf.man_bits == 0
        && per == unit.block
        && f.c == format::FP32
        && f.d == format::FP32
        && fits32(unit.block / 2, m.f);
    (fits && has_lanes).then_some(StKey {
        a: VFmt::of(&f.a)?,
        b: VFmt::of(&f.b)?,
        n: unit.block,
    })
}

/// The T-FDPA lane parameters of a unit's formats, `F`, zero exponent and output, where the
/// output rounding has a lane form (RZ/RNE to an IEEE format of at most 32 bits) and
/// `F >= ma + mb`.
fn t_lanes(f: &Formats, f_bits: u32, e_zero: i32, out: &Output) -> Option<TLanes> {
    let fd = &f.d;
    let (nearest, man) = FastRound::new(out, fd)?.lanes(fd)?;
    Some(TLanes {
        shift: f_bits.checked_sub(f.a.man_bits + f.b.man_bits)?,
        f: f_bits,
        e_zero,
        cd: Ieee {
            exp: fd.exp_bits,
            man: fd.man_bits,
            bias: fd.bias,
        },
        nearest,
        man,
        c_fp16: f.c == format::FP16 && fd == &format::FP32,
    })
}

/// The GST-FDPA lane parameters, where the unit has four-bit elements in groups of 16 with a
/// scale per 16 or 32 elements, fp32 C and D, an RZ/RNE fp32 output, and sums that the f64
/// lanes hold exactly.
fn gst_lanes(unit: &DotUnit, path: &Path) -> Option<GLanes> {
    let (Path::Gst(p), Model::GstFdpa(m)) = (path, &unit.model) else {
        return None;
    };
    let f = &unit.formats;
    let (Some((va, vb)), Some((sf, per)), Some((nearest, 23))) = (
        values4(&f.a, &f.b),
        f.scale,
        p.round.and_then(|r| r.lanes(&f.d)),
    ) else {
        return None;
    };
    if m.g != 16
        || !(per == 16 || per == 32)
        || !unit.block.is_multiple_of(per)
        || f.c != format::FP32
        || f.d != format::FP32
    {
        return None;
    }
    // Exactness bounds of the f64 lanes (see `lanes/batch.rs`, `gst`): a scaled group sum
    // within i32, and every aligned term below 2^50 so that five of them sum exactly.
    let max = |v: &[i8; 16]| v.iter().map(|x| x.unsigned_abs() as u64).max().unwrap_or(0);
    let sig_max = (1u64 << (sf.man_bits + 1)) - 1;
    let term = 16 * max(&va) * max(&vb) * sig_max * sig_max;
    let bits = 64 - term.leading_zeros() as i32;
    if term >= 1 << 31 || bits + p.lsb0 - p.ms + m.f as i32 > 50 {
        return None;
    }
    Some(GLanes {
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

/// The parameters of the late C addition, for both models.
#[derive(Clone, Copy, Debug)]
pub struct TrParams {
    pub f: u32,
    pub f2: u32,
    pub e_zero_c: i32,
    pub e_norm_min: i32,
    /// Products with scientific exponent at or above this go to the plain model.
    pub e_prod_limit: i32,
    /// GTR-FDPA: C is dropped below `e_max - c_drop`.
    pub c_drop: Option<u32>,
    /// `F - ma - mb`: the left shift of a product significand to `F` fraction bits.
    pub shift: u32,
}

impl TrParams {
    pub fn tr(m: &TrFdpa, ma: u32, mb: u32) -> TrParams {
        TrParams {
            f: m.f,
            f2: m.f2,
            e_zero_c: m.e_zero_c,
            e_norm_min: m.e_norm_min,
            e_prod_limit: m.product_inf_exp.map_or(i32::MAX, |t| t - 1),
            c_drop: None,
            shift: m.f - ma - mb,
        }
    }

    pub fn gtr(m: &GtrFdpa, ma: u32, mb: u32) -> TrParams {
        TrParams {
            f: m.f,
            f2: m.f2,
            e_zero_c: m.e_zero_c,
            e_norm_min: m.e_norm_min,
            e_prod_limit: i32::MAX,
            c_drop: Some(m.c_drop),
            shift: m.f - ma - mb,
        }
    }
}

/// The vector GST-FDPA tables of A and B (`table::values4`), only where their products are
/// exactly the scalar path's product table.
fn values4(fa: &Format, fb: &Format) -> Option<([i8; 16], [i8; 16])> {
    let (va, vb) = (table::values4(fa)?, table::values4(fb)?);
    let pt = table::products4(fa, fb)?;
    (0..256)
        .all(|i| va[i >> 4] as i32 * vb[i & 15] as i32 == pt[i])
        .then_some((va, vb))
}

fn ts_man(f: &Formats) -> i32 {
    f.scale.map_or(0, |(s, _)| s.man_bits as i32)
}
