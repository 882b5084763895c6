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
mod plan;
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
use gst::gst_block;
use plan::{Decs, GPath, Path, Plan, TPath};
use round::FastRound;
use table::{Bf16Dec, Dec, F16Dec, SPECIAL};

/// A [`DotUnit`] prepared for repeated evaluation; cheap to copy, built by [`DotUnit::kernel`].
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub unit: DotUnit,
    /// Every choice, made once (`plan.rs`); the routines below are what `x86/` compiled for
    /// the plan's keys.
    plan: Plan,
    /// The vector block of one dot product.
    vdot: Option<x86::VDot>,
    eight: Option<x86::Eight>,
    /// The lane routine compiled for the operands' storage width (`Kernel::dots`).
    eight_stored: Option<x86::Stored>,
    eight_scaled: Option<x86::EightScaled>,
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
        self.plan.isa
    }

    /// The kernel of `unit` for `isa`, which must be supported by this CPU (the AVX2 routines
    /// are called on that premise): the plan, and the routines `x86/` compiled for its keys.
    fn for_isa(unit: DotUnit, isa: Isa) -> Kernel {
        let plan = Plan::new(&unit, isa);
        let (eight, eight_stored) = match plan.lanes.and_then(|key| x86::eight_of(key, isa)) {
            Some((eight, stored)) => (Some(eight), stored),
            None => (None, None),
        };
        Kernel {
            unit,
            vdot: plan.vdot.and_then(|key| x86::vdot_of(key, isa)),
            eight,
            eight_stored,
            eight_scaled: plan.st.and_then(|key| x86::eight_scaled_of(key, isa)),
            plan,
        }
    }

    /// Whether a fast path was chosen (false: every block runs the plain model).
    pub fn is_fast(&self) -> bool {
        !matches!(self.plan.path, Path::Plain)
    }

    /// Whether blocks run through a vector (AVX2) routine (GST-FDPA: for blocks of 16, 32 or 64
    /// elements in groups of 16).
    pub fn is_vector(&self) -> bool {
        self.vdot.is_some() || matches!(self.plan.path, Path::Gst(GPath { vals: Some(_), .. }))
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
        let fast = match (&self.plan.path, &self.unit.model) {
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
        if let Some(v) = self.vdot {
            return v.call(self, a, b, c);
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
