//! `mma dot`: one dot product from the command line, operands as people write them (see
//! `mma::codec::operand`), D in hex and decimal with the exact result and the error in ulps.

use anyhow::{anyhow, bail, Result};
use mma::cases::{self, Layout, Target, Word};
use mma::codec::operand::{self, Operand};
use mma::codec::{self, decimal, exact};
use mma::{Format, Rounding};

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
    /// The element a case-file word gives, when it gives exactly one: the layout's
    /// ([`Layout::element`]); a packed byte holds two elements, and only zero reads the same
    /// as a single 0.
    fn legacy(&self, raw: u64) -> Option<u64> {
        match self.packing {
            p if p.packed() => Some(0).filter(|_| raw == 0),
            _ => self.packing.element(&self.fmt, raw),
        }
    }

    /// The words of a comma-separated list of operands: case-file words as typed (read
    /// strictly by `mma::cases`), every other operand as its element's storage word.
    fn words(&self, list: &str) -> Result<Vec<Word>> {
        let mut out = Vec::new();
        let (mut texts, mut elements) = (false, false);
        let digits = self.packing.hex_digits(&self.fmt);
        for (i, w) in codec::words::word_list(list).iter().enumerate() {
            let at = |e: operand::OperandError| anyhow!("{}: element {}: {e}", self.flag, i + 1);
            let word = if let Some(v) = self.int_hex(w) {
                Word::Element(v.map_err(|e| anyhow!("{}: element {}: {e}", self.flag, i + 1))?)
            } else {
                match operand::classify(w, &self.fmt, digits, |r| self.legacy(r), self.round)
                    .map_err(at)?
                {
                    Operand::Word(s) => Word::Text(s),
                    Operand::Bits(b) => Word::Element(b),
                    Operand::Number(n) => Word::Element(
                        operand::encode_word(&self.fmt, &n, self.round, w).map_err(at)?,
                    ),
                }
            };
            texts |= matches!(word, Word::Text(_));
            elements |= matches!(word, Word::Element(_));
            if self.packing.packed() && texts && elements {
                bail!(
                    "{}: element {}: give either packed bytes ({} per hex byte, as in case files) or one value per element, not both",
                    self.flag,
                    i + 1,
                    self.per_byte()
                );
            }
            out.push(word);
        }
        let per = self.packing.per_word();
        if self.packing.packed() && elements && out.len() % per != 0 {
            bail!(
                "{}: {} elements; {} takes a multiple of {per} ({})",
                self.flag,
                out.len(),
                self.packing.name(),
                self.per_byte()
            );
        }
        Ok(out)
    }

    /// What one byte of a packed layout holds, for messages.
    fn per_byte(&self) -> String {
        match self.packing {
            Layout::PackedFp4 => "two fp4".into(),
            Layout::Bits => "eight single bits".into(),
            _ => format!("{} {}", self.packing.per_word(), self.fmt.name),
        }
    }

    /// A `0x…` word of an integer operand of one element per word: the element's word (at most
    /// the format's width; `0x80` is s8's -128). `None` for any other word or slot (a packed
    /// layout's `0x…` is a byte of several elements, read as case files read it).
    fn int_hex(&self, w: &str) -> Option<Result<u64>> {
        let w = w.trim();
        let h = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X"))?;
        if !self.fmt.integer || self.packing.packed() || h.contains(['p', 'P']) {
            return None;
        }
        let width = self.fmt.width();
        let digits = (width as usize).div_ceil(4);
        let v = (!h.is_empty() && h.len() <= 16 && h.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten();
        Some(match v {
            Some(v) if width >= 64 || v >> width == 0 => Ok(v),
            Some(_) => Err(anyhow!(
                "{w} is wider than {}'s {width} bits (at most {digits} hex digits, 0x0..0x{:x})",
                self.fmt.name,
                (1u128 << width) - 1
            )),
            None => Err(anyhow!(
                "{w:?} is not a hex word of {} (0x and 1 to {digits} hex digits)",
                self.fmt.name
            )),
        })
    }
}

/// One dot product as the command line gives it: the instruction (resolved), the operands'
/// words, and the names of the line `--json` writes.
pub struct DotCase {
    pub target: Target,
    pub given: cases::Given,
    /// The architecture as given (empty with `--unit`).
    pub arch: String,
    /// `vendor`, `arch`, `op` and `instr` of a catalog instruction, as a case line has them.
    names: serde_json::Map<String, serde_json::Value>,
}

impl DotCase {
    /// The operands, read and checked as a case line's; errors in the words of the flags.
    pub fn operands(&self) -> Result<cases::Operands> {
        self.given
            .operands(&self.target)
            .map_err(|e| anyhow!("{}", in_flags(e)))
    }

    /// The case line of these operands (the names, then the operands' words).
    fn fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = self.names.clone();
        for (k, v) in self.given.fields(&self.target) {
            m.insert(k.into(), v);
        }
        m
    }
}

/// The operands of `mma dot`, `mma explain` and `mma compare` for `target`: every operand read
/// as people write it (`mma::codec::operand`).
pub fn dot_case(target: &DotTarget, x: &OperandFlags) -> Result<DotCase> {
    let t = target.resolve()?;
    let f = &t.unit.formats;
    let slot = |flag, fmt, packing| Slot {
        flag,
        fmt,
        packing,
        round: x.round,
    };
    let mut names = serde_json::Map::new();
    let mut arch_given = String::new();
    if let DotTarget::Catalog {
        vendor,
        arch,
        op,
        instr,
    } = *target
    {
        names.insert("vendor".into(), vendor.into());
        names.insert("arch".into(), arch.into());
        if let Some(op) = op {
            names.insert("op".into(), op.into());
        }
        names.insert("instr".into(), instr.into());
        arch_given = arch.to_string();
    }
    let a = slot("--a", f.a, t.packing).words(&x.a)?;
    let b = slot("--b", f.b, t.packing).words(&x.b)?;
    let mut c = slot("--c", f.c, Layout::Plain).words(&x.c)?;
    if c.len() != 1 {
        bail!("--c: {} values, but C is one {} value", c.len(), f.c.name);
    }
    let mut scales = [None, None];
    for (out, (flag, s)) in scales.iter_mut().zip([
        ("--scale-a", x.scale_a.as_deref()),
        ("--scale-b", x.scale_b.as_deref()),
    ]) {
        if let Some(s) = s {
            *out = Some(match f.scale {
                Some((sf, _)) => slot(flag, sf, Layout::Plain).words(s)?,
                // No scale format: the words stay text, and their count is the error.
                None => codec::words::word_list(s)
                    .into_iter()
                    .map(Word::Text)
                    .collect(),
            });
        }
    }
    let [scale_a, scale_b] = scales;
    let meta = match &x.meta {
        None => None,
        Some(s) => Some(
            codec::words::word_list(s)
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    w.trim().parse::<u8>().map_err(|_| {
                        anyhow!(
                            "--meta: element {}: {w:?} is no index (0 to 3: a kept element's place in its group)",
                            i + 1
                        )
                    })
                })
                .collect::<Result<Vec<u8>>>()?,
        ),
    };
    Ok(DotCase {
        target: t,
        given: cases::Given {
            a,
            b,
            c: c.remove(0),
            scale_a,
            scale_b,
            meta,
        },
        arch: arch_given,
        names,
    })
}

fn dot(target: DotTarget, x: &OperandFlags, json: bool) -> Result<bool> {
    let case = dot_case(&target, x)?;
    let t = case.target;
    let o = case.operands()?;
    let d = t.unit.dot_scaled(&o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let fd = &t.unit.formats.d;
    let ex = exact::exact_unit(t.unit, &o.a, &o.b, o.c, &o.scale_a, &o.scale_b);
    let ulps = exact::ulp_error(fd, d, &ex);
    let d_dec = decimal::shortest(fd, d);
    if json {
        let mut fields = case.fields();
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
        if fd.integer {
            // An integer D: its word and value, the exact sum, and how far the accumulator's
            // wrap-around or clamp took D from it.
            mma_cli::outln!("d = 0x{} = {d_dec}", cases::hex(d, fd));
            mma_cli::outln!("exact = {}", ex.decimal());
            match ulps {
                Some(0.0) => mma_cli::outln!("error = 0 (d = exact)"),
                Some(u) => mma_cli::outln!(
                    "error = {u} (d − exact: the exact sum is outside {}'s range)",
                    fd.name
                ),
                None => mma_cli::outln!("error = infinite"),
            }
            return Ok(true);
        }
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
