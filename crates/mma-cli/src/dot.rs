//! `mma dot`: one dot product from the command line, operands as people write them (see
//! `mma_cli::operand`), D in hex and decimal with the exact result and the error in ulps.

use anyhow::{anyhow, bail, Result};
use mma::cases::{self, Layout, Target};
use mma::core::{Format, Rounding};
use mma_cli::operand::{self, Operand};
use mma_cli::{decimal, exact};

use crate::commands::in_flags;

/// Where `mma dot` finds its instruction: a catalog name or a unit file.
#[derive(Clone, Copy)]
pub enum DotTarget<'a> {
    Catalog {
        vendor: &'a str,
        arch: &'a str,
        op: Option<&'a str>,
        instr: &'a str,
    },
    Unit(&'a Target),
}

/// The operands as given on the command line.
pub struct DotArgs<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub c: &'a str,
    pub scale_a: Option<&'a str>,
    pub scale_b: Option<&'a str>,
    pub round: Option<Rounding>,
    pub output: Output,
}

/// How `mma dot` prints its answer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Text,
    Json,
}

/// Where an operand's words sit: the flag (for messages), the element format and the layout.
struct Slot {
    flag: &'static str,
    fmt: Format,
    packing: Layout,
    round: Option<Rounding>,
}

impl Slot {
    /// Hex digits of one case-file word of this operand.
    fn digits(&self) -> usize {
        match self.packing {
            Layout::Plain => self.fmt.hex_digits(),
            Layout::Byte | Layout::PackedFp4 => 2,
        }
    }

    /// The element a case-file word gives, when it gives exactly one.
    fn legacy(&self, raw: u64) -> Option<u64> {
        let w = self.fmt.width();
        match self.packing {
            Layout::Plain => Some(raw).filter(|&r| self.fmt.is_valid_encoding(r)),
            Layout::Byte if w == 4 => Some(raw >> 2).filter(|_| raw & !0x3c == 0),
            Layout::Byte if w == 6 => Some(raw).filter(|&r| r >> 6 == 0),
            Layout::Byte => Some(raw),
            // A packed byte holds two elements: only zero reads the same as a single 0.
            Layout::PackedFp4 => Some(0).filter(|_| raw == 0),
        }
    }

    /// One element's code as a case-file word.
    fn word(&self, code: u64) -> String {
        match self.packing {
            Layout::Plain => cases::hex(code, &self.fmt),
            Layout::Byte if self.fmt.width() == 4 => format!("{:02x}", code << 2),
            _ => format!("{code:02x}"),
        }
    }

    /// The case-file words of a comma-separated list of operands.
    fn words(&self, list: &str) -> Result<Vec<String>> {
        let mut raw = Vec::new();
        let mut codes = Vec::new();
        for (i, w) in mma_cli::values::word_list(list).iter().enumerate() {
            let at = |e: operand::OperandError| anyhow!("{}: element {}: {e}", self.flag, i + 1);
            match operand::classify(w, &self.fmt, self.digits(), |r| self.legacy(r), self.round)
                .map_err(at)?
            {
                Operand::Word(s) => raw.push(s),
                Operand::Bits(b) => codes.push(self.word(b)),
                Operand::Number(n) => {
                    let b = operand::encode_word(&self.fmt, &n, self.round, w).map_err(at)?;
                    codes.push(self.word(b));
                }
            }
            if self.packing == Layout::PackedFp4 {
                if !raw.is_empty() && !codes.is_empty() {
                    bail!(
                        "{}: element {}: give either packed bytes (two fp4 per hex byte, as in case files) or one value per element, not both",
                        self.flag,
                        i + 1
                    );
                }
            } else {
                raw.append(&mut codes);
            }
        }
        if self.packing == Layout::PackedFp4 && !codes.is_empty() {
            if codes.len() % 2 == 1 {
                bail!(
                    "{}: {} elements; packed fp4 takes an even number",
                    self.flag,
                    codes.len()
                );
            }
            return Ok(codes
                .chunks(2)
                .map(|p| {
                    let hi = u64::from_str_radix(&p[0], 16).unwrap_or_default();
                    let lo = u64::from_str_radix(&p[1], 16).unwrap_or_default();
                    format!("{:02x}", hi << 4 | lo)
                })
                .collect());
        }
        Ok(raw)
    }
}

pub(crate) fn resolve(target: &DotTarget) -> Result<Target> {
    match target {
        DotTarget::Unit(t) => Ok(**t),
        DotTarget::Catalog {
            vendor,
            arch,
            op,
            instr,
        } => cases::resolve(vendor, arch, *op, instr).map_err(|e| anyhow!("{e}")),
    }
}

/// The case line of the command line's operands for `target` (resolved as `t`): every operand
/// read as people write it (`mma_cli::operand`) and written as case-file words.
fn case_line(target: &DotTarget, t: &Target, x: &DotArgs) -> Result<String> {
    let f = &t.unit.formats;
    let slot = |flag, fmt, packing| Slot {
        flag,
        fmt,
        packing,
        round: x.round,
    };
    let list = |ws: Vec<String>| serde_json::Value::from(ws);
    let mut m = serde_json::Map::new();
    if let DotTarget::Catalog {
        vendor,
        arch,
        op,
        instr,
    } = *target
    {
        m.insert("vendor".into(), vendor.into());
        m.insert("arch".into(), arch.into());
        if let Some(op) = op {
            m.insert("op".into(), op.into());
        }
        m.insert("instr".into(), instr.into());
    }
    m.insert("a".into(), list(slot("--a", f.a, t.packing).words(x.a)?));
    m.insert("b".into(), list(slot("--b", f.b, t.packing).words(x.b)?));
    let c = slot("--c", f.c, Layout::Plain).words(x.c)?;
    if c.len() != 1 {
        bail!("--c: {} values, but C is one {} value", c.len(), f.c.name);
    }
    m.insert("c".into(), c[0].clone().into());
    for (key, flag, s) in [
        ("scale_a", "--scale-a", x.scale_a),
        ("scale_b", "--scale-b", x.scale_b),
    ] {
        if let Some(s) = s {
            let words = match f.scale {
                Some((sf, _)) => slot(flag, sf, Layout::Plain).words(s)?,
                None => mma_cli::values::word_list(s),
            };
            m.insert(key.into(), list(words));
        }
    }
    Ok(serde_json::Value::Object(m).to_string())
}

/// The operands of `mma explain` and `mma compare` (values as `mma dot` reads them, no
/// `--round`) as a case for `target`.
pub fn dot_case(
    target: &DotTarget,
    a: &str,
    b: &str,
    c: &str,
    scale_a: Option<&str>,
    scale_b: Option<&str>,
) -> Result<cases::Case> {
    let t = resolve(target)?;
    let x = DotArgs {
        a,
        b,
        c,
        scale_a,
        scale_b,
        round: None,
        output: Output::Text,
    };
    let line = case_line(target, &t, &x)?;
    cases::parse_line_for(&line, fixed_of(target)).map_err(|e| anyhow!("{}", in_flags(e)))
}

/// The instruction and operands of a case from [`dot_case`].
pub fn dot_operands(case: &cases::Case, target: &DotTarget) -> Result<(Target, cases::Operands)> {
    let t = resolve(target)?;
    let o = cases::operands(case, &t).map_err(|e| anyhow!("{}", in_flags(e)))?;
    Ok((t, o))
}

fn fixed_of<'a>(target: &DotTarget<'a>) -> Option<&'a Target> {
    match *target {
        DotTarget::Unit(t) => Some(t),
        DotTarget::Catalog { .. } => None,
    }
}

pub fn dot(target: DotTarget, x: &DotArgs) -> Result<bool> {
    let t = resolve(&target)?;
    let line = case_line(&target, &t, x)?;
    let fixed = fixed_of(&target);
    let wrap = |e: cases::CaseError| anyhow!("{}", in_flags(e));
    let case = cases::parse_line_for(&line, fixed).map_err(wrap)?;
    let (t, d) = cases::evaluate_for(&case, fixed).map_err(wrap)?;
    let o = cases::operands(&case, &t).map_err(wrap)?;
    let fd = &t.unit.formats.d;
    let ex = exact::exact_dot(&t.unit.formats, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let ulps = exact::ulp_error(fd, d, &ex);
    let d_dec = decimal::shortest(fd, d);
    match x.output {
        Output::Json => {
            let mut fields = case.fields.clone();
            fields.insert("d".into(), cases::hex(d, fd).into());
            fields.insert("d_format".into(), fd.name.into());
            fields.insert("d_decimal".into(), d_dec.into());
            fields.insert("exact".into(), ex.decimal().into());
            fields.insert("exact_hex".into(), ex.hex().into());
            fields.insert(
                "error_ulps".into(),
                ulps.map_or(serde_json::Value::Null, serde_json::Value::from),
            );
            mma_cli::outln!("{}", serde_json::Value::Object(fields));
        }
        Output::Text => {
            let full = ex.decimal();
            let shown = if full.len() <= 60 {
                full
            } else {
                format!("≈ {}", approx(&ex))
            };
            mma_cli::outln!("d = {} ({d_dec})", cases::hex(d, fd));
            match ex.hex() {
                // inf, -inf, nan: one spelling.
                h if h == shown => mma_cli::outln!("exact = {h}"),
                h => mma_cli::outln!("exact = {h} ({shown})"),
            }
            match ulps {
                Some(u) => mma_cli::outln!("error = {u} ulp of {} (d − exact)", fd.name),
                None => mma_cli::outln!("error = infinite (d and the exact result differ in kind)"),
            }
        }
    }
    Ok(true)
}

/// A long exact value to 17 significant digits for the text output (the hex-float beside it
/// is exact).
fn approx(x: &exact::ExactSum) -> String {
    let full = x.decimal();
    let (mant, exp) = full.split_once('e').unwrap_or((&full, "0"));
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let int_len = mant
        .trim_start_matches('-')
        .split('.')
        .next()
        .unwrap_or("")
        .len() as i64;
    let sig = &digits[lead..];
    let e10 = exp.parse::<i64>().unwrap_or(0) + int_len - 1 - lead as i64;
    let keep = &sig[..sig.len().min(17)];
    format!(
        "{}{}{}{}e{e10}",
        if neg { "-" } else { "" },
        &keep[..1],
        if keep.len() > 1 { "." } else { "" },
        &keep[1..]
    )
}
