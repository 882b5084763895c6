//! Integer operands (issue 58): `mma dot`, `mma explain` and case files on integer units (s8,
//! u8, s4, u4, b1 into s32), from unit files and from the catalog's integer rows. Every
//! expected value is derived by hand beside its case.

use crate::common;
use common::mma;
use std::fs;

fn list(n: usize, word: &str) -> String {
    vec![word; n].join(",")
}

/// A unit file of I-DPA with `a`/`b` formats, K = `k`, the operation and the accumulator's rule.
fn unit_file(dir: &std::path::Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

const S8: &str = r#"{"a":"s8","b":"s8","c":"s32","d":"s32","L_max":16,"model":"I-DPA","params":{"op":"mul","saturate":false}}"#;
const S8_SAT: &str = r#"{"a":"s8","b":"s8","c":"s32","d":"s32","L_max":16,"model":"I-DPA","params":{"op":"mul","saturate":true}}"#;
const S8_U8: &str = r#"{"a":"s8","b":"u8","c":"s32","d":"s32","L_max":16,"model":"I-DPA","params":{"op":"mul","saturate":false}}"#;
const S4_U4: &str = r#"{"a":"s4","b":"u4","c":"s32","d":"s32","L_max":8,"model":"I-DPA","params":{"op":"mul","saturate":false},"layout":"packed_int4"}"#;
const B1_XOR: &str = r#"{"a":"b1","b":"b1","c":"s32","d":"s32","L_max":16,"model":"I-DPA","params":{"op":"xor","saturate":false},"layout":"bits"}"#;
const B1_AND: &str = r#"{"a":"b1","b":"b1","c":"s32","d":"s32","L_max":16,"model":"I-DPA","params":{"op":"mul","saturate":false},"layout":"bits"}"#;

/// 16 products 127·127 = 16129 each, 258064 in all, plus C = 2^31 - 1 = 2147483647:
/// 2147741711, above s32's range. Wrapped modulo 2^32: 2147741711 - 2^32 = -2147225585, the
/// word 0x8003f00f; clamped (`.satfinite`): 2147483647 = 0x7fffffff. D − exact: -2^32 and
/// -258064.
#[test]
fn s8_wraps_and_saturates_from_unit_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = list(16, "127");
    let u = unit_file(dir.path(), "s8.json", S8);
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        &a,
        "--b",
        &a,
        "--c",
        "2147483647",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 0x8003f00f = -2147225585"), "{out}");
    assert!(out.contains("exact = 2147741711"), "{out}");
    assert!(out.contains("error = -4294967296"), "{out}");
    let s = unit_file(dir.path(), "s8sat.json", S8_SAT);
    // C as a hex word: 0x7fffffff is 2^31 - 1.
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &s,
        "--a",
        &a,
        "--b",
        &a,
        "--c",
        "0x7fffffff",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 0x7fffffff = 2147483647"), "{out}");
    assert!(out.contains("error = -258064"), "{out}");
    // --json: the case line's words (s8 as 2 hex digits, s32 as 8) and D's value.
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        &a,
        "--b",
        &a,
        "--c",
        "2147483647",
        "--json",
    ]);
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["d"], "8003f00f", "{out}");
    assert_eq!(v["d_decimal"], "-2147225585", "{out}");
    assert_eq!(v["c"], "7fffffff", "{out}");
    assert_eq!(v["a"][0], "7f", "{out}");
}

/// s8 × u8: -128 · 255 = -32640 per element, 16 of them -522240, C = 0. `0x80` is s8's -128.
#[test]
fn u8_times_s8_and_hex_words() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit_file(dir.path(), "s8u8.json", S8_U8);
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        &list(16, "0x80"),
        "--b",
        &list(16, "255"),
        "--c",
        "0",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("= -522240"), "{out}");
    assert!(out.contains("error = 0"), "{out}");
}

#[test]
fn out_of_range_and_non_integer_operands_are_errors_naming_the_operand() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit_file(dir.path(), "s8u8.json", S8_U8);
    let ones = list(16, "1");
    let bad = format!("1,1,1,200,{}", list(12, "1"));
    let (rc, _, err) = mma(&["dot", "--unit", &u, "--a", &bad, "--b", &ones, "--c", "0"]);
    assert_ne!(rc, 0);
    assert!(
        err.contains("--a: element 4: 200 is outside s8's range -128..127"),
        "{err}"
    );
    let bad = format!("-1,{}", list(15, "1"));
    let (rc, _, err) = mma(&["dot", "--unit", &u, "--a", &ones, "--b", &bad, "--c", "0"]);
    assert_ne!(rc, 0);
    assert!(
        err.contains("--b: element 1: -1 is outside u8's range 0..255"),
        "{err}"
    );
    for (word, why) in [
        ("0.5", "takes whole numbers only"),
        ("nan", "has no NaN"),
        ("inf", "has no infinity"),
        ("7f", "is not an integer operand"),
        ("0x180", "wider than s8's 8 bits"),
    ] {
        let a = format!("{word},{}", list(15, "1"));
        let (rc, _, err) = mma(&["dot", "--unit", &u, "--a", &a, "--b", &ones, "--c", "0"]);
        assert_ne!(rc, 0, "{word}");
        assert!(
            err.contains("--a: element 1:") && err.contains(why),
            "{word}: {err}"
        );
    }
    let (rc, _, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        &ones,
        "--b",
        &ones,
        "--c",
        "2147483648",
    ]);
    assert_ne!(rc, 0);
    assert!(
        err.contains("--c: element 1: 2147483648 is outside s32's range -2147483648..2147483647"),
        "{err}"
    );
}

/// s4 × u4, K = 8, two to a byte with element 2i in the low nibble: A = -8, 7, -1, 0, 1, 2, 3,
/// 4 and B = 15, 15, 1, 0, 0, 0, 0, 1 give -120 + 105 - 1 + 4 = -12 (0xfffffff4). As bytes:
/// A (-8, 7) is 0x78, (-1, 0) 0x0f, (1, 2) 0x21, (3, 4) 0x43; B (15, 15) 0xff, (1, 0) 0x01,
/// (0, 0) 0x00, (0, 1) 0x10.
#[test]
fn s4_u4_as_elements_and_as_packed_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit_file(dir.path(), "s4.json", S4_U4);
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        "-8,7,-1,0,1,2,3,4",
        "--b",
        "15,15,1,0,0,0,0,1",
        "--c",
        "0",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 0xfffffff4 = -12"), "{out}");
    let (rc, out, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        "0x78,0x0f,0x21,0x43",
        "--b",
        "0xff,0x01,0x00,0x10",
        "--c",
        "0",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("d = 0xfffffff4 = -12"), "{out}");
    let (rc, _, err) = mma(&[
        "dot",
        "--unit",
        &u,
        "--a",
        "-9,7,-1,0,1,2,3,4",
        "--b",
        "15,15,1,0,0,0,0,1",
        "--c",
        "0",
    ]);
    assert_ne!(rc, 0);
    assert!(
        err.contains("--a: element 1: -9 is outside s4's range -8..7"),
        "{err}"
    );
    let (rc, _, err) = mma(&[
        "dot", "--unit", &u, "--a", "1,2,3", "--b", "1,2,3", "--c", "0",
    ]);
    assert_ne!(rc, 0);
    assert!(err.contains("takes a multiple of 2"), "{err}");
}

/// b1, K = 16. A = 1,0,1,1,0,0,0,0, 1,1,1,1,1,1,1,1; B = 1,1,0,1,0,0,0,0, 0,0,0,0,0,0,0,1.
/// XOR: 0,1,1,0,0,0,0,0 (2) and 1,1,1,1,1,1,1,0 (7): 9, plus C = 5: 14. AND: 1,0,0,1 (2) and
/// the last bit (1): 3, plus 5: 8. Bytes, element 8i in bit 0: A 0b1101 = 0x0d, 0xff; B 0b1011
/// = 0x0b, 0x80.
#[test]
fn b1_xor_and_and_popcount() {
    let dir = tempfile::tempdir().unwrap();
    let x = unit_file(dir.path(), "xor.json", B1_XOR);
    let n = unit_file(dir.path(), "and.json", B1_AND);
    let a = "1,0,1,1,0,0,0,0,1,1,1,1,1,1,1,1";
    let b = "1,1,0,1,0,0,0,0,0,0,0,0,0,0,0,1";
    for (u, want) in [(&x, "= 14"), (&n, "= 8")] {
        let (rc, out, err) = mma(&["dot", "--unit", u, "--a", a, "--b", b, "--c", "5"]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.contains(want) && out.contains("error = 0"), "{out}");
        let (rc, out, err) = mma(&[
            "dot",
            "--unit",
            u,
            "--a",
            "0x0d,0xff",
            "--b",
            "0x0b,0x80",
            "--c",
            "5",
        ]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.contains(want), "{out}");
    }
    let bad = "1,0,2,1,0,0,0,0,1,1,1,1,1,1,1,1";
    let (rc, _, err) = mma(&["dot", "--unit", &x, "--a", bad, "--b", b, "--c", "5"]);
    assert_ne!(rc, 0);
    assert!(
        err.contains("--a: element 3: 2 is outside b1's range 0..1"),
        "{err}"
    );
}

/// `mma explain` shows the exact sum and the step into s32: 1 + 2 + ... + 16 with the last
/// product negated (-16): 136 - 32 = 104, plus 2^31 - 1: 2147483751, wrapped to
/// 2147483751 - 2^32 = -2147483545 (0x80000067).
#[test]
fn explain_shows_the_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit_file(dir.path(), "s8.json", S8);
    let a = (1..=16)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let b = format!("{},-1", list(15, "1"));
    let (rc, out, err) = mma(&[
        "explain",
        "--unit",
        &u,
        "--a",
        &a,
        "--b",
        &b,
        "--c",
        "2147483647",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("2147483751"), "{out}");
    assert!(out.contains("wrapped modulo 2^32"), "{out}");
    assert!(out.contains("d = 0x80000067 = -2147483545"), "{out}");
}

/// Case files: s8 A/B as 2-hex-digit words, C and D as 8-hex-digit s32 words; the packed
/// layouts as bytes. The s8 line is the wrap case above; the s4 line the s4 × u4 case.
#[test]
fn case_files_of_integer_units() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit_file(dir.path(), "s8.json", S8);
    let q = |w: &str, n| vec![format!("\"{w}\""); n].join(",");
    let good = format!(
        r#"{{"a":[{a}],"b":[{a}],"c":"7fffffff","d":"8003f00f"}}"#,
        a = q("7f", 16)
    );
    let wrong = format!(
        r#"{{"a":[{a}],"b":[{a}],"c":"7fffffff","d":"7fffffff"}}"#,
        a = q("7f", 16)
    );
    let short = format!(
        r#"{{"a":[{a}],"b":[{a}],"c":"7fff","d":"8003f00f"}}"#,
        a = q("7f", 16)
    );
    let cases = dir.path().join("s8.jsonl");
    fs::write(&cases, format!("{good}\n{wrong}\n")).unwrap();
    let c = cases.to_str().unwrap();
    let (rc, out, _) = mma(&["check", "--unit", &u, c]);
    assert_ne!(rc, 0);
    assert!(out.contains("1 passed, 1 failed"), "{out}");
    fs::write(&cases, format!("{short}\n")).unwrap();
    let (rc, out, err) = mma(&["check", "--unit", &u, c]);
    assert_ne!(rc, 0);
    let all = format!("{out}{err}");
    assert!(
        all.contains("s8.jsonl:1: c[0]") && all.contains("8 hex digits"),
        "{all}"
    );
    let s4 = unit_file(dir.path(), "s4.json", S4_U4);
    let line =
        r#"{"a":["78","0f","21","43"],"b":["ff","01","00","10"],"c":"00000000","d":"fffffff4"}"#;
    fs::write(&cases, format!("{line}\n")).unwrap();
    let (rc, out, err) = mma(&["check", "--unit", &s4, c]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

/// The catalog's integer rows (added with issue 58): the same wrap and clamp through `--arch
/// Ampere --instr`.
#[test]
fn catalog_rows() {
    let a = list(16, "127");
    for (instr, want) in [
        ("m16n8k16.s32.s8.s8.s32", "d = 0x8003f00f = -2147225585"),
        (
            "m16n8k16.satfinite.s32.s8.s8.s32",
            "d = 0x7fffffff = 2147483647",
        ),
    ] {
        let (rc, out, err) = mma(&[
            "dot",
            "--arch",
            "Ampere",
            "--instr",
            instr,
            "--a",
            &a,
            "--b",
            &a,
            "--c",
            "2147483647",
        ]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.contains(want), "{instr}: {out}");
    }
}

/// `mma error-report` on the integer rows measures D against the exact sum: 0 everywhere
/// for random s8 inputs at K = 16 (whose sums stay within s32) and for `.xor.popc` (the
/// XOR count, not products).
#[cfg(feature = "oracle")]
#[test]
fn error_report_of_catalog_integer_rows() {
    let (rc, out, err) = mma(&[
        "error-report",
        "--arch",
        "Ampere",
        "--instr",
        "m16n8k16.s32.s8.s8.s32",
        "--samples",
        "50",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("max 0") && out.contains("100.00%"), "{out}");
    {
        let (rc, out, err) = mma(&[
            "error-report",
            "--arch",
            "Ampere",
            "--instr",
            "m16n8k128.s32.b1.b1.s32.xor.popc",
            "--samples",
            "20",
        ]);
        assert_eq!(rc, 0, "{err}");
        assert!(
            out.contains("max 0") && out.contains("0 outside the bound"),
            "{out}"
        );
    }
}
