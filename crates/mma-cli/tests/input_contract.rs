//! The line-level input contract of the binary: a bad byte, a BOM, any line ending, a strict
//! hex word or a bad record costs at most its own line, with file and line named; a command
//! that found nothing to check fails; no command-line value panics.

use crate::common;
use common::mma;
use std::fs;
use std::path::Path;

/// Hopper wgmma f16 -> f32, K = 16, written without "vendor" (inferred from the architecture):
/// sixteen 1.0 · 1.0 products plus C = 1.0 is exactly 17.0 (0x41880000).
fn good(c: &str, d: &str) -> String {
    let ones = vec!["3c00"; 16];
    format!(
        r#"{{"arch":"Hopper","op":"WGMMA","instr":"m64n8k16.f32.f16.f16","a":{ones:?},"b":{ones:?},"c":{c},"d":{d}}}"#
    )
}

fn good_line() -> String {
    good(r#""3f800000""#, r#""41880000""#)
}

#[test]
fn eval_keeps_one_output_line_per_input_line_whatever_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let g = good_line();
    // BOM, CRLF, a lone CR, invalid UTF-8 in a comment and in a case line.
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(g.as_bytes()); // line 1
    bytes.extend_from_slice(b"\r\n# caf\xe9 comment\r"); // line 2
    bytes.extend_from_slice(g.as_bytes()); // line 3
    bytes.extend_from_slice(b"\n{\"arch\":\"H\xff\"}\n"); // line 4
    bytes.extend_from_slice(g.as_bytes()); // line 5
    fs::write(&input, &bytes).unwrap();
    let output = dir.path().join("out.jsonl");
    let (code, _, err) = mma(&[
        "eval",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let name = input.display().to_string();
    assert!(err.contains(&format!("{name}:4:")), "{err}");
    assert!(err.contains("not valid UTF-8 (byte 11)"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = fs::read(&output).unwrap();
    let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 6, "five lines and the final newline");
    for i in [0, 2, 4] {
        let v: serde_json::Value = serde_json::from_slice(lines[i]).unwrap();
        assert_eq!(v["d"], "41880000", "line {}", i + 1);
    }
    assert_eq!(lines[1], b"# caf\xe9 comment");
    let refused: serde_json::Value = serde_json::from_slice(lines[3]).unwrap();
    assert_eq!(refused["line"], 4);
    assert!(refused["error"].as_str().unwrap().contains("UTF-8"));
}

/// Comments that are not valid UTF-8 ("# caf\xe9", Latin-1; "// \xff\xfe") reach standard
/// output as the bytes they were, from a file and from standard input (`-`), never as U+FFFD
/// (EF BF BD): the output is three lines, the first and the last the comments' bytes, the
/// case between them with its d (17.0 = 0x41880000, see `good`). The raw bytes of stdout are
/// compared (the shared helper decodes them lossily, which would hide the difference).
#[test]
fn eval_copies_comment_bytes_to_standard_output_unchanged() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let mut bytes = b"# caf\xe9\n".to_vec();
    bytes.extend_from_slice(good(r#""3f800000""#, r#""00000000""#).as_bytes());
    bytes.extend_from_slice(b"\r\n// \xff\xfe\r\n");
    fs::write(&input, &bytes).unwrap();
    let check = |out: &[u8]| {
        let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 4, "three lines and the final newline");
        assert_eq!(lines[0], b"# caf\xe9");
        let v: serde_json::Value = serde_json::from_slice(lines[1]).unwrap();
        assert_eq!(v["d"], "41880000");
        assert_eq!(lines[2], b"// \xff\xfe");
        assert_eq!(lines[3], b"");
    };
    let out = Command::new(env!("CARGO_BIN_EXE_mma"))
        .args(["eval", input.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
    check(&out.stdout);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mma"))
        .args(["eval", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
    check(&out.stdout);
}

#[test]
fn a_line_too_long_to_keep_costs_only_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("long.jsonl");
    let mut text = good_line();
    text.push('\n');
    text.push_str(&"x".repeat(17 << 20));
    text.push('\n');
    text.push_str(&good_line());
    fs::write(&f, text).unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("2 passed, 1 failed"), "{out}");
    assert!(
        out.contains(":2: not valid JSON: line of 17825792 bytes"),
        "{out}"
    );
}

#[test]
fn hex_words_are_read_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("hex.jsonl");
    let lines = [
        good(r#""3f800000""#, r#""41880000""#),   // 1: good
        good(r#""0x3f800000""#, r#""41880000""#), // 2: good, with the prefix
        good(r#""3f80""#, r#""41880000""#),       // 3: a 4-digit C for an fp32 C
        good(r#""0X3f800000""#, r#""41880000""#), // 4: another spelling of the prefix
        good(r#""3f800000""#, r#""4188000""#),    // 5: a 7-digit D
        good(r#""3f800000""#, "123"),             // 6: a number, not a string
        good(r#""3f800000""#, r#""0x41880000""#), // 7: good
        good(r#"" 3f800000""#, r#""41880000""#),  // 8: white space
    ];
    fs::write(&f, lines.join("\n")).unwrap();
    let (code, out, _) = mma(&["check", "--show", "10", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("3 passed, 5 failed"), "{out}");
    let name = f.display().to_string();
    for (line, what) in [
        (
            3,
            r#"c[0] = "3f80": expected exactly 8 hex digits (a 32-bit f32 word)"#,
        ),
        (4, r#"c[0] = "0X3f800000": expected exactly 8 hex digits"#),
        (5, r#"d[0] = "4188000": expected exactly 8 hex digits"#),
        (6, r#"field "d": expected a string (a hex word), found 123"#),
        (8, r#"c[0] = " 3f800000": expected exactly 8 hex digits"#),
    ] {
        assert!(
            out.contains(&format!("{name}:{line}: {what}")),
            "{line}: {out}"
        );
    }
}

#[test]
fn commands_that_found_nothing_to_check_fail() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("comments.jsonl");
    fs::write(&f, "# only a comment\n\n// and another\n").unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no cases to check"), "{out}");
    let (code, _, err) = mma(&["hw-check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no records to check"), "{err}");
}

/// Volta fp16 records as in `cli.rs` (record 1: 1·1 + 0.5·0.5 + 0.25 = 1.5, 0x3fc00000).
fn volta_folder(root: &Path, a: &str, d32: &str) {
    let v = root.join("V100/fp16");
    fs::create_dir_all(&v).unwrap();
    let c = "00111110100000000000000000000000\n".repeat(3);
    for (name, text) in [
        ("a_V100_fp16.txt", a.to_string()),
        (
            "b_V100_fp16.txt",
            "3f800000 3f000000 00000000 00000000\n".repeat(3),
        ),
        ("c_V100_fp32.txt", c),
        ("d_V100_fp32.txt", d32.to_string()),
    ] {
        fs::write(v.join(name), text).unwrap();
    }
}

#[test]
fn hw_check_reports_bad_records_by_file_and_line_and_checks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let one = "3f800000 3f000000 00000000 00000000\n";
    // Line 2 has K = 3 in a folder of K = 4; line 3 is fine. D line 1 is not a word.
    let a = format!("{one}3f800000 3f000000 00000000\n{one}");
    let d = "0011111111000000000000000000000\n".to_string()
        + &"00111111110000000000000000000000\n".repeat(2);
    volta_folder(dir.path(), &a, &d);
    let (code, out, err) = mma(&["hw-check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("a_V100_fp16.txt:2: 3 elements, but the folder's records have K = 4"),
        "{err}"
    );
    assert!(err.contains("d_V100_fp32.txt:1: \""), "{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

#[test]
fn command_line_values_never_panic() {
    for args in [
        &["bench", "--seconds", "nan"][..],
        &["bench", "--seconds=-1"],
        &["bench", "--seconds", "inf"],
        &["bench", "--threads", "0"],
        &["bench", "--gemm", "100000"],
        &["bench", "--gemm", "24"],
        &["bench", "--dots", "12"],
        &["bench", "--dots", "0"],
        &["bench", "--dots", "8388608"],
    ] {
        let (code, _, err) = mma(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("invalid value"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn messages_name_flags_operations_and_alternatives() {
    let ones = ["3c00"; 16].join(",");
    let base = ["dot", "--arch", "H100", "--instr", "m64n8k16.f32.f16.f16"];
    let run = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        mma(&v)
    };
    let (code, _, err) = run(&["--a", &ones, "--b", &ones, "--c", "3f80"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--c: word 1 (\"3f80\"): expected exactly 8"),
        "{err}"
    );
    let (_, _, err) = run(&["--a", "3c00", "--b", &ones, "--c", "00000000"]);
    assert!(err.contains("--a: 1 word, but"), "{err}");
    let (_, _, err) = run(&["--op", "MMA", "--a", &ones, "--b", &ones, "--c", "0"]);
    assert!(err.contains("it is a WGMMA instruction there"), "{err}");
    let (_, _, err) = run(&["--op", "WGMA", "--a", &ones, "--b", &ones, "--c", "0"]);
    assert!(err.contains("did you mean WGMMA?"), "{err}");
    // Block-scaled: the scale flags are named as flags. (`0x22`, not `22`, which is also the
    // decimal 22: the bare word would be ambiguous.)
    let a32 = ["0x22"; 32].join(",");
    let (_, _, err) = mma(&[
        "dot",
        "--arch",
        "RTX Blackwell",
        "--instr",
        "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3",
        "--a",
        &a32,
        "--b",
        &a32,
        "--c",
        "00000000",
        "--scale-a",
        "0x38,0x38,0x38",
        "--scale-b",
        "0x38,0x38,0x38,0x38",
    ]);
    assert!(err.contains("--scale-a: 3 words, but"), "{err}");
    // An AMD line's op is checked.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("amd.jsonl");
    let eight = vec!["3c00"; 8];
    fs::write(
        &f,
        format!(
            r#"{{"arch":"MI300X","op":"WGMMA","instr":"f32_32x32x8_f16","a":{eight:?},"b":{eight:?},"c":"00000000","d":"41000000"}}"#
        ),
    )
    .unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains(
            r#"field "op": unknown operation `WGMMA`: every AMD instruction here is an MFMA"#
        ),
        "{out}"
    );
    let fixed = fs::read_to_string(&f).unwrap().replace("WGMMA", "MFMA");
    fs::write(&f, fixed).unwrap();
    let (code, out, _) = mma(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}
