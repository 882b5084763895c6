//! `mma error-report --dist file:PATH` uses only the lines written for the instruction's
//! formats and K, and says how many it used and why it left the others out.
#![cfg(feature = "oracle")]

use std::fs;
use std::process::Command;

fn ones(n: usize, word: &str) -> String {
    vec![format!("\"{word}\""); n].join(",")
}

#[test]
fn file_lines_of_other_formats_are_counted_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cases.jsonl");
    // f16 → f32 with K = 16 on Hopper (the instruction reported on) and on Ampere (same
    // formats and K: used); bf16 on Ampere (other formats, though its words read as f16:
    // left out); a line naming no instruction (unreadable).
    let f16 = ones(16, "3c00");
    let bf16 = ones(16, "3f80");
    let lines = [
        "# comment lines are not counted".to_string(),
        format!(
            r#"{{"vendor":"nvidia","arch":"Hopper","instr":"m64n8k16.f32.f16.f16","a":[{f16}],"b":[{f16}],"c":"3f800000"}}"#
        ),
        format!(
            r#"{{"vendor":"nvidia","arch":"Ampere","instr":"m16n8k16.f32.f16.f16.f32","a":[{f16}],"b":[{f16}],"c":"00000000"}}"#
        ),
        format!(
            r#"{{"vendor":"nvidia","arch":"Ampere","instr":"m16n8k16.f32.bf16.bf16.f32","a":[{bf16}],"b":[{bf16}],"c":"00000000"}}"#
        ),
        format!(
            r#"{{"vendor":"nvidia","arch":"Ampere","instr":"no.such","a":[{f16}],"b":[{f16}],"c":"00000000"}}"#
        ),
    ];
    fs::write(&path, lines.join("\n")).unwrap();
    let dist = format!("file:{}", path.display());
    let out = Command::new(env!("CARGO_BIN_EXE_mma"))
        .args([
            "error-report",
            "--arch",
            "Hopper",
            "--instr",
            "m64n8k16.f32.f16.f16",
        ])
        .args(["--dist", &dist])
        .output()
        .expect("run mma");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "2 of 4 lines of {} used (1 written for other formats or K, 1 unreadable)",
            path.display()
        )),
        "{stderr}"
    );
    // 16 · 1 + 1 = 17 and 16 · 1 + 0 = 16 are exact: no error.
    assert!(stdout.contains("2 samples from"), "{stdout}");
    assert!(stdout.contains("max 0\n"), "{stdout}");
    assert!(
        stdout.contains("correctly rounded (RNE): 100.00%"),
        "{stdout}"
    );
}
