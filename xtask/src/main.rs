//! `cargo xtask vectors`: see docs/vectors.md, "Feature-probe vectors".
//! `cargo xtask fuzz [--seconds S] [--seed N] [TARGET...]`: see `xtask::fuzz`.

use anyhow::{bail, Result};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask vectors
       cargo xtask fuzz [--seconds S] [--seed N] [models|cases|hw|values|units ...]
  vectors  run vectors/*.jsonl on every applicable instruction family and rewrite
           snapshots/ (adds, updates, deletes; removes any pending .snap.new).
           insta writes each changed one (INSTA_UPDATE=force: every one anew).
           To check without writing: cargo test -p xtask --test snapshots; to review
           the changes: git diff snapshots/
  fuzz     bounded random testing (default 60 s), see xtask/src/fuzz";

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
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["fuzz", ..] => fuzz(&args[1..]),
        ["vectors"] => vectors(),
        ["help"] | ["--help"] | ["-h"] => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        _ => bail!("{USAGE}"),
    }
}

/// `cargo xtask vectors`: regenerates the snapshots.
fn vectors() -> Result<ExitCode> {
    // insta writes the snapshots: in place, for every one that is missing or differs
    // (`INSTA_UPDATE=always`; `force`, if asked for, also rewrites the current ones in insta's
    // header form of the day), never as a pending `.snap.new` and also under `CI`. insta reads its
    // configuration at its first assertion, so this comes before any, and before any thread.
    if std::env::var("INSTA_UPDATE").as_deref() != Ok("force") {
        std::env::set_var("INSTA_UPDATE", "always");
    }
    // One line per written snapshot, not its whole diff: `git diff snapshots/` shows them.
    if std::env::var_os("INSTA_OUTPUT").is_none() {
        std::env::set_var("INSTA_OUTPUT", "minimal");
    }
    let root = xtask::repo_root();
    for file in xtask::vectors::load_all(&root)? {
        for v in &file.vectors {
            if let Err(e) = &v.resolved {
                eprintln!("note: {}:{}: not run: {e}", file.rel, v.line);
            }
        }
    }
    let want = xtask::generate(&root)?;
    let (written, deleted) = xtask::write(&xtask::snapshot_dir(), &want)?;
    println!(
        "{} snapshots; {written} written, {deleted} removed (review with `git diff snapshots/`)",
        want.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `cargo xtask fuzz`: runs the targets for the time given and lists every finding.
fn fuzz(args: &[String]) -> Result<ExitCode> {
    let mut o = xtask::fuzz::Opts {
        seconds: 60.0,
        seed: 1,
        targets: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("{flag} needs a value"))
        };
        match a.as_str() {
            "--seconds" => o.seconds = value("--seconds")?.parse()?,
            "--seed" => o.seed = value("--seed")?.parse()?,
            t if !t.starts_with('-') => o.targets.push(t.to_string()),
            other => bail!("unknown option {other:?}\n{USAGE}"),
        }
    }
    let xtask::fuzz::Outcome { findings, tried } = xtask::fuzz::run(&xtask::repo_root(), &o)?;
    let counts: Vec<String> = tried.iter().map(|(t, n)| format!("{t} {n}")).collect();
    println!(
        "fuzz: {} s, seed {}: inputs tried: {}",
        o.seconds,
        o.seed,
        counts.join(", ")
    );
    if findings.is_empty() {
        println!("fuzz: no findings");
        return Ok(ExitCode::SUCCESS);
    }
    for f in &findings {
        println!("FINDING [{} #{}] {}", f.target, f.iteration, f.what);
    }
    println!("fuzz: {} findings (seed {})", findings.len(), o.seed);
    Ok(ExitCode::FAILURE)
}
