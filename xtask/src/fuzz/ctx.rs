//! What every fuzz target gets (its random stream, where its findings go, the guard that
//! turns a panic into a finding), apart from the driver in `mod.rs` that runs the targets, so
//! that the targets and the driver do not name each other.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One problem found.
#[derive(Debug)]
pub struct Finding {
    pub target: &'static str,
    pub iteration: u64,
    pub what: String,
}

/// The state every target gets: its random stream and where findings go.
pub struct Ctx {
    pub rng: Xoshiro256PlusPlus,
    pub target: &'static str,
    pub iteration: u64,
    pub findings: Vec<Finding>,
}

thread_local! {
    /// Where the panic being caught was raised (set by the hook, taken by the guard).
    pub(super) static PANIC_AT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

impl Ctx {
    /// Runs `f`, recording a panic as a finding described by `input`.
    pub fn guard<T>(&mut self, input: impl FnOnce() -> String, f: impl FnOnce() -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => Some(v),
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let at = PANIC_AT.with(|p| std::mem::take(&mut *p.borrow_mut()));
                self.report(format!("panic at {at}: {msg}\n    input: {}", input()));
                None
            }
        }
    }

    pub fn report(&mut self, what: String) {
        if self.findings.len() < 20 {
            self.findings.push(Finding {
                target: self.target,
                iteration: self.iteration,
                what,
            });
        }
    }

    pub fn coin(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n.max(1))
    }
}
