//! Fast paths of the hot models, bit-identical to the plain models they shadow.
//!
//! A [`Kernel`] is a [`DotUnit`] prepared once: its operand formats' decode tables
//! ([`table`]) and the specialised block routine its model allows. Every fast block handles the
//! common case only (all inputs finite, sums that fit in `i64`) and hands any other block to the
//! plain model ([`BlockModel::block`]), so the two agree by construction on specials; the tests
//! in `tests/fast_paths.rs` compare them on random inputs with specials and subnormals.
//!
//! Many dot products at once go through [`Kernel::dots`], which on AVX2 CPUs evaluates eight
//! of them at a time across vector lanes (`dots.rs`, and the routines of `x86/`). The instruction set is
//! chosen when the kernel is made ([`Isa::detect`], run-time CPU detection): the AVX2 code is
//! compiled with `#[target_feature]` in every build and taken only where the CPU has it.
//!
//! Why `i64` suffices in `tfdpa_block`: a product significand is below
//! `2^(ma+mb+2)` (each decoded significand is below `2^(m+1)`), and its exponent is at most
//! `e_max`, so after alignment to `F` fraction bits below `e_max` its magnitude is below
//! `2^(F+2)`; C's is below `2^(F+1)`. With at most [`MAX_BLOCK`]` = 64` products the sum stays
//! below `2^(F+9)`, and the kernel is only chosen for `F <= 48`.

mod amd;
mod dots;
mod gst;
mod isa;
mod round;
mod table;
// The one gate of machine-specific code: `x86/` on x86-64, a stand-in without routines
// elsewhere (same names; `Isa::detect` never returns `Isa::Avx2` there).
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(not(target_arch = "x86_64"))]
#[path = "no_x86.rs"]
mod x86;

pub use dots::{Rows, Word};
pub use isa::Isa;
#[cfg(test)]
mod tests;

use crate::format::{self, Format};
use crate::model::{BlockIn, BlockModel, Formats, Output};
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
    vec: Option<x86::VDot>,
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
    vec: Option<x86::VDot>,
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
    eight: Option<x86::Eight>,
    /// The lane routine compiled for the operands' storage width (`Kernel::dots`).
    eight_stored: Option<x86::Stored>,
    eight_scaled: Option<x86::EightScaled>,
    lanes: x86::Prepared,
}

impl DotUnit {
    /// The unit prepared for repeated evaluation (decode tables, fast block routine); defined
    /// here so that `unit.rs` does not depend on the kernel.
    pub fn kernel(&self) -> Kernel {
        Kernel::new(*self)
    }
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
                    vec: x86::vdot_for(f, unit.block, m.f, isa),
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
                    vec: x86::amd_vdot_for(f, unit.block, m.f, false, isa),
                })
            }
            (Model::GtrFdpa(m), Some(decs))
                if tr_fits(m.f, m.f2, f) && f.c == format::FP32 && f.d == format::FP32 =>
            {
                Path::Gtr(TrPath {
                    decs,
                    params: amd::TrParams::gtr(m, f.a.man_bits, f.b.man_bits),
                    round: FastRound::new(&m.out, &f.d),
                    vec: x86::amd_vdot_for(f, unit.block, m.f, true, isa),
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
        let (eight, eight_stored) = match x86::eight_of(&unit, &path, isa) {
            Some((eight, stored)) => (Some(eight), stored),
            None => (None, None),
        };
        let eight_scaled = x86::eight_scaled_of(&unit, isa);
        Kernel {
            unit,
            isa,
            path,
            eight,
            eight_stored,
            eight_scaled,
            lanes: x86::prepare(&unit, &path, isa),
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
        x86::block(self, x)
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
        x86::dot(self, a, b, c, sa, sb)
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
            return g.call(self, a, b, c);
        }
        self.unit.chain(a, b, c, sa, sb, |x| self.block_any(x))
    }
}

/// Zero-extends `x` into `out` (of the same length): a loop the compiler vectorises.
#[inline(always)]
fn widen_words<W: Copy + Into<u64>>(x: &[W], out: &mut [u64]) {
    for (o, &w) in out.iter_mut().zip(x) {
        *o = w.into();
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
