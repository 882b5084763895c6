//! A whole instruction's arithmetic: the model, its block length, and the K-chaining and
//! matrix-level drivers.

use crate::format::Format;
use crate::model::{BlockIn, BlockModel, Formats};
use crate::models::e_fdpa::EFdpa;
use crate::models::fma::Fma;
use crate::models::ftz_mul_add::FtzMulAdd;
use crate::models::gst_fdpa::GstFdpa;
use crate::models::gtr_fdpa::GtrFdpa;
use crate::models::int_dpa::IDpa;
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::models::st_fdpa::StFdpa;
use crate::models::t_fdpa::TFdpa;
use crate::models::tr_fdpa::TrFdpa;
use crate::trace::{Explanation, Num, Step, Trace, Tracer};

/// Every arithmetic model of the family, with its parameters as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    Fma(Fma),
    EFdpa(EFdpa),
    TFdpa(TFdpa),
    StFdpa(StFdpa),
    GstFdpa(GstFdpa),
    SlicedFdpa(SlicedFdpa),
    FtzMulAdd(FtzMulAdd),
    TrFdpa(TrFdpa),
    GtrFdpa(GtrFdpa),
    IDpa(IDpa),
}

impl Model {
    /// The model's name as the papers write it.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Fma(_) => "FMA",
            Model::EFdpa(_) => "E-FDPA",
            Model::TFdpa(_) => "T-FDPA",
            Model::StFdpa(_) => "ST-FDPA",
            Model::GstFdpa(_) => "GST-FDPA",
            Model::SlicedFdpa(_) => "Sliced-FDPA",
            Model::FtzMulAdd(_) => "FTZ-MulAdd",
            Model::TrFdpa(_) => "TR-FDPA",
            Model::GtrFdpa(_) => "GTR-FDPA",
            Model::IDpa(_) => "I-DPA",
        }
    }
}

impl Model {
    /// [`BlockModel::block`], telling `t` each step the model takes.
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        match self {
            Model::Fma(m) => m.block_traced(f, x, t),
            Model::EFdpa(m) => m.block_traced(f, x, t),
            Model::TFdpa(m) => m.block_traced(f, x, t),
            Model::StFdpa(m) => m.block_traced(f, x, t),
            Model::GstFdpa(m) => m.block_traced(f, x, t),
            Model::SlicedFdpa(m) => m.block_traced(f, x, t),
            Model::FtzMulAdd(m) => m.block_traced(f, x, t),
            Model::TrFdpa(m) => m.block_traced(f, x, t),
            Model::GtrFdpa(m) => m.block_traced(f, x, t),
            Model::IDpa(m) => m.block_traced(f, x, t),
        }
    }
}

impl BlockModel for Model {
    // Not `#[inline]`: the match reaches every model's block, and an inline copy made each crate
    // that calls it (the CLI, the inference, every test binary, the Python module) compile all
    // the models again (docs/performance.md, "Build time").
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {
        match self {
            Model::Fma(m) => m.block(f, x),
            Model::EFdpa(m) => m.block(f, x),
            Model::TFdpa(m) => m.block(f, x),
            Model::StFdpa(m) => m.block(f, x),
            Model::GstFdpa(m) => m.block(f, x),
            Model::SlicedFdpa(m) => m.block(f, x),
            Model::FtzMulAdd(m) => m.block(f, x),
            Model::TrFdpa(m) => m.block(f, x),
            Model::GtrFdpa(m) => m.block(f, x),
            Model::IDpa(m) => m.block(f, x),
        }
    }
}

/// `RZ-FP32`, `RNE-FP16`, `RZ-E8M13`: the final rounding as the papers write it.
fn rho_name(o: &crate::model::Output) -> String {
    rho_text(o.rho.mode, &o.rho.fmt)
}

/// `RZ-FP32`: a rounding mode and the format it rounds to.
fn rho_text(mode: crate::round::Rounding, fmt: &Format) -> String {
    let mode = mode.short_name().to_uppercase();
    match fmt.name {
        "f32" => format!("{mode}-FP32"),
        "f16" => format!("{mode}-FP16"),
        other => format!("{mode}-{}", other.to_uppercase()),
    }
}

impl DotUnit {
    /// A one-line description of the model and its parameters, for listings.
    pub fn describe(&self) -> String {
        let l = self.block;
        match &self.model {
            Model::TFdpa(t) => format!(
                "T-FDPA F={} L_max={l} e_zero={} rho={}",
                t.f,
                t.e_zero,
                rho_name(&t.out)
            ),
            Model::StFdpa(t) => format!(
                "ST-FDPA F={} L_max={l} e_zero={} rho={}",
                t.f,
                t.e_zero,
                rho_name(&t.out)
            ),
            Model::GstFdpa(t) => {
                let floor = t
                    .group_floor
                    .map_or(String::new(), |x| format!(" group_floor={x}"));
                format!(
                    "GST-FDPA G={} F={} L_max={l} e_zero={}{floor} rho={}",
                    t.g,
                    t.f,
                    t.e_zero,
                    rho_name(&t.out)
                )
            }
            Model::SlicedFdpa(s) => format!(
                "Sliced-FDPA passes={} group={} F={} e_zero={} rho={}, C added last by {}",
                s.passes,
                s.group,
                s.pass.f,
                s.pass.e_zero,
                rho_name(&s.pass.out),
                match s.last_format {
                    Some(fmt) => rho_text(s.last, &fmt),
                    None => s.last.short_name().to_uppercase(),
                }
            ),
            Model::EFdpa(e) => format!("E-FDPA L_max={l} rho={}", rho_name(&e.out)),
            Model::Fma(m) => format!("FMA sequential, {}", m.mode.short_name().to_uppercase()),
            Model::FtzMulAdd(m) => format!("FTZ-MulAdd P={} acc={}", m.p, m.acc.name),
            Model::TrFdpa(t) => format!(
                "TR-FDPA F={} F2={} L_max={l} e_zero_c={} rho={}",
                t.f,
                t.f2,
                t.e_zero_c,
                rho_name(&t.out)
            ),
            Model::GtrFdpa(t) => format!(
                "GTR-FDPA F={} F2={} L_max={l} e_zero_c={} c_drop={} rho={}",
                t.f,
                t.f2,
                t.e_zero_c,
                t.c_drop,
                rho_name(&t.out)
            ),
            Model::IDpa(m) => format!(
                "I-DPA op={} L_max={l} {} into {}",
                m.op.name(),
                if m.saturate { "saturate" } else { "wrap" },
                self.formats.d.name
            ),
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn length_panic(a: usize, b: usize, sa: usize, sb: usize, want: usize) -> ! {
    if a != b {
        panic!("dot product: A has {a} elements but B has {b}");
    }
    panic!("dot product: {a} elements need {want} scale factors each, got {sa} (A) and {sb} (B)");
}

/// Checks that each operand `(name, length, rows, columns)` has `rows · columns` elements; a
/// product that overflows `usize` is an error too, never a wrapped length.
pub(crate) fn check_lengths(
    operands: &[(&'static str, usize, usize, usize)],
) -> Result<(), ShapeError> {
    for &(which, got, rows, cols) in operands {
        let want = rows
            .checked_mul(cols)
            .ok_or(ShapeError::TooLarge { which, rows, cols })?;
        if got != want {
            return Err(ShapeError::Matrix { which, got, want });
        }
    }
    Ok(())
}

/// Why operands do not fit a unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    #[error("A has {a} elements but B has {b}")]
    LengthMismatch { a: usize, b: usize },
    #[error("K = {k} is not a multiple of the instruction's block of {block}")]
    Ragged { k: usize, block: usize },
    #[error("{which} has {got} scale factors, expected {want}")]
    Scales {
        which: &'static str,
        got: usize,
        want: usize,
    },
    #[error("{which}: {got} elements, expected {want}")]
    Matrix {
        which: &'static str,
        got: usize,
        want: usize,
    },
    #[error("{which}: {rows} × {cols} elements overflow the address space")]
    TooLarge {
        which: &'static str,
        rows: usize,
        cols: usize,
    },
    #[error("C is {c} but D is {d}: D cannot be fed back as C")]
    Feedback { c: &'static str, d: &'static str },
    #[error("{which}: {elements} elements of 8 bytes do not fit in memory")]
    Memory {
        which: &'static str,
        elements: usize,
    },
    #[error("{which}[{index}] = {bits:#x} is not a valid {format} encoding")]
    Encoding {
        which: &'static str,
        index: usize,
        bits: u64,
        format: &'static str,
    },
}

/// A dot-product unit: operand formats, the block length `L_max` along K, and the model that
/// computes each block. Blocks are chained: block `i`'s result, in format `d`, is the C of
/// block `i + 1` (the first paper's model family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DotUnit {
    pub formats: Formats,
    pub block: usize,
    pub model: Model,
}

impl DotUnit {
    /// Number of scale factors a K-long operand needs (0 without block scaling).
    pub fn scales_for(&self, k: usize) -> usize {
        match self.formats.scale {
            Some((_, per)) => k.div_ceil(per),
            None => 0,
        }
    }

    /// Checks operand lengths and encodings for one dot product of a unit without scale
    /// factors (a unit that takes them is a [`ShapeError::Scales`] here: see
    /// [`DotUnit::check_scaled`]).
    pub fn check(&self, a: &[u64], b: &[u64], c: u64) -> Result<(), ShapeError> {
        self.check_scaled(a, b, c, &[], &[])
    }

    /// Checks operand lengths and encodings, scale factors included, for one dot product.
    pub fn check_scaled(
        &self,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
    ) -> Result<(), ShapeError> {
        if a.len() != b.len() {
            return Err(ShapeError::LengthMismatch {
                a: a.len(),
                b: b.len(),
            });
        }
        let want = self.scales_for(a.len());
        for (which, s) in [("scale_a", sa), ("scale_b", sb)] {
            if s.len() != want {
                return Err(ShapeError::Scales {
                    which,
                    got: s.len(),
                    want,
                });
            }
        }
        let f = &self.formats;
        let check = |which: &'static str, fmt: &Format, xs: &[u64]| {
            for (index, &bits) in xs.iter().enumerate() {
                if !fmt.is_valid_encoding(bits) {
                    return Err(ShapeError::Encoding {
                        which,
                        index,
                        bits,
                        format: fmt.name,
                    });
                }
            }
            Ok(())
        };
        check("a", &f.a, a)?;
        check("b", &f.b, b)?;
        check("c", &f.c, &[c])?;
        if let Some((sf, _)) = &f.scale {
            check("scale_a", sf, sa)?;
            check("scale_b", sf, sb)?;
        }
        Ok(())
    }

    /// `d = a·b + c` over any K, in blocks of `self.block`, for a unit without scale factors
    /// ([`DotUnit::dot_scaled`] takes them). Allocation-free. Encodings are not checked here
    /// (bits above a format's width are ignored; [`DotUnit::check`] rejects them).
    ///
    /// # Panics
    /// When A and B differ in length, or the unit takes scale factors; the message names the
    /// mismatch. [`DotUnit::check`] returns the same condition as an error. Runs the fast paths
    /// of [`Kernel`](crate::Kernel); for many dot products prepare the kernel once with
    /// [`DotUnit::kernel`] and evaluate them together with
    /// [`Kernel::dots`](crate::Kernel::dots) (eight at a time across vector lanes).
    #[inline]
    #[track_caller]
    pub fn dot(&self, a: &[u64], b: &[u64], c: u64) -> u64 {
        self.kernel().dot(a, b, c)
    }

    /// As [`DotUnit::dot`] for a block-scaled unit: `sa`/`sb` hold the scale factors of A's
    /// row and B's column, [`DotUnit::scales_for`]`(K)` each.
    ///
    /// # Panics
    /// When A and B differ in length, or `sa`/`sb` do not hold [`DotUnit::scales_for`]`(K)`
    /// entries each (none for a unit without scale factors).
    #[inline]
    #[track_caller]
    pub fn dot_scaled(&self, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
        self.kernel().dot_scaled(a, b, c, sa, sb)
    }

    /// As [`DotUnit::dot`], always through the plain model: the reference the fast paths are
    /// tested against.
    #[track_caller]
    pub fn dot_plain(&self, a: &[u64], b: &[u64], c: u64) -> u64 {
        self.dot_plain_scaled(a, b, c, &[], &[])
    }

    /// As [`DotUnit::dot_scaled`], always through the plain model.
    #[track_caller]
    pub fn dot_plain_scaled(&self, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
        self.assert_lengths(a, b, sa, sb);
        self.chain(a, b, c, sa, sb, |x| self.model.block(&self.formats, x))
    }

    /// As [`DotUnit::dot_plain`], recording every step the model takes: the blocks of the
    /// K-chaining with their decoded operands and the C each receives, the terms, their
    /// alignment and what truncation dropped, where C joins, the exact sum and the rounding.
    /// The result is the plain model's (so [`Explanation::d`] equals [`DotUnit::dot`]).
    ///
    /// ```
    /// # use mma_core::models::t_fdpa::TFdpa;
    /// # use mma_core::{format, DotUnit, Formats, Model, NanStyle, Output, OutputRounding};
    /// # use mma_core::{RoundOpts, Rounding, Step};
    /// # let out = Output {
    /// #     rho: OutputRounding { fmt: format::FP32, mode: Rounding::TowardZero,
    /// #                           opts: RoundOpts::INF_ON_OVERFLOW },
    /// #     nan: NanStyle::AllOnes, neg_zero_to_pos: true,
    /// # };
    /// # let (f16, f32) = (format::FP16, format::FP32);
    /// // The crate's front-page unit (T-FDPA, F = 25) on the first paper's Table IV input.
    /// let unit = DotUnit {
    ///     formats: Formats { a: f16, b: f16, c: f32, d: f32, scale: None },
    ///     block: 16,
    ///     model: Model::TFdpa(TFdpa { f: 25, e_zero: -133, out }),
    /// };
    /// let (a, b) = ([0x6c00, 0xb800, 0xb400, 0xb000], [0x6800, 0x3c00, 0x3c00, 0x3c00]);
    /// let x = unit.explain(&a, &b, 0xcb00_0000);
    /// assert_eq!(x.d, unit.dot(&a, &b, 0xcb00_0000));
    /// // Aligned to e_max = 23 with 25 fraction bits (quantum 2^-2), the product -1/8 (the
    /// // fourth term) keeps nothing: truncation dropped it.
    /// let Some(Step::Align { e_max, quantum, kept, .. }) =
    ///     x.steps.iter().find(|s| matches!(s, Step::Align { .. }))
    /// else {
    ///     panic!("T-FDPA aligns its terms")
    /// };
    /// assert_eq!((*e_max, *quantum), (23, -2));
    /// assert_eq!(kept[..4], [1 << 25, -2, -1, 0]);
    /// ```
    ///
    /// # Panics
    /// As [`DotUnit::dot`], when the lengths do not fit or the unit takes scale factors.
    #[track_caller]
    pub fn explain(&self, a: &[u64], b: &[u64], c: u64) -> Explanation {
        self.explain_scaled(a, b, c, &[], &[])
    }

    /// As [`DotUnit::explain`] for a block-scaled unit (the scale factors as
    /// [`DotUnit::dot_scaled`] takes them).
    ///
    /// # Panics
    /// As [`DotUnit::dot_scaled`], when the lengths do not fit.
    #[track_caller]
    pub fn explain_scaled(
        &self,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
    ) -> Explanation {
        self.explain_by_instruction(a.len().max(1), a, b, c, sa, sb)
    }

    /// As [`DotUnit::explain`] for `a.len() / k_step` instructions of K = `k_step` issued one
    /// after another, each one's D fed back as the next one's C (a kernel's K loop): blocks
    /// of `L_max` restart at every instruction boundary, so an instruction whose K is shorter
    /// than its block (Hopper `m16n8k8` f16: K 8, `L_max` 16) ends a block early, as the
    /// hardware does. `k_step >= a.len()` is [`DotUnit::explain`]. The result equals the
    /// instructions' [`DotUnit::dot`]s chained by hand.
    ///
    /// # Panics
    /// As [`DotUnit::dot`], when the lengths do not fit; when `k_step` is 0.
    pub fn explain_by_instruction(
        &self,
        k_step: usize,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
    ) -> Explanation {
        self.assert_lengths(a, b, sa, sb);
        assert!(
            k_step > 0,
            "explain_by_instruction: the instruction's K is 0"
        );
        let f = &self.formats;
        let mut t = Trace::default();
        let (mut index, mut k0) = (0, 0);
        let d = self.chain_in(k_step, a, b, c, sa, sb, |x| {
            let k1 = k0 + x.a.len();
            let nums = |ws: &[u64], fmt: &Format| ws.iter().map(|&w| Num::word(w, fmt)).collect();
            let sf = f.scale.map_or(f.a, |(s, _)| s);
            t.step(|| Step::Block {
                index,
                k0,
                k1,
                a: nums(x.a, &f.a),
                b: nums(x.b, &f.b),
                c: Num::word(x.c, x.c_fmt),
                scale_a: nums(x.scale_a, &sf),
                scale_b: nums(x.scale_b, &sf),
            });
            let d = self.model.block_traced(f, x, &mut t);
            t.step(|| Step::BlockResult {
                d: Num::word(d, &f.d),
            });
            (index, k0) = (index + 1, k1);
            d
        });
        Explanation {
            unit: self.describe(),
            model: self.model.name(),
            d_format: f.d.name,
            d,
            steps: t.steps,
        }
    }

    /// Panics, naming the mismatch, unless A and B have the same length and each scale list
    /// has [`DotUnit::scales_for`] entries: a wrong length must never give a truncated result,
    /// and arithmetic does not return `Result` (see [`DotUnit::check`] for a checked call).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn assert_lengths(&self, a: &[u64], b: &[u64], sa: &[u64], sb: &[u64]) {
        let want = self.scales_for(a.len());
        if a.len() != b.len() || sa.len() != want || sb.len() != want {
            length_panic(a.len(), b.len(), sa.len(), sb.len(), want);
        }
    }

    /// The K-chaining shared by every driver: splits K into blocks of `self.block`, feeds each
    /// block's result (format `d`) to the next as C, and evaluates each block with `block`.
    #[inline(always)]
    pub(crate) fn chain(
        &self,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
        block: impl FnMut(&BlockIn<'_>) -> u64,
    ) -> u64 {
        self.chain_in(usize::MAX, a, b, c, sa, sb, block)
    }

    /// [`DotUnit::chain`] within instructions of K = `k_step`: a block never crosses a
    /// multiple of `k_step` (`usize::MAX`: one instruction over the whole K).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chain_in(
        &self,
        k_step: usize,
        a: &[u64],
        b: &[u64],
        c: u64,
        sa: &[u64],
        sb: &[u64],
        mut block: impl FnMut(&BlockIn<'_>) -> u64,
    ) -> u64 {
        debug_assert_eq!(a.len(), b.len());
        debug_assert!(k_step > 0);
        let f = &self.formats;
        let per_scale = f.scale.map_or(usize::MAX, |(_, n)| n);
        let mut acc = c;
        let mut c_fmt = &f.c;
        let mut k0 = 0;
        while k0 < a.len() || k0 == 0 {
            // The end of the instruction that holds k0 (saturating: `usize::MAX` is one).
            let instr_end = (k0 / k_step).saturating_add(1).saturating_mul(k_step);
            let k1 = (k0 + self.block).min(a.len()).min(instr_end);
            let (s0, s1) = if f.scale.is_some() {
                (k0 / per_scale, k1.div_ceil(per_scale))
            } else {
                (0, 0)
            };
            let x = BlockIn {
                a: &a[k0..k1],
                b: &b[k0..k1],
                c: acc,
                c_fmt,
                scale_a: &sa[s0..s1],
                scale_b: &sb[s0..s1],
            };
            acc = block(&x);
            c_fmt = &f.d;
            k0 = k1;
            if k1 == a.len() {
                break;
            }
        }
        acc
    }
}
