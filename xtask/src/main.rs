//! `cargo xtask vectors [--check | --pending]`: see the README, section "Feature-probe vectors".

use anyhow::{bail, Result};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask vectors [--check | --pending]
  (no flag)  run vectors/*.jsonl on every applicable instruction family and rewrite snapshots/
  --check    write nothing; exit 1 listing every missing, stale or extra snapshot
  --pending  write <name>.snap.new for missing or stale snapshots, for `cargo insta review`";

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, pending) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["vectors"] => (false, false),
        ["vectors", "--check"] => (true, false),
        ["vectors", "--pending"] => (false, true),
        ["help"] | ["--help"] | ["-h"] => {
            println!("{USAGE}");
            return Ok(ExitCode::SUCCESS);
        }
        _ => bail!("{USAGE}"),
    };
    let root = xtask::repo_root();
    for file in xtask::vectors::load_all(&root)? {
        for v in &file.vectors {
            if let Err(e) = &v.resolved {
                eprintln!("note: {}:{}: not run: {e}", file.rel, v.line);
            }
        }
    }
    let want = xtask::generate(&root)?;
    if check {
        let drift = xtask::compare(&root, &want)?;
        if drift.is_clean() {
            println!("{} snapshots are current", want.len());
            return Ok(ExitCode::SUCCESS);
        }
        eprint!("{drift}");
        eprintln!("run `cargo xtask vectors` and review `git diff snapshots/`");
        return Ok(ExitCode::FAILURE);
    }
    let drift = xtask::write(&root, &want, pending)?;
    print!("{drift}");
    println!(
        "{} snapshots; {} written, {} removed{}",
        want.len(),
        drift.missing.len() + drift.stale.len(),
        if pending { 0 } else { drift.extra.len() },
        if pending { " (as .snap.new)" } else { "" }
    );
    Ok(ExitCode::SUCCESS)
}
