//! Case files: JSON Lines, one dot product per line.
//!
//! `{"vendor":"nvidia"|"amd","arch":"Hopper","op":"WGMMA","instr":"m64n8k16.f32.f16.f16",
//!   "a":[hex...],"b":[hex...],"c":hex,"d":hex}` with optional `"scale_a"`, `"scale_b"` and
//! informational fields, which are kept as they are. Hex strings are raw storage bits, lower
//! case, zero-padded to the storage width (f64 16 digits, f32/tf32 8, f16/bf16 4, 8-bit and
//! smaller formats 2); fp6 sits in bits 5:0 of a byte and fp4 in bits 5:2, except for
//! `kind::mxf4`/`kind::mxf4nvf4`, where two fp4 share a byte with element 2i in the high nibble.
//! Architecture and instruction names are those of mmasim 2.1.1; PTX and ISA spellings and GPU
//! product names are accepted too. Lines starting with `#` or `//` are comments, and blank
//! lines are skipped, so vector files can carry their own explanations.

use mma_catalog::{Row, Vendor};
use mma_core::catalog::{clip, Misfit};
use mma_core::sparse::Sparsity;
use mma_core::{DotUnit, Format, UnitFile, UnitFileError};
use serde_json::{Map, Value as Json};
use std::fmt;

/// Why a line cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CaseError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("missing field {0:?}")]
    Missing(&'static str),
    #[error("field {field:?}: {msg}")]
    Field { field: &'static str, msg: String },
    #[error("{0}")]
    Catalog(String),
    #[error(
        "vendor {0:?} is not built into this binary or unknown (expected \"nvidia\" or \"amd\")"
    )]
    Vendor(String),
    #[error("{field}: {got} {}, but {instr} takes {want}", plural(*got, "element", "elements"))]
    Count {
        field: &'static str,
        got: usize,
        want: usize,
        instr: String,
    },
    #[error("{field}[{index}] = {hex:?}: {msg}")]
    Word {
        field: &'static str,
        index: usize,
        hex: String,
        msg: String,
    },
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// How the A and B words of an instruction are packed (see the module docs): the catalogs'
/// own [`Layout`].
pub use mma_core::catalog::Layout;

/// A resolved instruction: what the case-file layer needs from either vendor's catalog.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub unit: &'static DotUnit,
    pub k: usize,
    pub packing: Layout,
    pub name: &'static str,
    /// A structured-sparse instruction's pattern: `k` is the logical K, lines give `"meta"`
    /// (each kept element's index within its group) and A dense (`k` elements, the disabled
    /// positions not read) or compressed (the kept ones), B whole; `unit` is the dense unit
    /// of the kept products ([`mma_core::sparse`]).
    pub sparse: Option<Sparsity>,
}

impl Target {
    /// A unit that no catalog holds (read from a unit file) as the target of every line:
    /// `k` elements per line, packed as the file's `layout` says
    /// ([`mma_core::UnitFile::case_layout`]).
    pub fn of_unit(
        unit: &'static DotUnit,
        k: usize,
        packing: Layout,
        name: &'static str,
    ) -> Target {
        Target {
            unit,
            k,
            packing,
            name,
            sparse: None,
        }
    }

    /// The target of a unit file's lines (`--unit FILE`): its unit, its `k` (default
    /// `L_max`) and its checked `layout` ([`UnitFile::case_layout`]). The unit lives as long
    /// as the process (one is read per command).
    pub fn from_unit_file(file: &UnitFile, name: &'static str) -> Result<Target, UnitFileError> {
        let unit = DotUnit::try_from(file)?;
        let layout = file.case_layout()?;
        let k = file.k.unwrap_or(unit.block);
        Ok(Target::of_unit(Box::leak(Box::new(unit)), k, layout, name))
    }

    /// This instruction as a unit file (`mma list --unit-file`): its unit, its K, and its
    /// layout where it is not plain, so that the file's lines read as the catalog's do. A
    /// sparse instruction's file is its dense unit of the kept products (K the kept count):
    /// sparsity is how operands reach the unit, not part of its arithmetic.
    pub fn unit_file(&self) -> UnitFile {
        let mut file = UnitFile::from(self.unit);
        file.k = Some(self.sparse.map_or(self.k, |s| s.stored(self.k)));
        if self.packing != Layout::Plain {
            file.layout = Some(self.packing.name().to_string());
        }
        file
    }

    /// A catalog instruction of either vendor.
    pub fn of_row(r: &Row) -> Target {
        Target {
            unit: r.unit,
            k: r.k,
            packing: r.layout,
            name: r.name,
            sparse: r.sparse,
        }
    }

    /// Elements of A and B (each) that the unit sums: K, or the kept count of a sparse
    /// instruction.
    pub fn unit_k(&self) -> usize {
        self.sparse.map_or(self.k, |s| s.stored(self.k))
    }
}

/// One parsed line.
#[derive(Clone, Debug)]
pub struct Case {
    /// Every field of the line, to write it back unchanged but for `"d"`.
    pub fields: Map<String, Json>,
    pub vendor: String,
    pub arch: String,
    pub op: Option<String>,
    pub instr: String,
}

impl Case {
    pub fn d(&self) -> Option<&str> {
        self.fields.get("d").and_then(Json::as_str)
    }
}

/// A line that is not a case: blank or a comment.
pub fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#') || t.starts_with("//")
}

fn str_field(m: &Map<String, Json>, f: &'static str) -> Result<String, CaseError> {
    match m.get(f) {
        None => Err(CaseError::Missing(f)),
        Some(Json::String(s)) => Ok(s.clone()),
        Some(other) => Err(CaseError::Field {
            field: f,
            msg: format!("expected a string, found {other}"),
        }),
    }
}

/// Parses one line of a case file.
pub fn parse_line(line: &str) -> Result<Case, CaseError> {
    parse_line_for(line, None)
}

/// A field that may be left out when every line runs on a given unit (`--unit`).
fn name_field(
    m: &Map<String, Json>,
    f: &'static str,
    fixed: Option<&Target>,
) -> Result<String, CaseError> {
    match (m.get(f), fixed) {
        (None | Some(Json::Null), Some(_)) => Ok(String::new()),
        _ => str_field(m, f),
    }
}

/// Parses one line; with `fixed` (every line runs on that unit, as with `--unit FILE`) the
/// line may omit `"arch"` and `"instr"`; where it names them, [`evaluate_for`] checks that
/// they name the same unit.
pub fn parse_line_for(line: &str, fixed: Option<&Target>) -> Result<Case, CaseError> {
    let v: Json = serde_json::from_str(line).map_err(|e| CaseError::Json(e.to_string()))?;
    let Json::Object(fields) = v else {
        return Err(CaseError::Json("a case must be a JSON object".into()));
    };
    let arch = name_field(&fields, "arch", fixed)?;
    // The vendor is optional: the catalog that knows the architecture decides.
    let vendor = match fields.get("vendor") {
        None | Some(Json::Null) => mma_catalog::vendor_or_default(&arch).name().to_string(),
        Some(_) => str_field(&fields, "vendor")?.to_ascii_lowercase(),
    };
    let instr = name_field(&fields, "instr", fixed)?;
    let op = match fields.get("op") {
        None | Some(Json::Null) => None,
        Some(_) => Some(str_field(&fields, "op")?),
    };
    Ok(Case {
        fields,
        vendor,
        arch,
        op,
        instr,
    })
}

/// Resolves a case's instruction through the one catalog door ([`mma_catalog::find`]): the
/// vendor named (`"nvidia"`, `"amd"`, any case), the architecture, the operation if given and
/// the instruction. An operation the vendor does not have is an error of the field `"op"`.
pub fn resolve(
    vendor: &str,
    arch: &str,
    op: Option<&str>,
    instr: &str,
) -> Result<Target, CaseError> {
    let v = Vendor::parse(vendor).map_err(|_| CaseError::Vendor(clip(vendor)))?;
    match mma_catalog::find(Some(v), arch, op, instr) {
        Ok(row) => Ok(Target::of_row(&row)),
        Err(e) if e.field() == "op" => Err(CaseError::Field {
            field: "op",
            msg: e.to_string(),
        }),
        Err(mma_catalog::CatalogError::NotBuilt(_)) => Err(CaseError::Vendor(clip(vendor))),
        Err(e) => Err(CaseError::Catalog(e.to_string())),
    }
}

fn hex_list(m: &Map<String, Json>, f: &'static str) -> Result<Vec<String>, CaseError> {
    match m.get(f) {
        None => Err(CaseError::Missing(f)),
        Some(Json::Array(xs)) => xs
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Json::String(s) => Ok(s.clone()),
                other => Err(CaseError::Word {
                    field: f,
                    index: i,
                    hex: other.to_string(),
                    msg: "expected a hex string".into(),
                }),
            })
            .collect(),
        Some(other) => Err(CaseError::Field {
            field: f,
            msg: format!("expected a list of hex strings, found {other}"),
        }),
    }
}

/// Reads one hex word strictly: an optional `0x` prefix (that spelling only), then exactly
/// `digits` hex digits, the storage width of the word (`what` names it in the message). A
/// short word is an error, never a small number: `"3f80"` is not an fp32 C.
fn parse_hex(
    field: &'static str,
    index: usize,
    s: &str,
    digits: usize,
    what: &str,
) -> Result<u64, CaseError> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    let bad = |msg: String| CaseError::Word {
        field,
        index,
        hex: s.to_string(),
        msg,
    };
    if t.len() != digits || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad(format!(
            "expected exactly {digits} hex digits ({what}), optionally after 0x"
        )));
    }
    u64::from_str_radix(t, 16).map_err(|e| bad(e.to_string()))
}

/// [`parse_hex`] for a word of `fmt`'s storage width.
fn parse_word(field: &'static str, index: usize, s: &str, fmt: &Format) -> Result<u64, CaseError> {
    let what = format!("a {}-bit {} word", fmt.storage_bits, fmt.name);
    parse_hex(field, index, s, fmt.hex_digits(), &what)
}

/// One word of an operand: a case-file word still to be read strictly (a line's words, and
/// those a user typed as such), or an element's storage word already decoded (`mma dot`'s
/// decimals, hex-floats and `bits:`, one element each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Text(String),
    Element(u64),
}

/// Reads an operand's words into one storage word of `fmt` per element, checking every
/// encoding: a text word as the layout's storage word (`packing`: the storage width's hex
/// digits when plain, else a byte), unpacked by [`Layout::unpack`].
fn unpack(
    field: &'static str,
    words: &[Word],
    fmt: &Format,
    packing: Layout,
) -> Result<Vec<u64>, CaseError> {
    let mut out = Vec::with_capacity(words.len() * packing.per_word());
    for (i, w) in words.iter().enumerate() {
        let bad = |msg: String| CaseError::Word {
            field,
            index: i,
            hex: match w {
                Word::Text(s) => s.clone(),
                Word::Element(e) => hex(*e, fmt),
            },
            msg,
        };
        match w {
            Word::Text(s) => {
                let v = read_word(field, i, s, fmt, packing)?;
                packing
                    .unpack_into(fmt, &[v], &mut out)
                    .map_err(|e| bad(e.why.to_string()))?;
            }
            // An element is in no layout's storage word: its own format's check only.
            Word::Element(e) if fmt.is_valid_encoding(*e) => out.push(*e),
            Word::Element(_) => return Err(bad(Misfit::Invalid { format: fmt.name }.to_string())),
        }
    }
    Ok(out)
}

/// One storage word of `packing` read strictly from its hex text ([`parse_hex`]).
fn read_word(
    field: &'static str,
    index: usize,
    s: &str,
    fmt: &Format,
    packing: Layout,
) -> Result<u64, CaseError> {
    match packing {
        Layout::PackedFp4 => parse_hex(field, index, s, 2, "a byte of two fp4 elements"),
        Layout::PackedInt4 => parse_hex(field, index, s, 2, "a byte of two 4-bit integers"),
        Layout::Bits => parse_hex(field, index, s, 2, "a byte of eight single bits"),
        Layout::Byte => parse_hex(field, index, s, 2, "one element per byte"),
        Layout::Plain => parse_word(field, index, s, fmt),
    }
}

/// Operands of a case, unpacked for the unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Operands {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: u64,
    pub scale_a: Vec<u64>,
    pub scale_b: Vec<u64>,
}

/// A case's operands handed over directly instead of as a line (`mma dot`'s command line):
/// each operand's [`Word`]s, the scale factors where given. [`Given::operands`] reads and
/// checks them as [`operands`] reads a line's, with the same errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    pub a: Vec<Word>,
    pub b: Vec<Word>,
    pub c: Word,
    pub scale_a: Option<Vec<Word>>,
    pub scale_b: Option<Vec<Word>>,
    /// A sparse instruction's metadata: each kept element's index within its group.
    pub meta: Option<Vec<u8>>,
}

impl Given {
    /// Reads and checks the operands against the instruction `t`, as [`operands`] a line's.
    pub fn operands(&self, t: &Target) -> Result<Operands, CaseError> {
        let list = |field: &'static str| {
            Ok(match field {
                "a" => Some(self.a.clone()),
                "b" => Some(self.b.clone()),
                "scale_a" => self.scale_a.clone(),
                _ => self.scale_b.clone(),
            })
        };
        read_operands(t, list, || Ok(self.c.clone()), || Ok(self.meta.clone()))
    }

    /// The operands as a case line's fields (`"a"`, `"b"`, `"c"`, `"scale_a"`, `"scale_b"`
    /// where given), in the instruction's layout: a text word as it was given, elements as
    /// their storage words (packed two to a byte where the layout packs them).
    pub fn fields(&self, t: &Target) -> Vec<(&'static str, Json)> {
        let f = &t.unit.formats;
        let list =
            |ws: &[Word], fmt: &Format, packing: Layout| Json::from(line_words(ws, fmt, packing));
        let mut out = vec![
            ("a", list(&self.a, &f.a, t.packing)),
            ("b", list(&self.b, &f.b, t.packing)),
            (
                "c",
                list(std::slice::from_ref(&self.c), &f.c, Layout::Plain)[0].clone(),
            ),
        ];
        for (key, ws) in [("scale_a", &self.scale_a), ("scale_b", &self.scale_b)] {
            if let Some(ws) = ws {
                // Without a scale format the words stay as given (the count is the error).
                let sf = f.scale.map_or(f.a, |(sf, _)| sf);
                out.push((key, list(ws, &sf, Layout::Plain)));
            }
        }
        out
    }
}

/// Words as a case line writes them: text as given, each run of elements packed into the
/// layout's storage words ([`Layout::pack`]) of the layout's hex digits.
fn line_words(words: &[Word], fmt: &Format, packing: Layout) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    let flush = |run: &mut Vec<u64>, out: &mut Vec<String>| {
        let digits = packing.hex_digits(fmt);
        for w in packing.pack(fmt, run) {
            out.push(format!("{w:0digits$x}"));
        }
        run.clear();
    };
    for w in words {
        match w {
            Word::Element(e) => run.push(*e),
            Word::Text(s) => {
                flush(&mut run, &mut out);
                out.push(s.clone());
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Reads and checks a case's operands against its instruction.
pub fn operands(case: &Case, t: &Target) -> Result<Operands, CaseError> {
    let texts = |ws: Vec<String>| ws.into_iter().map(Word::Text).collect::<Vec<_>>();
    let list = |field: &'static str| match case.fields.get(field) {
        None => Ok(None),
        Some(_) => hex_list(&case.fields, field).map(|ws| Some(texts(ws))),
    };
    read_operands(
        t,
        list,
        || str_field(&case.fields, "c").map(Word::Text),
        || meta_field(&case.fields),
    )
}

/// A line's `"meta"`: an array of small integers (each kept element's index within its
/// group), `None` where absent.
fn meta_field(fields: &Map<String, Json>) -> Result<Option<Vec<u8>>, CaseError> {
    let Some(v) = fields.get("meta") else {
        return Ok(None);
    };
    let bad = |msg: String| CaseError::Field { field: "meta", msg };
    let items = v.as_array().ok_or_else(|| {
        bad("expected an array of indices (0 to 3: each kept element's place in its group)".into())
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "meta[{i}] = {x}: expected a small non-negative integer"
                    ))
                })
        })
        .collect::<Result<Vec<u8>, _>>()
        .map(Some)
}

/// The one reading of a case's operands, whether from a line or [`Given`]: `list(field)` the
/// words of A, B or a scale operand (`None` where absent), `c()` C's word, each asked in this
/// order so that the first error is the same either way.
fn read_operands(
    t: &Target,
    list: impl Fn(&'static str) -> Result<Option<Vec<Word>>, CaseError>,
    c: impl FnOnce() -> Result<Word, CaseError>,
    meta: impl FnOnce() -> Result<Option<Vec<u8>>, CaseError>,
) -> Result<Operands, CaseError> {
    let f = &t.unit.formats;
    let needed = |field| list(field)?.ok_or(CaseError::Missing(field));
    let a = unpack("a", &needed("a")?, &f.a, t.packing)?;
    let b = unpack("b", &needed("b")?, &f.b, t.packing)?;
    // A sparse instruction: A dense or compressed, B whole, both reduced to the kept
    // products by the metadata; a dense one takes no metadata.
    let (a, b) = match (t.sparse, meta()?) {
        (None, None) => (a, b),
        (None, Some(_)) => {
            return Err(CaseError::Field {
                field: "meta",
                msg: format!(
                    "{} is not a sparse instruction: it takes no metadata",
                    t.name
                ),
            })
        }
        (Some(_), None) => return Err(CaseError::Missing("meta")),
        (Some(s), Some(meta)) => sparse_operands(t, s, a, b, &meta)?,
    };
    let k = t.unit_k();
    for (field, got) in [("a", a.len()), ("b", b.len())] {
        if got != k {
            // Counted in storage words, as the line writes them.
            let per = t.packing.per_word();
            return Err(CaseError::Count {
                field,
                got: got / per,
                want: t.k / per,
                instr: t.name.to_string(),
            });
        }
    }
    // C is read as a word of its storage width, without the operands' encoding check.
    let c = match c()? {
        Word::Text(s) => parse_word("c", 0, &s, &f.c)?,
        Word::Element(e) => e,
    };
    let want = t.unit.scales_for(k);
    let mut scales = [Vec::new(), Vec::new()];
    for (slot, field) in scales.iter_mut().zip(["scale_a", "scale_b"]) {
        let words = match list(field)? {
            None if want == 0 => Vec::new(),
            None => return Err(CaseError::Missing(field)),
            Some(words) => words,
        };
        if words.len() != want {
            return Err(CaseError::Count {
                field,
                got: words.len(),
                want,
                instr: t.name.to_string(),
            });
        }
        if let Some((sf, _)) = f.scale {
            *slot = unpack(field, &words, &sf, Layout::Plain)?;
        }
    }
    let [scale_a, scale_b] = scales;
    t.unit
        .check_scaled(&a, &b, c, &scale_a, &scale_b)
        .map_err(|e| CaseError::Field {
            field: "a",
            msg: e.to_string(),
        })?;
    Ok(Operands {
        a,
        b,
        c,
        scale_a,
        scale_b,
    })
}

/// A sparse instruction's operands reduced to the kept products: `meta` checked (the error
/// names the group), A compressed from its dense row where it has `k` elements (a
/// compressed A has the kept count), B gathered at the selected positions.
fn sparse_operands(
    t: &Target,
    s: Sparsity,
    a: Vec<u64>,
    b: Vec<u64>,
    meta: &[u8],
) -> Result<(Vec<u64>, Vec<u64>), CaseError> {
    let kept = s.stored(t.k);
    let count = |field, got: usize, want| CaseError::Count {
        field,
        got: got / t.packing.per_word(),
        want: want / t.packing.per_word(),
        instr: t.name.to_string(),
    };
    let bad_meta = |e: mma_core::sparse::SparseError| CaseError::Field {
        field: "meta",
        msg: e.to_string(),
    };
    s.check(t.k, meta).map_err(bad_meta)?;
    if b.len() != t.k {
        return Err(count("b", b.len(), t.k));
    }
    let a = match a.len() {
        n if n == t.k => s.compress(&a, meta).map_err(bad_meta)?,
        n if n == kept => a,
        n => {
            return Err(CaseError::Field {
                field: "a",
                msg: format!(
                    "{n} elements, but {} takes {} (dense, the disabled positions ignored) or {kept} (the kept ones)",
                    t.name, t.k
                ),
            })
        }
    };
    Ok((a, s.gather(&b, meta).map_err(bad_meta)?))
}

/// Evaluates a parsed case, returning its target and D's storage bits.
pub fn evaluate(case: &Case) -> Result<(Target, u64), CaseError> {
    evaluate_for(case, None)
}

/// [`evaluate`] on `fixed` when given (a unit file's unit), else on the case's instruction.
pub fn evaluate_for(case: &Case, fixed: Option<&Target>) -> Result<(Target, u64), CaseError> {
    let t = match fixed {
        Some(t) => {
            same_unit(case, t)?;
            *t
        }
        None => resolve(&case.vendor, &case.arch, case.op.as_deref(), &case.instr)?,
    };
    let o = operands(case, &t)?;
    Ok((
        t,
        t.unit.dot_scaled(&o.a, &o.b, o.c, &o.scale_a, &o.scale_b),
    ))
}

/// With `--unit`, a line that names an instruction (`"arch"` or `"instr"`) must name one whose
/// unit, K and layout are the unit file's: a line written for another unit is refused rather
/// than computed silently on the file's.
fn same_unit(case: &Case, fixed: &Target) -> Result<(), CaseError> {
    if case.arch.is_empty() && case.instr.is_empty() {
        return Ok(());
    }
    let field = if case.instr.is_empty() {
        "instr"
    } else {
        "arch"
    };
    let named = resolve(&case.vendor, &case.arch, case.op.as_deref(), &case.instr).map_err(|e| {
        CaseError::Field {
            field,
            msg: format!(
                "the line names {} {} but runs on the unit of {} (--unit): {e}; drop \"arch\" and \"instr\" from the line, or --unit",
                clip(&case.arch),
                clip(&case.instr),
                fixed.name
            ),
        }
    })?;
    if named.unit == fixed.unit && named.k == fixed.k && named.packing == fixed.packing {
        return Ok(());
    }
    Err(CaseError::Field {
        field: "instr",
        msg: format!(
            "the line names {} {} ({}, K = {}, layout {}), not the unit of {} (--unit: {}, K = {}, layout {}); drop \"arch\" and \"instr\" from the line, or --unit",
            clip(&case.arch),
            clip(&case.instr),
            named.unit.describe(),
            named.k,
            named.packing.name(),
            fixed.name,
            fixed.unit.describe(),
            fixed.k,
            fixed.packing.name()
        ),
    })
}

/// The case's expected result `"d"`, read strictly as a word of the instruction's output
/// format; `Ok(None)` when the line has none.
pub fn expected_d(case: &Case, t: &Target) -> Result<Option<u64>, CaseError> {
    match case.fields.get("d") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => parse_word("d", 0, s, &t.unit.formats.d).map(Some),
        Some(other) => Err(CaseError::Field {
            field: "d",
            msg: format!("expected a string (a hex word), found {other}"),
        }),
    }
}

/// Raw bits as a case-file hex word of `fmt`.
pub fn hex(bits: u64, fmt: &Format) -> String {
    format!("{:0width$x}", bits, width = fmt.hex_digits())
}

/// A case line with `"d"` set (added if absent).
pub fn with_d(case: &Case, d: String) -> String {
    let mut m = case.fields.clone();
    m.insert("d".into(), Json::String(d));
    Json::Object(m).to_string()
}

/// A problem located in a file.
#[derive(Clone, Debug)]
pub struct LineError {
    pub file: String,
    pub line: usize,
    pub error: CaseError,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.error)
    }
}
