//! The AMD GPU table (`library/gpus.txt`): every cell names an instruction of this catalog on
//! the row's architecture (the `fp8` cell for every pair of FP8 formats), no row names a
//! library platform (none is modelled for AMD), and every name is one row's.

use mma_amd::gpus::{gpus, FP8_SPELLINGS};
use mma_amd::{find_in, parse_arch};
use std::collections::HashSet;

#[test]
fn every_row_names_catalog_instructions() {
    let rows = gpus();
    assert!(rows.len() >= 3, "{} rows", rows.len());
    let mut names = HashSet::new();
    let mut cells = 0;
    for g in rows {
        for n in &g.names {
            assert!(names.insert(mma_core::gpu_table::gpu_key(n)), "{n} twice");
        }
        let arch = parse_arch(&g.arch).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
        for (col, cell) in mma_core::gpu_table::GPU_COLUMNS.iter().zip(&g.instr) {
            let Some(name) = cell else { continue };
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
                find_in(arch, None, &name)
                    .unwrap_or_else(|e| panic!("{} {col}: {name}: {e}", g.name()));
                cells += 1;
            }
        }
        assert_eq!(g.platform, None, "{}", g.name());
        assert!(!g.evidence.is_empty());
    }
    assert!(cells > 10, "{cells} cells");
}
