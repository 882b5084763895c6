//! Structured-sparse operands (issue 58): `mma dot --meta`, case lines with `"meta"`, and the
//! error report's replay, on the catalogs' sparse rows. Every expected value is derived by
//! hand beside its case.

use crate::common;
use common::mma;

const SP: &str = "sp.m16n8k32.f32.f16.f16.f32";

/// Ampere's `mma.sp` m16n8k32 f16: A dense 1, NaN, Inf, 2 in every group of four with the
/// metadata (0, 3) keeping the 1 and the 2; B all ones; C = 0.5. The kept products are eight
/// 1·1 and eight 2·1: 24, plus 0.5 = 24.5 = 0x41c40000 (1.53125 · 2^4: exponent 131, fraction
/// 0x440000). The NaN and Inf at the disabled positions have no effect, and A given compressed
/// (the kept 1, 2 of each group) gives the same word.
#[test]
fn dense_and_compressed_a_give_the_kept_products() {
    let dense = ["1", "nan", "inf", "2"].repeat(8).join(",");
    let kept = ["1", "2"].repeat(8).join(",");
    let b = ["1"; 32].join(",");
    let meta = ["0", "3"].repeat(8).join(",");
    for a in [&dense, &kept] {
        let (rc, out, err) = mma(&[
            "dot", "--arch", "Ampere", "--instr", SP, "--a", a, "--b", &b, "--c", "0.5", "--meta",
            &meta,
        ]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.starts_with("d = 41c40000 (24.5)"), "{out}");
        assert!(err.contains("unverified"), "{err}");
    }
    // The same on CDNA3's v_smfmac 16x16x32 f16 (TR-FDPA over the 16 kept products: exact
    // small integers, 24.5 again).
    let (rc, out, err) = mma(&[
        "dot",
        "--arch",
        "MI300X",
        "--instr",
        "v_smfmac_f32_16x16x32_f16",
        "--a",
        &kept,
        "--b",
        &b,
        "--c",
        "0.5",
        "--meta",
        &meta,
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("d = 41c40000 (24.5)"), "{out}");
}

/// A selector the ISA does not allow (3, 3) is named with its group; a sparse instruction
/// without metadata, metadata for a dense one, and an A of neither length are errors.
#[test]
fn bad_metadata_is_named() {
    let kept = ["1"; 16].join(",");
    let b = ["1"; 32].join(",");
    let mut meta: Vec<&str> = ["0", "1"].repeat(8);
    meta[2] = "3";
    meta[3] = "3";
    let (rc, _, err) = mma(&[
        "dot",
        "--arch",
        "Ampere",
        "--instr",
        SP,
        "--a",
        &kept,
        "--b",
        &b,
        "--c",
        "0",
        "--meta",
        &meta.join(","),
    ]);
    assert_eq!(rc, 2);
    assert!(
        err.contains(
            "--meta: group 1: selector [3, 3] is not allowed (indices must increase within a group)"
        ),
        "{err}"
    );
    let (rc, _, err) = mma(&[
        "dot", "--arch", "Ampere", "--instr", SP, "--a", &kept, "--b", &b, "--c", "0",
    ]);
    assert_eq!(rc, 2);
    assert!(err.contains("--meta is required"), "{err}");
    let ones16 = ["1"; 16].join(",");
    let (rc, _, err) = mma(&[
        "dot",
        "--arch",
        "Ampere",
        "--instr",
        "m16n8k16.f32.f16.f16.f32",
        "--a",
        &ones16,
        "--b",
        &ones16,
        "--c",
        "0",
        "--meta",
        &["0", "1"].repeat(4).join(","),
    ]);
    assert_eq!(rc, 2);
    assert!(err.contains("not a sparse instruction"), "{err}");
    let (rc, _, err) = mma(&[
        "dot",
        "--arch",
        "Ampere",
        "--instr",
        SP,
        "--a",
        &["1"; 20].join(","),
        "--b",
        &b,
        "--c",
        "0",
        "--meta",
        &["0", "1"].repeat(8).join(","),
    ]);
    assert_eq!(rc, 2);
    assert!(err.contains("20 elements"), "{err}");
}

/// A case line of a sparse instruction carries `"meta"`; `mma eval` computes it as `mma dot`
/// does (the 24.5 case above, compressed A: 0x41c40000), and a line with an illegal selector
/// costs only its own line.
#[test]
fn case_lines_carry_meta() {
    let dir = tempfile::tempdir().unwrap();
    let h = |s: &str| format!("\"{s}\"");
    let a: Vec<String> = ["3c00", "4000"].repeat(8).iter().map(|s| h(s)).collect();
    let b: Vec<String> = ["3c00"; 32].iter().map(|s| h(s)).collect();
    let meta = ["0", "3"].repeat(8).join(",");
    let line = |meta: &str| {
        format!(
            r#"{{"vendor":"nvidia","arch":"Ampere","op":"MMASp","instr":"{SP}","a":[{}],"b":[{}],"c":"3f000000","meta":[{meta}]}}"#,
            a.join(","),
            b.join(",")
        )
    };
    let bad = ["2", "1"].repeat(8).join(",");
    let path = dir.path().join("sp.jsonl");
    std::fs::write(&path, format!("{}\n{}\n", line(&meta), line(&bad))).unwrap();
    let (rc, out, err) = mma(&["eval", path.to_str().unwrap()]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(out.contains("\"d\":\"41c40000\""), "{out}");
    assert!(
        err.contains("group 0: selector [2, 1] is not allowed"),
        "{err}"
    );
}

/// The error report samples a sparse instruction's kept products (K/2 each) and prints a
/// replayable `mma dot` with `--meta`; the replay gives the reported word.
#[cfg(feature = "oracle")]
#[test]
fn error_report_replays_sparse_instructions() {
    let (rc, out, err) = mma(&[
        "error-report",
        "--arch",
        "Ampere",
        "--instr",
        SP,
        "--samples",
        "300",
    ]);
    assert_eq!(rc, 0, "{err}");
    let cmd = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("mma "))
        .expect("a replay command");
    assert!(cmd.contains(" --meta 0,1,"), "{cmd}");
    let model = out
        .split("model ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the worst case's model word")
        .to_string();
    let args: Vec<&str> = cmd.split_whitespace().collect();
    let (rc, out, err) = mma(&args);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with(&format!("d = {model}")), "{out} vs {model}");
}

/// Blackwell's block-scaled sparse NVFP4, `tcgen05.mma.sp` `kind::mxf4nvf4` with ue4m3 scales
/// (`sp.m128n8k128...block32`): logical K = 128, 64 kept products in adjacent pairs. A dense
/// is 1, 1, 6, 6, 1, 1, 6, 6 in every group of 8 with the metadata (0, 1, 4, 5) keeping the
/// ones; B all 1. One scale pair per 32 logical elements, i.e. per 16 kept products (the
/// dense unit's block of 16): A's scales 1, 2, 0.5, 1, B's all 1. The sum is
/// 16·1 + 16·2 + 16·0.5 + 16·1 = 72 = 0x42900000 (1.125 · 2^6), exact, C = 0; the 6s at the
/// disabled positions have no effect. Eight scales (one per 16 logical) are refused, and so
/// is a selector that splits a pair.
#[test]
fn block_scaled_sparse_nvfp4_scales_each_32_logical_elements() {
    let sp = "sp.m128n8k128.kind::mxf4nvf4.block32.f32.e2m1.e2m1.ue4m3";
    let a = ["1", "1", "6", "6", "1", "1", "6", "6"]
        .repeat(16)
        .join(",");
    let b = ["1"; 128].join(",");
    let meta = ["0", "1", "4", "5"].repeat(16).join(",");
    let run = |meta: &str, sa: &str, sb: &str| {
        mma(&[
            "dot",
            "--arch",
            "B200",
            "--instr",
            sp,
            "--a",
            &a,
            "--b",
            &b,
            "--c",
            "0",
            "--meta",
            meta,
            "--scale-a",
            sa,
            "--scale-b",
            sb,
        ])
    };
    let (rc, out, err) = run(&meta, "1,2,0.5,1", "1,1,1,1");
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("d = 42900000 (72)"), "{out}");
    assert!(err.contains("unverified"), "{err}");
    let (rc, _, err) = run(&meta, "1,2,0.5,1,1,1,1,1", "1,1,1,1,1,1,1,1");
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("--scale-a: 8 words") && err.contains("takes 4"),
        "{err}"
    );
    let split = ["0", "2", "4", "5"].repeat(16).join(",");
    let (rc, _, err) = run(&split, "1,2,0.5,1", "1,1,1,1");
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("group 0") && err.contains("adjacent pairs"),
        "{err}"
    );
}
