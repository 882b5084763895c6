//! What a new user meets first: `--help` on every command and argument, `mma list` with its
//! header, unknown names answered with the valid ones, and `error-report` present in every build.

use crate::common;
use common::mma;

/// The lines of `mma <cmd> -h` that name an argument, each with its help text (the short
/// layout puts the text on the argument's line, after two or more spaces; `--help` switches to
/// the long layout, text below, for commands with a long description).
fn argument_lines(cmd: &str) -> Vec<String> {
    let (code, out, err) = mma(&[cmd, "-h"]);
    assert_eq!(code, 0, "{cmd} -h: {err}");
    out.lines()
        .skip_while(|l| !l.starts_with("Arguments:") && !l.starts_with("Options:"))
        .filter(|l| l.starts_with("  "))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_argument_has_help_text() {
    for cmd in [
        "eval",
        "check",
        "list",
        "hw-check",
        "dot",
        "error-report",
        "bench",
        "infer",
    ] {
        let lines = argument_lines(cmd);
        assert!(lines.len() >= 2, "{cmd}: {lines:?}");
        for l in &lines {
            // "  -o, --output <OUTPUT>  Write the cases ..." : a name, then its text.
            let t = l.trim_start();
            assert!(
                t.contains("  ") && !t.split("  ").last().unwrap_or("").trim().is_empty(),
                "{cmd}: argument without help text: {l:?}"
            );
        }
    }
    let dot = argument_lines("dot").join("\n");
    for arg in [
        "--arch",
        "--op",
        "--instr",
        "--c",
        "--scale-a",
        "--scale-b",
        "--a",
        "--b",
    ] {
        assert!(dot.contains(arg), "dot --help lacks {arg}:\n{dot}");
    }
}

#[test]
fn error_report_is_listed_in_every_build() {
    let (code, out, _) = mma(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("error-report ")),
        "{out}"
    );
}

/// Without the oracle the subcommand exists, fails with exit 2 and says how to get it.
#[cfg(not(feature = "oracle"))]
#[test]
fn error_report_without_the_oracle_says_how_to_build_it() {
    let (code, out, err) = mma(&["error-report", "--arch", "Hopper", "--instr", "x"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("built without the oracle feature")
            && err.contains("--features oracle --bin mma -- error-report"),
        "{err}"
    );
}

#[test]
fn list_has_a_header_and_a_k_column() {
    let (code, out, err) = mma(&["list", "--arch", "MI250", "--filter", "32x32x8bf16_1k"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "vendor\tarch\top\tinstruction\tK\tPTX/ISA\tmodel\tevidence",
            // mmasim's corpus has CDNA2 lines of it, and no AMD record is held: reference.
            "amd\tCDNA2\tMFMA\tf32_32x32x8bf16_1k\t8\tv_mfma_f32_32x32x8bf16_1k\tFTZ-MulAdd P=4 acc=f32\treference",
        ],
        "{out}"
    );
    let (code, out, _) = mma(&["list", "--arch", "sm_90", "--filter", "m64n8k16.f32.f16"]);
    assert_eq!(code, 0);
    let row: Vec<&str> = out.lines().nth(1).expect("one row").split('\t').collect();
    assert_eq!(
        row[..5],
        ["nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16", "16"]
    );
    assert_eq!(row.last(), Some(&"reference"), "{out}");
}

/// The evidence column in both forms: the V100 records (`shared/hw/V100/fp16`) hold fp16 and
/// fp32 outputs of `m8n8k4` with a C of the same type, and mmasim's corpus holds the mixed
/// form, which no record measured.
#[test]
fn list_says_what_each_model_rests_on() {
    let (code, out, err) = mma(&["list", "--arch", "V100", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let evidence = |name: &str| {
        rows.as_array()
            .expect("an array")
            .iter()
            .find(|r| r["instruction"] == name)
            .map(|r| r["evidence"].clone())
    };
    assert_eq!(evidence("m8n8k4.f16.f16.f16.f16"), Some("hardware".into()));
    assert_eq!(evidence("m8n8k4.f32.f16.f16.f32"), Some("hardware".into()));
    assert_eq!(evidence("m8n8k4.f32.f16.f16.f16"), Some("reference".into()));
}

#[test]
fn list_of_an_unknown_architecture_names_the_valid_ones() {
    let (code, out, err) = mma(&["list", "--arch", "Hoppr"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    for name in [
        "Volta",
        "Ada Lovelace",
        "Hopper",
        "RTX Blackwell",
        "CDNA1",
        "CDNA3",
    ] {
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn list_with_a_filter_that_matches_nothing_fails() {
    let (code, out, err) = mma(&["list", "--arch", "Hopper", "--filter", "no-such-name"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("no instruction of Hopper contains \"no-such-name\""),
        "{err}"
    );
}

#[test]
fn did_you_mean_offers_the_names_with_every_part_typed() {
    // `bf16` typed: the bf16 instruction, not the f16 ones nearer by edit distance.
    let (code, _, err) = mma(&[
        "dot",
        "--arch",
        "Ampere",
        "--instr",
        "m16n8k16.bf16",
        "--a",
        "0",
        "--b",
        "0",
        "--c",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("did you mean: m16n8k16.f32.bf16.bf16.f32\n")
            || err
                .trim_end()
                .ends_with("did you mean: m16n8k16.f32.bf16.bf16.f32"),
        "{err}"
    );
}

/// Every example that starts `mma dot` (or `$ mma dot`) in `doc` and is complete (no `...`): the
/// command runs over lines ending in `\`; the lines after it, up to a blank line or the next `$`
/// prompt, are its output (standard output, or `error: ...` on standard error). Returns how many
/// examples were run and matched.
fn check_dot_examples(doc: &str) -> usize {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../").to_string() + doc;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{doc}: {e}"));
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut checked = 0;
    for start in 0..lines.len() {
        let first = lines[start].trim_start_matches("$ ");
        if !first.starts_with("mma dot --arch") {
            continue;
        }
        let mut words = Vec::new();
        let mut i = start;
        loop {
            let l = lines[i].trim_start_matches("$ ");
            words.extend(l.trim_end_matches('\\').split_whitespace());
            i += 1;
            if !l.ends_with('\\') {
                break;
            }
        }
        if words.contains(&"...") {
            continue;
        }
        let want: Vec<&str> = lines[i..]
            .iter()
            .take_while(|l| !l.is_empty() && !l.starts_with('$'))
            .copied()
            .collect();
        let (code, out, err) = mma(&words[1..]);
        assert_eq!(code, 0, "{doc} line {}: {words:?}: {err}", start + 1);
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got, want, "{doc} example at line {}", start + 1);
        checked += 1;
    }
    checked
}

/// The `mma dot` examples of the command-line guide (`docs/cli.md`) and of the README print
/// what the documents say.
#[test]
fn the_documented_dot_examples_print_what_the_documents_say() {
    let in_cli_guide = check_dot_examples("docs/cli.md");
    assert!(
        in_cli_guide >= 3,
        "docs/cli.md's dot examples were not found (found {in_cli_guide})"
    );
    let in_readme = check_dot_examples("README.md");
    assert!(
        in_readme >= 1,
        "the README's dot example was not found (found {in_readme})"
    );
}

/// `mma list --gpus`: the vendor crates' GPU tables, one GPU per line under a header (by hand
/// from `crates/mma-nvidia/library/gpus.txt`: the A100 row's bf16 instruction, the RTX 4060's
/// platform); `--vendor amd` only AMD's; `--json` an array with the same fields. `mma gemm
/// --gpu` takes a GPU of the table whose FP8 GEMMs a platform models, and refuses one without,
/// saying so.
#[test]
fn list_gpus_and_gemm_by_gpu_name() {
    let (rc, out, err) = mma(&["list", "--gpus"]);
    assert_eq!(rc, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "names\tvendor\tarch\tf16\tbf16\ttf32\tf32\tfp8\tplatform\tevidence"
    );
    let a100 = lines.iter().find(|l| l.starts_with("A100, A10")).unwrap();
    assert!(a100.contains("\tAmpere\tm16n8k16.f32.f16.f16.f32\tm16n8k16.f32.bf16.bf16.f32\t"));
    let rtx = lines.iter().find(|l| l.starts_with("RTX 4060\t")).unwrap();
    assert!(
        rtx.contains("\tRTX 4060\tfp8: the RTX 4060 platform's recordings"),
        "{rtx}"
    );
    let (rc, out, _) = mma(&["list", "--gpus", "--vendor", "amd"]);
    assert_eq!(rc, 0);
    assert_eq!(out.lines().count(), 1 + 4, "{out}");
    assert!(
        out.lines().skip(1).all(|l| l.contains("\tamd\tCDNA")),
        "{out}"
    );
    let (rc, out, _) = mma(&["list", "--gpus", "--json"]);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mi = v
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["names"][0] == "MI300X")
        .unwrap();
    assert_eq!(mi["instr"]["fp8"], "f32_32x32x16_{a}_{b}");
    assert!(mi["platform"].is_null());
    // A GPU with a platform (H100 PCIe answers as itself), one without (H100 SXM).
    let (rc, out, err) = mma(&[
        "gemm", "--gpu", "H100 SXM", "--a", "a", "--b", "b", "-o", "d",
    ]);
    assert_eq!(rc, 2, "{out}");
    assert!(
        err.contains("--gpu: H100 (nvidia Hopper) has no library platform"),
        "{err}"
    );
    let (rc, _, err) = mma(&["gemm", "--gpu", "H900", "--a", "a", "--b", "b", "-o", "d"]);
    assert_eq!(rc, 2);
    assert!(
        err.contains("--gpu: unknown GPU library platform \"H900\""),
        "{err}"
    );
}
