//! `mma explain` and `mma compare`: the trace is the model (its `d` is `DotUnit::dot`'s on
//! every catalog unit and every vector line), the text and JSON say what the hand derivations
//! say, and the error paths name the argument.

use crate::common;
use common::mma;
use mma::cases;
use mma::trace::{Source, Step};
use mma::{DotUnit, Format};
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A random valid word of `fmt`: mostly uniform bits, sometimes a special pattern.
fn word(rng: &mut impl Rng, fmt: &Format) -> u64 {
    loop {
        let w = match rng.random_range(0..8) {
            0 => 0,
            1 => fmt.encode(mma::Value::Zero { neg: true }, 0),
            2 => fmt.default_nan(),
            _ => rng.random::<u64>() & fmt.storage_mask(),
        };
        let w = w & fmt.storage_mask();
        if fmt.is_valid_encoding(w) {
            return w;
        }
    }
}

fn check_unit(u: &DotUnit, k: usize, rng: &mut impl Rng, what: &str) -> usize {
    let f = &u.formats;
    let s = u.scales_for(k);
    let mut n = 0;
    for round in 0..24 {
        // Every fourth round without specials, so that most dot products are finite.
        let plain = round % 4 != 0;
        let pick = |rng: &mut _, fmt: &Format| loop {
            let w = word(rng, fmt);
            let v = fmt.decode(w);
            if !plain || !(v.is_nan() || v.is_inf()) {
                return w;
            }
        };
        let a: Vec<u64> = (0..k).map(|_| pick(rng, &f.a)).collect();
        let b: Vec<u64> = (0..k).map(|_| pick(rng, &f.b)).collect();
        let c = pick(rng, &f.c);
        let (sa, sb): (Vec<u64>, Vec<u64>) = match f.scale {
            Some((sf, _)) => (
                (0..s).map(|_| pick(rng, &sf)).collect(),
                (0..s).map(|_| pick(rng, &sf)).collect(),
            ),
            None => (vec![], vec![]),
        };
        let x = u.explain_scaled(&a, &b, c, &sa, &sb);
        let d = u.dot_scaled(&a, &b, c, &sa, &sb);
        assert_eq!(
            x.d, d,
            "{what}: a={a:x?} b={b:x?} c={c:x} sa={sa:x?} sb={sb:x?}"
        );
        assert!(!x.steps.is_empty(), "{what}: an empty trace");
        n += 1;
    }
    n
}

#[test]
fn explain_is_the_model_on_every_catalog_unit() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(14);
    let mut n = 0;
    for i in mma::nvidia::catalog() {
        n += check_unit(&i.unit, i.k, &mut rng, &format!("{} {}", i.arch, i.name));
        // Two instructions' worth: the chaining of blocks with D fed back as C.
        if i.unit.formats.c == i.unit.formats.d {
            n += check_unit(
                &i.unit,
                2 * i.k,
                &mut rng,
                &format!("{} {} x2", i.arch, i.name),
            );
        }
    }
    for i in mma::amd::catalog() {
        n += check_unit(&i.unit, i.k, &mut rng, &format!("{} {}", i.arch, i.name));
    }
    assert!(n > 1000, "{n} dot products");
}

/// Every case line of every vector file (`vectors/**/*.jsonl`).
fn vector_lines() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("vectors")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, l) in text.lines().enumerate() {
            if !cases::is_comment(l) {
                out.push((format!("{}:{}", f.display(), i + 1), l.to_string()));
            }
        }
    }
    out
}

#[test]
fn explain_is_the_model_on_every_vector_line() {
    let mut n = 0;
    for (at, line) in vector_lines() {
        let case = cases::parse_line(&line).unwrap_or_else(|e| panic!("{at}: {e}"));
        let (t, d) = cases::evaluate(&case).unwrap_or_else(|e| panic!("{at}: {e}"));
        let o = cases::operands(&case, &t).unwrap();
        let x = t
            .unit
            .explain_scaled(&o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
        assert_eq!(x.d, d, "{at}");
        n += 1;
    }
    // 13 feature files and the mmasim corpora (18,000 lines and more).
    assert!(n > 18_000, "only {n} vector lines");
    eprintln!("explain == dot on {n} vector lines");
}

/// `--a 0xX,0xY,...` from a case line's list (`0x`: a case-file word, never a decimal).
fn list(v: &serde_json::Value, key: &str) -> Option<String> {
    v.get(key)?.as_array().map(|xs| {
        xs.iter()
            .map(|x| format!("0x{}", x.as_str().unwrap()))
            .collect::<Vec<_>>()
            .join(",")
    })
}

#[test]
fn explain_json_d_is_dot_d_on_a_sample_of_vector_lines() {
    let lines = vector_lines();
    let mut n = 0;
    for (at, line) in lines.iter().step_by(97) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = |k: &str| v[k].as_str().unwrap().to_string();
        let mut args: Vec<String> = vec![
            "--vendor".into(),
            s("vendor"),
            "--arch".into(),
            s("arch"),
            "--instr".into(),
            s("instr"),
            "--a".into(),
            list(&v, "a").unwrap(),
            "--b".into(),
            list(&v, "b").unwrap(),
            "--c".into(),
            format!("0x{}", s("c")),
        ];
        if let Some(op) = v.get("op").and_then(|o| o.as_str()) {
            args.extend(["--op".into(), op.into()]);
        }
        for (key, flag) in [("scale_a", "--scale-a"), ("scale_b", "--scale-b")] {
            if let Some(l) = list(&v, key) {
                args.extend([flag.into(), l]);
            }
        }
        let with = |cmd: &str, extra: &[&str]| {
            let mut a: Vec<&str> = vec![cmd];
            a.extend(args.iter().map(String::as_str));
            a.extend(extra);
            let (code, out, err) = mma(&a);
            assert_eq!(code, 0, "{at}: mma {cmd}: {err}");
            out
        };
        let dot = with("dot", &[]);
        let want = dot
            .split_whitespace()
            .nth(2)
            .unwrap_or_else(|| panic!("{at}: {dot}"))
            .to_string();
        let json: serde_json::Value = serde_json::from_str(&with("explain", &["--json"])).unwrap();
        assert_eq!(json["d"], want.as_str(), "{at}");
        n += 1;
    }
    assert!(n > 150, "{n} lines through the binary");
}

const H100: &[&str] = &["--arch", "H100", "--instr", "m16n8k16.f32.f16.f16.f32"];
/// The first paper's Table IV input: C = -2^23 and products 2^23 (4096·2048), -1/2, -1/4,
/// -1/8, then twelve zero products.
const A: &str = "0x6c00,0xb800,0xb400,0xb000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000";
const B: &str = "0x6800,0x3c00,0x3c00,0x3c00,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000,0x0000";
const C: &str = "0xcb000000";

#[test]
fn explain_text_shows_table_iv_truncation() {
    // Hopper f16 is T-FDPA, F = 25, RZ: e_max = 23, quantum 2^-2; 2^23 and -2^23 cancel,
    // -1/2 and -1/4 are multiples of 2^-2 and stay, -1/8 is below the quantum and is dropped:
    // -3 · 2^-2 = -0.75 = f32 0xbf400000 (the paper's Hopper result).
    let mut args = vec!["explain"];
    args.extend(H100);
    args.extend(["--a", A, "--b", B, "--c", C]);
    let (code, out, err) = mma(&args);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\x1b'), "colour on a pipe:\n{out}");
    assert!(
        out.contains("e_max = 23") && out.contains("F = 25"),
        "{out}"
    );
    let dropped: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("dropped entirely"))
        .collect();
    assert_eq!(dropped.len(), 1, "{out}");
    assert!(dropped[0].trim_start().starts_with("a3·b3"), "{out}");
    // The dropped term's bits sit after the `|`: -1/8 is 2^-3, the first bit below 2^-2.
    assert!(dropped[0].contains("|1"), "{out}");
    let sum = out.lines().find(|l| l.trim_start().starts_with("sum "));
    assert!(
        sum.is_some_and(|l| l.trim_end().ends_with("= -3 · 2^-2")),
        "{out}"
    );
    assert!(out.trim_end().ends_with("d = 0xbf400000 (f32)"), "{out}");
    // Colour on request.
    args.extend(["--color", "always"]);
    let (_, out, _) = mma(&args);
    assert!(out.contains("\x1b[31m"), "{out}");
}

#[test]
fn explain_json_marks_the_dropped_term() {
    let mut args = vec!["explain", "--json"];
    args.extend(H100);
    args.extend(["--a", A, "--b", B, "--c", C]);
    let (code, out, err) = mma(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["d"], "bf400000");
    assert_eq!(v["model"], "T-FDPA");
    let align = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "align")
        .unwrap();
    assert_eq!(align["e_max"], 23);
    assert_eq!(align["quantum"], -2);
    // Kept multiples of 2^-2: 2^25, -2, -1, 0 (dropped), twelve zeros, then C = -2^25.
    let kept: Vec<i64> = align["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_i64().unwrap())
        .collect();
    assert_eq!(kept[..4], [1 << 25, -2, -1, 0]);
    assert_eq!(kept[16], -(1 << 25));
    assert_eq!(
        align["terms"][3]["sig"],
        1 << 20,
        "-1/8 = 2^10·2^10 · 2^-23"
    );
    assert_eq!(align["terms"][16]["source"], "c");
}

#[test]
fn library_trace_names_c_and_products() {
    let i = mma::nvidia::find("H100", None, "m16n8k16.f32.f16.f16.f32").unwrap();
    let w = |s: &str| -> Vec<u64> {
        s.split(',')
            .map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap())
            .collect()
    };
    let x = i.unit.explain(&w(A), &w(B), 0xcb00_0000);
    let Some(Step::Align { terms, .. }) = x.steps.iter().find(|s| matches!(s, Step::Align { .. }))
    else {
        panic!("no alignment step")
    };
    assert_eq!(terms[0].source, Source::Product(0));
    assert_eq!(terms[16].source, Source::C);
}

#[test]
fn explain_errors_name_the_argument() {
    let (code, _, err) = mma(&[
        "explain",
        "--arch",
        "H1000",
        "--instr",
        "m16n8k16.f32.f16.f16.f32",
        "--a",
        A,
        "--b",
        B,
        "--c",
        C,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("H1000"), "{err}");
    let (code, _, err) = mma(&[
        "explain",
        "--arch",
        "H100",
        "--instr",
        "m16n8k16.f32.f16.f16.f32",
        "--a",
        "0x3c00",
        "--b",
        B,
        "--c",
        C,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--a") && err.contains("16"), "{err}");
}

/// Table IV padded to 16 elements on H100 and MI300X.
fn compare(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["compare", "--instr-family", "f32.f16.f16.f32"];
    args.extend(extra);
    args.extend(["--a", A, "--b", B, "--c", C]);
    mma(&args)
}

#[test]
fn compare_h100_and_mi300x_on_table_iv() {
    // Exact: 2^23 - 1/2 - 1/4 - 1/8 - 2^23 = -0.875 (-0x1c · 2^-5).
    // H100 (T-FDPA F = 25, RZ): -0.75, error +0.125 = 2^21 ulps of f32 at 0.875's binade
    // (ulp 2^-24). MI300X (TR-FDPA): the products are aligned to e_dot = 23 with F = 24
    // (quantum 2^-1): -1/2 stays, -1/4 and -1/8 truncate to 0; C joins late and exactly:
    // -1/2, then RNE to f32: -0.5, error +0.375 = 3·2^21 ulps.
    let (code, out, err) = compare(&["--arch", "H100,MI300X", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exact"], "-0.875");
    let r = v["results"].as_array().unwrap();
    assert_eq!(r[0]["arch"], "Hopper");
    assert_eq!(r[0]["d"], "bf400000");
    assert_eq!(r[0]["error_ulps"], 2097152.0);
    assert_eq!(r[1]["arch"], "CDNA3");
    assert_eq!(r[1]["d"], "bf000000");
    assert_eq!(r[1]["error_ulps"], 6291456.0);
    let diff = v["differences"][0]["first_difference"].as_str().unwrap();
    assert!(!diff.is_empty());
    // The same values through `mma dot` on each architecture's instruction.
    for (arch, res) in [("H100", &r[0]), ("MI300X", &r[1])] {
        let instr = res["instr"].as_str().unwrap();
        let (code, out, err) = mma(&[
            "dot", "--arch", arch, "--instr", instr, "--a", A, "--b", B, "--c", C,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(res["d"].as_str().unwrap()), "{out}");
    }
    let (code, out, err) = compare(&["--arch", "H100,MI300X"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("exact = -0.875"), "{out}");
    assert!(
        out.contains("Hopper vs CDNA3: traces part at step"),
        "{out}"
    );
}

#[test]
fn compare_all_and_where_traces_part() {
    let (code, out, err) = compare(&["--all", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = v["results"].as_array().unwrap();
    // Every result equals `DotUnit::dot` on the named instruction; the first paper's Table IV
    // gives Volta +0, Ampere -0.5 and Hopper -0.75 (f16 inputs).
    let d_of = |arch: &str| {
        r.iter()
            .find(|x| x["arch"] == arch)
            .map(|x| x["d"].as_str().unwrap().to_string())
    };
    assert_eq!(d_of("Volta").as_deref(), Some("00000000"));
    assert_eq!(d_of("Ampere").as_deref(), Some("bf000000"));
    assert_eq!(d_of("Hopper").as_deref(), Some("bf400000"));
    // Ampere (T-FDPA F = 24, L_max = 8) and Hopper (F = 25, L_max = 16), `mma list`: on
    // K = 16 the first difference is the block split (0..8 vs 0..16).
    let (code, out, err) = compare(&["--arch", "A100,H100"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("block split: a block of elements 0..8 vs 0..16"),
        "{out}"
    );
    // On K = 8 both take one block of the same operands; the alignment is the first step,
    // and F differs.
    // Eight words of seven characters (`0x` and four digits) and seven commas.
    let a8 = &A[..55];
    let b8 = &B[..55];
    let (code, out, err) = mma(&[
        "compare",
        "--instr-family",
        "f32.f16.f16.f32",
        "--arch",
        "A100,H100",
        "--a",
        a8,
        "--b",
        b8,
        "--c",
        C,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Ampere vs Hopper: traces part at step 2: F, the fraction bits kept after alignment: 24 vs 25"), "{out}");
}

#[test]
fn compare_errors() {
    let (code, _, err) = compare(&["--arch", "H100,Nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("--arch") && err.contains("Nope"), "{err}");
    let (code, _, err) = mma(&[
        "compare",
        "--instr-family",
        "f32.f17.f16.f32",
        "--all",
        "--a",
        A,
        "--b",
        B,
        "--c",
        C,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--instr-family") && err.contains("f32.f16.f16.f32"),
        "{err}"
    );
    let (code, _, err) = mma(&[
        "compare",
        "--instr-family",
        "f32.f16.f16.f32",
        "--arch",
        "H100",
        "--a",
        "3c00,3c00,3c00",
        "--b",
        "3c00,3c00,3c00",
        "--c",
        C,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("3"), "{err}");
}

/// `mma explain` and `mma compare` read operands as `mma dot` does, `--round` included (the
/// flags are one group in the tool). Hand derivation: 0.1 = 1.6 · 2^-4; f16 keeps 10 fraction
/// bits, 0.6 · 2^10 = 614.4, so RNE and RZ give 614 (0x266) and RU 615 (0x267), with the
/// exponent field -4 + 15 = 11: words 0x2e66 = 1638 · 2^-14 = 0.0999755859375 and
/// 0x2e67 = 1639 · 2^-14 = 0.10003662109375. C = 0.1 in f32 rounds up under both RNE and RU:
/// 0.1 · 2^27 = 13421772.8 → 13421773 · 2^-27 = 0.100000001490116119384765625 (0x3dcccccd).
#[test]
fn explain_and_compare_take_round_as_dot_does() {
    // Sixteen elements: K = 16 on H100's m16n8k16 and MI300X's f32_16x16x16_f16.
    let zeros = ",0".repeat(15);
    let a16 = format!("0.1{zeros}");
    let b16 = format!("1{zeros}");
    let explain = |round: Option<&str>| {
        let mut args = vec!["explain", "--json"];
        args.extend(H100);
        args.extend(["--a", &a16, "--b", &b16, "--c", "0"]);
        args.extend(round.map(|r| ["--round", r]).into_iter().flatten());
        mma(&args)
    };
    let (code, _, err) = explain(None);
    assert_eq!(code, 2);
    assert!(err.contains("--a") && err.contains("--round"), "{err}");
    for (round, word, sig) in [
        ("rne", 0x2e66, 1638),
        ("rz", 0x2e66, 1638),
        ("ru", 0x2e67, 1639),
    ] {
        let (code, out, err) = explain(Some(round));
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let block = v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == "block")
            .unwrap_or_else(|| panic!("no block step: {out}"));
        assert_eq!(block["a"][0]["bits"], word, "--round {round}: {block}");
        assert_eq!(block["a"][0]["sig"], sig, "--round {round}: {block}");
        assert_eq!(block["a"][0]["exp"], -14, "--round {round}: {block}");
    }
    let args = |round: &'static str| {
        let mut v: Vec<String> = [
            "compare",
            "--json",
            "--instr-family",
            "f32.f16.f16.f32",
            "--arch",
            "H100,MI300X",
            "--c",
            "0.1",
            "--round",
            round,
        ]
        .map(String::from)
        .to_vec();
        v.extend(["--a".into(), a16.clone(), "--b".into(), b16.clone()]);
        v
    };
    let (code, out, err) = mma(&args("ru").iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 0.10003662109375 + 0.100000001490116119384765625, exactly.
    assert_eq!(v["exact"], "0.200036622583866119384765625", "{out}");
    let (code, _, err) = mma(&[
        "compare",
        "--instr-family",
        "f32.f16.f16.f32",
        "--arch",
        "H100",
        "--a",
        &a16,
        "--b",
        &b16,
        "--c",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--a") && err.contains("--round"), "{err}");
}
