//! `mma probe emit --question NAME`: the open questions of `crates/mma-cli/questions/` (two readings of
//! one instruction as unit files) and the probes on which the readings differ. Each probe's
//! expected words are checked against `mma dot --unit FILE` on the same operands, the written
//! file against `mma infer`, and one probe is derived by hand.

use crate::common;
use common::mma;
use serde_json::Value as Json;
use std::fs;
use std::path::PathBuf;

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("questions")
}

/// The index lines (name, arch, instruction, default file, alternative file, label,
/// differ|same, evidence).
fn index() -> Vec<Vec<String>> {
    fs::read_to_string(folder().join("index.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// `mma dot --unit FILE` on a case line's operands: the word it prints.
fn dot(unit: &str, line: &serde_json::Map<String, Json>) -> String {
    let bits = |key: &str| -> String {
        line[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| format!("bits:{}", w.as_str().unwrap()))
            .collect::<Vec<_>>()
            .join(",")
    };
    let (a, b) = (bits("a"), bits("b"));
    let c = format!("bits:{}", line["c"].as_str().unwrap());
    let mut args = vec![
        "dot", "--unit", unit, "--a", &a, "--b", &b, "--c", &c, "--json",
    ];
    let (sa, sb);
    if line.contains_key("scale_a") {
        (sa, sb) = (bits("scale_a"), bits("scale_b"));
        args.extend(["--scale-a", &sa, "--scale-b", &sb]);
    }
    let (rc, out, err) = mma(&args);
    assert_eq!(rc, 0, "{err}");
    let v: Json = serde_json::from_str(&out).unwrap();
    v["d"].as_str().unwrap().to_string()
}

#[test]
fn the_index_names_existing_unit_files_of_the_catalog_instruction() {
    let qs = index();
    assert!(!qs.is_empty());
    for q in &qs {
        assert_eq!(q.len(), 8, "{q:?}");
        assert!(q[6] == "differ" || q[6] == "same", "{q:?}");
        assert!(q[7].starts_with("unverified"), "evidence: {q:?}");
        // This project's reading is the catalog's unit, bit for bit.
        let (rc, catalog, err) = mma(&["list", "--arch", &q[1], "--instr", &q[2], "--unit-file"]);
        assert_eq!(rc, 0, "{err}");
        let file = |n: &str| -> Json {
            serde_json::from_str(&fs::read_to_string(folder().join(n)).unwrap()).unwrap()
        };
        let catalog: Json = serde_json::from_str(&catalog).unwrap();
        assert_eq!(file(&q[3]), catalog, "{}", q[3]);
        assert_ne!(file(&q[4]), catalog, "{}", q[4]);
    }
}

#[test]
fn every_question_writes_probes_whose_words_differ_and_match_mma_dot() {
    let mut differing = 0;
    for q in index() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let (rc, said, err) = mma(&["probe", "emit", "--question", &q[0], "-o", out]);
        assert_eq!(rc, 0, "{err}");
        // Both readings' unit files are written beside the probes, as shipped.
        for file in [&q[3], &q[4]] {
            let written = fs::read_to_string(dir.path().join(file)).unwrap();
            assert_eq!(written, fs::read_to_string(folder().join(file)).unwrap());
        }
        let probes = dir.path().join(format!("{}.jsonl", q[0]));
        if q[6] == "same" {
            // `emit` tried every candidate and found no input that separates the readings.
            assert!(said.contains("same word on every candidate"), "{said}");
            assert!(!probes.exists(), "{}", q[0]);
            continue;
        }
        differing += 1;
        assert!(said.contains("probes"), "{said}");
        let text = fs::read_to_string(&probes).unwrap();
        let lines: Vec<serde_json::Map<String, Json>> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(!lines.is_empty() && lines.len() <= 16, "{}", q[0]);
        let (this, other) = (folder().join(&q[3]), folder().join(&q[4]));
        let mut filled = String::new();
        for mut l in lines {
            let (d0, d1) = (
                l["d_this_project"].clone(),
                l[&format!("d_{}", q[5])].clone(),
            );
            assert_ne!(d0, d1, "{l:?}");
            assert!(!l.contains_key("d"), "the device fills in d");
            assert_eq!(dot(this.to_str().unwrap(), &l), d0.as_str().unwrap());
            assert_eq!(dot(other.to_str().unwrap(), &l), d1.as_str().unwrap());
            // A device that computes this project's reading: `mma infer` reads the file.
            l.insert("d".into(), d0);
            filled.push_str(&format!("{}\n", Json::Object(l)));
        }
        let f = dir.path().join("measured.jsonl");
        fs::write(&f, filled).unwrap();
        let (rc, said, err) = mma(&["infer", f.to_str().unwrap()]);
        assert_eq!(rc, 0, "{err}");
        assert!(!err.contains("not read"), "{err}");
        assert!(said.contains("records"), "{said}");
    }
    assert!(differing >= 3, "{differing} questions with probes");
}

#[test]
fn the_emitted_probes_are_the_same_on_every_run() {
    let q = &index()[0][0];
    let read = || {
        let dir = tempfile::tempdir().unwrap();
        let (rc, _, err) = mma(&[
            "probe",
            "emit",
            "--question",
            q,
            "-o",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(rc, 0, "{err}");
        fs::read_to_string(dir.path().join(format!("{q}.jsonl"))).unwrap()
    };
    assert_eq!(read(), read());
}

#[test]
fn an_unknown_question_is_an_error_listing_the_names() {
    let dir = tempfile::tempdir().unwrap();
    let (rc, _, err) = mma(&[
        "probe",
        "emit",
        "--question",
        "no-such-question",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--question"), "{err}");
    for q in index() {
        assert!(err.contains(&q[0]), "{err}");
    }
    let (rc, out, err) = mma(&["probe", "emit", "--question", "list"]);
    assert_eq!(rc, 0, "{err}");
    for q in index() {
        assert!(out.contains(&q[0]), "{out}");
    }
}

/// By hand, from the ST-FDPA model (`st_fdpa.rs`, `t_fdpa.rs`): K = 32, one scale pair
/// 2^-71 · 2^-71 = 2^-142 (ue8m0 `38` = 2^(56-127)). a[0] = b[0] = 1 (e4m3 `38`): the product
/// 2^-142. a[1] = -2^-9, b[1] = 2^-9 (e4m3 `81`, `01`, the smallest subnormal): the product
/// -2^-18 · 2^-142 = -2^-160. The other 30 products and C are zero.
///
/// - This project (`e_zero = -133`): the zero terms carry exponent -133, so e_max = -133 and
///   every term is truncated to F = 25 fraction bits below it, a quantum of about 2^-158;
///   -2^-160 truncates toward zero to 0. The sum is 2^-142 = 128 · 2^-149: f32 `00000080`.
/// - No floor (`e_zero = -4096`): e_max is the large product's, about -142, the quantum about
///   2^-167, so -2^-160 is kept: 2^-142 - 2^-160, rounded toward zero to the f32 subnormal
///   quantum 2^-149, is 127 · 2^-149: f32 `0000007f`.
#[test]
fn a_hand_derived_probe_separates_the_mxf8f6f4_window_floor() {
    let mut a = vec!["00"; 32];
    let mut b = vec!["00"; 32];
    (a[0], b[0], a[1], b[1]) = ("38", "38", "81", "01");
    let line: serde_json::Map<String, Json> = serde_json::from_value(serde_json::json!({
        "a": a, "b": b, "c": "00000000", "scale_a": ["38"], "scale_b": ["38"]
    }))
    .unwrap();
    let unit = |n: &str| folder().join(format!("mxf8f6f4-window-floor.{n}.json"));
    assert_eq!(
        dot(unit("this-project").to_str().unwrap(), &line),
        "00000080"
    );
    assert_eq!(
        dot(unit("tcgen05-model").to_str().unwrap(), &line),
        "0000007f"
    );
}

/// By hand, H100 `m16n8k32.f32.e4m3.e4m3.f32` (T-FDPA F = 13, RZ-E8M13): a[0] = b[0] = 2^-9
/// (e4m3 `01`, the smallest subnormal), the product 2^-18; the other 31 products are zero;
/// C = 1.0 (`3f800000`).
///
/// - This project (C a term of the window): e_max = 0 (C's exponent), the quantum 2^-13, so
///   2^-18 truncates to 0 and the sum is 1.0: `3f800000`.
/// - C added last: the products alone give 2^-18 (exact in E8M13), then 1 + 2^-18 is one
///   fp32 nearest-even addition, exact (2^-18 is 32 fp32 ulps of 1): `3f800020`.
///
/// `mma compare --question` shows both words and where the traces part.
#[test]
fn a_hand_derived_case_separates_hopper_fp8_c_late_in_dot_and_compare() {
    let mut a = vec!["00"; 32];
    let mut b = vec!["00"; 32];
    (a[0], b[0]) = ("01", "01");
    let line: serde_json::Map<String, Json> =
        serde_json::from_value(serde_json::json!({"a": a, "b": b, "c": "3f800000"})).unwrap();
    let unit = |n: &str| folder().join(format!("hopper-fp8-c-late.{n}.json"));
    assert_eq!(
        dot(unit("this-project").to_str().unwrap(), &line),
        "3f800000"
    );
    assert_eq!(
        dot(unit("c-added-last").to_str().unwrap(), &line),
        "3f800020"
    );

    let list = |v: &[&str]| {
        v.iter()
            .map(|w| format!("bits:{w}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let (sa, sb) = (list(&a), list(&b));
    let args = [
        "compare",
        "--question",
        "hopper-fp8-c-late",
        "--a",
        &sa,
        "--b",
        &sb,
        "--c",
        "bits:3f800000",
    ];
    let (rc, out, err) = mma(&args);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("this-project") && out.contains("c_added_last"),
        "{out}"
    );
    assert!(
        out.contains("3f800000") && out.contains("3f800020"),
        "{out}"
    );
    assert!(out.contains("traces part at"), "{out}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let (rc, out, err) = mma(&json_args);
    assert_eq!(rc, 0, "{err}");
    let v: Json = serde_json::from_str(&out).unwrap();
    let d: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["d"].as_str().unwrap())
        .collect();
    assert_eq!(d, ["3f800000", "3f800020"], "{out}");
    // The exact value is 1 + 2^-18: the alternative is exact, this project 32 ulps low.
    assert_eq!(v["differences"].as_array().unwrap().len(), 1, "{out}");
}

/// A question and an architecture list are two different comparisons.
#[test]
fn compare_refuses_a_question_with_architectures() {
    let (rc, _, err) = mma(&[
        "compare",
        "--question",
        "hopper-fp8-c-late",
        "--arch",
        "H100",
        "--a",
        "0",
        "--b",
        "0",
        "--c",
        "0",
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("--question") || err.contains("--arch"),
        "{err}"
    );
    let (rc, _, err) = mma(&[
        "compare",
        "--question",
        "no-such",
        "--a",
        "0",
        "--b",
        "0",
        "--c",
        "0",
    ]);
    assert_ne!(rc, 0);
    assert!(err.contains("hopper-fp8-c-late"), "{err}");
}
