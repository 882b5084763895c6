//! The blind round trip of `tests/round_trip.rs`.

use mma_core::DotUnit;
use mma_probe::emit::{random, targeted, Spec};
use mma_probe::grid::Candidate;
use mma_probe::infer::{evaluate, fit_is};
use mma_probe::{infer, RecordSet};

/// Runs `unit` on the probes and `n` random records of its formats and K, infers, and checks
/// the outcome; returns a description for failures.
pub fn round_trip(unit: &DotUnit, k: usize, n: usize) -> Result<usize, String> {
    let spec = Spec {
        formats: unit.formats,
        k,
    };
    let mut records = targeted(&spec);
    records.extend(random(&spec, n, 1));
    for r in &mut records {
        r.d = unit.dot_plain(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
    }
    let set = RecordSet {
        source: unit.describe(),
        formats: unit.formats,
        k,
        records,
    };
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
            let want = unit.dot_plain(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
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
