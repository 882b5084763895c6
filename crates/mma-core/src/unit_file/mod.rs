//! Unit files: a [`DotUnit`] that no catalog holds, written as data (JSON, or any serde format).
//!
//! A unit file names the operand formats as `mma list` prints them, the block length `L_max`,
//! optionally the instruction's K (the number of elements a case line holds), the model by the
//! name [`Model::name`] gives and its parameters under the names the papers and `mma list` use:
//!
//! ```json
//! {"a": "f16", "b": "f16", "c": "f32", "d": "f32", "k": 16, "L_max": 16,
//!  "model": "T-FDPA",
//!  "params": {"F": 25, "e_zero": -133, "rho": "RZ-FP32",
//!             "overflow": "inf", "nan": "all-ones", "neg_zero_to_pos": true}}
//! ```
//!
//! Block-scaled units add `"scale": "ue8m0"` and `"scale_block": 32` (elements per scale).
//! The parameters each model takes (all required unless marked optional):
//!
//! | model | parameters |
//! | --- | --- |
//! | `FMA` | `rounding` (`RNE`, `RZ`, `RD`, `RU`, `RNA`), `nan` |
//! | `E-FDPA` | output keys |
//! | `T-FDPA`, `ST-FDPA` | `F`, `e_zero`, output keys |
//! | `GST-FDPA` | `G`, `F`, `e_zero`, optional `group_floor` (an open question's reading, `gst_fdpa.rs`), output keys |
//! | `Sliced-FDPA` | `passes`, `group`, `F`, `e_zero`, `last` (rounding of the C addition: `RNE` at the passes' precision, or with a format, `RNE-FP32`), output keys of the passes |
//! | `FTZ-MulAdd` | `P`, `acc` (a format name), `nan` |
//! | `TR-FDPA` | `F`, `F2`, `e_zero_c`, `e_norm_min`, optional `product_inf_exp`, output keys |
//! | `GTR-FDPA` | `F`, `F2`, `e_zero_c`, `e_norm_min`, `c_drop`, output keys (block scales allowed: L_max divides `scale_block` or is a multiple of it) |
//! | `I-DPA` | `op` (`mul`, or `xor` for `.xor.popc`), `saturate` (true: clamp to s32; false: wrap) |
//!
//! Output keys: `rho` (final rounding as `<MODE>-<FORMAT>`: `RZ-FP32`, `RNE-FP16`, `RZ-E8M13`),
//! `overflow` (`ieee`, `inf` or `saturate`), optional `ftz` (default false), `nan` (`all-ones`,
//! `default` or `negative`: [`NanStyle`]) and `neg_zero_to_pos`. Unknown keys and fields are
//! errors, so a misspelt parameter never falls back silently to a default.
//!
//! `DotUnit` implements `Serialize` and `Deserialize` through [`UnitFile`]; the `k` and
//! `layout` fields are not part of a `DotUnit` (read them from [`UnitFile`] where case files
//! matter: [`UnitFile::case_layout`]).
//!
//! `layout` says how a case file's A and B words hold the elements ([`Layout`]): `"plain"`
//! (one element per storage word, the default), `"byte"` (one element per byte, fp6 in bits
//! 5:0 and fp4 in bits 5:2, as NVIDIA's `kind::f8f6f4`) or `"packed_fp4"` (two fp4 per byte,
//! element 2i in the high nibble, as `kind::mxf4`). A unit with fp4 A or B must name it: fp4
//! sits in bits 3:0 of a plain word but in bits 5:2 of a byte, and guessing would read other
//! bits than the file's author wrote. `mma list --unit-file` writes the catalog's layout.

mod checks;

pub use checks::UnitFileError;

use crate::catalog::Layout;
use crate::format::{self, Format};
use crate::model::{Formats, NanStyle, Output, OutputRounding};
use crate::models::e_fdpa::EFdpa;
use crate::models::fma::Fma;
use crate::models::ftz_mul_add::FtzMulAdd;
use crate::models::gst_fdpa::GstFdpa;
use crate::models::gtr_fdpa::GtrFdpa;
use crate::models::int_dpa::{IDpa, IntOp};
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::models::st_fdpa::StFdpa;
use crate::models::t_fdpa::TFdpa;
use crate::models::tr_fdpa::TrFdpa;
use crate::round::{Overflow, RoundOpts, Rounding};
use crate::unit::{DotUnit, Model};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One parameter value: an integer, a flag or a name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    Int(i64),
    Flag(bool),
    Text(String),
}

impl From<i64> for Param {
    fn from(x: i64) -> Param {
        Param::Int(x)
    }
}

impl From<bool> for Param {
    fn from(x: bool) -> Param {
        Param::Flag(x)
    }
}

impl From<&str> for Param {
    fn from(x: &str) -> Param {
        Param::Text(x.to_string())
    }
}

impl From<String> for Param {
    fn from(x: String) -> Param {
        Param::Text(x)
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Int(x) => write!(f, "{x}"),
            Param::Flag(x) => write!(f, "{x}"),
            Param::Text(x) => write!(f, "{x}"),
        }
    }
}

/// The serde form of a unit (see the module docs for the schema).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitFile {
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_block: Option<usize>,
    /// The instruction's K (elements per case line); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// How case files hold A's and B's elements ([`Layout::name`]); optional but for fp4 A or
    /// B ([`UnitFile::case_layout`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    #[serde(rename = "L_max")]
    pub l_max: usize,
    pub model: String,
    pub params: BTreeMap<String, Param>,
}

/// A format by the name `mma list` and the case files use (`f16`, `e4m3`, `ue8m0`), or a
/// common alias; also `e8m13`, the narrow fp32-range rounding target.
pub fn format_by_name(name: &str) -> Option<Format> {
    if name.eq_ignore_ascii_case("e8m13") {
        return Some(format::E8M13);
    }
    format::by_name(name)
}

/// `RZ-FP32`, `RNE-FP16`, `RZ-E8M13`: a rounding mode and its target as the papers write them.
pub fn rho_name(mode: Rounding, fmt: &Format) -> String {
    let mode = mode.short_name().to_uppercase();
    match fmt.name {
        "f32" => format!("{mode}-FP32"),
        "f16" => format!("{mode}-FP16"),
        "f64" => format!("{mode}-FP64"),
        other => format!("{mode}-{}", other.to_uppercase()),
    }
}

/// A rounding mode by its short name (`RNE`, `rz`, ...).
pub fn rounding_by_name(name: &str) -> Option<Rounding> {
    Rounding::ALL
        .into_iter()
        .find(|r| r.short_name().eq_ignore_ascii_case(name))
}

/// The inverse of [`rho_name`].
pub fn parse_rho(s: &str) -> Option<(Rounding, Format)> {
    let (mode, fmt) = s.split_once('-')?;
    Some((rounding_by_name(mode)?, format_by_name(fmt)?))
}

fn nan_name(n: NanStyle) -> &'static str {
    match n {
        NanStyle::AllOnes => "all-ones",
        NanStyle::DefaultQuiet => "default",
        NanStyle::NegativeQuiet => "negative",
    }
}

fn overflow_name(o: Overflow) -> &'static str {
    match o {
        Overflow::Ieee => "ieee",
        Overflow::Infinity => "inf",
        Overflow::Saturate => "saturate",
    }
}

type Params = BTreeMap<String, Param>;

fn put_out(p: &mut Params, o: &Output) {
    p.insert("rho".into(), rho_name(o.rho.mode, &o.rho.fmt).into());
    p.insert("overflow".into(), overflow_name(o.rho.opts.overflow).into());
    if o.rho.opts.ftz {
        p.insert("ftz".into(), true.into());
    }
    p.insert("nan".into(), nan_name(o.nan).into());
    p.insert("neg_zero_to_pos".into(), o.neg_zero_to_pos.into());
}

fn int(x: impl TryInto<i64>) -> Param {
    Param::Int(x.try_into().unwrap_or(i64::MAX))
}

impl From<&DotUnit> for UnitFile {
    fn from(u: &DotUnit) -> UnitFile {
        let mut p = Params::new();
        match &u.model {
            Model::Fma(m) => {
                p.insert("rounding".into(), m.mode.short_name().to_uppercase().into());
                p.insert("nan".into(), nan_name(m.nan).into());
            }
            Model::EFdpa(m) => put_out(&mut p, &m.out),
            Model::TFdpa(m) => {
                p.insert("F".into(), int(m.f));
                p.insert("e_zero".into(), int(m.e_zero));
                put_out(&mut p, &m.out);
            }
            Model::StFdpa(m) => {
                p.insert("F".into(), int(m.f));
                p.insert("e_zero".into(), int(m.e_zero));
                put_out(&mut p, &m.out);
            }
            Model::GstFdpa(m) => {
                p.insert("G".into(), int(m.g));
                p.insert("F".into(), int(m.f));
                p.insert("e_zero".into(), int(m.e_zero));
                if let Some(x) = m.group_floor {
                    p.insert("group_floor".into(), int(x));
                }
                put_out(&mut p, &m.out);
            }
            Model::SlicedFdpa(m) => {
                p.insert("passes".into(), int(m.passes));
                p.insert("group".into(), int(m.group));
                p.insert("F".into(), int(m.pass.f));
                p.insert("e_zero".into(), int(m.pass.e_zero));
                let last = match m.last_format {
                    Some(fmt) => rho_name(m.last, &fmt),
                    None => m.last.short_name().to_uppercase(),
                };
                p.insert("last".into(), last.into());
                put_out(&mut p, &m.pass.out);
            }
            Model::FtzMulAdd(m) => {
                p.insert("P".into(), int(m.p));
                p.insert("acc".into(), m.acc.name.into());
                p.insert("nan".into(), nan_name(m.nan).into());
            }
            Model::TrFdpa(m) => {
                p.insert("F".into(), int(m.f));
                p.insert("F2".into(), int(m.f2));
                p.insert("e_zero_c".into(), int(m.e_zero_c));
                p.insert("e_norm_min".into(), int(m.e_norm_min));
                if let Some(t) = m.product_inf_exp {
                    p.insert("product_inf_exp".into(), int(t));
                }
                put_out(&mut p, &m.out);
            }
            Model::GtrFdpa(m) => {
                p.insert("F".into(), int(m.f));
                p.insert("F2".into(), int(m.f2));
                p.insert("e_zero_c".into(), int(m.e_zero_c));
                p.insert("e_norm_min".into(), int(m.e_norm_min));
                p.insert("c_drop".into(), int(m.c_drop));
                put_out(&mut p, &m.out);
            }
            Model::IDpa(m) => {
                p.insert("op".into(), m.op.name().into());
                p.insert("saturate".into(), m.saturate.into());
            }
        }
        let f = &u.formats;
        UnitFile {
            a: f.a.name.into(),
            b: f.b.name.into(),
            c: f.c.name.into(),
            d: f.d.name.into(),
            scale: f.scale.map(|(s, _)| s.name.to_string()),
            scale_block: f.scale.map(|(_, n)| n),
            // A block shorter than a scale block needs an instruction K that holds whole
            // scale blocks (see the reader): the least that holds whole blocks of both.
            k: f.scale
                .filter(|&(_, per)| !u.block.is_multiple_of(per))
                .map(|(_, per)| per / gcd(per, u.block) * u.block),
            l_max: u.block,
            // The unit's arithmetic does not say how case files pack its elements: the
            // catalog row (or the file's author) does.
            layout: None,
            model: u.model.name().into(),
            params: p,
        }
    }
}

impl UnitFile {
    /// How case files hold this unit's A and B elements: the `layout` field, checked against
    /// the formats (`byte`: A and B of at most 8 bits; `packed_fp4`: fp4 A and B), or
    /// [`Layout::Plain`] where the field is absent, except for fp4 A or B, which must name
    /// their layout (see the module docs).
    pub fn case_layout(&self) -> Result<Layout, UnitFileError> {
        let (a, b) = (fmt(&self.a)?, fmt(&self.b)?);
        let bad = |msg: String| UnitFileError::Layout {
            value: self.layout.clone().unwrap_or_default(),
            msg,
        };
        match &self.layout {
            None if a.width() == 4 || b.width() == 4 => Err(UnitFileError::Layout {
                value: String::new(),
                msg: format!(
                    "missing: A ({}) or B ({}) is fp4, which a case file may hold in bits 5:2 of a byte (\"byte\", as kind::f8f6f4) or two to a byte (\"packed_fp4\", as kind::mxf4); name one",
                    a.name, b.name
                ),
            }),
            None => Ok(Layout::Plain),
            Some(name) => {
                let l = Layout::by_name(name).ok_or_else(|| {
                    bad("expected \"plain\", \"byte\" or \"packed_fp4\"".to_string())
                })?;
                l.check(&a, &b, self.k.unwrap_or(self.l_max)).map_err(bad)?;
                Ok(l)
            }
        }
    }
}

impl From<DotUnit> for UnitFile {
    fn from(u: DotUnit) -> UnitFile {
        UnitFile::from(&u)
    }
}

/// Reads parameters, remembering which were used so that the rest can be reported as unknown.
struct Reader<'a> {
    model: &'a str,
    params: &'a Params,
    used: Vec<&'static str>,
}

impl<'a> Reader<'a> {
    fn bad(&self, key: &str, value: &Param, msg: &str) -> UnitFileError {
        UnitFileError::Value {
            model: self.model.into(),
            key: key.into(),
            value: value.to_string(),
            msg: msg.into(),
        }
    }

    fn get(&mut self, key: &'static str) -> Result<&'a Param, UnitFileError> {
        self.used.push(key);
        self.params.get(key).ok_or(UnitFileError::Missing {
            model: self.model.into(),
            key,
        })
    }

    fn opt(&mut self, key: &'static str) -> Option<&'a Param> {
        self.used.push(key);
        self.params.get(key)
    }

    fn int<T: TryFrom<i64>>(&mut self, key: &'static str) -> Result<T, UnitFileError> {
        let v = self.get(key)?;
        match v {
            Param::Int(x) => T::try_from(*x).map_err(|_| self.bad(key, v, "out of range")),
            _ => Err(self.bad(key, v, "expected an integer")),
        }
    }

    /// An optional integer: absent is `None`.
    fn opt_int(&mut self, key: &'static str) -> Result<Option<i32>, UnitFileError> {
        match self.opt(key) {
            None => Ok(None),
            Some(v @ Param::Int(x)) => i32::try_from(*x)
                .map(Some)
                .map_err(|_| self.bad(key, v, "out of range")),
            Some(v) => Err(self.bad(key, v, "expected an integer")),
        }
    }

    fn flag(&mut self, key: &'static str) -> Result<bool, UnitFileError> {
        let v = self.get(key)?;
        match v {
            Param::Flag(x) => Ok(*x),
            _ => Err(self.bad(key, v, "expected true or false")),
        }
    }

    fn text(&mut self, key: &'static str) -> Result<&'a str, UnitFileError> {
        let v = self.get(key)?;
        match v {
            Param::Text(x) => Ok(x),
            _ => Err(self.bad(key, v, "expected a name")),
        }
    }

    /// Sliced-FDPA's `last`: a mode (`RNE`, at the passes' precision) or a mode and a
    /// format (`RNE-FP32`).
    fn last(&mut self) -> Result<(Rounding, Option<Format>), UnitFileError> {
        let s = self.text("last")?;
        if let Some((mode, fmt)) = parse_rho(s) {
            return Ok((mode, Some(fmt)));
        }
        rounding_by_name(s).map(|m| (m, None)).ok_or_else(|| {
            self.bad(
                "last",
                &Param::from(s),
                "expected RNE, RZ, RD, RU or RNA, or a mode and format such as RNE-FP32",
            )
        })
    }

    fn rounding(&mut self, key: &'static str) -> Result<Rounding, UnitFileError> {
        let s = self.text(key)?;
        rounding_by_name(s)
            .ok_or_else(|| self.bad(key, &Param::from(s), "expected RNE, RZ, RD, RU or RNA"))
    }

    fn nan(&mut self, key: &'static str) -> Result<NanStyle, UnitFileError> {
        let s = self.text(key)?;
        match s {
            "all-ones" => Ok(NanStyle::AllOnes),
            "default" => Ok(NanStyle::DefaultQuiet),
            "negative" => Ok(NanStyle::NegativeQuiet),
            _ => Err(self.bad(
                key,
                &Param::from(s),
                "expected all-ones, default or negative",
            )),
        }
    }

    fn out(&mut self) -> Result<Output, UnitFileError> {
        let rho = self.text("rho")?;
        let (mode, fmt) = parse_rho(rho).ok_or_else(|| {
            self.bad(
                "rho",
                &Param::from(rho),
                "expected <MODE>-<FORMAT> such as RZ-FP32",
            )
        })?;
        let ov = self.text("overflow")?;
        let overflow = match ov {
            "ieee" => Overflow::Ieee,
            "inf" => Overflow::Infinity,
            "saturate" => Overflow::Saturate,
            _ => {
                return Err(self.bad(
                    "overflow",
                    &Param::from(ov),
                    "expected ieee, inf or saturate",
                ))
            }
        };
        let ftz = match self.opt("ftz") {
            None => false,
            Some(Param::Flag(x)) => *x,
            Some(v) => return Err(self.bad("ftz", v, "expected true or false")),
        };
        Ok(Output {
            rho: OutputRounding {
                fmt,
                mode,
                opts: RoundOpts { overflow, ftz },
            },
            nan: self.nan("nan")?,
            neg_zero_to_pos: self.flag("neg_zero_to_pos")?,
        })
    }

    fn finish(self) -> Result<(), UnitFileError> {
        match self
            .params
            .keys()
            .find(|k| !self.used.contains(&k.as_str()))
        {
            Some(k) => Err(UnitFileError::Unknown {
                model: self.model.into(),
                key: k.clone(),
            }),
            None => Ok(()),
        }
    }
}

fn fmt(name: &str) -> Result<Format, UnitFileError> {
    format_by_name(name).ok_or_else(|| UnitFileError::Format(name.into()))
}

impl TryFrom<&UnitFile> for DotUnit {
    type Error = UnitFileError;

    fn try_from(u: &UnitFile) -> Result<DotUnit, UnitFileError> {
        let scale = match (&u.scale, u.scale_block) {
            (None, None) => None,
            (Some(s), Some(n)) if n > 0 => Some((fmt(s)?, n)),
            _ => {
                return Err(UnitFileError::Shape(
                    "\"scale\" and \"scale_block\" (> 0) go together".into(),
                ))
            }
        };
        let formats = Formats {
            a: fmt(&u.a)?,
            b: fmt(&u.b)?,
            c: fmt(&u.c)?,
            d: fmt(&u.d)?,
            scale,
        };
        if u.l_max == 0 || u.l_max > crate::model::MAX_BLOCK {
            return Err(UnitFileError::Shape(format!(
                "L_max = {} must be between 1 and {}",
                u.l_max,
                crate::model::MAX_BLOCK
            )));
        }
        let mut r = Reader {
            model: &u.model,
            params: &u.params,
            used: Vec::new(),
        };
        let model = match u.model.as_str() {
            "FMA" => Model::Fma(Fma {
                mode: r.rounding("rounding")?,
                nan: r.nan("nan")?,
            }),
            "E-FDPA" => Model::EFdpa(EFdpa { out: r.out()? }),
            "T-FDPA" => Model::TFdpa(TFdpa {
                f: r.int("F")?,
                e_zero: r.int("e_zero")?,
                out: r.out()?,
            }),
            "ST-FDPA" => Model::StFdpa(StFdpa {
                f: r.int("F")?,
                e_zero: r.int("e_zero")?,
                out: r.out()?,
            }),
            "GST-FDPA" => Model::GstFdpa(GstFdpa {
                g: r.int("G")?,
                f: r.int("F")?,
                e_zero: r.int("e_zero")?,
                group_floor: r.opt_int("group_floor")?,
                out: r.out()?,
            }),
            "Sliced-FDPA" => {
                let (last, last_format) = r.last()?;
                Model::SlicedFdpa(SlicedFdpa {
                    passes: r.int("passes")?,
                    group: r.int("group")?,
                    pass: TFdpa {
                        f: r.int("F")?,
                        e_zero: r.int("e_zero")?,
                        out: r.out()?,
                    },
                    last,
                    last_format,
                })
            }
            "FTZ-MulAdd" => Model::FtzMulAdd(FtzMulAdd {
                p: r.int("P")?,
                acc: fmt(r.text("acc")?)?,
                nan: r.nan("nan")?,
            }),
            "TR-FDPA" => Model::TrFdpa(TrFdpa {
                f: r.int("F")?,
                f2: r.int("F2")?,
                e_zero_c: r.int("e_zero_c")?,
                e_norm_min: r.int("e_norm_min")?,
                product_inf_exp: r.opt_int("product_inf_exp")?,
                out: r.out()?,
            }),
            "GTR-FDPA" => Model::GtrFdpa(GtrFdpa {
                f: r.int("F")?,
                f2: r.int("F2")?,
                e_zero_c: r.int("e_zero_c")?,
                e_norm_min: r.int("e_norm_min")?,
                c_drop: r.int("c_drop")?,
                out: r.out()?,
            }),
            "I-DPA" => Model::IDpa(IDpa {
                op: {
                    let s = r.text("op")?;
                    IntOp::by_name(s)
                        .ok_or_else(|| r.bad("op", &Param::from(s), "expected mul or xor"))?
                },
                saturate: r.flag("saturate")?,
            }),
            other => return Err(UnitFileError::Model(other.into())),
        };
        r.finish()?;
        checks::check_ranges(&model)?;
        checks::check_integer_formats(&model, &formats)?;
        checks::check_output_formats(&model, &formats)?;
        checks::check_group_sums(&model, &formats)?;
        // Only the block-scaled models apply scale factors; another model would ignore them.
        let scaled_model = matches!(
            model,
            Model::StFdpa(_) | Model::GstFdpa(_) | Model::GtrFdpa(_)
        );
        if formats.scale.is_some() && !scaled_model {
            return Err(UnitFileError::Shape(format!(
                "{}: \"scale\" is given, but only ST-FDPA, GST-FDPA and GTR-FDPA apply block scale factors",
                model.name()
            )));
        }
        // GTR-FDPA gives element k of a block the scale k / scale_block of the block's scales:
        // a block must lie within one scale block or hold whole ones.
        if let (Model::GtrFdpa(_), Some((_, per))) = (&model, formats.scale) {
            if !per.is_multiple_of(u.l_max) && !u.l_max.is_multiple_of(per) {
                return Err(UnitFileError::Shape(format!(
                    "GTR-FDPA: \"L_max\" = {} must divide the elements per scale factor ({per}) or be a multiple of it",
                    u.l_max
                )));
            }
        }
        // The fused models form each product exactly in 64 bits (`term.rs`), scaled models
        // times the product of the two scales' significands: they must fit together (f64 × f64
        // does not; FMA and FTZ-MulAdd round it).
        let scale_bits = formats.scale.map_or(0, |(s, _)| 2 * (s.man_bits + 1));
        let sig_bits = formats.a.man_bits + formats.b.man_bits + 2 + scale_bits;
        if !matches!(model, Model::Fma(_) | Model::FtzMulAdd(_) | Model::IDpa(_)) && sig_bits > 64 {
            let scaled = if scale_bits > 0 { " (scaled)" } else { "" };
            return Err(UnitFileError::Shape(format!(
                "{}: {} × {} products{scaled} need {sig_bits} significand bits; the fused models form them exactly in 64 (use FMA for f64)",
                model.name(),
                formats.a.name,
                formats.b.name
            )));
        }
        let per = formats.scale.map_or(1, |(_, per)| per);
        if let Some(k) = u.k {
            if k == 0 || !k.is_multiple_of(per) {
                return Err(UnitFileError::Shape(format!(
                    "\"k\" = {k} must be a positive multiple of the elements per scale factor ({per})"
                )));
            }
        } else if !u.l_max.is_multiple_of(per) {
            // Without "k" the instruction's K is the block (`mma eval` and the drivers take
            // it so): it must hold whole scale blocks too.
            return Err(UnitFileError::Shape(format!(
                "without \"k\", the instruction's K is \"L_max\" = {}, which must be a multiple of the elements per scale factor ({per}); give \"k\"",
                u.l_max
            )));
        }
        Ok(DotUnit {
            formats,
            block: u.l_max,
            model,
        })
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl TryFrom<UnitFile> for DotUnit {
    type Error = UnitFileError;

    fn try_from(u: UnitFile) -> Result<DotUnit, UnitFileError> {
        DotUnit::try_from(&u)
    }
}

impl Serialize for DotUnit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        UnitFile::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for DotUnit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DotUnit, D::Error> {
        let f = UnitFile::deserialize(d)?;
        DotUnit::try_from(&f).map_err(serde::de::Error::custom)
    }
}
