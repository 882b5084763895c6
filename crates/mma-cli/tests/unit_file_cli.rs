//! `--unit FILE` wherever an instruction is accepted, and `mma list --unit-file`: a catalog
//! unit printed as a file and read back computes what the catalog instruction computes; a unit
//! no GPU has (F = 20, blocks of 8, RNE) runs from its file.

use crate::common;
use common::mma;
use std::fs;

fn ones(n: usize, word: &str) -> String {
    vec![word; n].join(",")
}

#[test]
fn listed_unit_file_runs_like_the_catalog_instruction() {
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("hopper.json");
    let (rc, text, err) = mma(&[
        "list",
        "--arch",
        "H100",
        "--instr",
        "m64n8k16.f32.f16.f16",
        "--unit-file",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(text.contains("\"model\": \"T-FDPA\""), "{text}");
    assert!(text.contains("\"k\": 16"), "{text}");
    fs::write(&unit, &text).unwrap();
    let u = unit.to_str().unwrap();
    // Sixteen 1·1 products plus 1.0: 17.0.
    let (a, b) = (ones(16, "3c00"), ones(16, "3c00"));
    let (rc, out, err) = mma(&["dot", "--unit", u, "--a", &a, "--b", &b, "--c", "3f800000"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 41880000"), "{out}");
    // A case file without arch and instr, checked and evaluated on the unit.
    let line = format!(
        r#"{{"a":[{q}],"b":[{q}],"c":"3f800000","d":"41880000"}}"#,
        q = vec!["\"3c00\""; 16].join(",")
    );
    let cases = dir.path().join("cases.jsonl");
    fs::write(&cases, format!("{line}\n")).unwrap();
    let c = cases.to_str().unwrap();
    let (rc, out, err) = mma(&["check", "--unit", u, c]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    let (rc, out, err) = mma(&["eval", "--unit", u, c]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains(r#""d":"41880000""#), "{out}");
    // Without --unit the same line lacks its instruction.
    let (rc, _, _) = mma(&["check", c]);
    assert_ne!(rc, 0);
}

/// F = 20 and RNE, by hand: the products 1·1 and 2^-11·2^-10 = 2^-21 and C = 1.0 align at
/// e_max = 0, where 20 fraction bits keep multiples of 2^-20, so 2^-21 is truncated away and
/// the sum is exactly 2.0 (0x40000000).
#[test]
fn a_unit_no_gpu_has_runs_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("f20.json");
    fs::write(
        &unit,
        r#"{"a": "f16", "b": "f16", "c": "f32", "d": "f32", "k": 8, "L_max": 8,
            "model": "T-FDPA",
            "params": {"F": 20, "e_zero": -133, "rho": "RNE-FP32", "overflow": "inf",
                       "nan": "all-ones", "neg_zero_to_pos": true}}"#,
    )
    .unwrap();
    let u = unit.to_str().unwrap();
    // a = (1.0, 2^-11, 0...), b = (1.0, 2^-10, 0...), c = 1.0 (f16 words 3c00, 0x1000 and
    // 0x1400: a bare 1000 would also be the decimal 1000).
    let a = "3c00,0x1000,0000,0000,0000,0000,0000,0000";
    let b = "1,0x1p-10,0,0,0,0,0,0";
    let (rc, out, err) = mma(&["dot", "--unit", u, "--a", a, "--b", b, "--c", "1.0"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 40000000"), "{out}");
    // A misspelt parameter is refused with its name.
    let text = fs::read_to_string(&unit).unwrap();
    fs::write(&unit, text.replace(r#""F": 20"#, r#""F": 20, "ezero": 1"#)).unwrap();
    let (rc, _, err) = mma(&["dot", "--unit", u, "--a", a, "--b", b, "--c", "3f800000"]);
    assert_eq!(rc, 2);
    assert!(err.contains("unknown parameter \"ezero\""), "{err}");
}

/// Blackwell `kind::f8f6f4` with fp4 A and B: case files hold each e2m1 element in bits 5:2 of
/// a byte, so 1.0 (e2m1 0b0010) is the byte `08`. The unit file `mma list --unit-file` prints
/// says so (`"layout": "byte"`), and through it one product 1·1 (the other 31 elements zero,
/// C = +0) is exactly 1.0: `3f800000`, as the catalog instruction gives. (The file once read
/// bits 3:0, where `08` is 0: D was `00000000`.) A line that names another instruction is
/// refused under `--unit`, naming both units; one that names this instruction is accepted.
#[test]
fn fp4_unit_files_read_case_words_as_the_catalog_does() {
    let dir = tempfile::tempdir().unwrap();
    let instr = "m64n8k32.kind::f8f6f4.f32.e2m1.e2m1";
    let (rc, text, err) = mma(&["list", "--arch", "B200", "--instr", instr, "--unit-file"]);
    assert_eq!(rc, 0, "{err}");
    assert!(text.contains("\"layout\": \"byte\""), "{text}");
    let unit = dir.path().join("b200_fp4.json");
    fs::write(&unit, &text).unwrap();
    let u = unit.to_str().unwrap();
    // On the command line `08` is ambiguous for e2m1 (the decimal 8, or a word): values there.
    let a = format!("1.0,{}", ones(31, "0"));
    let (rc, out, err) = mma(&["dot", "--unit", u, "--a", &a, "--b", &a, "--c", "00000000"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 3f800000"), "{out}");
    let (rc, out, err) = mma(&[
        "dot", "--arch", "B200", "--instr", instr, "--a", &a, "--b", &a, "--c", "00000000",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 3f800000"), "{out}");
    let words = |n: usize| {
        let mut w = vec!["\"00\""; n];
        w[0] = "\"08\"";
        w.join(",")
    };
    let own = format!(
        r#"{{"arch":"B200","instr":"{instr}","a":[{w}],"b":[{w}],"c":"00000000","d":"3f800000"}}"#,
        w = words(32)
    );
    let other = format!(
        r#"{{"arch":"H100","instr":"m64n8k32.f32.e4m3.e4m3","a":[{w}],"b":[{w}],"c":"00000000","d":"3f800000"}}"#,
        w = words(32)
    );
    // The case-file word `08` (1.0 in bits 5:2), without an instruction, with its own, and
    // with another's.
    let bare = format!(
        r#"{{"a":[{w}],"b":[{w}],"c":"00000000","d":"3f800000"}}"#,
        w = words(32)
    );
    let cases = dir.path().join("cases.jsonl");
    fs::write(&cases, format!("{bare}\n{own}\n{other}\n")).unwrap();
    let (rc, out, err) = mma(&["check", "--unit", u, cases.to_str().unwrap()]);
    assert_ne!(rc, 0, "{out}");
    assert!(out.contains("2 passed, 1 failed"), "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains(":3:") && all.contains("the line names H100 m64n8k32.f32.e4m3.e4m3"),
        "{all}"
    );
}
