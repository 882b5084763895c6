//! Fast paths of the hot models, bit-identical to the plain models they shadow.
//!
//! A [`Kernel`] is a [`DotUnit`] prepared once: its operand formats' decode tables
//! ([`table`]) and the specialised block routine its model allows. Every fast block handles the
//! common case only (all inputs finite, sums that fit in `i64`) and hands any other block to the
//! plain model ([`BlockModel::block`]), so the two agree by construction on specials; the tests
//! in `tests/fast_paths.rs` compare them on random inputs with specials and subnormals.
//!
//! Many dot products at once go through [`Kernel::dots`], which on AVX2 CPUs evaluates eight
//! of them at a time across vector lanes, and sixteen on AVX-512 CPUs (`dots.rs`, and the
//! routines of `x86/`). The instruction set is chosen when the kernel is made
//! ([`Isa::detect`], run-time CPU detection): the vector code is compiled with
//! `#[target_feature]` in every build and taken only where the CPU has it.
//!
//! The layout, ground to roof (each file names only those below it; ARCHITECTURE.md): `words.rs`
//! the operand words, `table.rs` and `round.rs` the decode tables and the fast output rounding,
//! `isa.rs`, and `plan.rs`, which makes every choice once per unit ([`Plan`]); `scalar/` the
//! portable per-block kernels by model; `x86/` every intrinsic (the AVX2 copies of the per-dot
//! kernels, the vector block, the lanes), behind the one `cfg` below; this file (the per-dot
//! dispatch) and `dots.rs` (every batch driver).

mod dots;
mod isa;
mod plan;
mod round;
pub(crate) use round::FastRound;
mod lanes;
mod scalar;
mod table;
mod words;
// The one gate of machine-specific code: the leaf `arch` of this target, `x86/` on x86-64,
// `aarch64/` on AArch64, the stand-in without routines elsewhere (`no_vector.rs`: the same
// names; `Isa::detect` never returns a vector instruction set there). `aarch64/` takes the
// stand-in's names for what it does not compile.
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
use x86 as arch;
#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
use aarch64 as arch;
#[cfg(not(target_arch = "x86_64"))]
mod no_vector;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
use no_vector as arch;

pub(crate) use arch::{host_binary32_is_ieee, GemmLanes};
pub use isa::Isa;
pub use words::{GemmIn, Rows, Word};
// Checks of the building blocks, run by `tests/internal_checks.rs` (see `models/fma.rs`).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks;

use crate::model::{BlockIn, BlockModel};
use crate::unit::{DotUnit, Model};
use plan::{Decs, GPath, Path, Plan};
use scalar::int_dpa::int_block;
use scalar::{e_fdpa::efdpa_block, fma, ftz_mul_add, gst::gst_block, sliced::sliced_block};
use scalar::{t_fdpa::tfdpa_block, tr_fdpa};
use table::{Bf16Dec, F16Dec, Tf32Dec};

/// A [`DotUnit`] prepared for repeated evaluation; cheap to copy, built by [`DotUnit::kernel`].
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub unit: DotUnit,
    /// Every choice, made once (`plan.rs`); the routines below are what `x86/` compiled for
    /// the plan's keys.
    plan: Plan,
    /// The vector block of one dot product.
    vdot: Option<arch::VDot>,
    lane_routine: Option<arch::LaneRoutine>,
    /// The lane routine compiled for the operands' storage width (`Kernel::dots`).
    lane_stored: Option<arch::Stored>,
    lane_scaled: Option<arch::LaneRoutineScaled>,
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
        let (lane_routine, lane_stored) =
            match plan.lanes.and_then(|key| arch::lane_routine_of(key, isa)) {
                Some((routine, stored)) => (Some(routine), stored),
                None => (None, None),
            };
        Kernel {
            unit,
            vdot: plan.vdot.and_then(|key| arch::vdot_of(key, isa)),
            lane_routine,
            lane_stored,
            lane_scaled: plan.st.and_then(|key| arch::lane_scaled_of(key, isa)),
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

    /// The matrix driver's lane path for an `n`-column B of depth `k` (`b_cols`, column by
    /// column) and instructions of `k_step` (`x86/gemm.rs`: A and B decoded once); `None`
    /// where this kernel has none.
    pub(crate) fn gemm_lanes(
        &self,
        nk: (usize, usize),
        k_step: usize,
        b_cols: &[u64],
    ) -> Option<GemmLanes> {
        arch::gemm_lanes(self, nk, k_step, b_cols)
    }

    /// One block, fast where possible. Not `#[inline]`, as [`Kernel::dot_scaled`].
    pub fn block(&self, x: &BlockIn<'_>) -> u64 {
        arch::block(self, x)
    }

    /// [`Kernel::block`], inlined into each instruction set's copy.
    #[inline(always)]
    fn block_any(&self, x: &BlockIn<'_>) -> u64 {
        let f = &self.unit.formats;
        let fast = match (&self.plan.path, &self.unit.model) {
            (Path::TFdpa(p), Model::TFdpa(m)) => tfdpa_block(m, f, p, x),
            (Path::Gst(p), Model::GstFdpa(m)) => {
                // The vector group sums, planned (`vals`) only for a vector instruction set;
                // `None` from them: a block length they do not take.
                let v = match (&p.vals, m.g) {
                    (Some((va, vb)), 16) => arch::gst_v(m, f, p, va, vb, x),
                    _ => None,
                };
                match v {
                    Some(d) => d,
                    None => gst_block(m, f, p, x),
                }
            }
            (&Path::EFdpa(decs), Model::EFdpa(m)) => efdpa_block(m, f, decs, x),
            (Path::Sliced(p), Model::SlicedFdpa(m)) => sliced_block(m, f, p, x),
            (Path::Int(p), Model::IDpa(_)) => return int_block(p, x),
            (&Path::Fma(wide, nan), _) => {
                return if wide {
                    fma::fma_block::<f64>(nan, x)
                } else {
                    fma::fma_block::<f32>(nan, x)
                };
            }
            (&Path::Ftz(f16, nan), Model::FtzMulAdd(m)) => {
                return if f16 {
                    ftz_mul_add::ftz_block::<ftz_mul_add::F16In>(m, nan, x)
                } else {
                    ftz_mul_add::ftz_block::<ftz_mul_add::Bf16In>(m, nan, x)
                };
            }
            (Path::Tr(p), Model::TrFdpa(m)) => {
                let (pa, o, r) = (&p.params, &m.out, &p.round);
                match p.decs {
                    Decs::T8(da, db) => tr_fdpa::tr_block(pa, o, &f.d, r, da, db, x),
                    Decs::F16 => tr_fdpa::tr_block(pa, o, &f.d, r, F16Dec {}, F16Dec {}, x),
                    Decs::Bf16 => tr_fdpa::tr_block(pa, o, &f.d, r, Bf16Dec {}, Bf16Dec {}, x),
                    Decs::Tf32 => tr_fdpa::tr_block(pa, o, &f.d, r, Tf32Dec, Tf32Dec, x),
                }
            }
            (Path::Gtr(p), Model::GtrFdpa(m)) => {
                let (pa, o, r) = (&p.params, &m.out, &p.round);
                match p.decs {
                    Decs::T8(da, db) => tr_fdpa::gtr_block(pa, o, &f.d, r, da, db, x),
                    Decs::F16 => tr_fdpa::gtr_block(pa, o, &f.d, r, F16Dec {}, F16Dec {}, x),
                    Decs::Bf16 => tr_fdpa::gtr_block(pa, o, &f.d, r, Bf16Dec {}, Bf16Dec {}, x),
                    Decs::Tf32 => tr_fdpa::gtr_block(pa, o, &f.d, r, Tf32Dec, Tf32Dec, x),
                }
            }
            _ => None,
        };
        match fast {
            Some(d) => d,
            None => self.unit.model.block(f, x),
        }
    }

    /// `d = a·b + c` over any K, as [`DotUnit::dot`] (a unit without scale factors).
    ///
    /// # Panics
    /// As [`DotUnit::dot`]: when the lengths of A and B differ, or the unit takes scale factors.
    #[inline]
    #[track_caller]
    pub fn dot(&self, a: &[u64], b: &[u64], c: u64) -> u64 {
        self.dot_scaled(a, b, c, &[], &[])
    }

    /// `d = a·b + c` over any K with the scale factors of A's row and B's column, as
    /// [`DotUnit::dot_scaled`].
    ///
    /// # Panics
    /// As [`DotUnit::dot_scaled`]: when the lengths of A, B and the scale lists do not fit.
    // Not `#[inline]`: below it the portable path inlines every model's block, and an inline
    // copy of it made each crate that calls it (the CLI, the record readers, every test binary,
    // the Python module) compile the whole portable kernel again; inside this crate the
    // compiler still inlines it where it pays (docs/performance.md, "Build time").
    #[track_caller]
    pub fn dot_scaled(&self, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
        self.unit.assert_lengths(a, b, sa, sb);
        arch::dot(self, a, b, c, sa, sb)
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
