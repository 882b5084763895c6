//! Name look-up: the catalog built once, architectures by family or product name, instructions
//! by mmasim suffix, ISA mnemonic or compiler builtin, with close matches in the errors.

use crate::arch::{arch_key, ARCH_NAMES};
use crate::{Arch, Instruction, Op};
use std::sync::OnceLock;

/// Why a look-up failed. The same variants and fields as `mma_nvidia::CatalogError` (the
/// vendor crates' one shape); the words are this catalog's. `input` is the user's text,
/// clipped to 60 characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No architecture, product or gfx target of that name; `near`: the closest names.
    #[error(
        "unknown AMD architecture `{input}` (expected CDNA1, CDNA2, CDNA3, CDNA4 or a product \
         name such as MI100, MI250X, MI300X, MI355X){}",
        did_you_mean(near)
    )]
    UnknownArch { input: String, near: Vec<String> },
    /// An operation other than MFMA; `near`: the one there is.
    #[error("unknown operation `{input}`: every AMD instruction here is an MFMA (leave op out or give MFMA)")]
    UnknownOp { input: String, near: Vec<String> },
    /// No instruction of `arch` by that name; `hint`: the closest names and the architectures
    /// that have it, or empty.
    #[error("{arch} has no MFMA instruction `{input}`{hint}")]
    UnknownInstruction {
        arch: &'static str,
        input: String,
        hint: String,
    },
    /// A name that fits several instructions of `arch`.
    #[error("`{input}` matches several {arch} instructions: {}", candidates.join(", "))]
    Ambiguous {
        arch: &'static str,
        input: String,
        candidates: Vec<String>,
    },
}

/// `; did you mean: a, b` for close names, nothing without any.
fn did_you_mean(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean: {}", s.join(", "))
    }
}

/// Every instruction of CDNA1, CDNA2, CDNA3 and CDNA4, built once.
pub fn catalog() -> &'static [Instruction] {
    static CATALOG: OnceLock<Vec<Instruction>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        // The dense tables, then the sparse rows derived from them.
        let mut all = crate::catalog::build();
        let sparse = crate::sparse::derive(&all);
        all.extend(sparse);
        all
    })
}

/// Looks an instruction up. `arch`: `CDNA1`..`CDNA4` (any case) or a product name (MI100,
/// MI210, MI250, MI250X, MI300A, MI300X, MI325X, MI350X, MI355X) or gfx target. `name`: the mmasim suffix
/// (`f32_32x32x8_f16`), the ISA mnemonic with or without `v_mfma_` and with or without the
/// underscore before the type (`v_mfma_f32_32x32x8f16`), or the compiler builtin
/// (`__builtin_amdgcn_mfma_f32_32x32x8f16`), case-insensitive; a sparse MFMA by its
/// `v_smfmac_` mnemonic (`v_smfmac_f32_16x16x32_f16`) or builtin. `op`, when given, must be
/// the row's, `MFMA` or `SMFMAC` (the same signature as `mma_nvidia::find`).
pub fn find(
    arch: &str,
    op: Option<&str>,
    name: &str,
) -> Result<&'static Instruction, CatalogError> {
    let arch = parse_arch(arch)?;
    let op = match op {
        Some(o) => Some(Op::parse(o).ok_or_else(|| CatalogError::UnknownOp {
            input: mma_core::catalog::clip(o),
            near: Op::ALL.iter().map(|o| o.name().to_string()).collect(),
        })?),
        None => None,
    };
    find_in(arch, op, name)
}

/// Parses an architecture name (case-insensitive; spaces, `-` and `_` ignored).
pub fn parse_arch(input: &str) -> Result<Arch, CatalogError> {
    Arch::named(input).ok_or_else(|| {
        let names: Vec<&str> = ARCH_NAMES.iter().map(|(n, _)| *n).collect();
        CatalogError::UnknownArch {
            input: mma_core::catalog::clip(input),
            near: close_matches(&arch_key(input), &names),
        }
    })
}

/// Lower case, prefixes `__builtin_amdgcn_`, `v_` and `mfma_` removed.
fn normalise(input: &str) -> String {
    let s = input.trim().to_ascii_lowercase();
    let s = s.strip_prefix("__builtin_amdgcn_").unwrap_or(&s);
    let s = s.strip_prefix("v_").unwrap_or(s);
    let s = s.strip_prefix("mfma_").unwrap_or(s);
    s.to_string()
}

fn compact(s: &str) -> String {
    s.chars().filter(|&c| c != '_').collect()
}

/// The parts of an MFMA name that identify the arithmetic: output type, shape, input types,
/// and the `_1k` flag; the `_Nb` block count, when written, is returned separately.
#[derive(Debug, PartialEq, Eq)]
struct Parsed {
    out: String,
    shape: (usize, usize, usize),
    a: String,
    b: String,
    one_k: bool,
    blocks: Option<usize>,
    /// CDNA4's block-scaled `v_mfma_scale_*` (the name starts with `scale_`, or `scale`
    /// precedes `f8f6f4`).
    scaled: bool,
}

const TYPES: &[&str] = &[
    "xf32", "bf16", "f16", "f32", "f64", "fp8", "bf8", "fp6", "bf6", "fp4", "i32", "i8",
];

/// The operand type of CDNA4's `f8f6f4` MFMAs, whose A and B formats `cbsz`/`blgp` choose: a
/// name that ends there matches every format pair (several rows: ambiguous).
const F8F6F4: &str = "f8f6f4";

fn parse_type(s: &str) -> Option<(&'static str, &str)> {
    TYPES
        .iter()
        .find(|t| s.starts_with(**t))
        .map(|t| (*t, &s[t.len()..]))
}

fn parse_number(s: &str) -> Option<(usize, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// Parses a normalised name such as `f32_32x32x4_2b_bf16`, `f32_32x32x4bf16_1k` or
/// `f32_16x16x32_fp8_bf8`.
fn parse(name: &str) -> Option<Parsed> {
    let (mut scaled, name) = match name.strip_prefix("scale") {
        Some(rest) => (true, rest.strip_prefix('_').unwrap_or(rest)),
        None => (false, name),
    };
    let (out, rest) = parse_type(name)?;
    let rest = rest.strip_prefix('_')?;
    let (m, rest) = parse_number(rest)?;
    let (n, rest) = parse_number(rest.strip_prefix('x')?)?;
    let (k, rest) = parse_number(rest.strip_prefix('x')?)?;
    let mut rest = compact(rest);
    let one_k = rest.ends_with("1k");
    if one_k {
        rest.truncate(rest.len() - 2);
    }
    let mut blocks = None;
    if let Some(pos) = rest.find('b') {
        if pos > 0 && rest[..pos].bytes().all(|c| c.is_ascii_digit()) {
            blocks = rest[..pos].parse().ok();
            rest = rest[pos + 1..].to_string();
        }
    }
    if let Some(tail) = rest.strip_prefix("scale") {
        if !tail.starts_with(F8F6F4) {
            return None;
        }
        scaled = true;
        rest = tail.to_string();
    }
    if let Some(tail) = rest.strip_prefix(F8F6F4) {
        let (a, b) = if tail.is_empty() {
            ("*", "*")
        } else {
            let (a, tail) = parse_type(tail)?;
            let (b, tail) = parse_type(tail)?;
            if !tail.is_empty() {
                return None;
            }
            (a, b)
        };
        return Some(Parsed {
            out: out.to_string(),
            shape: (m, n, k),
            a: format!("{F8F6F4}{a}"),
            b: format!("{F8F6F4}{b}"),
            one_k,
            blocks,
            scaled,
        });
    }
    if scaled {
        return None;
    }
    let (a, tail) = parse_type(&rest)?;
    let b = if tail.is_empty() {
        a
    } else {
        let (b, tail) = parse_type(tail)?;
        if !tail.is_empty() {
            return None;
        }
        b
    };
    Some(Parsed {
        out: out.to_string(),
        shape: (m, n, k),
        a: a.to_string(),
        b: b.to_string(),
        one_k,
        blocks,
        scaled,
    })
}

/// As [`crate::find`] with the architecture (and the operation, if given) already known.
pub fn find_in(
    arch: Arch,
    op: Option<Op>,
    input: &str,
) -> Result<&'static Instruction, CatalogError> {
    // The names tell an MFMA from a sparse `v_smfmac` already: `op`, where given, must agree.
    if let Some(found) = lookup(arch, input)? {
        if op.is_none_or(|o| o == found.op) {
            return Ok(found);
        }
    }
    let name = normalise(input);
    let names: Vec<&str> = catalog()
        .iter()
        .filter(|i| i.arch == arch)
        .map(|i| i.name.as_str())
        .collect();
    let mut suggestions: Vec<String> = close_matches(&name, &names)
        .into_iter()
        .map(|n| {
            if n.starts_with("smfmac_") {
                format!("v_{n}")
            } else {
                format!("v_mfma_{n}")
            }
        })
        .collect();
    // Point at other architectures that do have the instruction.
    for other in Arch::ALL {
        if other != arch && matches!(lookup(other, input), Ok(Some(_))) {
            suggestions.push(format!("{} has it", other.name()));
        }
    }
    Err(CatalogError::UnknownInstruction {
        arch: arch.name(),
        input: mma_core::catalog::clip(input),
        hint: did_you_mean(&suggestions),
    })
}

/// The look-up proper: `Ok(None)` when nothing matches, an error only for ambiguity.
fn lookup(arch: Arch, input: &str) -> Result<Option<&'static Instruction>, CatalogError> {
    let all = catalog();
    let here = || all.iter().filter(move |i| i.arch == arch);
    let name = normalise(input);
    if let Some(i) = here().find(|i| i.name == name) {
        return Ok(Some(i));
    }
    let c = compact(&name);
    if let Some(i) = here().find(|i| compact(&i.name) == c) {
        return Ok(Some(i));
    }
    // Structural match: the compiler builtins of CDNA3 keep the CDNA1/CDNA2 spellings
    // (`__builtin_amdgcn_mfma_f32_16x16x4f16` is `v_mfma_f32_16x16x4_4b_f16`,
    // `..._32x32x8bf16_1k` is `v_mfma_f32_32x32x8_bf16`).
    // A sparse name is an MFMA name behind `smfmac_`: matched among the sparse rows.
    let (want, asked) = match name.strip_prefix("smfmac_") {
        Some(rest) => (Op::Smfmac, rest),
        None => (Op::Mfma, name.as_str()),
    };
    let base = |i: &Instruction| -> String {
        i.name
            .strip_prefix("smfmac_")
            .unwrap_or(&i.name)
            .to_string()
    };
    if let Some(p) = parse(asked) {
        let hits: Vec<&'static Instruction> = here()
            .filter(|i| i.op == want)
            .filter(|i| {
                let q = parse(&base(i)).expect("catalog names parse");
                let fits = |asked: &str, row: &str| {
                    asked == row || (asked == "f8f6f4*" && row.starts_with(F8F6F4))
                };
                q.out == p.out
                    && q.scaled == p.scaled
                    && q.shape == p.shape
                    && fits(&p.a, &q.a)
                    && fits(&p.b, &q.b)
                    && p.blocks.is_none_or(|b| b == i.blocks)
            })
            .collect();
        let exact_1k: Vec<_> = hits
            .iter()
            .copied()
            .filter(|i| parse(&base(i)).is_some_and(|q| q.one_k == p.one_k))
            .collect();
        match (hits.len(), exact_1k.len()) {
            (1, _) => return Ok(Some(hits[0])),
            (_, 1) => return Ok(Some(exact_1k[0])),
            (0, _) => {}
            _ => {
                return Err(CatalogError::Ambiguous {
                    arch: arch.name(),
                    input: mma_core::catalog::clip(input),
                    candidates: hits.iter().map(|i| i.mnemonic.clone()).collect(),
                })
            }
        }
    }
    Ok(None)
}

/// Up to five candidates close to `input`: small edit distance (ignoring underscores) first,
/// then long shared prefixes.
fn close_matches(input: &str, candidates: &[&str]) -> Vec<String> {
    // No name is that long: an edit distance to a huge input would only cost time.
    if input.len() > 200 {
        return Vec::new();
    }
    let ci = compact(input);
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .map(|c| {
            let d = strsim::levenshtein(&ci, &compact(c));
            let prefix = ci
                .chars()
                .zip(compact(c).chars())
                .take_while(|(x, y)| x == y)
                .count();
            // A shared prefix of most of the input counts as close even if the tails differ.
            let score = if prefix * 2 >= ci.len().max(1) {
                d.min(ci.len() - prefix)
            } else {
                d
            };
            (score, *c)
        })
        .collect();
    scored.sort();
    let limit = (ci.len() / 3).max(2);
    let mut out: Vec<String> = scored
        .iter()
        .filter(|(s, _)| *s <= limit)
        .take(5)
        .map(|(_, c)| c.to_string())
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling_family() {
        let p = parse("f32_32x32x4bf16_1k").unwrap();
        assert_eq!(
            (p.shape, p.a.as_str(), p.one_k),
            ((32, 32, 4), "bf16", true)
        );
        let p = parse("f32_16x16x4_4b_f16").unwrap();
        assert_eq!((p.blocks, p.a.as_str()), (Some(4), "f16"));
        let p = parse("f32_16x16x32_fp8_bf8").unwrap();
        assert_eq!((p.a.as_str(), p.b.as_str()), ("fp8", "bf8"));
        assert_eq!(parse("f32_16x16x8_xf32").unwrap().a, "xf32");
        assert!(parse("f32_16x16").is_none());
    }
}
