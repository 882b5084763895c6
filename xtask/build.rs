//! Detects whether `mma-amd` exports `catalog()` yet (it is being written on another branch).
//! When it does, the cfg `has_amd_catalog` is set and the AMD instructions join the vector runs
//! without any change here; until then the AMD families are empty (see `families.rs`).

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_amd_catalog)");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/mma-amd/src");
    println!("cargo::rerun-if-changed={}", src.display());
    let mut found = false;
    if let Ok(dir) = std::fs::read_dir(&src) {
        for entry in dir.flatten() {
            println!("cargo::rerun-if-changed={}", entry.path().display());
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                if text.contains("pub fn catalog()") {
                    found = true;
                }
            }
        }
    }
    if found {
        println!("cargo::rustc-cfg=has_amd_catalog");
    }
}
