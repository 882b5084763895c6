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

/// One record that every candidate explains: f16 with K = 4, A = B = four ones, C = +0 and
/// D = 4 (fp32 0x40800000), exact whatever the model, block length or rounding.
const ONE_RECORD: &str = concat!(
    r#"{"a_format": "f16", "b_format": "f16", "c_format": "f32", "d_format": "f32", "k": 4, "#,
    r#""a": ["3c00", "3c00", "3c00", "3c00"], "b": ["3c00", "3c00", "3c00", "3c00"], "#,
    r#""c": "00000000", "d": "40800000"}"#
);

/// `mma infer` on one record finishes within 600 MiB of address space, and says that one
/// record decides little. Its grouping of the fits searched the merged list for each fit
/// (issue 56: one record still ran after minutes) and first built a map per fit: under
/// `ulimit -v` the old binary needed 700 to 800 MiB before its search began; it now needs
/// under 400 MiB and a few seconds. Two threads and two malloc arenas, so that the address
/// space does not grow with the machine's cores.
#[test]
fn infer_on_one_record_is_bounded_and_says_it_decides_little() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("one.jsonl");
    fs::write(&rec, format!("{ONE_RECORD}\n")).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"ulimit -v 614400 && exec "$0" infer "$1""#)
        .arg(env!("CARGO_BIN_EXE_mma"))
        .arg(&rec)
        .env("RAYON_NUM_THREADS", "2")
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .expect("run bash");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let groups = lines.iter().filter(|l| l.starts_with("    ")).count();
    // Every candidate of the grid (grid.rs) for f16 → f32 with K = 4, by hand, per C use (C = +0,
    // so C ignored fits too): FMA 4 roundings; FTZ-MulAdd P = 1, 2, 4; with block lengths 1, 2,
    // 4 and 8 roundings (4 modes to fp32 and E8M13): E-FDPA 3 · 8 · 4 conventions = 96, T-FDPA
    // 3 · 8 · 40 F · 18 e_zero · 4 = 69,120; TR-FDPA (to fp32 only) 3 · 4 · 204 (F, F2) · 16
    // = 39,168; GTR-FDPA (blocks of 2 and 4) 2 · 4 · 204 · 32 = 52,224; Sliced-FDPA (blocks of
    // 4: passes · group 2 · 1, 2 · 2, 4 · 1) 3 · 40 · 8 · 2 · 8 = 15,360. 175,975 per C use.
    let open = format!("351950 parameter combinations in {groups} groups");
    assert_eq!(
        &lines[..3],
        [
            format!("{}: f16.f16 -> f32 (C f32), K = 4, 1 record", rec.display()),
            format!(
                "  1 record decides little: {open} remain open; the targeted probes of `mma probe \
                 emit` and the inputs of `mma infer --suggest` tell them apart"
            ),
            format!("  fits explaining every record ({open}):"),
        ],
        "{stdout}"
    );
    // Hundreds of groups (278 when this test was written), one line each, then the catalog
    // line: every architecture with an f16 → f32 instruction of K >= 4, whose units are all in
    // the grid (mma-probe's round trip of every catalog unit), in catalog order.
    assert!(groups > 100 && lines.len() == groups + 4, "{stdout}");
    let mut archs: Vec<String> = Vec::new();
    for i in mma::catalog::instructions() {
        let f = &i.unit.formats;
        let ours = [f.a.name, f.b.name, f.c.name, f.d.name] == ["f16", "f16", "f32", "f32"];
        if ours && f.scale.is_none() && i.k >= 4 && !archs.contains(&i.arch.to_string()) {
            archs.push(i.arch.to_string());
        }
    }
    assert_eq!(
        lines[groups + 3],
        format!("  catalog architectures: {}", archs.join(", "))
    );
    let (rc, out, err) = mma(&["infer", "--json", rec.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let sets: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(sets[0]["combinations"], 351950);
    assert_eq!(sets[0]["fits"].as_array().unwrap().len(), groups);
}

/// A record file whose lines say K = 0 or a `k` that is not their operands' length: each such
/// line is an error naming the file, the line and the field, and costs only itself.
#[test]
fn infer_refuses_k_zero_and_a_wrong_k_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("bad.jsonl");
    let k0 = concat!(
        r#"{"a_format": "f16", "c_format": "f32", "d_format": "f32", "k": 0, "a": [], "b": [], "#,
        r#""c": "00000000", "d": "00000000"}"#
    );
    let huge = ONE_RECORD.replace(r#""k": 4"#, r#""k": 1000000000000000000"#);
    fs::write(&rec, format!("{ONE_RECORD}\n{k0}\n{huge}\n")).unwrap();
    let (rc, out, err) = mma(&["infer", rec.to_str().unwrap()]);
    let name = rec.display();
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            format!(
                "error: {name}:2: field \"a\": no elements: K = 0 is not a dot product (A and B \
                 need K >= 1 elements)"
            ),
            format!(
                "error: {name}:3: field \"k\": 1000000000000000000, but a and b have 4 elements \
                 (k is the operands' length)"
            ),
            format!("{name}: 2 lines not read"),
        ]
    );
    // The good line is read and inferred from on its own.
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        out.lines().next(),
        Some(format!("{name}: f16.f16 -> f32 (C f32), K = 4, 1 record").as_str())
    );
}
