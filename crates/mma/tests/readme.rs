//! The README's library code, compiled and run as written: every ```rust block of the README
//! (and of the AMD crate's README) must be, character for character, one of the programs under
//! `tests/readme/`, which this test builds as modules and runs.

mod using_the_library {
    include!("readme/using_the_library.rs");
    pub fn run() -> Result<(), Box<dyn std::error::Error>> {
        main()
    }
}

mod mma_amd_readme {
    include!("readme/mma_amd.rs");
    pub fn run() -> Result<(), Box<dyn std::error::Error>> {
        main()
    }
}

use std::path::Path;

/// The ```rust blocks of a Markdown file.
fn rust_blocks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match &mut cur {
            None if line.trim_start().starts_with("```rust") => cur = Some(String::new()),
            Some(_) if line.trim_start().starts_with("```") => out.extend(cur.take()),
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

fn check_blocks(readme: &str, programs: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let md = std::fs::read_to_string(root.join(readme)).unwrap();
    let blocks = rust_blocks(&md);
    assert_eq!(blocks.len(), programs.len(), "{readme}: rust blocks");
    for (block, program) in blocks.iter().zip(programs) {
        let text =
            std::fs::read_to_string(root.join("crates/mma/tests/readme").join(program)).unwrap();
        assert_eq!(
            block, &text,
            "{readme}: the rust block differs from crates/mma/tests/readme/{program}; copy one to the other"
        );
    }
}

#[test]
fn readme_blocks_are_the_programs_run_here() {
    check_blocks("README.md", &["using_the_library.rs"]);
    check_blocks("crates/mma-amd/README.md", &["mma_amd.rs"]);
}

#[test]
fn using_the_library_runs() {
    using_the_library::run().unwrap();
}

#[test]
fn mma_amd_readme_runs() {
    mma_amd_readme::run().unwrap();
}

#[test]
fn a_length_mismatch_names_the_operand() {
    let ins = mma::nvidia::find("H100", None, "m64n8k16.f32.f16.f16").unwrap();
    let kern = ins.unit.kernel();
    let (n, k) = (1000, 16);
    let (a, b, c) = (
        vec![0x3c00u64; n * k],
        vec![0x3c00u64; n * k],
        vec![0u64; n],
    );
    let mut d = vec![0u64; n];
    let err = kern.dots(k, &a[1..], &b, &c, &mut d).unwrap_err();
    assert_eq!(err.to_string(), "A: 15999 elements, expected 16000");
}
