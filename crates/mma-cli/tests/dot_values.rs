//! `mma dot` with values as people write them: decimals, hex-floats, `bits:`, the old
//! case-file words, ambiguity and inexact values as errors, `--round`, and the printed D,
//! exact result and error in ulps (hand-derived expectations beside each).

use crate::common;
use common::mma;

const H100: [&str; 5] = ["dot", "--arch", "H100", "--instr", "m64n8k16.f32.f16.f16"];

/// `mma dot` on Hopper's f16 → f32 instruction with the first elements given, the rest 0.
fn dot(a: &[&str], b: &[&str], c: &str, extra: &[&str]) -> (i32, String, String) {
    let pad = |xs: &[&str]| {
        let mut v: Vec<&str> = xs.to_vec();
        v.resize(16, "0");
        v.join(",")
    };
    let (a, b) = (pad(a), pad(b));
    let mut args = H100.to_vec();
    args.extend(["--a", &a, "--b", &b, "--c", c]);
    args.extend_from_slice(extra);
    mma(&args)
}

#[test]
fn decimal_hex_float_and_bits_give_the_same_bits() {
    // 1·1 + (-0.75)·1 + 0.1875·1 = 0.4375 = 1.11b × 2^-2: f32 0 01111101 11000… = 0x3ee00000,
    // exactly, so 0 ulp. The three spellings of each operand agree.
    for (a, b) in [
        (["1", "-0.75", "0x1.8p-3"], ["1", "1", "1"]),
        (
            ["bits:3c00", "bits:ba00", "bits:3200"],
            ["3c00", "0x3c00", "1.0"],
        ),
        (["1e0", "-75e-2", "0.1875"], ["+1", "1.", "0x1p0"]),
    ] {
        let (code, out, err) = dot(&a, &b, "0", &[]);
        assert_eq!(code, 0, "{a:?}: {err}");
        assert_eq!(
            out,
            "d = 3ee00000 (0.4375)\nexact = 0x1.cp-2 (0.4375)\nerror = 0 ulp of f32 (d − exact)\n",
            "{a:?}"
        );
    }
}

#[test]
fn truncation_shows_in_the_exact_result_and_ulps() {
    // The first paper's Table IV: C = -2^23 and products 2^23, -1/2, -1/4, -1/8. Exact sum
    // -0.875 (-0x1.cp-1); Hopper's T-FDPA (F = 25, RZ) drops -1/8 and gives -0.75
    // (0xbf400000). The error is +0.125 in ulps of f32 at 0.875's binade (2^-24): 2^21.
    // (4096 and 2048 are written 4096.0 and 0x1p11: a bare 4096 is also the f16 word 0x4096.)
    let (code, _, err) = dot(&["4096"], &["1"], "0", &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("\"4096\" is ambiguous for f16") && err.contains("4096.0"),
        "{err}"
    );
    let (code, out, err) = dot(
        &["4096.0", "-0.5", "-0.25", "-0.125"],
        &["0x1p11", "1", "1", "1"],
        "-0x1p23",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "d = bf400000 (-0.75)\nexact = -0x1.cp-1 (-0.875)\nerror = 2097152 ulp of f32 (d − exact)\n"
    );
    let (code, out, err) = dot(
        &["4.096e3", "-0.5", "-0.25", "-0.125"],
        &["2048.", "1", "1", "1"],
        "-8388608",
        &["--json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["d"], "bf400000");
    assert_eq!(v["d_decimal"], "-0.75");
    assert_eq!(v["exact"], "-0.875");
    assert_eq!(v["exact_hex"], "-0x1.cp-1");
    assert_eq!(v["error_ulps"], 2097152.0);
    assert_eq!(v["c"], "cb000000"); // -2^23: 1 10010110 000… (exponent 150)
    assert_eq!(v["a"][1], "b800"); // -0.5 in f16: 1 01110 0000000000
    assert_eq!(v["instr"], "m64n8k16.f32.f16.f16");
}

#[test]
fn specials_and_signed_zero() {
    // inf·1 + (-0)·1 + C: Inf. f32 Inf is 0x7f800000; the exact result is inf too: 0 ulp.
    let (code, out, err) = dot(&["inf", "-0"], &["1", "1"], "0", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("d = 7f800000 (inf)\nexact = inf\nerror = 0 ulp"),
        "{out}"
    );
    // NaN in: NaN out (Hopper's canonical 0x7fffffff) and an exact NaN.
    let (code, out, _) = dot(&["nan"], &["1"], "0", &[]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("d = 7fffffff (nan)\nexact = nan\nerror = 0 ulp"),
        "{out}"
    );
}

#[test]
fn inexact_and_ambiguous_values_are_errors_naming_them() {
    // 0.1 in f16 lies between 0x2e66 (0.0999755859375) and 0x2e67 (0.100036621093750).
    let (code, _, err) = dot(&["0.1"], &["1"], "0", &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--a: element 1: \"0.1\" is not exactly representable in f16")
            && err.contains("0x2e66 (0.0999755859375)")
            && err.contains("0x2e67")
            && err.contains("--round"),
        "{err}"
    );
    // With --round rne: 0x2e66 = 1638·2^-14; 1638·2^-14 + 0 = f32 0x3dccc000 (exact:
    // 1638 = 11001100110b, so 1.1001100110b × 2^-4: exponent 123, mantissa 1001100110 then 0s).
    let (code, out, err) = dot(&["0.1"], &["1"], "0", &["--round", "rne"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("d = 3dccc000 (0.099975586)"), "{out}");
    // --round ru picks the upper neighbour 1639·2^-14 → f32 0x3dcce000.
    let (_, out, _) = dot(&["0.1"], &["1"], "0", &["--round", "ru"]);
    assert!(out.starts_with("d = 3dcce000"), "{out}");
    // 1000 is f16 bits 0x1000 and the decimal 1000: ambiguous.
    let (code, _, err) = dot(&["1000"], &["1"], "0", &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("\"1000\" is ambiguous for f16") && err.contains("bits:1000"),
        "{err}"
    );
    // An f32 C of 1e39 is above f32's range: named with its neighbours (max and inf).
    let (code, _, err) = dot(&["1"], &["1"], "1e39", &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--c: element 1") && err.contains("0x7f800000"),
        "{err}"
    );
    // Not a number at all; a bad rounding mode.
    let (code, _, err) = dot(&["one"], &["1"], "0", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("\"one\" is not a number"), "{err}");
    let (code, _, err) = dot(&["1"], &["1"], "0", &["--round", "nearest"]);
    assert_eq!(code, 2);
    assert!(err.contains("rne, rz, ru, rd, rna"), "{err}");
}

#[test]
fn fp8_fp4_and_scales_take_values() {
    // Hopper e4m3: 448 (0x7e) · 2 (0x40) = 896 = f32 0x44600000 (1.75 × 2^9, exponent 136).
    let mut a = vec!["448"];
    a.resize(32, "0");
    let mut b = vec!["2"];
    b.resize(32, "0");
    let (a, b) = (a.join(","), b.join(","));
    let (code, out, err) = mma(&[
        "dot",
        "--arch",
        "H100",
        "--instr",
        "m16n8k32.f32.e4m3.e4m3.f32",
        "--a",
        &a,
        "--b",
        &b,
        "--c",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("d = 44600000 (896)"), "{out}");
    // 500 is not an e4m3 value; its neighbours are 448 and the overflow (no Inf in e4m3).
    let a5 = a.replacen("448", "500", 1);
    let (code, _, err) = mma(&[
        "dot",
        "--arch",
        "H100",
        "--instr",
        "m16n8k32.f32.e4m3.e4m3.f32",
        "--a",
        &a5,
        "--b",
        &b,
        "--c",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("0x7e (448)") && err.contains("no infinity"),
        "{err}"
    );
    // Blackwell mxf4 (two fp4 per byte in case files): one value per element here. A = 6, 1.5,
    // then zeros; B = 1; scales ue8m0 2^1 (written 2) and 2^0: (6 + 1.5)·2·1 = 15 = 0x41700000.
    let mut a = vec!["6", "1.5"];
    a.resize(64, "0");
    let mut b = vec!["1"];
    b.resize(64, "1");
    let (a, b) = (a.join(","), b.join(","));
    let (code, out, err) = mma(&[
        "dot",
        "--arch",
        "B200",
        "--instr",
        "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0",
        "--a",
        &a,
        "--b",
        &b,
        "--c",
        "0",
        "--scale-a",
        "2,1",
        "--scale-b",
        "1,1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("d = 41700000 (15)"), "{out}");
    // ue8m0 has no 3 and no zero.
    let (code, _, err) = mma(&[
        "dot",
        "--arch",
        "B200",
        "--instr",
        "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0",
        "--a",
        &a,
        "--b",
        &b,
        "--c",
        "0",
        "--scale-a",
        "3,1",
        "--scale-b",
        "0,1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--scale-a: element 1: \"3\" is not exactly representable in ue8m0"),
        "{err}"
    );
}

#[test]
fn list_json_and_vendor() {
    let (code, out, err) = mma(&["list", "--vendor", "amd", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let items = v.as_array().expect("array");
    assert!(!items.is_empty());
    assert!(items
        .iter()
        .all(|i| i["vendor"] == "amd" && i["k"].as_u64().is_some()));
    let (_, out, _) = mma(&["list", "--vendor", "nvidia", "--arch", "H100", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v
        .as_array()
        .expect("array")
        .iter()
        .any(|i| i["instruction"] == "m64n8k16.f32.f16.f16" && i["k"] == 16));
    // No AMD instruction on an NVIDIA architecture: an error, exit 2.
    let (code, _, _) = mma(&["list", "--vendor", "amd", "--arch", "H100"]);
    assert_eq!(code, 2);
    let (code, _, err) = mma(&["list", "--vendor", "intel"]);
    assert_eq!(code, 2);
    assert!(err.contains("nvidia") && err.contains("amd"), "{err}");
}

#[test]
fn every_command_help_has_an_example() {
    for cmd in [
        "eval",
        "check",
        "list",
        "probe",
        "infer",
        "hw-check",
        "dot",
        "gemm",
        "error-report",
        "bench",
    ] {
        let (code, out, err) = mma(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with("Example: mma ")),
            "{cmd} --help has no example:\n{out}"
        );
    }
}

#[test]
fn an_unverified_instruction_is_said_on_stderr() {
    // Hopper's mixed e5m2 × e4m3 `mma.sync` has neither GPU records nor mmasim lines (`mma
    // list`: unverified); Hopper's `wgmma` f16 is mmasim's (reference). 32 products of +0:
    // D = +0 either way, so only the warning differs.
    let zeros = vec!["0"; 32].join(",");
    let unverified = [
        "dot",
        "--arch",
        "Hopper",
        "--op",
        "MMA",
        "--instr",
        "m16n8k32.f32.e5m2.e4m3.f32",
        "--a",
        &zeros,
        "--b",
        &zeros,
        "--c",
        "0",
    ];
    let (code, out, err) = mma(&unverified);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("d = 00000000"), "{out}");
    assert!(
        err.contains("warning: nvidia Hopper MMA m16n8k32.f32.e5m2.e4m3.f32 is unverified"),
        "{err}"
    );
    let (code, _, err) = dot(&["1"], &["1"], "0", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("unverified"),
        "a reference instruction warned: {err}"
    );
}
