//! A white-box trace of one dot product, recorded by the plain models themselves.
//!
//! Every model's block is written once, generic over a [`Tracer`]: the steps it takes (the
//! terms it forms, how it aligns and truncates them, where C joins, the exact sum and the
//! rounding that decided the result) are handed to the tracer as closures. [`NoTrace`], the
//! tracer of [`DotUnit::dot_plain`](crate::DotUnit::dot_plain) and of the kernels' fallback,
//! drops them unevaluated, so the untraced path compiles to what it was; [`Trace`] keeps them.
//! [`DotUnit::explain`](crate::DotUnit::explain) runs the plain model with a [`Trace`] and
//! returns an [`Explanation`], whose `d` is the model's result by construction.
//!
//! The steps are data (serde-serialisable); formatting them for people is the tool's job.

use crate::format::Format;
use crate::round::{decide, Exact, Rounding};
use crate::term::Term;
use crate::value::Value;
use serde::Serialize;

/// A sink for the steps of a model. The closure is only called when the tracer keeps steps.
pub trait Tracer {
    fn step(&mut self, s: impl FnOnce() -> Step);
}

/// The tracer that records nothing (the plain models' normal path).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn step(&mut self, _: impl FnOnce() -> Step) {}
}

/// The tracer that keeps every step, in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Trace {
    pub steps: Vec<Step>,
}

impl Tracer for Trace {
    fn step(&mut self, s: impl FnOnce() -> Step) {
        self.steps.push(s());
    }
}

/// One dot product as the model computed it: the unit's description, the result (equal to
/// [`DotUnit::dot`](crate::DotUnit::dot) bit for bit) and the steps.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The model and its parameters ([`DotUnit::describe`](crate::DotUnit::describe)).
    pub unit: String,
    /// The model's name as the papers write it (`T-FDPA`, ...).
    pub model: &'static str,
    /// The output format's name.
    pub d_format: &'static str,
    /// Raw bits of D.
    pub d: u64,
    pub steps: Vec<Step>,
}

/// A decoded operand or intermediate value: its bits (when it has an encoding) and its value
/// `(-1)^neg · sig · 2^exp` (`exp`: weight of the last significand bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Num {
    pub bits: Option<u64>,
    pub format: &'static str,
    /// `zero`, `finite`, `inf` or `nan`.
    pub class: &'static str,
    pub neg: bool,
    pub sig: u64,
    pub exp: i32,
}

impl Num {
    /// A value of `fmt`, with its encoding when it came from one.
    pub fn of(v: Value, fmt: &Format, bits: Option<u64>) -> Num {
        let (class, neg, sig, exp) = match v {
            Value::Zero { neg } => ("zero", neg, 0, 0),
            Value::Finite { neg, sig, exp } => ("finite", neg, sig, exp),
            Value::Inf { neg } => ("inf", neg, 0, 0),
            Value::Nan => ("nan", false, 0, 0),
        };
        Num {
            bits,
            format: fmt.name,
            class,
            neg,
            sig,
            exp,
        }
    }

    /// Decodes a word of `fmt`.
    pub fn word(bits: u64, fmt: &Format) -> Num {
        Num::of(fmt.decode(bits), fmt, Some(bits))
    }
}

/// Where a term comes from. Product indices count from the start of the block (or of the pass,
/// in a subset: see [`Step::Subset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Product(usize),
    C,
    /// A scaled group sum (GST-FDPA) or the even/odd group of GTR-FDPA.
    Group(usize),
    /// The sum of a previous stage (the passes of Sliced-FDPA).
    Partial,
}

/// An exact term `(-1)^neg · sig · 2^lsb` with the exponent `e` the model aligns on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TermInfo {
    pub source: Source,
    pub neg: bool,
    pub sig: u64,
    pub lsb: i32,
    pub e: i32,
}

impl TermInfo {
    pub fn of(source: Source, t: &Term) -> TermInfo {
        TermInfo {
            source,
            neg: t.neg,
            sig: t.sig,
            lsb: t.lsb,
            e: t.e,
        }
    }
}

/// An exact value `(-1)^neg · (mag + δ) · 2^exp`, `0 < δ < 1` when `sticky`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ExactInfo {
    pub neg: bool,
    pub mag: u128,
    pub exp: i32,
    pub sticky: bool,
}

impl From<Exact> for ExactInfo {
    fn from(x: Exact) -> ExactInfo {
        ExactInfo {
            neg: x.neg,
            mag: x.mag,
            exp: x.exp,
            sticky: x.sticky,
        }
    }
}

/// One step of a model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// A block of the K-chaining begins: elements `k0..k1`, the C it receives (the given C for
    /// the first block, the previous block's D after it) and its decoded operands.
    Block {
        index: usize,
        k0: usize,
        k1: usize,
        a: Vec<Num>,
        b: Vec<Num>,
        c: Num,
        scale_a: Vec<Num>,
        scale_b: Vec<Num>,
    },
    /// The IEEE special-value rules decided the block (a NaN, `0·Inf`, Infs of both signs, an
    /// Inf, or a product beyond the model's range).
    Special { result: Num, why: &'static str },
    /// An input flushed to zero (FTZ-MulAdd: subnormals and -0 become +0).
    Flush { what: String, from: Num },
    /// Terms aligned to `e_max` and truncated toward zero to `f` fraction bits: term `i`
    /// keeps `kept[i] · 2^quantum`; the bits below `2^quantum` are dropped.
    Align {
        terms: Vec<TermInfo>,
        e_max: i32,
        f: u32,
        quantum: i32,
        kept: Vec<i128>,
    },
    /// Terms summed exactly (no alignment loss).
    ExactTerms { terms: Vec<TermInfo> },
    /// A group of products summed exactly and multiplied by its scale pair (GST-FDPA), or a
    /// group's truncated sum (GTR-FDPA: 0 even, 1 odd indices).
    Group {
        index: usize,
        k0: usize,
        k1: usize,
        term: TermInfo,
    },
    /// The group sums of GTR-FDPA re-aligned to the larger group exponent `e` and rounded down
    /// to `f` fraction bits: `sum · 2^(e - f)`.
    Groups {
        e: i32,
        f: u32,
        sums: Vec<i128>,
        sum: i128,
    },
    /// A subset of the block's elements computed together: a Sliced-FDPA `pass` (its C is the
    /// previous pass's result) or a GTR-FDPA index `group`. The product indices of the steps
    /// that follow, up to the next `Group`, `BlockResult` or `Subset`, count within `elements`.
    Subset {
        kind: &'static str,
        index: usize,
        elements: Vec<usize>,
    },
    /// TR/GTR-FDPA: C joins late. The product sum (aligned at `e_dot`) is rounded down to a
    /// multiple of `2^q2`, C rounded down to a multiple of `2^q3`; `e_max = max(e_dot, e_c)`.
    /// `dot_part` and `c_part` count units of `2^min(q2, q3)`.
    LateC {
        c: TermInfo,
        e_dot: Option<i32>,
        e_max: i32,
        q2: i32,
        dot_part: i128,
        q3: i32,
        c_part: i128,
        c_dropped: bool,
    },
    /// A separately rounded addition: the Sliced-FDPA's last addition of C, one FMA of an FMA
    /// chain (`x·y + z`) or one operation of FTZ-MulAdd (`what` names it).
    Op {
        what: String,
        x: Num,
        y: Num,
        z: Option<Num>,
        result: Num,
    },
    /// The exact value about to be rounded.
    Sum { exact: ExactInfo },
    /// A rounding of `exact` to `format` with `mode`: the kept significand at `quantum`, the
    /// guard (half) bit and the sticky bit below it, whether the magnitude was incremented,
    /// and the result.
    Round {
        format: &'static str,
        mode: &'static str,
        exact: ExactInfo,
        quantum: i32,
        kept: u128,
        guard: bool,
        sticky: bool,
        up: bool,
        result: Num,
    },
    /// An integer unit's exact sum put into its accumulator: `how` is `wrap` (modulo 2^32)
    /// or `saturate` (clamped to the s32 range).
    Integer { how: &'static str, result: Num },
    /// The block's result (the C of the next block).
    BlockResult { d: Num },
}

/// The rounding step of `x` to `fmt`, given its result.
pub fn round_step(fmt: &Format, x: Exact, mode: Rounding, result: Value) -> Step {
    let dcs = decide(fmt, x);
    Step::Round {
        format: fmt.name,
        mode: mode.short_name(),
        exact: x.into(),
        quantum: dcs.quantum,
        kept: dcs.kept,
        guard: dcs.half,
        sticky: dcs.rest,
        up: crate::round::round_up(mode, x.neg, dcs.kept & 1 == 1, dcs.half, dcs.rest),
        result: Num::of(result, fmt, None),
    }
}

/// What the terms of a slice are, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labels {
    /// Products `0..n-1`, then C.
    ProductsThenC,
    /// Group sums `0..n-1`, then C.
    GroupsThenC,
    /// Products only.
    Products,
}

/// The terms of a slice with their [`Source`]s.
pub fn labelled(terms: &[Term], labels: Labels) -> Vec<TermInfo> {
    let n = terms.len();
    terms
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let src = match labels {
                Labels::ProductsThenC | Labels::GroupsThenC if i + 1 == n => Source::C,
                Labels::GroupsThenC => Source::Group(i),
                _ => Source::Product(i),
            };
            TermInfo::of(src, t)
        })
        .collect()
}
