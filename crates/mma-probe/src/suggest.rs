//! Inputs that separate fits: when several fits explain every record, candidate inputs (the
//! targeted probes and random records of [`crate::emit`] under fresh seeds) are evaluated on
//! every fit (at most [`MAX_FITS`] of them, spread over the list), and those on which the fits
//! give different results are kept, the inputs that split the fits into the most classes
//! first: the closed loop's next probe.

use crate::emit::{random, targeted, Spec};
use crate::grid::Candidate;
use crate::infer::{evaluate_prepared, Fit, Prepared};
use crate::records::{Record, RecordSet};
use rayon::prelude::*;

/// At most this many fits are evaluated on each input (see [`separating`]).
pub const MAX_FITS: usize = 2048;

/// Up to `want` inputs (records without a meaningful `d`) on which `fits` disagree, drawn
/// from `tries` random records and the targeted probes of the set's formats and K.
pub fn separating(set: &RecordSet, fits: &[Fit], want: usize, tries: usize) -> Vec<Record> {
    if fits.len() < 2 {
        return Vec::new();
    }
    let spec = Spec {
        formats: set.formats,
        k: set.k,
    };
    let mut pool = targeted(&spec);
    pool.extend(random(&spec, tries, 0x5eed_0000 + set.records.len() as u64));
    // Every fit on every input costs inputs × fits evaluations: the 100,000 fits of one record
    // would take about ten minutes (issue 56). Beyond `MAX_FITS`, fits spread evenly over the
    // list stand for the rest: an input on which some fits disagree is one on which the fits
    // disagree, so every input kept still separates; only the ranking sees fewer classes.
    let stride = fits.len().div_ceil(MAX_FITS);
    let cands: Vec<Candidate> = fits
        .iter()
        .step_by(stride)
        .map(|f| Candidate {
            unit: f.unit,
            c: f.c,
        })
        .collect();
    // Each input on every core, its facts computed once for all the fits (there may be
    // thousands when the records are few).
    let mut scored: Vec<(usize, Record)> = pool
        .into_par_iter()
        .filter_map(|r| {
            let p = Prepared::new(&set.formats, &r);
            let mut outs: Vec<u64> = cands
                .iter()
                .map(|c| evaluate_prepared(c, &r, &p).d)
                .collect();
            outs.sort_unstable();
            outs.dedup();
            (outs.len() > 1).then_some((outs.len(), r))
        })
        .collect();
    scored.sort_by_key(|(classes, _)| std::cmp::Reverse(*classes));
    let mut out: Vec<Record> = Vec::new();
    for (_, mut r) in scored {
        if out.len() >= want {
            break;
        }
        r.label = format!("suggest:{}", r.label);
        out.push(r);
    }
    out
}
