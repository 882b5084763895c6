//! The blind round trip of `tests/round_trip.rs` over every distinct unit of both catalogs
//! (190 (unit, K) pairs), too slow for CI (about five minutes on two cores in a release
//! build): `cargo run --release -p mma-probe --example sweep`. Each unit's plain model is run
//! as a black box on the probes and 300 random records of its formats and K; the unit must be
//! among the fits, and every fit must compute the unit's results on 60 fresh random records.

use mma_core::DotUnit;
use mma_probe::emit::{random, targeted, Spec};
use mma_probe::grid::Candidate;
use mma_probe::infer::{evaluate, fit_is};
use mma_probe::{infer, RecordSet};
use std::collections::HashSet;
use std::time::Instant;
/// See `tests/round_trip.rs`.
fn round_trip(unit: &DotUnit, k: usize, n: usize) -> Result<usize, String> {
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

fn main() {
    let mut seen = HashSet::new();
    let units: Vec<(DotUnit, usize)> = mma_nvidia::catalog()
        .iter()
        .map(|i| (i.unit, i.k))
        .chain(mma_amd::catalog().iter().map(|i| (i.unit, i.k)))
        .filter(|(u, k)| {
            let mut n = *u;
            n.block = n.block.min(*k);
            seen.insert((n, *k))
        })
        .collect();
    let t = Instant::now();
    let (left, right) = units.split_at(units.len() / 2);
    let run = |part: &[(DotUnit, usize)]| -> (usize, Vec<String>) {
        let mut ok = 0;
        let mut bad = Vec::new();
        for (u, k) in part {
            match round_trip(u, *k, 300) {
                Ok(_) => ok += 1,
                Err(e) => bad.push(e.chars().take(400).collect()),
            }
        }
        (ok, bad)
    };
    let ((a, mut fa), (b, fb)) = std::thread::scope(|s| {
        let h = s.spawn(|| run(left));
        let r = run(right);
        (h.join().unwrap(), r)
    });
    fa.extend(fb);
    println!(
        "{} units: {} ok, {} failed, {:?}",
        units.len(),
        a + b,
        fa.len(),
        t.elapsed()
    );
    for f in fa {
        println!("FAIL {f}");
    }
}
