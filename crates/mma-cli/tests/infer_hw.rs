//! `mma infer` on the hardware records of `../shared/hw`, copied to a temporary folder with
//! every GPU folder renamed to a neutral name: for every record set it must name the
//! architecture that measured it, come back with Sliced-FDPA fits for the sets that model
//! explains, and with "C ignored" fits (and the architecture) for the H100 fp8 sets with fp32
//! output, whose records match C = 0.
//!
//! The records are found and required as `mma-nvidia`'s `tests/hw_records.rs` does: in
//! `../shared/hw` or `MMA_HW_DIR`; without them the test fails, unless `MMA_ALLOW_MISSING_HW=1`
//! (never with `CI=true`), and then it says on stderr that it skipped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn hw_root() -> Option<PathBuf> {
    let p = match std::env::var_os("MMA_HW_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hw"),
    };
    p.is_dir().then_some(p)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            copy_dir(&p, &to.join(&name));
        } else {
            fs::copy(&p, to.join(&name)).unwrap();
        }
    }
}

/// The GPUs of the records, the neutral names they get, and their architectures.
const GPUS: [(&str, &str, &str); 5] = [
    ("V100", "gpu1", "Volta"),
    ("A100", "gpu2", "Ampere"),
    ("Ada", "gpu3", "Ada Lovelace"),
    ("H100", "gpu4", "Hopper"),
    ("B200", "gpu5", "Blackwell"),
];

#[test]
fn infer_names_the_architecture_of_every_record_set() {
    let Some(root) = hw_root() else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let allowed = std::env::var("MMA_ALLOW_MISSING_HW").is_ok_and(|v| v == "1");
        assert!(
            allowed && !ci,
            "no hardware records at ../shared/hw (or MMA_HW_DIR): nothing can be inferred. \
             Outside CI, set MMA_ALLOW_MISSING_HW=1 to skip this test knowingly."
        );
        eprintln!("SKIPPED: no hardware records and MMA_ALLOW_MISSING_HW=1: inference not checked");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (gpu, neutral, _) in GPUS {
        let src = root.join(gpu);
        if !src.is_dir() {
            continue;
        }
        // Files are named after the GPU too (a_H100_fp16.txt): rename them as well.
        for fmt in fs::read_dir(&src).unwrap().flatten() {
            let dst = tmp.path().join(neutral).join(fmt.file_name());
            copy_dir(&fmt.path(), &dst);
            for f in fs::read_dir(&dst).unwrap().flatten() {
                let n = f.file_name().to_string_lossy().replace(gpu, neutral);
                fs::rename(f.path(), dst.join(n)).unwrap();
            }
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_mma"))
        .args(["infer", "--json"])
        .arg(tmp.path())
        .output()
        .expect("run mma");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let sets: Vec<serde_json::Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(sets.len(), 30, "{stdout}");
    let mut bad = Vec::new();
    for s in &sets {
        let source = s["source"].as_str().unwrap();
        assert!(!GPUS.iter().any(|(g, _, _)| source.contains(g)), "{source}");
        let (_, _, arch) = GPUS
            .iter()
            .find(|(_, n, _)| source.contains(&format!("/{n}/")))
            .unwrap();
        let archs: Vec<&str> = s["archs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let models: Vec<&str> = s["fits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["model"].as_str().unwrap())
            .collect();
        let fp8 = matches!(s["a_format"].as_str(), Some("e4m3" | "e5m2"));
        let d = s["d_format"].as_str().unwrap();
        let hopper_c_ignored = *arch == "Hopper" && fp8 && d == "f32";
        let sliced = fp8 && (d == "f16" && *arch != "Ada Lovelace" || *arch == "Blackwell");
        let want = if hopper_c_ignored {
            format!("{arch} (C ignored)")
        } else {
            arch.to_string()
        };
        if !archs.contains(&want.as_str()) {
            bad.push(format!(
                "{source}: {want} not in {archs:?} (fits {models:?})"
            ));
        }
        if sliced && !models.contains(&"Sliced-FDPA") {
            bad.push(format!("{source}: no Sliced-FDPA fit among {models:?}"));
        }
        if hopper_c_ignored
            && !s["fits"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["params"]["C"] == "ignored")
        {
            bad.push(format!("{source}: fits that use C: {}", s["fits"]));
        }
        assert_eq!(s["records"], 2500, "{source}");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
