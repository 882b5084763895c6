//! `cargo xtask vectors [--check | --pending]` and `cargo xtask review [--accept | --reject]
//! [NAME...]`: see docs/vectors.md, "Feature-probe vectors".
//! `cargo xtask fuzz [--seconds S] [--seed N] [TARGET...]`: see `xtask::fuzz`.

use anyhow::{bail, Result};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask vectors [--check | --pending]
       cargo xtask review [--accept | --reject] [NAME...]
       cargo xtask fuzz [--seconds S] [--seed N] [models|cases|hw|values|units ...]
  vectors            run vectors/*.jsonl on every applicable instruction family and rewrite
                     snapshots/ (adds, updates, deletes; removes any pending .snap.new)
  vectors --check    write nothing; exit 1 listing every missing, stale or extra snapshot
  vectors --pending  write <name>.snap.new for missing or stale snapshots instead, for review
  review             show each pending snapshot's diff; on a terminal ask accept/reject/skip
                     for each, otherwise change nothing (exit 1 while any is pending)
  review --accept    the .snap.new replaces the .snap (all, or the NAMEs given)
  review --reject    the .snap.new is deleted (all, or the NAMEs given)
  fuzz               bounded random testing (default 60 s), see xtask/src/fuzz";

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
    match args.first().map(String::as_str) {
        Some("review") => return review(&args[1..]),
        Some("fuzz") => return fuzz(&args[1..]),
        _ => {}
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
    if pending && !(drift.missing.is_empty() && drift.stale.is_empty()) {
        println!("review them with `cargo xtask review` (diffs; then --accept or --reject)");
    }
    if pending && !drift.extra.is_empty() {
        println!("extra snapshots are deleted by `cargo xtask vectors` (without --pending)");
    }
    Ok(ExitCode::SUCCESS)
}

fn review(args: &[String]) -> Result<ExitCode> {
    use std::io::IsTerminal;
    use xtask::review::Action;
    let (action, names) = match args.first().map(String::as_str) {
        Some("--accept") => (Action::Accept, &args[1..]),
        Some("--reject") => (Action::Reject, &args[1..]),
        Some(a) if a.starts_with('-') => bail!("{USAGE}"),
        _ if std::io::stdin().is_terminal() => (Action::Ask, args),
        _ => (Action::List, args),
    };
    let left = xtask::review::review(
        &xtask::repo_root(),
        action,
        names,
        &mut std::io::stdout().lock(),
        &mut std::io::stdin().lock(),
    )?;
    Ok(if left == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
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
