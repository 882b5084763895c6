//! Text of one snapshot: a vector file run on one instruction family, written to be read in a
//! diff: every input in hex and decimal, the output in hex and decimal, the exact result from
//! the oracle and the error in ulps.

use crate::families::Family;
use crate::vectors::{expectation, run, Plan, Run, Vector, VectorFile};
use mma_core::{Format, Value};
use mma_oracle::rug::{Integer, Rational};
use mma_oracle::{error_report, exact_dot_scaled, ExactResult};
use std::fmt::Write;

/// A decimal for an `f64` that is exactly the value shown: plain notation in a readable range,
/// scientific outside it (Rust prints the shortest text that reads back to the same `f64`).
pub fn dec_f64(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "+0" }.into();
    }
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "+inf" }.into();
    }
    let a = x.abs();
    if (1e-4..1e9).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A storage word in decimal.
pub fn dec(fmt: &Format, bits: u64) -> String {
    match fmt.decode(bits) {
        Value::Nan => "NaN".into(),
        v => dec_f64(v.to_f64()),
    }
}

fn hex(fmt: &Format, bits: u64) -> String {
    format!("{:0w$x}", bits, w = fmt.hex_digits())
}

/// A dyadic rational as `n·2^e` with `n` odd (or `0`).
pub fn dyadic(x: &Rational) -> String {
    if x.is_zero() {
        return "0".into();
    }
    let mut num = Integer::from(x.numer());
    let den = x.denom();
    let mut e = -((den.significant_bits() as i64) - 1);
    let tz = num.find_one(0).unwrap_or(0);
    num >>= tz;
    e += tz as i64;
    if e == 0 {
        num.to_string()
    } else {
        format!("{num}·2^{e}")
    }
}

/// A rational in decimal (`≈` when the `f64` shown is not the exact value) and exactly.
pub fn rational(x: &Rational) -> String {
    let f = mma_oracle::rug::Float::with_val(53, x);
    let exact = Rational::from_f64(f.to_f64()).is_some_and(|r| &r == x);
    let approx = if exact { "" } else { "≈" };
    let d = dyadic(x);
    let shown = dec_f64(f.to_f64());
    if d == shown.trim_start_matches('+') {
        shown
    } else {
        format!("{approx}{shown} (= {d})")
    }
}

fn exact_text(e: &ExactResult) -> String {
    match e {
        ExactResult::Nan => "NaN".into(),
        ExactResult::Inf { neg } => if *neg { "-inf" } else { "+inf" }.into(),
        ExactResult::Finite {
            value, zero_neg, ..
        } => {
            if value.is_zero() {
                if *zero_neg { "-0" } else { "+0" }.into()
            } else {
                rational(value)
            }
        }
    }
}

fn operand_rows(out: &mut String, fam: &Family, r: &Run) {
    let f = &fam.unit.formats;
    let last =
        r.a.iter()
            .zip(&r.b)
            .rposition(|(&x, &y)| x != 0 || y != 0)
            .map_or(0, |i| i + 1);
    let shown = if r.a.len() - last >= 2 {
        last
    } else {
        r.a.len()
    };
    let width = 2 * f.a.hex_digits().max(8) + 16;
    let _ = writeln!(out, "    k  {:<width$}b", "a");
    for i in 0..shown {
        let a = format!("{} {}", hex(&f.a, r.a[i]), dec(&f.a, r.a[i]));
        let b = format!("{} {}", hex(&f.b, r.b[i]), dec(&f.b, r.b[i]));
        let _ = writeln!(out, "  {i:>3}  {a:<width$}{b}");
    }
    if shown < r.a.len() {
        let _ = writeln!(
            out,
            "  {shown:>3}..{}: {} pairs of +0 · +0",
            r.a.len() - 1,
            r.a.len() - shown
        );
    }
    if let Some((sf, per)) = f.scale {
        let list = |s: &[u64]| {
            s.iter()
                .map(|&w| format!("{} {}", hex(&sf, w), dec(&sf, w)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "  scale_a (per {per}): {}", list(&r.scale_a));
        let _ = writeln!(out, "  scale_b (per {per}): {}", list(&r.scale_b));
    }
}

/// The snapshot block of one vector on one family (`None` when it does not apply).
pub fn case_block(v: &Vector, fam: &Family) -> Option<String> {
    let (unit, ops) = v.resolved.as_ref().ok()?;
    let r = run(unit, ops, fam)?;
    let f = &fam.unit.formats;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "── line {}: written for {} {} {}",
        v.line,
        v.case.arch,
        v.case.op.as_deref().unwrap_or(""),
        v.case.instr
    );
    for w in &v.why {
        let _ = writeln!(out, "  # {w}");
    }
    let k = ops.a.len();
    let how = match r.plan {
        Plan::Single => format!("K = {k}, one call"),
        Plan::Padded { to } => {
            format!("K = {k}, padded with +0 · +0 to the instruction's K = {to}")
        }
        Plan::Chained { calls } => {
            format!("K = {k}, {calls} chained calls of K = {} (D → C)", fam.k)
        }
    };
    let _ = writeln!(out, "  {how}");
    operand_rows(&mut out, fam, &r);
    let _ = writeln!(out, "  c      {} {}", hex(&f.c, r.c), dec(&f.c, r.c));
    let _ = writeln!(out, "  d      {} {}", hex(&f.d, r.d), dec(&f.d, r.d));
    let exact = exact_dot_scaled(f, &r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
    let _ = writeln!(out, "  exact  {}", exact_text(&exact));
    let rep = error_report(r.d, &exact, &f.d);
    let rne = mma_oracle::correctly_rounded(&exact, &f.d, mma_core::Rounding::NearestEven);
    let err = match &rep.exact_error {
        Some(e) => format!("d − exact = {}, {} ulp", rational(e), rep.ulps),
        None => "infinite (special-value mismatch)".into(),
    };
    let _ = writeln!(out, "  error  {err}");
    let cr = if rep.correctly_rounded {
        "correctly rounded (RNE)".to_string()
    } else if rep.neighbour == i32::MAX {
        format!("RNE would give {} {}", hex(&f.d, rne), dec(&f.d, rne))
    } else {
        format!(
            "RNE would give {} {} ({:+} steps)",
            hex(&f.d, rne),
            dec(&f.d, rne),
            rep.neighbour
        )
    };
    let _ = writeln!(out, "  {cr}");
    if let Some(want) = expectation(v, fam) {
        let _ = writeln!(out, "  hand-derived expectation: {want}");
    }
    Some(out)
}

/// The first sentence of a file header, without its `Feature:` label.
pub fn feature_sentence(header: &[String]) -> String {
    let mut s = String::new();
    for line in header {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(line.trim());
        if line.trim_end().ends_with('.') {
            break;
        }
    }
    s.strip_prefix("Feature:").unwrap_or(&s).trim().to_string()
}

/// The snapshot body of a vector file on a family, or `None` when no vector of the file applies.
pub fn snapshot_body(file: &VectorFile, fam: &Family) -> Option<String> {
    let blocks: Vec<String> = file
        .vectors
        .iter()
        .filter_map(|v| case_block(v, fam))
        .collect();
    if blocks.is_empty() {
        return None;
    }
    let f = &fam.unit.formats;
    let mut out = String::new();
    let _ = writeln!(out, "vector file: {}", file.rel);
    let _ = writeln!(out, "feature: {}", feature_sentence(&file.header));
    let _ = writeln!(
        out,
        "family: {} ({} instruction{}; evaluated {}, K = {})",
        fam.title(),
        fam.members,
        if fam.members == 1 { "" } else { "s" },
        fam.rep,
        fam.k
    );
    let _ = writeln!(out, "model: {}", fam.unit.describe());
    let scale = f.scale.map_or(String::new(), |(s, n)| {
        format!(", scales {} per {n}", s.name)
    });
    let _ = writeln!(
        out,
        "formats: a {}, b {}, c {}, d {}{scale}",
        f.a.name, f.b.name, f.c.name, f.d.name
    );
    for b in blocks {
        out.push('\n');
        out.push_str(&b);
    }
    Some(out)
}
