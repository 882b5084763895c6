//! `mma bench --all` and `mma bench --gemm`: what they measure (not how fast: rates are not
//! asserted, only that every unit and every product was measured and checked).

use crate::common;

use common::mma;
use std::collections::HashSet;

/// `--all` measures one instruction per distinct unit of both catalogs, and the instructions
/// it stands for add up to the catalogs.
#[test]
fn bench_all_covers_every_distinct_unit() {
    let (code, out, err) = mma(&[
        "bench",
        "--all",
        "--json",
        "--seconds",
        "0.001",
        "--dots",
        "8",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let rows = doc["dots"].as_array().expect("dots");
    let nvidia = mma::nvidia::catalog();
    let amd = mma::amd::catalog();
    let units: HashSet<_> = nvidia
        .iter()
        .map(|i| i.unit)
        .chain(amd.iter().map(|i| i.unit))
        .collect();
    assert_eq!(rows.len(), units.len());
    let shared: u64 = rows
        .iter()
        .map(|r| r["instructions"].as_u64().unwrap())
        .sum();
    assert_eq!(shared as usize, nvidia.len() + amd.len());
    for r in rows {
        assert_eq!(r["available"], true, "{r}");
        assert!(r["dot_per_s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["isa"].is_string() && r["lanes"].is_boolean(), "{r}");
    }
}

/// `--gemm` times each product with 1 and n threads (identical D), against a native f32 GEMM;
/// a size that is not a multiple of an instruction's K is reported as not run, not as passed.
#[test]
fn bench_gemm_reports_each_product_against_native() {
    let args = [
        "bench",
        "--gemm",
        "16",
        "--json",
        "--filter",
        "no such instruction",
    ];
    let (code, out, err) = mma(&args);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let g = doc["gemm"]["instructions"].as_array().expect("gemm");
    assert_eq!(g.len(), 3);
    for (row, k) in g.iter().zip([16, 32, 8]) {
        if 16 % k == 0 {
            assert_eq!(row["run"], true, "{row}");
            assert_eq!(row["identical"], true, "{row}");
            assert!(
                row["native_sgemm_seconds_1"].as_f64().unwrap() > 0.0,
                "{row}"
            );
            assert!(row["model_over_native"].as_f64().unwrap() > 0.0, "{row}");
        } else {
            assert_eq!(row["run"], false, "{row}");
            assert!(row["why"].as_str().unwrap().contains("K = 32"), "{row}");
        }
    }
    // The library GEMM (RTX 4060 scaled_mm, K = 32 instructions): not run at 16, said so.
    let lib = &doc["gemm"]["library"];
    assert_eq!(lib["run"], false, "{lib}");
    assert!(lib["why"].as_str().unwrap().contains("K = 32"), "{lib}");
    // At 64 it runs: fast, slow and split against the instruction chain it is built of.
    let (code, out, err) = mma(&["bench", "--gemm", "64", "--json", "--filter", "none"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let lib = &doc["gemm"]["library"];
    for key in [
        "dotunit_gemm_seconds",
        "fast_seconds",
        "slow_seconds",
        "split3_seconds",
    ] {
        assert!(lib[key].as_f64().unwrap() > 0.0, "{key}: {lib}");
    }
}
