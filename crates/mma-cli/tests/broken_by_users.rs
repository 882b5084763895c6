//! Regression tests of the tool's findings from trying to break it as a user and an
//! adversary would (the reliability issue): each failed before its fix. Outputs never
//! destroy inputs, write failures are errors with exit 1, shapes and headers are checked
//! before anything is allocated, unit files are validated, messages stay short and name
//! what is wrong.

use crate::common;
use common::mma;
use std::fs;
use std::path::Path;

/// Hopper wgmma f16 -> f32, K = 16: sixteen 1·1 products plus C = 1.0 is exactly 17.0.
fn good_line() -> String {
    let ones = vec!["3c00"; 16];
    format!(
        r#"{{"arch":"Hopper","op":"WGMMA","instr":"m64n8k16.f32.f16.f16","a":{ones:?},"b":{ones:?},"c":"3f800000"}}"#
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn eval_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let text = format!("{}\n", good_line());
    fs::write(&input, &text).unwrap();
    let hard = dir.path().join("hard.jsonl");
    fs::hard_link(&input, &hard).unwrap();
    let soft = dir.path().join("soft.jsonl");
    std::os::unix::fs::symlink(&input, &soft).unwrap();
    let dotted = dir.path().join(".").join("in.jsonl");
    for out in [&input, &hard, &soft, &dotted] {
        let (code, _, err) = mma(&["eval", s(&input), "-o", s(out)]);
        assert_eq!(code, 2, "{}: {err}", out.display());
        assert!(err.contains("is the same file as the input"), "{err}");
        assert_eq!(fs::read_to_string(&input).unwrap(), text);
    }
    // Elsewhere it writes, and a second run replaces the output whole.
    let out = dir.path().join("out.jsonl");
    for _ in 0..2 {
        let (code, _, err) = mma(&["eval", s(&input), "-o", s(&out)]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value =
            serde_json::from_str(fs::read_to_string(&out).unwrap().trim()).unwrap();
        assert_eq!(v["d"], "41880000");
    }
}

#[test]
fn infer_suggest_never_writes_over_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("m.jsonl");
    let line = good_line().replace(r#""c":"3f800000""#, r#""c":"3f800000","d":"41880000""#);
    fs::write(&rec, format!("{line}\n")).unwrap();
    let before = fs::read_to_string(&rec).unwrap();
    let (code, _, err) = mma(&["infer", "--suggest", s(&rec), "-o", s(&rec)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is the same file as the input"), "{err}");
    assert_eq!(fs::read_to_string(&rec).unwrap(), before);
}

#[test]
fn a_full_disk_is_an_error_with_exit_1() {
    if !Path::new("/dev/full").exists() {
        panic!("this test needs /dev/full (Linux)");
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    fs::write(&input, format!("{}\n", good_line())).unwrap();
    // To a file that is a full device (written in place, never renamed over).
    let (code, _, err) = mma(&["eval", s(&input), "-o", "/dev/full"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("No space left"), "{err}");
    // To standard output on a full device: an error, not a panic, not a silent exit 0.
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        vec!["list"],
        vec!["list", "--json"],
        vec!["eval", s(&input)],
        vec![
            "dot",
            "--arch",
            "Hopper",
            "--instr",
            "m16n8k8.f32.f16.f16.f32",
            "--a",
            "1,1,1,1,1,1,1,1",
            "--b",
            "1,1,1,1,1,1,1,1",
            "--c",
            "0",
        ],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mma"))
            .args(&args)
            .stdout(full())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("standard output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A `.npy` file whose header is `header` (a Python dict literal, padded as NumPy pads it)
/// followed by `data`.
fn npy(path: &Path, header: &str, data: &[u8]) {
    let mut h = header.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(h.as_bytes());
    bytes.extend_from_slice(data);
    fs::write(path, bytes).unwrap();
}

#[test]
fn npy_shapes_and_headers_are_checked_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.npy");
    npy(
        &b,
        "{'descr': '<f2', 'fortran_order': False, 'shape': (16, 8), }",
        &[0u8; 256],
    );
    let gemm = |a: &Path| {
        mma(&[
            "gemm",
            "--arch",
            "H100",
            "--instr",
            "m64n8k16.f32.f16.f16",
            "--a",
            s(a),
            "--b",
            s(&b),
            "-o",
            s(&dir.path().join("d.npy")),
        ])
    };
    let a = dir.path().join("a.npy");
    // A shape whose element count overflows 64 bits, with 16 values behind it.
    npy(
        &a,
        "{'descr': '<f2', 'fortran_order': False, 'shape': (16, 1152921504606846977), }",
        &[0u8; 32],
    );
    let (code, _, err) = gemm(&a);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--a:") && err.contains("more elements than fit"),
        "{err}"
    );
    // A shape that fits but does not match the data.
    npy(
        &a,
        "{'descr': '<f2', 'fortran_order': False, 'shape': (1000, 16), }",
        &[0u8; 32],
    );
    let (code, _, err) = gemm(&a);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("needs 32000 bytes of data, but the file has 32"),
        "{err}"
    );
    // A version-3 header that claims 4 GiB in a 12-byte file.
    fs::write(&a, b"\x93NUMPY\x03\x00\xff\xff\xff\xff").unwrap();
    let (code, _, err) = gemm(&a);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the header claims 4294967295 bytes"), "{err}");
}

/// A T-FDPA unit file (Hopper's f16 unit) with `extra` fields and parameters replaced.
fn unit_file(dir: &Path, name: &str, json: &str) -> String {
    let p = dir.join(name);
    fs::write(&p, json).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn unit_files_the_tools_cannot_run_are_refused_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let t_fdpa = |k: &str, rho: &str, d: &str| {
        format!(
            r#"{{"a":"f16","b":"f16","c":"{d}","d":"{d}","k":{k},"L_max":16,"model":"T-FDPA","params":{{"F":25,"e_zero":-133,"rho":"{rho}","overflow":"inf","nan":"all-ones","neg_zero_to_pos":true}}}}"#
        )
    };
    let dot = |unit: &str| {
        mma(&[
            "dot",
            "--unit",
            unit,
            "--a",
            "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
            "--b",
            "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
            "--c",
            "0",
        ])
    };
    // "k": 0 divided by zero in gemm.
    let zero_k = unit_file(dir.path(), "k0.json", &t_fdpa("0", "RZ-FP32", "f32"));
    let (code, _, err) = dot(&zero_k);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("\"k\" = 0 must be a positive multiple"),
        "{err}"
    );
    // A rounding target wider than D gave words wider than D (d = 1c1ea for an f16 D).
    let wide = unit_file(dir.path(), "wide.json", &t_fdpa("16", "RZ-FP32", "f16"));
    let (code, _, err) = dot(&wide);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("D (f16) cannot store"), "{err}");
    // A narrower one of the same range is what the fp8 units do: accepted.
    let narrow = unit_file(dir.path(), "narrow.json", &t_fdpa("16", "RZ-E8M13", "f32"));
    let (code, out, err) = dot(&narrow);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("41800000"), "{out}");
}

#[test]
fn gst_units_with_short_groups_in_long_blocks_run() {
    // GST-FDPA with G 1-3 and L_max 64 indexed out of bounds in the per-dot kernel (G must
    // divide the scale block of 32 since the fuzzer's findings: 1, 2 and 4 are the short ones).
    let dir = tempfile::tempdir().unwrap();
    for g in [1, 2, 4] {
        let unit = unit_file(
            dir.path(),
            &format!("gst{g}.json"),
            &format!(
                r#"{{"a":"e2m1","b":"e2m1","c":"f32","d":"f32","scale":"ue8m0","scale_block":32,"k":64,"L_max":64,"layout":"byte","model":"GST-FDPA","params":{{"G":{g},"F":35,"e_zero":-139,"rho":"RZ-FP32","overflow":"inf","nan":"all-ones","neg_zero_to_pos":true}}}}"#
            ),
        );
        // Sixty-four products 1·1, scales 1 (ue8m0 0x7f): exactly 64.
        let ones = vec!["1"; 64].join(",");
        let (code, out, err) = mma(&[
            "dot",
            "--unit",
            &unit,
            "--a",
            &ones,
            "--b",
            &ones,
            "--c",
            "0",
            "--scale-a",
            "7f,7f",
            "--scale-b",
            "7f,7f",
        ]);
        assert_eq!(code, 0, "G = {g}: {err}");
        assert!(out.contains("42800000"), "G = {g}: {out}");
    }
}

#[test]
fn compare_runs_instructions_shorter_than_their_block() {
    // Hopper m16n8k8 f16: K 8, L_max 16; 24 elements are three instructions. `compare`
    // refused such inputs ("its blocks do not divide its K").
    let bits = |words: &str| {
        words
            .split(',')
            .map(|w| format!("bits:{w}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let a = bits("088f,6f05,5146,49f4,2248,bd98,9b49,6009,bc6d,8444,a0e3,587f,c31c,b2fb,217a,8cd5,4f43,d0d1,c073,f021,70c6,9ca0,4f11,cef6");
    let b = bits("3d2a,ea4a,106c,845c,67a9,f427,5e01,b978,eda6,2a6b,0edf,cdd1,6cb0,e7d3,88e8,7008,d59b,e50f,1b9f,c519,0ce9,c575,c49f,c8cf");
    let (code, out, err) = mma(&[
        "compare",
        "--instr-family",
        "f32.f16.f16.f32",
        "--arch",
        "Hopper",
        "--a",
        &a,
        "--b",
        &b,
        "--c",
        "0",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    // The three instructions chained by hand give cbafd1a6 (the reliability issue; the
    // whole-K chaining by blocks gave cbafd1a7).
    assert!(out.contains("cbafd1a6"), "{out}");
    assert!(!out.contains("cbafd1a7"), "{out}");
}

#[test]
fn messages_stay_short_and_name_the_problem() {
    // (One argument may hold at most 128 KiB on Linux.)
    let huge = "x".repeat(100_000);
    let (code, _, err) = mma(&[
        "dot",
        "--arch",
        &huge,
        "--instr",
        "m16n8k8.f32.f16.f16.f32",
        "--a",
        "1",
        "--b",
        "1",
        "--c",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.len() < 2000, "a {} byte message", err.len());
    assert!(err.contains("(100000 bytes)"), "{err}");
    // A filter that selects nothing is an error for bench as for list.
    let (code, _, err) = mma(&["bench", "--filter", "nomatch", "--seconds", "0.01"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = mma(&["list", "--filter", "nomatch"]);
    assert_eq!(code, 2);
    // Probe emission checks its formats and blocks.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let emit = |extra: &[&str]| {
        let mut args = vec![
            "probe",
            "emit",
            "--c-format",
            "f32",
            "--d-format",
            "f32",
            "--k",
            "64",
            "-o",
            s(&out),
            "--records",
            "4",
        ];
        args.extend_from_slice(extra);
        mma(&args)
    };
    let (code, _, err) = emit(&[
        "--a-format",
        "e2m1",
        "--scale-format",
        "ue8m0",
        "--block",
        "7",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--block 7 does not divide --k 64"), "{err}");
    let (code, _, err) = emit(&["--a-format", "ue8m0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--a-format: ue8m0 is a scale format"), "{err}");
    let (code, _, err) = emit(&["--a-format", "e4m3"]);
    assert_eq!(code, 0, "{err}");
    // infer names the real problem of a path it cannot read.
    let lp = dir.path().join("loop");
    std::os::unix::fs::symlink(&lp, &lp).unwrap();
    let (code, _, err) = mma(&["infer", s(&lp)]);
    assert_eq!(code, 2);
    assert!(err.contains("symbolic links"), "{err}");
    let (code, _, err) = mma(&["infer", "/dev/zero"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a case file or a folder"), "{err}");
}

#[test]
fn refused_eval_lines_carry_their_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    // Line 2 is valid JSON with a bad field, line 3 is not JSON.
    let bad_field = good_line().replace("\"c\":\"3f800000\"", "\"c\":\"zz\"");
    fs::write(&input, format!("{}\n{bad_field}\nnot json\n", good_line())).unwrap();
    let (code, out, _) = mma(&["eval", s(&input)]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["line"], 2, "{out}");
    assert_eq!(lines[2]["line"], 3, "{out}");
    assert!(lines[1]["error"].is_string() && lines[2]["error"].is_string());
}
