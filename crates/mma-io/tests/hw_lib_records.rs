//! Every library-level recording of `../shared/hw-lib/rtx4060-cublaslt` (RTX 4060, cuBLASLt
//! 12.8.3.14 through `torch._scaled_mm`) must be reproduced bit for bit by the "RTX 4060"
//! platform, and every call the GPU rejected must be rejected.
//!
//! As with the instruction records, the recordings sit beside the repository (or where
//! `MMA_HW_LIB_DIR` points); without them this test fails, unless `MMA_ALLOW_MISSING_HW=1`
//! says to skip knowingly (never under `CI=true`).

use mma_io::hw_lib::{check, load, Outcome};
use std::path::PathBuf;

fn set_dir() -> Option<PathBuf> {
    let p = match std::env::var_os("MMA_HW_LIB_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hw-lib"),
    }
    .join("rtx4060-cublaslt");
    p.is_dir().then_some(p)
}

#[test]
fn every_rtx4060_library_recording_matches() {
    let Some(dir) = set_dir() else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let allowed = std::env::var("MMA_ALLOW_MISSING_HW").is_ok_and(|v| v == "1");
        assert!(
            allowed && !ci,
            "no library recordings at ../shared/hw-lib/rtx4060-cublaslt (or MMA_HW_LIB_DIR): \
             nothing can be checked. Outside CI, set MMA_ALLOW_MISSING_HW=1 to skip knowingly."
        );
        eprintln!("SKIPPED: no library recordings and MMA_ALLOW_MISSING_HW=1: nothing checked");
        return;
    };
    let tests = load(&dir).expect("the recordings load");
    assert!(
        tests.len() >= 2000,
        "expected the 2,230 tests, found {}",
        tests.len()
    );
    let p = mma_nvidia::library::platform("RTX 4060").expect("the shipped platform");
    assert!(p.verified());
    let (mut outputs, mut values, mut rejected) = (0usize, 0usize, 0usize);
    let mut bad = Vec::new();
    for t in &tests {
        match check(p, t, 0) {
            Outcome::Pass => match &t.expect {
                mma_io::hw_lib::Expect::Output { bits, .. } => {
                    outputs += 1;
                    values += bits.len();
                }
                _ => rejected += 1,
            },
            other => bad.push(format!("{}: {other:?}", t.id)),
        }
    }
    println!(
        "RTX 4060 cuBLASLt: {outputs} outputs ({values} values) and {rejected} rejected calls reproduced, {} failed",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} of {} calls differ:\n{}",
        bad.len(),
        tests.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}
