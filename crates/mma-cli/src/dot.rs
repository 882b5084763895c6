//! `mma dot`: one dot product from the command line, operands as people write them (see
//! `mma_cli::operand`), D in hex and decimal with the exact result and the error in ulps.

use anyhow::{anyhow, bail, Result};
use mma::cases::{self, Layout, Target};
use mma::{Format, Rounding};
use mma_cli::operand::{self, Operand};
use mma_cli::{decimal, exact};

use crate::flags::{in_flags, DotTarget, OperandFlags, TargetFlags};

/// Evaluate one dot product given on the command line.
///
/// Example: mma dot --arch MI300X --instr f32_32x32x4_2b_f16 --a 1,-0.75,0x1.8p-3,bits:3c00 --b 1,1,1,1 --c 0
///
/// Operands: a decimal (-0.75, 1e-3, inf, -inf, nan), a C99 hex-float with its p exponent
/// (0x1.8p-3), raw bits (bits:3c00), or a case-file word of exactly the storage width's hex
/// digits (3c00, 0x3c00). A word that is both a decimal and such a word (1000 for f16, 38
/// for fp8) is an error unless both readings give the same bits (0000). A value the format
/// cannot hold exactly is an error naming its neighbours, unless --round is given.
///
/// Prints D as a hex word and its shortest round-trip decimal, the exact result (the
/// exact sum of the products of the decoded operands and C) as a hex-float and a decimal,
/// and D's error in ulps of D's format at the exact value's binade.
#[derive(clap::Args)]
pub struct DotCmd {
    #[command(flatten)]
    pub target: TargetFlags,
    #[command(flatten)]
    pub operands: OperandFlags,
    /// Print one JSON object: the case line with "d", "d_decimal", "exact", "exact_hex"
    /// and "error_ulps" (null when infinite).
    #[arg(long)]
    pub json: bool,
}

impl DotCmd {
    pub fn run(self) -> Result<bool> {
        let fixed = self.target.unit_file()?;
        let target = self.target.target(&fixed)?;
        dot(target, &self.operands, self.json)
    }
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

/// The case line of the command line's operands for `target` (resolved as `t`): every operand
/// read as people write it (`mma_cli::operand`) and written as case-file words.
fn case_line(target: &DotTarget, t: &Target, x: &OperandFlags) -> Result<String> {
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
    m.insert("a".into(), list(slot("--a", f.a, t.packing).words(&x.a)?));
    m.insert("b".into(), list(slot("--b", f.b, t.packing).words(&x.b)?));
    let c = slot("--c", f.c, Layout::Plain).words(&x.c)?;
    if c.len() != 1 {
        bail!("--c: {} values, but C is one {} value", c.len(), f.c.name);
    }
    m.insert("c".into(), c[0].clone().into());
    for (key, flag, s) in [
        ("scale_a", "--scale-a", x.scale_a.as_deref()),
        ("scale_b", "--scale-b", x.scale_b.as_deref()),
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

/// The operands of `mma explain` and `mma compare` (read as `mma dot` reads them) as a case
/// for `target`.
pub fn dot_case(target: &DotTarget, x: &OperandFlags) -> Result<cases::Case> {
    let t = target.resolve()?;
    let line = case_line(target, &t, x)?;
    cases::parse_line_for(&line, target.fixed()).map_err(|e| anyhow!("{}", in_flags(e)))
}

/// The instruction and operands of a case from [`dot_case`].
pub fn dot_operands(case: &cases::Case, target: &DotTarget) -> Result<(Target, cases::Operands)> {
    let t = target.resolve()?;
    let o = cases::operands(case, &t).map_err(|e| anyhow!("{}", in_flags(e)))?;
    Ok((t, o))
}

fn dot(target: DotTarget, x: &OperandFlags, json: bool) -> Result<bool> {
    let t = target.resolve()?;
    let line = case_line(&target, &t, x)?;
    let fixed = target.fixed();
    let wrap = |e: cases::CaseError| anyhow!("{}", in_flags(e));
    let case = cases::parse_line_for(&line, fixed).map_err(wrap)?;
    let (t, d) = cases::evaluate_for(&case, fixed).map_err(wrap)?;
    let o = cases::operands(&case, &t).map_err(wrap)?;
    let fd = &t.unit.formats.d;
    let ex = exact::exact_dot_scaled(&t.unit.formats, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let ulps = exact::ulp_error(fd, d, &ex);
    let d_dec = decimal::shortest(fd, d);
    if json {
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
    } else {
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
