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

/// Every instruction of both catalogs, written as `mma list --unit-file` writes it
/// (`Target::unit_file`), read back as `--unit FILE` reads it (`Target::from_unit_file`), gives
/// the catalog's bits on every line of its mmasim vectors: the file keeps the layout (fp4 in
/// bits 5:2 of a byte for `kind::f8f6f4`, two per byte for `kind::mxf4`), so its lines read as
/// the catalog reads them, and a line that names its own instruction is accepted under
/// `--unit`. (The unit files once read fp4 from bits 3:0: 1.0, `08`, was read as 0.)
#[test]
fn every_catalog_instructions_unit_file_gives_the_catalogs_bits_on_its_vectors() {
    use mma::cases::{self, Layout, Target};
    use std::collections::HashMap;
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/mmasim");
    let mut from_file: HashMap<String, Target> = HashMap::new();
    let (mut lines, mut by_layout) = (0usize, HashMap::<&str, usize>::new());
    for vendor in ["nvidia", "amd"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(vendor))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                if cases::is_comment(line) || line.trim().is_empty() {
                    continue;
                }
                let at = format!("{}:{}", path.display(), n + 1);
                let case = cases::parse_line(line).unwrap_or_else(|e| panic!("{at}: {e}"));
                let (t, want) = cases::evaluate(&case).unwrap_or_else(|e| panic!("{at}: {e}"));
                let key = format!("{}/{}/{:?}/{}", case.vendor, case.arch, case.op, case.instr);
                let fixed = from_file.entry(key).or_insert_with(|| {
                    let json = serde_json::to_string(&t.unit_file()).unwrap();
                    let back: UnitFile = serde_json::from_str(&json).unwrap();
                    Target::from_unit_file(&back, "unit.json")
                        .unwrap_or_else(|e| panic!("{at}: {json}: {e}"))
                });
                assert_eq!(fixed.packing, t.packing, "{at}");
                let (_, got) = cases::evaluate_for(&case, Some(fixed))
                    .unwrap_or_else(|e| panic!("{at}: through its unit file: {e}"));
                assert_eq!(got, want, "{at}: through its unit file");
                lines += 1;
                *by_layout.entry(t.packing.name()).or_default() += 1;
            }
        }
    }
    // Every layout of the floating-point instructions is exercised, fp4 in bytes and packed
    // among them (mmasim lists no integer instruction: the integer layouts are the next
    // test's).
    let integer = [Layout::PackedInt4, Layout::Bits];
    for l in Layout::ALL.into_iter().filter(|l| !integer.contains(l)) {
        assert!(
            by_layout.get(l.name()).copied().unwrap_or(0) > 0,
            "{by_layout:?}"
        );
    }
    assert!(lines > 10_000, "{lines} lines");
}

/// Every integer instruction of both catalogs, through its unit file as above, gives the
/// catalog's word on a line whose A and B are its layout's storage words: s4/u4 two to a
/// byte (`packed_int4`), b1 eight to a byte (`bits`), s8/u8 one to a byte. The line's values
/// are the extremes of the formats (every product at its largest magnitude, C = 2^31 - 1),
/// so that the wrap or the clamp decides the word; the catalog's own word is the reference,
/// the point being that the file reads the same elements.
#[test]
fn integer_instructions_unit_files_read_their_layouts() {
    use mma::cases::{self, Layout, Target};
    let mut seen = std::collections::HashSet::new();
    for r in mma::catalog::instructions() {
        let f = &r.unit.formats;
        if !f.a.integer || r.sparse.is_some() || !seen.insert((r.layout, *r.unit, r.k)) {
            continue;
        }
        let t = Target::of_row(&r);
        let top = |g: &mma::Format| g.int_word(g.int_range().unwrap().1).unwrap();
        let (a, b) = (vec![top(&f.a); r.k], vec![top(&f.b); r.k]);
        let words = |fmt: &mma::Format, e: &[u64]| -> Vec<String> {
            t.packing
                .pack(fmt, e)
                .iter()
                .map(|w| format!("{w:0n$x}", n = t.packing.hex_digits(fmt)))
                .collect()
        };
        let line = serde_json::json!({
            "vendor": r.vendor.name(), "arch": r.arch, "op": r.op, "instr": r.name,
            "a": words(&f.a, &a), "b": words(&f.b, &b), "c": "7fffffff",
        })
        .to_string();
        let case = cases::parse_line(&line).unwrap();
        let (_, want) = cases::evaluate(&case).unwrap();
        assert_eq!(want, r.unit.dot(&a, &b, 0x7fff_ffff), "{line}");
        let json = serde_json::to_string(&t.unit_file()).unwrap();
        let back: mma::UnitFile = serde_json::from_str(&json).unwrap();
        let fixed = Target::from_unit_file(&back, "unit.json").unwrap();
        assert_eq!(fixed.packing, t.packing, "{json}");
        let (_, got) = cases::evaluate_for(&case, Some(&fixed)).unwrap();
        assert_eq!(got, want, "{line} through {json}");
    }
    let layouts: std::collections::HashSet<Layout> = seen.iter().map(|s| s.0).collect();
    assert!(layouts.contains(&Layout::PackedInt4) && layouts.contains(&Layout::Bits));
}

/// A unit file of fp4 elements must say how case files hold them; a layout its formats cannot
/// have is refused, naming the key.
#[test]
fn fp4_unit_files_name_their_layout() {
    use mma::cases::Target;
    let base = r#"{"a": "e2m1", "b": "e2m1", "c": "f32", "d": "f32", "k": 32, "L_max": 32LAYOUT,
        "model": "E-FDPA", "params": {"rho": "RZ-FP32", "overflow": "ieee", "nan": "default",
        "neg_zero_to_pos": false}}"#;
    let cases = [
        (
            "",
            Err("\"layout\" \"\": missing: A (e2m1) or B (e2m1) is fp4"),
        ),
        (
            r#", "layout": "plain""#,
            Err("\"layout\" \"plain\": A (e2m1) or B (e2m1) is fp4"),
        ),
        (
            r#", "layout": "bytes""#,
            Err("\"layout\" \"bytes\": expected \"plain\""),
        ),
        (r#", "layout": "byte""#, Ok("byte")),
        (r#", "layout": "packed_fp4""#, Ok("packed_fp4")),
    ];
    for (layout, want) in cases {
        let text = base.replace("LAYOUT", layout);
        let file: UnitFile = serde_json::from_str(&text).unwrap();
        let got = Target::from_unit_file(&file, "u.json");
        match (got, want) {
            (Ok(t), Ok(name)) => assert_eq!(t.packing.name(), name),
            (Err(e), Err(msg)) => assert!(e.to_string().starts_with(msg), "{e}"),
            (got, want) => panic!(
                "{layout}: {:?} but expected {want:?}",
                got.map(|t| t.packing)
            ),
        }
    }
    // Packed fp4 needs fp4 on both sides; one element per byte, formats of at most 8 bits.
    let f16 = base
        .replace("\"e2m1\"", "\"f16\"")
        .replace("LAYOUT", r#", "layout": "byte""#);
    let file: UnitFile = serde_json::from_str(&f16).unwrap();
    let e = Target::from_unit_file(&file, "u.json").err().unwrap();
    assert!(e.to_string().contains("at most 8 bits"), "{e}");
}
