//! Every catalog instruction, NVIDIA and AMD (one per distinct unit and K: instructions that differ only in M
//! and N share both) stays within its Table V bound, block by block and as a whole, on random
//! inputs of every distribution. A failure prints the `mma dot` command that replays it.

use mma::error_report::{dot_command, Job};
use mma::oracle::{evaluate, Dist, Sampler};
use std::collections::HashSet;

/// Samples per (unit, distribution); more for the cheap units.
fn samples(k: usize) -> usize {
    if k <= 16 {
        600
    } else {
        300
    }
}

fn jobs() -> Vec<Job> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for i in mma::nvidia::catalog() {
        if seen.insert((i.unit, i.k)) {
            let job = Job::resolve(Some("nvidia"), i.arch.name(), &i.name)
                .unwrap_or_else(|e| panic!("{} {}: {e}", i.arch, i.name));
            out.push(job);
        }
    }
    for i in mma::amd::catalog() {
        if seen.insert((i.unit, i.k)) {
            let job = Job::resolve(Some("amd"), i.arch.name(), &i.name)
                .unwrap_or_else(|e| panic!("{} {}: {e}", i.arch.name(), i.name));
            out.push(job);
        }
    }
    out
}

#[test]
fn catalog_within_table_v_bounds() {
    let jobs = jobs();
    assert!(jobs.len() > 20, "only {} distinct units", jobs.len());
    let mut failures = Vec::new();
    let mut n = 0usize;
    for (j, job) in jobs.iter().enumerate() {
        for (d, dist) in Dist::ALL.into_iter().enumerate() {
            let seed = (j * 4 + d) as u64;
            for x in job.sample(dist, seed).take(samples(job.target.k)) {
                n += 1;
                let e = evaluate(job.target.unit, &x);
                if !e.within && failures.len() < 10 {
                    failures.push(format!(
                        "{dist}: {} ({} ulps, bound {:?})",
                        dot_command(job, &x),
                        e.report.ulps,
                        e.bound_ulps
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} samples outside the bound:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn dot_command_replays_the_sample() {
    // The printed command's words, read back through the case layer, give the same operands.
    for (arch, instr) in [
        ("Hopper", "m64n8k16.f32.f16.f16"),
        ("RTX Blackwell", "m16n8k32.kind::f8f6f4.f32.e2m1.e3m2.f32"),
        (
            "RTX Blackwell",
            "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3",
        ),
        ("Ampere", "m16n8k8.f32.tf32.tf32.f32"),
    ] {
        let job = Job::resolve(None, arch, instr).expect("resolves");
        let x = Sampler::new(job.target.unit.formats, job.target.k, Dist::Bits, 1)
            .next()
            .expect("a sample");
        let cmd = dot_command(&job, &x);
        let arg = |name: &str| -> String {
            let i = cmd.find(&format!("--{name} ")).expect(name) + name.len() + 3;
            cmd[i..].split(' ').next().expect("value").to_string()
        };
        let words =
            |s: String| -> Vec<serde_json::Value> { s.split(',').map(|w| w.into()).collect() };
        let mut line = serde_json::json!({
            "vendor": "nvidia", "arch": arch, "instr": instr,
            "a": words(arg("a")), "b": words(arg("b")), "c": arg("c"),
        });
        if job.target.unit.formats.scale.is_some() {
            line["scale_a"] = words(arg("scale-a")).into();
            line["scale_b"] = words(arg("scale-b")).into();
        }
        let case = mma::cases::parse_line(&line.to_string()).expect("parses");
        let o = mma::cases::operands(&case, &job.target).expect("fits");
        assert_eq!((o.a, o.b, o.c), (x.a.clone(), x.b.clone(), x.c), "{cmd}");
        assert_eq!((o.scale_a, o.scale_b), (x.scale_a, x.scale_b));
    }
}
