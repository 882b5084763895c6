//! The NVIDIA GPU table (`library/gpus.txt`): every cell names an instruction of this catalog
//! on the row's architecture (the `fp8` cell for every pair of FP8 formats), every platform
//! exists and issues, for each FP8 pair, the row's instruction, and every name is one row's.

use mma_nvidia::gpus::{gpus, FP8_SPELLINGS};
use mma_nvidia::{find_in, library, parse_arch, Op};
use std::collections::HashSet;

#[test]
fn every_row_names_catalog_instructions_and_platforms() {
    let rows = gpus();
    assert!(rows.len() >= 9, "{} rows", rows.len());
    let mut names = HashSet::new();
    let mut cells = 0;
    for g in rows {
        for n in &g.names {
            assert!(names.insert(mma_core::gpu_table::gpu_key(n)), "{n} twice");
        }
        let arch = parse_arch(&g.arch).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
        for (col, cell) in mma_core::gpu_table::GPU_COLUMNS.iter().zip(&g.instr) {
            let Some(spec) = cell else { continue };
            let (op, name) = match spec.split_once(':') {
                Some((op, name)) if !op.contains('.') => (Some(Op::parse(op).unwrap()), name),
                _ => (None, spec.as_str()),
            };
            let pairs: Vec<(&str, &str)> = if *col == "fp8" {
                FP8_SPELLINGS
                    .iter()
                    .flat_map(|a| FP8_SPELLINGS.iter().map(move |b| (a.1, b.1)))
                    .collect()
            } else {
                vec![("", "")]
            };
            for (a, b) in pairs {
                let name = name.replace("{a}", a).replace("{b}", b);
                let ins = find_in(arch, op, &name)
                    .unwrap_or_else(|e| panic!("{} {col}: {name}: {e}", g.name()));
                cells += 1;
                if *col == "fp8" {
                    if let Some(p) = &g.platform {
                        let p = library::platform(p).unwrap();
                        let fmt = |s: &str| {
                            let f = FP8_SPELLINGS.iter().find(|x| x.1 == s).unwrap().0;
                            mma_core::format::by_name(f).unwrap()
                        };
                        let issued = p.instruction(&fmt(a), &fmt(b)).unwrap();
                        assert_eq!(issued.unit, ins.unit, "{}: {a} x {b}", g.name());
                    }
                }
            }
        }
        if let Some(p) = &g.platform {
            library::platform(p).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
        }
        assert!(!g.evidence.is_empty());
    }
    assert!(cells > 30, "{cells} cells");
}
