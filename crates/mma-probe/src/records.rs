//! Record sets: inputs with the device's result, all of one operand-format combination and K,
//! and their case-file lines (the fields `mma probe emit` writes: `a_format`, `b_format`,
//! `c_format`, `d_format`, optional `scale_format`/`scale_block`, `k`, `a`, `b`, `c`,
//! optional `scale_a`/`scale_b`, and `d` once measured; one element per hex word, sub-byte
//! codes in the word's low bits).

use mma_core::unit_file::format_by_name;
use mma_core::{Format, Formats};
use serde_json::{Map, Value as Json};

/// One dot product with the device's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Where it came from (`file:line`, or a record number), for reports.
    pub label: String,
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: u64,
    pub scale_a: Vec<u64>,
    pub scale_b: Vec<u64>,
    pub d: u64,
}

/// Records of one operand-format combination and one K.
#[derive(Clone, Debug)]
pub struct RecordSet {
    pub source: String,
    pub formats: Formats,
    pub k: usize,
    pub records: Vec<Record>,
}

/// Why a case line cannot be read as a probe or record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("missing field {0:?}")]
    Missing(&'static str),
    #[error("field {field:?}: {msg}")]
    Field { field: &'static str, msg: String },
}

/// Raw bits as a hex word of `fmt`'s storage width.
pub fn hex(bits: u64, fmt: &Format) -> String {
    format!("{:0width$x}", bits, width = fmt.hex_digits())
}

fn text<'a>(m: &'a Map<String, Json>, f: &'static str) -> Result<&'a str, RecordError> {
    match m.get(f) {
        Some(Json::String(s)) => Ok(s),
        Some(_) => Err(RecordError::Field {
            field: f,
            msg: "expected a string".into(),
        }),
        None => Err(RecordError::Missing(f)),
    }
}

fn format_field(m: &Map<String, Json>, f: &'static str) -> Result<Format, RecordError> {
    let name = text(m, f)?;
    format_by_name(name).ok_or_else(|| RecordError::Field {
        field: f,
        msg: format!("unknown format {name:?}"),
    })
}

fn word(f: &'static str, s: &str, fmt: &Format) -> Result<u64, RecordError> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    let bad = || RecordError::Field {
        field: f,
        msg: format!(
            "{s:?} is not {} hex digits of a valid {} word",
            fmt.hex_digits(),
            fmt.name
        ),
    };
    if t.len() != fmt.hex_digits() || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let v = u64::from_str_radix(t, 16).map_err(|_| bad())?;
    if fmt.is_valid_encoding(v) {
        Ok(v)
    } else {
        Err(bad())
    }
}

fn words(m: &Map<String, Json>, f: &'static str, fmt: &Format) -> Result<Vec<u64>, RecordError> {
    match m.get(f) {
        Some(Json::Array(xs)) => xs
            .iter()
            .map(|x| match x {
                Json::String(s) => word(f, s, fmt),
                _ => Err(RecordError::Field {
                    field: f,
                    msg: "expected hex strings".into(),
                }),
            })
            .collect(),
        Some(_) => Err(RecordError::Field {
            field: f,
            msg: "expected a list of hex strings".into(),
        }),
        None => Err(RecordError::Missing(f)),
    }
}

/// The formats a line names (`a_format`, ...), when it names them.
pub fn line_formats(m: &Map<String, Json>) -> Result<Formats, RecordError> {
    let a = format_field(m, "a_format")?;
    let b = match m.get("b_format") {
        None => a,
        Some(_) => format_field(m, "b_format")?,
    };
    let scale = match m.get("scale_format") {
        None => None,
        Some(_) => {
            let s = format_field(m, "scale_format")?;
            let n = m
                .get("scale_block")
                .and_then(Json::as_u64)
                .filter(|&n| n > 0)
                .ok_or(RecordError::Missing("scale_block"))?;
            Some((s, n as usize))
        }
    };
    Ok(Formats {
        a,
        b,
        c: format_field(m, "c_format")?,
        d: format_field(m, "d_format")?,
        scale,
    })
}

/// A line's `k`, where it has one, must be the operands' length: a `k` that says otherwise
/// (a typing slip, or an absurd `10^18`) is an error, not a field to ignore.
fn check_k(m: &Map<String, Json>, n: usize) -> Result<(), RecordError> {
    let Some(k) = m.get("k") else {
        return Ok(());
    };
    let bad = |msg: String| RecordError::Field { field: "k", msg };
    match k.as_u64() {
        Some(k) if k == n as u64 => Ok(()),
        Some(k) => Err(bad(format!(
            "{k}, but a and b have {n} elements (k is the operands' length)"
        ))),
        None => Err(bad(format!(
            "{k} is not a number of elements (a and b have {n})"
        ))),
    }
}

/// Reads the operands (and `d`, when present) of a line of the given formats.
pub fn read_line(
    m: &Map<String, Json>,
    f: &Formats,
    label: String,
) -> Result<(Record, bool), RecordError> {
    let a = words(m, "a", &f.a)?;
    let b = words(m, "b", &f.b)?;
    if a.is_empty() {
        return Err(RecordError::Field {
            field: "a",
            msg: "no elements: K = 0 is not a dot product (A and B need K >= 1 elements)".into(),
        });
    }
    if a.len() != b.len() {
        return Err(RecordError::Field {
            field: "b",
            msg: format!("{} elements, but a has {}", b.len(), a.len()),
        });
    }
    check_k(m, a.len())?;
    let c = word("c", text(m, "c")?, &f.c)?;
    let (scale_a, scale_b) = match &f.scale {
        Some((s, n)) => {
            let (sa, sb) = (words(m, "scale_a", s)?, words(m, "scale_b", s)?);
            let want = a.len().div_ceil(*n);
            if sa.len() != want || sb.len() != want {
                return Err(RecordError::Field {
                    field: "scale_a",
                    msg: format!("expected {want} scale factors for each of A and B"),
                });
            }
            (sa, sb)
        }
        None => (Vec::new(), Vec::new()),
    };
    let (d, has_d) = match m.get("d") {
        None | Some(Json::Null) => (0, false),
        Some(_) => (word("d", text(m, "d")?, &f.d)?, true),
    };
    Ok((
        Record {
            label,
            a,
            b,
            c,
            scale_a,
            scale_b,
            d,
        },
        has_d,
    ))
}

/// The case line of a record (with its `d` when `with_d` holds one) and extra fields.
pub fn write_line(f: &Formats, r: &Record, with_d: Option<u64>, extra: &[(&str, Json)]) -> String {
    let mut m = Map::new();
    m.insert("a_format".into(), f.a.name.into());
    m.insert("b_format".into(), f.b.name.into());
    m.insert("c_format".into(), f.c.name.into());
    m.insert("d_format".into(), f.d.name.into());
    if let Some((s, n)) = f.scale {
        m.insert("scale_format".into(), s.name.into());
        m.insert("scale_block".into(), n.into());
    }
    m.insert("k".into(), r.a.len().into());
    for (key, v) in extra {
        m.insert((*key).into(), v.clone());
    }
    let list =
        |xs: &[u64], fmt: &Format| Json::Array(xs.iter().map(|&x| hex(x, fmt).into()).collect());
    m.insert("a".into(), list(&r.a, &f.a));
    m.insert("b".into(), list(&r.b, &f.b));
    m.insert("c".into(), hex(r.c, &f.c).into());
    if let Some((s, _)) = &f.scale {
        m.insert("scale_a".into(), list(&r.scale_a, s));
        m.insert("scale_b".into(), list(&r.scale_b, s));
    }
    if let Some(d) = with_d {
        m.insert("d".into(), hex(d, &f.d).into());
    }
    Json::Object(m).to_string()
}

/// Groups records by formats and K into sets named `source` (with the K when a source holds
/// several).
pub fn group(source: &str, items: Vec<(Formats, Record)>) -> Vec<RecordSet> {
    let mut sets: Vec<RecordSet> = Vec::new();
    for (f, r) in items {
        let k = r.a.len();
        match sets.iter_mut().find(|s| s.formats == f && s.k == k) {
            Some(s) => s.records.push(r),
            None => sets.push(RecordSet {
                source: source.to_string(),
                formats: f,
                k,
                records: vec![r],
            }),
        }
    }
    if sets.len() > 1 {
        for s in &mut sets {
            s.source = format!(
                "{source} ({}.{}->{}, K={})",
                s.formats.a.name, s.formats.b.name, s.formats.d.name, s.k
            );
        }
    }
    sets
}
