//! Unit files: every distinct unit of both catalogs survives unit → JSON → unit unchanged, the
//! file says what `mma list` says, and a file with a misspelt or missing parameter is refused.

use mma::{DotUnit, UnitFile};
use std::collections::HashSet;

fn catalog_units() -> Vec<DotUnit> {
    let mut seen = HashSet::new();
    let nv = mma::nvidia::catalog().iter().map(|i| i.unit);
    let amd = mma::amd::catalog().iter().map(|i| i.unit);
    nv.chain(amd).filter(|u| seen.insert(*u)).collect()
}

#[test]
fn every_catalog_unit_round_trips() {
    let units = catalog_units();
    assert!(units.len() > 20, "only {} distinct units", units.len());
    for u in &units {
        let text = serde_json::to_string_pretty(u).unwrap();
        let back: DotUnit =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", u.describe()));
        assert_eq!(&back, u, "{text}");
        // The same through the schema type, with K set.
        let mut file = UnitFile::from(u);
        file.k = Some(u.block * 2);
        let text = serde_json::to_string(&file).unwrap();
        let again: UnitFile = serde_json::from_str(&text).unwrap();
        assert_eq!(again, file);
        assert_eq!(DotUnit::try_from(&again).unwrap(), *u);
    }
}

#[test]
fn hopper_file_reads_as_written_in_the_docs() {
    let text = r#"{"a": "f16", "b": "f16", "c": "f32", "d": "f32", "k": 16, "L_max": 16,
        "model": "T-FDPA",
        "params": {"F": 25, "e_zero": -133, "rho": "RZ-FP32",
                   "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true}}"#;
    let u: DotUnit = serde_json::from_str(text).unwrap();
    let hopper = mma::nvidia::find("H100", None, "m64n8k16.f32.f16.f16").unwrap();
    assert_eq!(u, hopper.unit);
    assert_eq!(u.describe(), "T-FDPA F=25 L_max=16 e_zero=-133 rho=RZ-FP32");
}

#[test]
fn misspelt_missing_and_out_of_range_parameters_are_refused() {
    let base = r#"{"a": "f16", "b": "f16", "c": "f32", "d": "f32", "L_max": 16,
        "model": "T-FDPA", "params": {PARAMS}}"#;
    let cases = [
        (
            r#""F": 25, "e_zero": -133, "rho": "RZ-FP32", "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true, "E_zero": 1"#,
            "unknown parameter \"E_zero\"",
        ),
        (
            r#""F": 25, "rho": "RZ-FP32", "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true"#,
            "missing parameter \"e_zero\"",
        ),
        (
            r#""F": 99, "e_zero": -133, "rho": "RZ-FP32", "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true"#,
            "must be between 1 and 60",
        ),
        (
            r#""F": 25, "e_zero": -133, "rho": "RZ-FP33", "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true"#,
            "expected <MODE>-<FORMAT>",
        ),
    ];
    for (params, want) in cases {
        let text = base.replace("PARAMS", params);
        let err = serde_json::from_str::<DotUnit>(&text)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{err} (wanted {want})");
    }
    let unknown_field = r#"{"a": "f16", "b": "f16", "c": "f32", "d": "f32", "L_max": 16,
        "blocks": 2, "model": "E-FDPA", "params": {}}"#;
    assert!(serde_json::from_str::<DotUnit>(unknown_field).is_err());
}
