//! Inference by elimination: every candidate of the grid ([`crate::grid`]) meets the records
//! in order; a candidate whose result differs from a record's `d` is out, and the rest go on.
//! Most candidates leave at the first records (the targeted probes come first in the files
//! `mma probe emit` writes), so the cost is close to one evaluation per surviving candidate
//! and record.
//!
//! A group's members (candidates that differ only in `e_zero`, the overflow rule and the -0
//! convention) share the first member's result on a record when their `e_zero` cannot have
//! mattered and the result is neither NaN, ±Inf nor -0. `e_zero` cannot matter when no block
//! met a zero term (a zero operand, product, scale or C), or, for T-FDPA, TR-FDPA and GTR-FDPA,
//! when it is at most the largest exponent of every block's non-zero terms (it then never
//! decides the alignment, and zero terms add nothing); for Sliced-FDPA, whose passes start
//! from a zero C, when it is at most the largest product exponent of every pass. Why the rest
//! is exact: the overflow rule only
//! changes a result that overflows, which the first member (Inf on overflow) returns as ±Inf
//! or, through a later block, NaN; the -0 convention only changes a -0 result, and a -0 fed to
//! the next block only decides the sign of an all-zero sum, which is again a zero result.
//!
//! TR-FDPA's product-overflow rule (products of magnitude `>= 2^t` become Inf, or not) cannot
//! matter when no finite product of the record reaches `2^t`: a product's leading bit is at
//! most one above its exponent in the models' convention, so the record's largest such
//! exponent `+ 1 < t` decides it. GTR-FDPA's C-drop rule (C ignored when its exponent is below
//! `e_max - c_drop`, `e_max` the larger of C's and the block's largest product exponent, which
//! the rule does not move) cannot matter when no block has a non-zero C that far below: every
//! block's non-zero C is then kept under both rules, so each block computes the same, and
//! the next block's C with it. A zero C adds nothing whether dropped or not.
//!
//! NaN results match NaN records whatever their bits; the records' NaN bits then name the
//! NaN style of the fits ([`NanSeen`]).
//!
//! When no candidate explains every record, the candidates that lasted longest are evaluated
//! on every record, and the best of them are reported with how many records they explain and
//! the first records they miss.

use crate::grid::{candidates, e_zero_of, CUse, Candidate, Group};
use crate::records::{Record, RecordSet};
use mma_core::model::{BlockIn, BlockModel};
use mma_core::term::Term;
use mma_core::{DotUnit, Format, Formats, Model, NanStyle, Value};
use rayon::prelude::*;
use std::collections::HashMap;

/// The NaN bits the records show where the device returned NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanSeen {
    /// No record's result is NaN: the NaN style stays open.
    Unseen,
    /// Every NaN result has these bits.
    Bits(u64),
    /// NaN results with different bits.
    Varied,
}

impl NanSeen {
    fn see(&mut self, bits: u64) {
        *self = match *self {
            NanSeen::Unseen => NanSeen::Bits(bits),
            NanSeen::Bits(b) if b == bits => NanSeen::Bits(b),
            _ => NanSeen::Varied,
        };
    }

    /// The NaN style that returns the bits seen, if one does.
    pub fn style(&self, d: &Format) -> Option<NanStyle> {
        match self {
            NanSeen::Bits(b) => [
                NanStyle::AllOnes,
                NanStyle::DefaultQuiet,
                NanStyle::NegativeQuiet,
            ]
            .into_iter()
            .find(|s| s.bits(d) == *b),
            _ => None,
        }
    }
}

/// A candidate and how it fares on the records.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The unit, with the NaN style the records name (the grid's all-ones NaN when they name
    /// none).
    pub unit: DotUnit,
    pub c: CUse,
    pub nan: NanSeen,
    /// Records explained (all of them for a fit).
    pub explains: usize,
    /// Labels of the first records it misses (at most three).
    pub misses: Vec<String>,
}

/// The outcome for one record set.
#[derive(Clone, Debug)]
pub struct Inference {
    pub records: usize,
    /// Candidates that explain every record (empty when none does).
    pub fits: Vec<Fit>,
    /// When no candidate explains every record: the best, most records first.
    pub best: Vec<Fit>,
}

/// The result of a unit on a record, and up to which `e_zero` it holds for the unit's
/// siblings: a sibling whose zero terms get an exponent at most `zero_floor` computes the same
/// (`i32::MAX` when no zero term took part).
#[derive(Clone, Copy, Debug)]
pub struct Eval {
    pub d: u64,
    pub zero_floor: i32,
    /// How far below its block's `e_max` a non-zero C's exponent lies at most, as a
    /// non-positive number (`min(0, e_C - e_dot)` over the blocks with non-zero products;
    /// `i32::MAX` when no block has both, and for every model but GTR-FDPA): a GTR-FDPA
    /// sibling whose C-drop threshold is at least `-c_margin` keeps every such C, as the unit
    /// did.
    pub c_margin: i32,
}

/// What [`evaluate`] asks of a record's operands whatever the candidate (all candidates of a
/// set share its formats): which elements and scale factors are zero, as prefix counts so that
/// a block's question is two lookups, and each product's exponent. [`infer`] computes it once
/// per record; computing it per candidate decoded every operand a second time beside the model
/// and was a quarter of the inference's time.
pub struct Prepared {
    /// `zeros[i]`: how many of the first `i` elements have a zero A or B.
    zeros: Vec<u32>,
    /// `scale_zeros[i]`: how many of the first `i` scale positions have a zero in A's or B's.
    scale_zeros: Vec<u32>,
    /// Each product's exponent in the models' convention ([`Term`]); `None` for a zero product.
    product_e: Vec<Option<i32>>,
    /// The largest of them (`None` when every product is zero).
    record_e_max: Option<i32>,
}

impl Prepared {
    /// The facts of `r` for candidates of formats `f`.
    pub fn new(f: &Formats, r: &Record) -> Prepared {
        let prefix = |zero: &mut dyn Iterator<Item = bool>| {
            let mut counts = vec![0u32];
            for z in zero {
                counts.push(counts.last().unwrap() + u32::from(z));
            }
            counts
        };
        let zeros = prefix(
            &mut r
                .a
                .iter()
                .zip(&r.b)
                .map(|(&x, &y)| f.a.decode(x).is_zero() || f.b.decode(y).is_zero()),
        );
        let scale_zeros = match f.scale {
            Some((s, _)) => {
                let n = r.scale_a.len().max(r.scale_b.len());
                let zero = |w: Option<&u64>| w.is_some_and(|&w| s.decode(w).is_zero());
                prefix(&mut (0..n).map(|i| zero(r.scale_a.get(i)) || zero(r.scale_b.get(i))))
            }
            None => vec![0],
        };
        let product_e: Vec<Option<i32>> =
            r.a.iter()
                .zip(&r.b)
                .map(|(&x, &y)| product_e(f, f.a.decode(x), f.b.decode(y)))
                .collect();
        let record_e_max = product_e.iter().flatten().copied().max();
        Prepared {
            zeros,
            scale_zeros,
            product_e,
            record_e_max,
        }
    }

    /// Whether an element in `k0..k1` has a zero A or B.
    fn zero_in(&self, k0: usize, k1: usize) -> bool {
        self.zeros[k1] > self.zeros[k0]
    }

    /// Whether a scale position in `s0..s1` has a zero scale factor.
    fn zero_scale_in(&self, s0: usize, s1: usize) -> bool {
        let at = |i: usize| self.scale_zeros[i.min(self.scale_zeros.len() - 1)];
        at(s1) > at(s0)
    }

    /// The largest exponent of the non-zero products among elements `ks`.
    fn products_e_max(&self, ks: impl Iterator<Item = usize>) -> Option<i32> {
        ks.filter_map(|k| self.product_e[k]).max()
    }
}

/// The exponent of the product of `x` (format `f.a`) and `y` (`f.b`) in the models' convention
/// ([`Term::product_exponent`]), `None` where the product is zero (or not finite). Not
/// [`Term::product`]: the significands' product overflows `u64` for fp64 operands (units that
/// never ask, but the records' facts are computed for every unit).
fn product_e(f: &Formats, x: Value, y: Value) -> Option<i32> {
    match (x, y) {
        (
            Value::Finite {
                sig: sx, exp: ex, ..
            },
            Value::Finite {
                sig: sy, exp: ey, ..
            },
        ) if sx != 0 && sy != 0 => Some(Term::product_exponent(ex, &f.a, ey, &f.b)),
        _ => None,
    }
}

/// Evaluates `cand` on the record's inputs with the plain model, chaining blocks as
/// [`DotUnit::dot_plain`] does, and finds how far its `e_zero` may move without changing the
/// result: a zero term takes part in T-FDPA, TR-FDPA and GTR-FDPA only through its exponent,
/// which changes nothing while it is at most the largest exponent of the block's non-zero
/// terms; for the other models with zero-term exponents, any zero term counts.
pub fn evaluate(cand: &Candidate, r: &Record) -> Eval {
    evaluate_prepared(cand, r, &Prepared::new(&cand.unit.formats, r))
}

/// [`evaluate`] with the record's facts computed once ([`Prepared::new`] on the candidate's
/// formats).
pub fn evaluate_prepared(cand: &Candidate, r: &Record, p: &Prepared) -> Eval {
    let u = &cand.unit;
    let f = &u.formats;
    let c0 = match cand.c {
        CUse::Applied => r.c,
        CUse::Ignored => f.c.encode(Value::POS_ZERO, 0),
    };
    if matches!(u.model, Model::Fma(_) | Model::FtzMulAdd(_)) {
        // No zero-term exponents: the whole chain at once.
        return Eval {
            d: u.dot_plain_scaled(&r.a, &r.b, c0, &r.scale_a, &r.scale_b),
            zero_floor: i32::MAX,
            c_margin: i32::MAX,
        };
    }
    // The record's product exponents (`Prepared`) are those of the unscaled products: a
    // block-scaled GTR-FDPA (CDNA4's `v_mfma_scale_*`) shifts every product by its scale
    // pair, so neither the zero floor nor the C-drop margin can be read from them there, and
    // every member of its groups is evaluated on its own (no shared results).
    let scaled_gtr = matches!(u.model, Model::GtrFdpa(_)) && f.scale.is_some();
    let by_exponent = matches!(
        u.model,
        Model::TFdpa(_) | Model::TrFdpa(_) | Model::GtrFdpa(_)
    ) && !scaled_gtr;
    let per = f.scale.map_or(usize::MAX, |(_, n)| n);
    let mut acc = c0;
    let mut c_fmt = &f.c;
    let mut floor = i32::MAX;
    let mut c_margin = i32::MAX;
    let n = r.a.len();
    let mut k0 = 0;
    loop {
        let k1 = (k0 + u.block).min(n);
        let (s0, s1) = if f.scale.is_some() {
            (k0 / per, k1.div_ceil(per))
        } else {
            (0, 0)
        };
        let c_val = c_fmt.decode(acc);
        // Only GTR-FDPA has a C-drop rule: the other models skip the block's product scan.
        if scaled_gtr {
            c_margin = i32::MIN;
        } else if let (Model::GtrFdpa(_), Value::Finite { .. }) = (&u.model, c_val) {
            if let Some(e_dot) = p.products_e_max(k0..k1) {
                let e_c = Term::of_value(c_val, c_fmt, 0).e;
                c_margin = c_margin.min((e_c - e_dot).min(0));
            }
        }
        let met_zero =
            c_val.is_zero() || p.zero_in(k0, k1) || (f.scale.is_some() && p.zero_scale_in(s0, s1));
        if let Model::SlicedFdpa(sl) = &u.model {
            // Every pass starts from a zero C: e_zero is safe up to the pass's largest
            // non-zero product exponent (the C a later pass takes is ignored: lower floor).
            for pass in 0..sl.passes {
                let in_pass = (k0..k1).filter(|kk| ((kk - k0) / sl.group) % sl.passes == pass);
                floor = floor.min(p.products_e_max(in_pass).unwrap_or(i32::MIN));
            }
        } else if met_zero {
            let e = if by_exponent {
                // The block's non-zero terms: its products, and C.
                let t = Term::of_value(c_val, c_fmt, 0);
                let c_e = (!t.is_zero()).then_some(t.e);
                p.products_e_max(k0..k1).max(c_e).unwrap_or(i32::MIN)
            } else {
                i32::MIN
            };
            floor = floor.min(e);
        }
        let x = BlockIn {
            a: &r.a[k0..k1],
            b: &r.b[k0..k1],
            c: acc,
            c_fmt,
            scale_a: if f.scale.is_some() {
                &r.scale_a[s0..s1]
            } else {
                &[]
            },
            scale_b: if f.scale.is_some() {
                &r.scale_b[s0..s1]
            } else {
                &[]
            },
        };
        acc = u.model.block(f, &x);
        c_fmt = &f.d;
        k0 = k1;
        if k1 >= n {
            break;
        }
    }
    Eval {
        d: acc,
        zero_floor: floor,
        c_margin,
    }
}

/// Whether `cand` computes on a record what its group's first member `base` computed there
/// (`ev`), as far as the product-overflow rule (TR-FDPA) and the C-drop rule (GTR-FDPA) go: the
/// same rule, or a record on which neither rule matters (see the module docs).
fn same_rules(base: &Model, cand: &Model, ev: &Eval, p: &Prepared) -> bool {
    match (base, cand) {
        (Model::TrFdpa(x), Model::TrFdpa(y)) if x.product_inf_exp != y.product_inf_exp => {
            let t = [x.product_inf_exp, y.product_inf_exp]
                .into_iter()
                .flatten()
                .min();
            match (t, p.record_e_max) {
                (Some(t), Some(e)) => e + 1 < t,
                _ => true,
            }
        }
        (Model::GtrFdpa(x), Model::GtrFdpa(y)) if x.c_drop != y.c_drop => {
            ev.c_margin >= -(x.c_drop.min(y.c_drop) as i32)
        }
        _ => true,
    }
}

/// Whether a result needs every member evaluated (see the module docs).
fn special(d: &Format, bits: u64) -> bool {
    match d.decode(bits) {
        Value::Nan | Value::Inf { .. } => true,
        Value::Zero { neg } => neg,
        Value::Finite { .. } => false,
    }
}

/// Whether a model result matches the record, noting the record's NaN bits.
fn matches(d: &Format, model: u64, record: u64, nan: &mut NanSeen) -> bool {
    if d.decode(model).is_nan() && d.decode(record).is_nan() {
        nan.see(record);
        return true;
    }
    model == record
}

/// How one candidate fares (kept beside the group's candidates, not with them: the grid holds
/// millions of candidates, and copying them was a tenth of the time).
#[derive(Clone, Copy)]
struct State {
    alive: bool,
    /// Position, in the evaluation order, of the first record missed.
    first_miss: usize,
    nan: NanSeen,
}

/// A group and the states of its members.
struct Run {
    group: Group,
    states: Vec<State>,
    alive: usize,
}

/// The order in which the candidates meet the records: records without zero terms first (a
/// zero term makes every `e_zero` member of a group compute on its own; a record without one
/// lets the group share one evaluation, and most candidates fail their first record), each
/// part in file order. Which candidates fit does not depend on the order.
fn evaluation_order(set: &RecordSet) -> Vec<usize> {
    let f = &set.formats;
    let zeros = |r: &Record| {
        let scale_zero = f.scale.is_some_and(|(s, _)| {
            r.scale_a
                .iter()
                .chain(&r.scale_b)
                .any(|&w| s.decode(w).is_zero())
        });
        r.a.iter().any(|&w| f.a.decode(w).is_zero())
            || r.b.iter().any(|&w| f.b.decode(w).is_zero())
            || f.c.decode(r.c).is_zero()
            || scale_zero
    };
    let mut order: Vec<usize> = (0..set.records.len()).collect();
    order.sort_by_key(|&i| zeros(&set.records[i]));
    order
}

/// [`Prepared`] for every record of the set, on all cores.
fn prepare(set: &RecordSet) -> Vec<Prepared> {
    set.records
        .par_iter()
        .map(|r| Prepared::new(&set.formats, r))
        .collect()
}

/// Runs the elimination on one record set.
pub fn infer(set: &RecordSet) -> Inference {
    infer_groups(set, candidates(&set.formats, set.k))
}

/// [`infer`] over a given candidate grid (candidates of the set's formats, as
/// [`candidates`] makes them: the records' facts are computed once for those formats).
pub fn infer_groups(set: &RecordSet, grid: Vec<Group>) -> Inference {
    let d = set.formats.d;
    let n = set.records.len();
    let fresh = State {
        alive: true,
        first_miss: n,
        nan: NanSeen::Unseen,
    };
    let mut runs: Vec<Run> = grid
        .into_iter()
        .map(|group| Run {
            states: vec![fresh; group.members.len()],
            alive: group.members.len(),
            group,
        })
        .collect();
    // Groups are independent: each meets the records in order until none of its members is
    // left, on its own thread.
    let order = evaluation_order(set);
    let prepared = prepare(set);
    runs.par_iter_mut().for_each(|run| {
        let members = &run.group.members;
        for (ri, &i) in order.iter().enumerate() {
            if run.alive == 0 {
                break;
            }
            let (r, p) = (&set.records[i], &prepared[i]);
            let base = evaluate_prepared(&members[0], r, p);
            let shared = run.group.shares
                && !special(&d, base.d)
                && e_zero_of(&members[0].unit.model) <= base.zero_floor;
            for (mi, (cand, st)) in members.iter().zip(&mut run.states).enumerate() {
                if !st.alive {
                    continue;
                }
                let got = if mi == 0
                    || (shared
                        && e_zero_of(&cand.unit.model) <= base.zero_floor
                        && same_rules(&members[0].unit.model, &cand.unit.model, &base, p))
                {
                    base.d
                } else {
                    evaluate_prepared(cand, r, p).d
                };
                if !matches(&d, got, r.d, &mut st.nan) {
                    st.alive = false;
                    st.first_miss = ri;
                    run.alive -= 1;
                }
            }
        }
    });
    let all = || {
        runs.iter()
            .flat_map(|run| run.group.members.iter().zip(&run.states))
    };
    // Allocated once at its size: one record leaves most of the grid, and a growing vector
    // held up to twice its size and copied it at each step.
    let mut fits: Vec<Fit> = Vec::with_capacity(runs.iter().map(|run| run.alive).sum());
    fits.extend(
        all()
            .filter(|(_, st)| st.alive)
            .map(|(cand, st)| fit_of(*cand, st.nan, n, Vec::new())),
    );
    let best = if fits.is_empty() {
        let mut lasted: Vec<(&Candidate, &State)> = all().collect();
        lasted.sort_by_key(|(_, st)| std::cmp::Reverse(st.first_miss));
        best_fits(
            set,
            &prepared,
            lasted.iter().take(RESCORED).map(|(cand, _)| **cand),
        )
    } else {
        Vec::new()
    };
    Inference {
        records: n,
        fits,
        best,
    }
}

fn fit_of(cand: Candidate, nan: NanSeen, explains: usize, misses: Vec<String>) -> Fit {
    let mut unit = cand.unit;
    if let Some(style) = nan.style(&unit.formats.d) {
        set_nan(&mut unit, style);
    }
    Fit {
        unit,
        c: cand.c,
        nan,
        explains,
        misses,
    }
}

/// Sets a unit's NaN style.
pub fn set_nan(u: &mut DotUnit, style: NanStyle) {
    match &mut u.model {
        Model::Fma(m) => m.nan = style,
        Model::FtzMulAdd(m) => m.nan = style,
        Model::EFdpa(m) => m.out.nan = style,
        Model::TFdpa(m) => m.out.nan = style,
        Model::StFdpa(m) => m.out.nan = style,
        Model::GstFdpa(m) => m.out.nan = style,
        Model::SlicedFdpa(m) => m.pass.out.nan = style,
        Model::TrFdpa(m) => m.out.nan = style,
        Model::GtrFdpa(m) => m.out.nan = style,
        // Integer results have no NaN.
        Model::IDpa(_) => {}
    }
}

/// How many candidates that lasted longest are scored on every record when nothing fits.
const RESCORED: usize = 32;
/// How many best fits are reported.
const REPORTED: usize = 5;

/// Scores the candidates that lasted longest on every record; the best, most records first.
fn best_fits(
    set: &RecordSet,
    prepared: &[Prepared],
    lasted: impl Iterator<Item = Candidate>,
) -> Vec<Fit> {
    let mut best: Vec<Fit> = lasted
        .map(|cand| {
            let mut nan = NanSeen::Unseen;
            let mut explains = 0;
            let mut misses = Vec::new();
            for (r, p) in set.records.iter().zip(prepared) {
                if matches(
                    &set.formats.d,
                    evaluate_prepared(&cand, r, p).d,
                    r.d,
                    &mut nan,
                ) {
                    explains += 1;
                } else if misses.len() < 3 {
                    misses.push(r.label.clone());
                }
            }
            fit_of(cand, nan, explains, misses)
        })
        .collect();
    best.sort_by_key(|f| std::cmp::Reverse(f.explains));
    best.truncate(REPORTED);
    best
}

/// The unit in a form that compares equal to any unit computing the same on K-long records of
/// these formats: blocks of at least K are one block (an FMA chain is one chain whatever its
/// blocks), and the NaN style is set to `nan` where the records leave it open.
pub fn normalized(u: &DotUnit, k: usize, nan: Option<NanStyle>) -> DotUnit {
    let mut n = *u;
    n.block = match n.model {
        Model::Fma(_) => k,
        _ => n.block.min(k),
    };
    if let Some(s) = nan {
        set_nan(&mut n, s);
    }
    n
}

/// Whether `unit` (a catalog unit, say) computes what `fit` computes on K-long records, as far
/// as the parameters tell (same normalised unit; the NaN style compared only where the records
/// show one).
pub fn fit_is(fit: &Fit, unit: &DotUnit, formats: &Formats, k: usize) -> bool {
    if unit.formats != *formats {
        return false;
    }
    let open_nan = match fit.nan {
        NanSeen::Unseen | NanSeen::Varied => Some(NanStyle::AllOnes),
        NanSeen::Bits(_) => None,
    };
    normalized(&fit.unit, k, open_nan) == normalized(unit, k, open_nan)
}

/// For each of `units`, the position of the first fit `f` with `fit_is(f, unit, formats, k)`:
/// one pass over the fits, each looked up by its normalised unit among the units' (the
/// command line asks it for the catalog instructions of a set's formats, and few records leave
/// hundreds of thousands of fits, which a search per instruction went through again and
/// again).
pub fn first_fits(
    fits: &[Fit],
    units: &[DotUnit],
    formats: &Formats,
    k: usize,
) -> Vec<Option<usize>> {
    // A fit whose NaN style the records leave open compares with the all-ones style on both
    // sides ([`fit_is`]): a unit is looked for under both keys.
    let nan = |open: bool| open.then_some(NanStyle::AllOnes);
    let mut wanted: HashMap<(bool, DotUnit), Vec<usize>> = HashMap::new();
    for (j, u) in units.iter().enumerate() {
        if u.formats != *formats {
            continue;
        }
        for open in [true, false] {
            wanted
                .entry((open, normalized(u, k, nan(open))))
                .or_default()
                .push(j);
        }
    }
    let mut first = vec![None; units.len()];
    let mut left = units.iter().filter(|u| u.formats == *formats).count();
    for (i, fit) in fits.iter().enumerate() {
        if left == 0 {
            break;
        }
        let open = matches!(fit.nan, NanSeen::Unseen | NanSeen::Varied);
        if let Some(js) = wanted.get(&(open, normalized(&fit.unit, k, nan(open)))) {
            for &j in js {
                if first[j].is_none() {
                    first[j] = Some(i);
                    left -= 1;
                }
            }
        }
    }
    first
}
