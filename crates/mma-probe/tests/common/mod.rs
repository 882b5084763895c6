//! The blind round trip of `tests/round_trip.rs`, and the unit-as-device helpers the probe
//! tests share.

use mma_core::DotUnit;
use mma_probe::emit::{random, targeted, Spec};
use mma_probe::grid::Candidate;
use mma_probe::infer::{evaluate, fit_is};
use mma_probe::{infer, Record, RecordSet};

/// `records` with `d` set by `unit`'s plain model: the unit as the device.
pub fn measured(unit: &DotUnit, mut records: Vec<Record>) -> Vec<Record> {
    for r in &mut records {
        r.d = unit.dot_plain_scaled(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
    }
    records
}

/// The targeted probes and `n` random records (seed `seed`) of `unit`'s formats and K, run on
/// the unit.
pub fn probe_set(unit: &DotUnit, k: usize, n: usize, seed: u64) -> RecordSet {
    let spec = Spec {
        formats: unit.formats,
        k,
    };
    RecordSet {
        source: unit.describe(),
        formats: unit.formats,
        k,
        records: measured(unit, [targeted(&spec), random(&spec, n, seed)].concat()),
    }
}

/// Runs `unit` on the probes and `n` random records of its formats and K, infers, and checks
/// the outcome; returns a description for failures.
pub fn round_trip(unit: &DotUnit, k: usize, n: usize) -> Result<usize, String> {
    let spec = Spec {
        formats: unit.formats,
        k,
    };
    let set = probe_set(unit, k, n, 1);
    let inf = infer(&set);
    if !inf.fits.iter().any(|f| fit_is(f, unit, &unit.formats, k)) {
        let got: Vec<String> = inf.fits.iter().take(5).map(|f| f.unit.describe()).collect();
        let best: Vec<String> = inf
            .best
            .iter()
            .map(|f| format!("{} ({}; {:?})", f.unit.describe(), f.explains, f.misses))
            .collect();
        return Err(format!(
            "{} (K = {k}): not among {} fits {got:?}; best {best:?}",
            unit.describe(),
            inf.fits.len()
        ));
    }
    // Every fit computes the unit's results on fresh inputs.
    let fresh = random(&spec, 60, 7);
    for f in &inf.fits {
        let cand = Candidate {
            unit: f.unit,
            c: f.c,
        };
        for r in &fresh {
            let want = unit.dot_plain_scaled(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
            let got = evaluate(&cand, r).d;
            let nan = unit.formats.d.decode(want).is_nan() && unit.formats.d.decode(got).is_nan();
            if got != want && !nan {
                return Err(format!(
                    "{}: fit {} ({:?}) differs on fresh input {:?}: {got:#x} vs {want:#x}",
                    unit.describe(),
                    f.unit.describe(),
                    f.c,
                    r
                ));
            }
        }
    }
    Ok(inf.fits.len())
}
