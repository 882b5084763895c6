//! `cargo xtask vectors [--check | --pending]`: see the README, section "Feature-probe vectors".
//! `cargo xtask fuzz [--seconds S] [--seed N] [TARGET...]`: see `xtask::fuzz`.

use anyhow::{bail, Result};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask vectors [--check | --pending]
       cargo xtask fuzz [--seconds S] [--seed N] [models|cases|hw|values ...]
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
    if args.first().map(String::as_str) == Some("fuzz") {
        return fuzz(&args[1..]);
    }
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
