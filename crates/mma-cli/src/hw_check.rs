//! `mma hw-check`: a folder of hardware records (laid out like `shared/hw`) against the models.

use anyhow::Result;
use mma::cases;
use std::path::{Path, PathBuf};

/// Check a folder of hardware records laid out like shared/hw.
///
/// Example: mma hw-check ../shared/hw --show 5
#[derive(clap::Args)]
pub struct HwCheckCmd {
    /// Folder of <GPU>/<format>/{a,b,c,d}_*.txt record sets (e.g. ../shared/hw).
    pub dir: PathBuf,
    /// How many mismatching records to show per set.
    #[arg(long, default_value_t = 3)]
    pub show: usize,
}

impl HwCheckCmd {
    pub fn run(self) -> Result<bool> {
        hw_check(&self.dir, self.show)
    }
}

pub fn hw_check(dir: &Path, show: usize) -> Result<bool> {
    use mma::hw;
    let (sets, errors) = hw::load_dir(dir);
    for e in &errors {
        eprintln!("error: {e}");
    }
    let (mut tp, mut tf) = (0usize, 0usize);
    for s in &sets {
        let r = hw::check_set(s);
        mma_cli::outln!(
            "{} {} -> {} ({} {}): {} passed, {} failed",
            s.gpu,
            s.input.name,
            s.output.name,
            s.arch,
            s.instruction.name,
            r.passed,
            r.failures.len()
        );
        for (line, want, got) in r.failures.iter().take(show) {
            let w = cases::hex(*want, &s.output);
            let g = cases::hex(*got, &s.output);
            mma_cli::outln!("  line {line}: GPU {w}, model {g}");
        }
        tp += r.passed;
        tf += r.failures.len();
    }
    if errors.is_empty() {
        mma_cli::outln!("total: {tp} passed, {tf} failed");
    } else {
        mma_cli::outln!(
            "total: {tp} passed, {tf} failed, {} records or folders unreadable (above)",
            errors.len()
        );
    }
    if tp + tf == 0 {
        eprintln!(
            "error: {}: no records to check (expected <GPU>/<format>/{{a,b,c,d}}_*.txt)",
            dir.display()
        );
        return Ok(false);
    }
    Ok(tf == 0 && errors.is_empty())
}
