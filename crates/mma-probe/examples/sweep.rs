//! The blind round trip of `tests/round_trip.rs` over every distinct unit of both catalogs
//! (190 (unit, K) pairs), too slow for CI (about five minutes on two cores in a release
//! build): `cargo run --release -p mma-probe --example sweep`. Each unit's plain model is run
//! as a black box on the probes and 300 random records of its formats and K; the unit must be
//! among the fits, and every fit must compute the unit's results on 60 fresh random records.

use mma_core::DotUnit;
#[path = "../tests/common/mod.rs"]
mod common;
use common::round_trip;
use std::collections::HashSet;
use std::time::Instant;

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
