//! `mma gemm --gpu`: recorded RTX 4060 cuBLASLt calls through the command line (one of each
//! kind: split serial and pairwise, fast and slow, every output dtype, a result scale), the
//! rejections and `--explain`.

use crate::common;
use common::mma;
use mma_cli::npy::{self, Matrix};
use mma_io::hw_lib::{load, Api, Expect, LibTest};
use std::path::{Path, PathBuf};

fn recordings() -> Option<Vec<LibTest>> {
    let dir = match std::env::var_os("MMA_HW_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hw-lib"),
    }
    .join("rtx4060-cublaslt");
    if !dir.is_dir() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let allowed = std::env::var("MMA_ALLOW_MISSING_HW").is_ok_and(|v| v == "1");
        assert!(allowed && !ci, "no library recordings at {}", dir.display());
        eprintln!("SKIPPED: no library recordings and MMA_ALLOW_MISSING_HW=1");
        return None;
    }
    Some(load(&dir).expect("recordings"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The recorded call through `mma gemm --gpu "RTX 4060"`, D compared bit for bit.
fn run(t: &LibTest, dir: &Path) {
    let (pa, pb, pd) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("d.npy"));
    let a = Matrix {
        rows: t.m,
        cols: t.k,
        words: t.a.clone(),
    };
    // mat2 is K×N: the recorded B ([N, K]) transposed.
    let mut b = vec![0u64; t.k * t.n];
    for j in 0..t.n {
        for i in 0..t.k {
            b[i * t.n + j] = t.b_cols[j * t.k + i];
        }
    }
    let b = Matrix {
        rows: t.k,
        cols: t.n,
        words: b,
    };
    npy::write(&pa, "a", &t.fmt_a, &a).unwrap();
    npy::write(&pb, "b", &t.fmt_b, &b).unwrap();
    let f32s = |x: u32| format!("bits:{x:08x}");
    let (sa, sb) = (f32s(t.scales.a), f32s(t.scales.b));
    let mut args = vec![
        "gemm".to_string(),
        "--gpu".into(),
        "RTX 4060".into(),
        "--a".into(),
        s(&pa).into(),
        "--b".into(),
        s(&pb).into(),
        "--a-bits".into(),
        "--b-bits".into(),
        "--a-format".into(),
        t.fmt_a.name.into(),
        "--b-format".into(),
        t.fmt_b.name.into(),
        "--scale-a".into(),
        sa,
        "--scale-b".into(),
        sb,
        "--out-dtype".into(),
        t.out.name.into(),
        "--split-k".into(),
        t.split.parts.to_string(),
        "--split-order".into(),
        t.split.order.name().into(),
        "-o".into(),
        s(&pd).into(),
    ];
    if let Some(r) = t.scales.result {
        args.extend(["--scale-result".into(), f32s(r)]);
    }
    if t.fast_accum {
        args.push("--fast-accum".into());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = mma(&argv);
    assert_eq!(code, 0, "{}: {err}", t.id);
    let d = npy::read(&pd, "-o", &t.out, npy::Input::Bits)
        .or_else(|_| npy::read(&pd, "-o", &t.out, npy::Input::Values))
        .unwrap();
    let Expect::Output { bits, diagonal } = &t.expect else {
        unreachable!()
    };
    if *diagonal {
        for (i, &w) in bits.iter().enumerate() {
            assert_eq!(d.words[i * t.n + i], w, "{} [{i}, {i}]", t.id);
        }
    } else {
        assert_eq!(&d.words, bits, "{}", t.id);
    }
}

#[test]
fn recorded_calls_through_the_command_line() {
    let Some(tests) = recordings() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // One torch._scaled_mm call of each (split order, fast, output dtype, result scale).
    let mut seen = std::collections::HashSet::new();
    let mut ran = 0;
    for t in &tests {
        if t.api != Api::ScaledMm || !matches!(t.expect, Expect::Output { .. }) {
            continue;
        }
        let key = (
            t.split.parts > 1,
            t.split.order,
            t.fast_accum,
            t.out.name,
            t.scales.result.is_some(),
        );
        if seen.insert(key) {
            run(t, dir.path());
            ran += 1;
        }
    }
    assert!(ran >= 12, "only {ran} kinds of call");
}

#[test]
fn rejections_and_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb, pd) = (
        dir.path().join("a.npy"),
        dir.path().join("b.npy"),
        dir.path().join("d.npy"),
    );
    let m = |rows, cols| Matrix {
        rows,
        cols,
        words: vec![0x38; rows * cols], // e4m3 1.0
    };
    npy::write(&pa, "a", &mma::format::E4M3, &m(16, 64)).unwrap();
    npy::write(&pb, "b", &mma::format::E4M3, &m(64, 16)).unwrap();
    let base = [
        "gemm",
        "--gpu",
        "rtx4060",
        "--a",
        s(&pa),
        "--b",
        s(&pb),
        "--a-bits",
        "--b-bits",
    ];
    let with = |extra: &[&str]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        mma(&v)
    };
    // e4m3 × e4m3 → e5m2: cuBLASLt 12.8.3 refuses it on sm_89.
    let (code, _, err) = with(&["--out-dtype", "e5m2", "-o", s(&pd)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rejects e4m3 x e4m3 -> e5m2"), "{err}");
    // A split without its order is not guessed.
    let (code, _, err) = with(&["--split-k", "3", "-o", s(&pd)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--split-order"), "{err}");
    // The plan: unit, promotion, split, epilogue, evidence.
    let (code, out, err) = with(&[
        "--out-dtype",
        "bf16",
        "--split-k",
        "3",
        "--split-order",
        "pairwise",
        "--explain",
    ]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "RTX 4060",
        "verified",
        "m16n8k32.f32.e4m3.e4m3.f32",
        "T-FDPA F=13 L_max=16",
        "every 128 elements",
        "S = 3 parts",
        "pairwise",
        "rounded twice",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // 64 products 1·1 = 64 in bf16 (0x4280), slow accumulation, no split.
    let (code, _, err) = with(&["--out-dtype", "bf16", "-o", s(&pd)]);
    assert_eq!(code, 0, "{err}");
    let d = npy::read(&pd, "-o", &mma::format::BF16, npy::Input::Bits).unwrap();
    assert!(d.words.iter().all(|&w| w == 0x4280), "{:x?}", &d.words[..4]);
    // The H100 PCIe platform is unverified: said on stderr.
    let mut v = base.to_vec();
    v[2] = "H100 PCIe";
    v.extend_from_slice(&["--out-dtype", "f32", "-o", s(&pd)]);
    let (code, _, err) = mma(&v);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("unverified"), "{err}");
}
