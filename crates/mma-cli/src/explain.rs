//! `mma explain`: one dot product step by step, as the plain model computes it
//! (`DotUnit::explain`), rendered for people (aligned binary columns) or as JSON.

use crate::dot::dot_case;
use crate::flags::{DotTarget, OperandFlags, TargetFlags};
use anyhow::Result;
use mma::cases;
use mma::trace::{ExactInfo, Num, Source, Step, TermInfo};
use mma::Explanation;
use std::fmt::Write as _;
use std::io::IsTerminal;

/// When to colour the text output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// When standard output is a terminal.
    Auto,
    Always,
    Never,
}

impl Color {
    /// Whether to colour, given where standard output goes.
    pub fn on(self) -> bool {
        match self {
            Color::Auto => std::io::stdout().is_terminal(),
            Color::Always => true,
            Color::Never => false,
        }
    }
}

/// One dot product step by step, as the model computes it.
///
/// Decoded operands, each product's exponent and significand, e_max, every term after
/// alignment in binary columns with the bits truncation dropped (after `|`), groups,
/// slices and blocks of a chained K with the C each receives, where C joins, the exact sum
/// and the rounding (guard and sticky bits). Colour only on a terminal (--color). Operands
/// are read as `mma dot` reads them (see its --help), --round included.
///
/// Example: mma explain --arch H100 --instr m16n8k8.f32.f16.f16.f32
/// --a 6c00,b800,b400,b000,0000,0000,0000,0000 --b 6800,3c00,3c00,3c00,0000,0000,0000,0000
/// --c cb000000
#[derive(clap::Args)]
pub struct ExplainCmd {
    #[command(flatten)]
    pub target: TargetFlags,
    #[command(flatten)]
    pub operands: OperandFlags,
    /// Print one JSON object: "d" (hex word, as `mma dot`), "unit", "model", "steps".
    #[arg(long)]
    pub json: bool,
    /// Colour the text: auto (when standard output is a terminal), always or never.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

impl ExplainCmd {
    pub fn run(self) -> Result<bool> {
        let fixed = self.target.unit_file()?;
        let target = self.target.target(&fixed)?;
        explain(target, &self.operands, self.json, self.color)
    }
}

fn explain(target: DotTarget, x: &OperandFlags, json: bool, color: Color) -> Result<bool> {
    let case = dot_case(&target, x)?;
    let (t, o) = (case.target, case.operands()?);
    let e = t
        .unit
        .explain_scaled(&o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let fd = &t.unit.formats.d;
    if json {
        let mut m = serde_json::Map::new();
        if let DotTarget::Catalog { .. } = target {
            m.insert("arch".into(), case.arch.clone().into());
            m.insert("instr".into(), t.name.into());
        }
        m.insert("unit".into(), e.unit.clone().into());
        m.insert("model".into(), e.model.into());
        m.insert("d".into(), cases::hex(e.d, fd).into());
        m.insert("d_format".into(), fd.name.into());
        m.insert("d_value".into(), num_text(&Num::word(e.d, fd)).into());
        // Written, not converted to a `Value`: sums and magnitudes may exceed 64 bits,
        // which the writer prints as integers and `Value` cannot hold.
        let head = serde_json::Value::Object(m).to_string();
        let steps = serde_json::to_string(&e.steps)?;
        mma_cli::outln!("{},\"steps\":{steps}}}", &head[..head.len() - 1]);
    } else {
        let title = format!("{} on {}", t.name, case.arch);
        mma_cli::out!("{}", render(&title, &e, &Style::new(color.on())));
    }
    Ok(true)
}

/// ANSI styles, or none.
pub struct Style {
    on: bool,
}

impl Style {
    pub fn new(on: bool) -> Style {
        Style { on }
    }
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn head(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dropped(&self, s: &str) -> String {
        self.paint("31", s)
    }
    fn result(&self, s: &str) -> String {
        self.paint("32", s)
    }
}

/// A value as people read it: the decimal of `(-1)^neg · sig · 2^exp` (shortest f64 digits,
/// exact for every format up to f64), with its hex word when it has one.
pub fn num_text(n: &Num) -> String {
    let v = match n.class {
        "zero" => if n.neg { "-0" } else { "0" }.to_string(),
        "inf" => if n.neg { "-inf" } else { "inf" }.to_string(),
        "nan" => "nan".to_string(),
        _ => {
            let m = ldexp(n.sig as f64, n.exp);
            format!("{}{}", if n.neg { "-" } else { "" }, m)
        }
    };
    match n.bits {
        Some(b) => format!("{v} [{} {b:#x}]", n.format),
        None => v,
    }
}

/// An exact value as a decimal (through f64, shortest digits) and, when inexact in f64, a
/// note that it is rounded for display.
fn exact_text(x: &ExactInfo) -> String {
    let mag = ldexp(x.mag as f64, x.exp);
    let sign = if x.neg { "-" } else { "" };
    let approx = if (x.mag >> 53) != 0 || x.sticky {
        "≈ "
    } else {
        ""
    };
    format!(
        "{approx}{sign}{mag} (= {sign}{:#b}·2^{}{})",
        x.mag,
        x.exp,
        if x.sticky { " + sticky" } else { "" }
    )
}

/// What a term is called in the output, given the element indices its block and subset map
/// product indices to.
fn label(src: Source, k0: usize, subset: Option<&[usize]>) -> String {
    match src {
        Source::Product(i) => {
            let k = k0 + subset.and_then(|s| s.get(i).copied()).unwrap_or(i);
            format!("a{k}·b{k}")
        }
        Source::C => "c".into(),
        Source::Group(g) => format!("group {g}"),
        Source::Partial => "partial".into(),
    }
}

/// The bit of weight `2^p` of a term's magnitude.
fn bit(t: &TermInfo, p: i32) -> char {
    let s = p - t.lsb;
    if !(0..64).contains(&s) || (t.sig >> s) & 1 == 0 {
        '0'
    } else {
        '1'
    }
}

/// Most dropped bits shown per term.
const MAX_DROPPED: i32 = 24;

/// Aligned binary columns: two integer bits, the point, `f` fraction bits, `|`, then the bits
/// truncation dropped (red on a terminal).
fn align_lines(
    out: &mut String,
    st: &Style,
    terms: &[TermInfo],
    (e_max, f, quantum): (i32, u32, i32),
    kept: &[i128],
    names: &dyn Fn(Source) -> String,
) {
    let low = terms
        .iter()
        .filter(|t| t.sig != 0)
        .map(|t| t.lsb)
        .min()
        .unwrap_or(quantum)
        .max(quantum - MAX_DROPPED);
    let width = terms
        .iter()
        .map(|t| names(t.source).len())
        .max()
        .unwrap_or(1);
    let _ = writeln!(
        out,
        "  aligned to e_max = {e_max}, truncated toward zero to F = {f} fraction bits (quantum 2^{quantum}):"
    );
    for (t, &k) in terms.iter().zip(kept) {
        let mut s = String::new();
        for p in (quantum..=e_max + 1).rev() {
            s.push(bit(t, p));
            if p == e_max {
                s.push('.');
            }
        }
        let mut d = String::new();
        for p in (low..quantum).rev() {
            d.push(bit(t, p));
        }
        let shift = quantum - t.lsb;
        let lost = t.sig != 0 && shift > 0 && (shift >= 64 || t.sig & ((1u64 << shift) - 1) != 0);
        let note = if t.sig != 0 && k == 0 {
            st.dropped("  dropped entirely")
        } else if lost {
            st.dropped("  truncated")
        } else {
            String::new()
        };
        let more = if t.sig != 0 && t.lsb < low { "…" } else { "" };
        let _ = writeln!(
            out,
            "    {:<width$} {} e={:<5} {s}|{}{more}{note}",
            names(t.source),
            if t.neg { '-' } else { '+' },
            t.e,
            st.dropped(&d),
        );
    }
    let sum: i128 = kept.iter().sum();
    let _ = writeln!(out, "    {:<width$} = {} · 2^{quantum}", "sum", sum);
}

/// The text rendering of an explanation.
pub fn render(title: &str, e: &Explanation, st: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", st.head(&format!("{title}: {}", e.unit)));
    let mut k0 = 0;
    let mut subset: Option<Vec<usize>> = None;
    for s in &e.steps {
        let sub = subset.clone();
        let names = move |src: Source| label(src, k0, sub.as_deref());
        match s {
            Step::Block {
                index,
                k0: b0,
                k1,
                a,
                b,
                c,
                scale_a,
                scale_b,
            } => {
                k0 = *b0;
                subset = None;
                let _ = writeln!(
                    out,
                    "{}",
                    st.head(&format!("block {index}: elements {b0}..{k1}"))
                );
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    let k = b0 + i;
                    let _ = writeln!(out, "  a{k} = {}   b{k} = {}", num_text(x), num_text(y));
                }
                for (i, (x, y)) in scale_a.iter().zip(scale_b).enumerate() {
                    let _ = writeln!(
                        out,
                        "  scale_a{i} = {}   scale_b{i} = {}",
                        num_text(x),
                        num_text(y)
                    );
                }
                let _ = writeln!(out, "  c = {}", num_text(c));
            }
            Step::Special { result, why } => {
                let _ = writeln!(out, "  special: {why} → {}", num_text(result));
            }
            Step::Flush { what, from } => {
                let _ = writeln!(out, "  flush {what} = {} → +0", num_text(from));
            }
            Step::Align {
                terms,
                e_max,
                f,
                quantum,
                kept,
            } => align_lines(&mut out, st, terms, (*e_max, *f, *quantum), kept, &names),
            Step::ExactTerms { terms } => {
                let _ = writeln!(out, "  terms summed exactly (no alignment loss):");
                for t in terms {
                    let n = Num {
                        bits: None,
                        format: "",
                        class: if t.sig == 0 { "zero" } else { "finite" },
                        neg: t.neg,
                        sig: t.sig,
                        exp: t.lsb,
                    };
                    let _ = writeln!(
                        out,
                        "    {} = {} (e={})",
                        names(t.source),
                        num_text(&n),
                        t.e
                    );
                }
            }
            Step::Group {
                index,
                k0: g0,
                k1: g1,
                term,
            } => {
                let what = if subset.is_some() {
                    format!("group {index} (every other element from {g0})")
                } else {
                    format!("group {index} (elements {}..{})", k0 + g0, k0 + g1)
                };
                subset = None;
                let _ = writeln!(
                    out,
                    "  {what}: {}{}·2^{} (e={})",
                    if term.neg { "-" } else { "" },
                    term.sig,
                    term.lsb,
                    term.e
                );
            }
            Step::Groups { e, f, sums, sum } => {
                let _ = writeln!(
                    out,
                    "  group sums re-aligned to e = {e}, rounded down to F = {f}: {sums:?} → {sum} · 2^{}",
                    e - *f as i32
                );
            }
            Step::Subset {
                kind,
                index,
                elements,
            } => {
                let ks: Vec<usize> = elements.iter().map(|i| k0 + i).collect();
                let _ = writeln!(out, "  {} {index}: elements {ks:?}", st.head(kind));
                subset = Some(elements.clone());
            }
            Step::LateC {
                c,
                e_dot,
                e_max,
                q2,
                dot_part,
                q3,
                c_part,
                c_dropped,
            } => {
                let ed = e_dot.map_or("none (all products zero)".into(), |e| e.to_string());
                let _ = writeln!(
                    out,
                    "  C joins late: e_dot = {ed}, e_c = {}, e_max = {e_max}",
                    c.e
                );
                let q = (*q2).min(*q3);
                let _ = writeln!(
                    out,
                    "    product sum rounded down to 2^{q2}: {dot_part} · 2^{q}"
                );
                if *c_dropped {
                    let _ = writeln!(out, "    {}", st.dropped("C dropped (too far below e_max)"));
                } else {
                    let _ = writeln!(out, "    C rounded down to 2^{q3}: {c_part} · 2^{q}");
                }
            }
            Step::Op {
                what,
                x,
                y,
                z,
                result,
            } => {
                let z = z
                    .as_ref()
                    .map_or(String::new(), |z| format!(", {}", num_text(z)));
                let _ = writeln!(
                    out,
                    "  {what}: ({}, {}{z}) → {}",
                    num_text(x),
                    num_text(y),
                    num_text(result)
                );
            }
            Step::Sum { exact } => {
                let _ = writeln!(out, "  exact sum before rounding: {}", exact_text(exact));
            }
            Step::Integer { how, result } => {
                let what = if *how == "saturate" {
                    "clamped to [-2^31, 2^31 - 1]"
                } else {
                    "wrapped modulo 2^32"
                };
                let _ = writeln!(out, "  into s32, {what} → {}", num_text(result));
            }
            Step::Round {
                format,
                mode,
                quantum,
                kept,
                guard,
                sticky,
                up,
                result,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "  round to {format} ({}): kept {kept:#b} · 2^{quantum}, guard {}, sticky {} → {} → {}",
                    mode.to_uppercase(),
                    *guard as u8,
                    *sticky as u8,
                    if *up { "round up" } else { "keep" },
                    st.result(&num_text(result))
                );
            }
            Step::BlockResult { d } => {
                subset = None;
                let _ = writeln!(out, "  result: {}", st.result(&num_text(d)));
            }
        }
    }
    // An integer D also says its value (an s32 word reads as a number at a glance).
    let d = match mma::format::by_name(e.d_format).and_then(|f| f.int_value(e.d)) {
        Some(v) => format!("d = {:#x} = {v} ({})", e.d, e.d_format),
        None => format!("d = {:#x} ({})", e.d, e.d_format),
    };
    let _ = writeln!(out, "{}", st.head(&d));
    out
}

/// `x · 2^e` without overflowing the intermediate power (exact unless the result is out of
/// f64's range or subnormal).
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-1000, 1000);
        x *= 2f64.powi(step);
        e -= step;
    }
    x
}
