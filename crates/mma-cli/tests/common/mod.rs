//! Helpers shared by the binary's test files.

use std::process::Command;

/// Runs the `mma` binary with `args`: (exit code, stdout, stderr).
pub fn mma(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mma"))
        .args(args)
        .output()
        .expect("run mma");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
