//! `cargo xtask fuzz`: bounded random testing of every input boundary and every model, on
//! stable Rust (no cargo-fuzz, which needs nightly and LLVM's libFuzzer).
//!
//! Five targets share the time given:
//! - `models`: every distinct unit of both catalogs over arbitrary operand words (random bits,
//!   special values, near-cancelling values, scales), the per-dot kernel, the lane batch
//!   (`Kernel::dots`) and the plain model compared bit for bit, at K = the instruction's K
//!   and longer chains;
//! - `cases`: case-file lines mutated byte by byte and field by field through the parser,
//!   the instruction look-up, the operand checks and the evaluation;
//! - `hw`: hardware-record folders with mutated files through the reader and the checker;
//! - `values`: the command line's value parsers and name look-ups over arbitrary strings;
//! - `units`: unit files, valid and not, through the loader, and every accepted unit through
//!   the kernel, the plain model, the trace and the matrix driver.
//!
//! A finding is a panic, or (models) a disagreement between the paths; each is printed with
//! what reproduces it (target, seed, iteration, the input), and the run exits non-zero. A
//! finding, once fixed, becomes a regression test next to the code it concerns.

mod ctx;
mod inputs;
mod models;
mod units;

pub use ctx::Finding;
use ctx::{Ctx, PANIC_AT};

use anyhow::{bail, Result};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;
use std::time::{Duration, Instant};

/// What `cargo xtask fuzz` runs.
pub struct Opts {
    /// Wall-clock budget for all targets together.
    pub seconds: f64,
    pub seed: u64,
    /// The targets to run (all of them when empty).
    pub targets: Vec<String>,
}

pub const TARGETS: [&str; 5] = ["models", "cases", "hw", "values", "units"];

/// What a run found, and how many inputs each target tried.
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub tried: Vec<(&'static str, u64)>,
}

/// Runs the chosen targets for the time given, in turns of about a tenth of a second each,
/// and returns what they found and how many inputs each tried.
pub fn run(root: &Path, o: &Opts) -> Result<Outcome> {
    let chosen: Vec<&'static str> = if o.targets.is_empty() {
        TARGETS.to_vec()
    } else {
        let mut v = Vec::new();
        for t in &o.targets {
            match TARGETS.iter().find(|&&n| n == t) {
                Some(&n) => v.push(n),
                None => bail!("unknown fuzz target {t:?} (expected one of {TARGETS:?})"),
            }
        }
        v
    };
    if !(o.seconds.is_finite() && o.seconds > 0.0) {
        bail!("--seconds must be a positive number");
    }
    // Panics are findings, reported by the guard: keep the default hook from printing each,
    // but remember where the last one was raised so that the finding can name the line.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        if let Some(at) = info.location() {
            PANIC_AT.with(|p| *p.borrow_mut() = format!("{}:{}", at.file(), at.line()));
        }
    }));
    let seeds = inputs::Seeds::load(root);
    let mut model_state = models::State::new();
    let deadline = Instant::now() + Duration::from_secs_f64(o.seconds);
    let mut ctxs: Vec<Ctx> = chosen
        .iter()
        .enumerate()
        .map(|(i, &t)| Ctx {
            rng: Xoshiro256PlusPlus::seed_from_u64(o.seed.wrapping_add(i as u64 * 0x9e37_79b9)),
            target: t,
            iteration: 0,
            findings: Vec::new(),
        })
        .collect();
    let turn = Duration::from_millis(100);
    'outer: loop {
        for ctx in ctxs.iter_mut() {
            let end = Instant::now() + turn;
            while Instant::now() < end {
                if Instant::now() >= deadline {
                    break 'outer;
                }
                ctx.iteration += 1;
                match ctx.target {
                    "models" => model_state.step(ctx),
                    "cases" => inputs::case_step(ctx, &seeds),
                    "hw" => inputs::hw_step(ctx, &seeds),
                    "units" => units::step(ctx),
                    _ => inputs::values_step(ctx),
                }
            }
        }
    }
    std::panic::set_hook(hook);
    let tried = ctxs.iter().map(|c| (c.target, c.iteration)).collect();
    let findings = ctxs.into_iter().flat_map(|c| c.findings).collect();
    Ok(Outcome { findings, tried })
}
