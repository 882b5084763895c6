//! The closed loop through the command line: `mma probe emit` writes probes for a unit no GPU
//! has (from its unit file), `mma eval --unit` plays the device, `mma infer` names the unit's
//! parameters and writes the fits as unit files, and `mma infer --suggest` finds inputs that
//! split fits the records cannot tell apart.

use crate::common;
use common::mma;
use std::fs;

/// T-FDPA with F = 20, blocks of 8 and RNE to fp32 on bf16 inputs: no catalog holds it.
const UNIT: &str = r#"{"a": "bf16", "b": "bf16", "c": "f32", "d": "f32", "k": 16, "L_max": 8,
  "model": "T-FDPA",
  "params": {"F": 20, "e_zero": -133, "rho": "RNE-FP32", "overflow": "inf",
             "nan": "all-ones", "neg_zero_to_pos": true}}"#;

#[test]
fn emit_eval_infer_finds_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    fs::write(p("unit.json"), UNIT).unwrap();
    let (rc, out, err) = mma(&[
        "probe",
        "emit",
        "--a-format",
        "bf16",
        "--c-format",
        "f32",
        "--d-format",
        "f32",
        "--k",
        "16",
        "--records",
        "300",
        "-o",
        &p("probes"),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("targeted probes"), "{out}");
    fs::create_dir(p("measured")).unwrap();
    for f in ["probes.jsonl", "random.jsonl"] {
        let (rc, _, err) = mma(&[
            "eval",
            "--unit",
            &p("unit.json"),
            &format!("{}/{f}", p("probes")),
            "-o",
            &format!("{}/{f}", p("measured")),
        ]);
        assert_eq!(rc, 0, "{err}");
    }
    let (rc, out, err) = mma(&[
        "infer",
        "--json",
        "--write-units",
        &p("fits"),
        &format!("{}/probes.jsonl", p("measured")),
        &format!("{}/random.jsonl", p("measured")),
    ]);
    assert_eq!(rc, 0, "{err}");
    let sets: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    // The two files are two sources of the same formats and K: one set each.
    assert_eq!(sets.len(), 2, "{out}");
    let probes = &sets[0];
    assert_eq!(probes["a_format"], "bf16");
    assert_eq!(probes["k"], 16);
    assert!(probes["archs"].as_array().unwrap().is_empty(), "{probes}");
    for fit in probes["fits"].as_array().unwrap() {
        assert_eq!(fit["model"], "T-FDPA", "{fit}");
        assert_eq!(fit["params"]["F"], 20, "{fit}");
        assert_eq!(fit["params"]["L_max"], 8, "{fit}");
        assert_eq!(fit["params"]["rho"], "RNE-FP32", "{fit}");
        assert_eq!(fit["params"]["nan"], "all-ones", "{fit}");
    }
    // A written fit is a unit file that reproduces the measured results.
    let fit0 = fs::read_dir(p("fits"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let (rc, out, err) = mma(&[
        "check",
        "--unit",
        fit0.to_str().unwrap(),
        &format!("{}/random.jsonl", p("measured")),
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    // Few records leave fits open; --suggest writes inputs on which they disagree.
    let few = p("few.jsonl");
    let text = fs::read_to_string(format!("{}/random.jsonl", p("measured"))).unwrap();
    fs::write(&few, text.lines().take(8).collect::<Vec<_>>().join("\n")).unwrap();
    let (rc, _, err) = mma(&["infer", "--suggest", &few, "-o", &p("next.jsonl")]);
    assert_eq!(rc, 0, "{err}");
    let next = fs::read_to_string(p("next.jsonl")).unwrap();
    assert!(
        next.lines().filter(|l| l.starts_with('{')).count() > 0,
        "{next}"
    );
}
