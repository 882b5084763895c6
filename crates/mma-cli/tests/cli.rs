//! The command-line tool end to end: good lines evaluate, bad lines get errors naming the file,
//! the line and the problem, and the other lines still count.

use crate::common;
use common::mma;
use std::fs;

/// Hopper wgmma f16 -> f32, K = 16: sixteen 1.0 · 1.0 products plus C = 1.0 is exactly 17.0
/// (0x41880000).
const GOOD: &str = r#"{"vendor":"nvidia","arch":"Hopper","op":"WGMMA","instr":"m64n8k16.f32.f16.f16","a":["3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00"],"b":["3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00","3c00"],"c":"3f800000","d":"41880000","sampler":"hand"}"#;

#[test]
fn eval_writes_d_and_reports_bad_lines_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let no_d = GOOD.replace(r#","d":"41880000""#, "");
    let bad_arch = GOOD.replace("Hopper", "Hoppr");
    let bad_count = GOOD.replace(r#""a":["3c00","#, r#""a":["#);
    let bad_hex = GOOD.replace(r#""c":"3f800000""#, r#""c":"zz""#);
    let bad_instr = GOOD.replace("m64n8k16.f32.f16.f16", "m64n8k16.f32.f16.f17");
    let text = [
        "# a comment",
        &no_d,
        &bad_arch,
        &bad_count,
        &bad_hex,
        "{not json",
        &bad_instr,
        GOOD,
    ]
    .join("\n");
    fs::write(&input, text).unwrap();
    let output = dir.path().join("out.jsonl");
    let (code, _, err) = mma(&[
        "eval",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_ne!(code, 0, "bad lines must make eval fail");
    let name = input.display().to_string();
    assert!(
        err.contains(&format!("{name}:3:")) && err.contains("Hoppr"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:4:")) && err.contains("15 elements"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:5:")) && err.contains("expected exactly 8 hex digits"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:6:")) && err.contains("JSON"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:7:")) && err.contains("did you mean"),
        "{err}"
    );
    let out = fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // One output line per input line: the comment as it was, the good lines with d added or
    // kept (fields in input order), each refused line with "error" and without "d".
    assert_eq!(lines.len(), 8, "{out}");
    assert_eq!(lines[0], "# a comment");
    assert!(
        lines[1].ends_with(r#""sampler":"hand","d":"41880000"}"#),
        "{}",
        lines[1]
    );
    for (i, line) in lines.iter().enumerate().take(7).skip(2) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["error"].is_string(), "line {}: {line}", i + 1);
        assert!(v.get("d").is_none(), "line {}: {line}", i + 1);
    }
    assert!(
        lines[5].starts_with(r#"{"line":6,"error":"#),
        "{}",
        lines[5]
    );
    assert_eq!(lines[7], GOOD.replace(' ', ""));
}

#[test]
fn check_counts_passes_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cases.jsonl");
    let wrong = GOOD.replace(r#""d":"41880000""#, r#""d":"41880001""#);
    fs::write(&f, [GOOD, &wrong, GOOD].join("\n")).unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("2 passed, 1 failed"), "{out}");
    assert!(
        out.contains(":2: expected d = 41880001, model gives 41880000"),
        "{out}"
    );
    fs::write(&f, GOOD).unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

#[test]
fn names_users_type_resolve_to_the_same_instruction() {
    // PTX spelling, product name and the mmasim short form must give the same bits:
    // 1·1 + 1·2 = 3.0 (0x40400000) on Ampere's bf16 path. (A bare `4000` would be ambiguous,
    // bf16 bits or the decimal 4000: `0x4000` is the case-file word.)
    let z = ",0000".repeat(14);
    let a = format!("3f80,3f80{z}");
    let b = format!("3f80,0x4000{z}");
    for (arch, instr) in [
        ("Ampere", "m16n8k16.f32.bf16.bf16.f32"),
        (
            "a100",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        ),
        (
            "RTX 3090",
            "MMA.SYNC.ALIGNED.M16N8K16.ROW.COL.F32.BF16.BF16.F32",
        ),
    ] {
        let (code, out, err) = mma(&[
            "dot", "--arch", arch, "--instr", instr, "--a", &a, "--b", &b, "--c", "00000000",
        ]);
        assert_eq!(code, 0, "{arch} {instr}: {err}");
        assert!(out.starts_with("d = 40400000 (3)"), "{out}");
    }
    let (code, _, err) = mma(&[
        "dot", "--arch", "H1000", "--instr", "x", "--a", "0", "--b", "0", "--c", "0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown NVIDIA architecture") && err.contains("h100"),
        "{err}"
    );
}

#[test]
fn hw_check_reports_unknown_gpu_folders_and_still_runs_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("V100/fp16");
    fs::create_dir_all(&v).unwrap();
    fs::create_dir_all(dir.path().join("Z999/fp16")).unwrap();
    // Volta record 1: 1·1 + 0.5·0.5 + 0 + 0 + C (0.25) = 1.5 (0x3fc00000; with fp16 output
    // f16 0x3e00, written as binary32). Record 2: Inf·0 is invalid: NVIDIA's NaN 0x7fffffff,
    // and with fp16 output 0x7fff, which a binary32 file holds as 0x7fffe000.
    let files = [
        (
            "a_V100_fp16.txt",
            "3f800000 3f000000 00000000 00000000\n7f800000 00000000 00000000 00000000\n",
        ),
        (
            "b_V100_fp16.txt",
            "3f800000 3f000000 00000000 00000000\n00000000 00000000 00000000 00000000\n",
        ),
        (
            "c_V100_fp32.txt",
            "00111110100000000000000000000000\n00000000000000000000000000000000\n",
        ),
        (
            "d_V100_fp32.txt",
            "00111111110000000000000000000000\n01111111111111111111111111111111\n",
        ),
        (
            "d_V100_fp16.txt",
            "00111111110000000000000000000000\n01111111111111111110000000000000\n",
        ),
    ];
    for (name, text) in files {
        fs::write(v.join(name), text).unwrap();
    }
    let (code, out, err) = mma(&["hw-check", dir.path().to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown GPU folder \"Z999\""), "{err}");
    assert!(
        out.contains("V100 f16 -> f32 (Volta m8n8k4.f32.f16.f16.f32): 2 passed, 0 failed"),
        "{out}"
    );
    assert!(
        out.contains("V100 f16 -> f16 (Volta m8n8k4.f16.f16.f16.f16): 2 passed, 0 failed"),
        "{out}"
    );
}
