//! Finding an instruction by the names users type.

use crate::arch::{known_arch_names, Arch};
use crate::catalog::{build, Instruction, Op};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A failed catalog look-up; the message names the input and the closest valid names. The
/// same variants and fields as `mma_amd::CatalogError` (the vendor crates' one shape); the
/// words are this catalog's. `input` is the user's text, clipped to 60 characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No architecture, PTX target or product of that name; `near`: the closest names.
    #[error("unknown NVIDIA architecture or GPU {input:?}; known: {}", near.join(", "))]
    UnknownArch { input: String, near: Vec<String> },
    /// No operation of that name; `near`: the closest.
    #[error("unknown operation {input:?}{}; expected one of MMA, WGMMA, TCGen05MMA, MMABlockScale, TCGen05MMABlockScale", near.first().map(|n| format!(" (did you mean {n}?)")).unwrap_or_default())]
    UnknownOp { input: String, near: Vec<String> },
    /// No instruction of `arch` by that name; `hint`: what to write instead, or empty.
    #[error("{arch} has no instruction {input:?}{hint}")]
    UnknownInstruction {
        arch: &'static str,
        input: String,
        hint: String,
    },
    /// A name that fits several instructions of `arch` (the look-up here resolves every name
    /// it accepts to one; the variant completes the shape).
    #[error("{input:?} matches several {arch} instructions: {}", candidates.join(", "))]
    Ambiguous {
        arch: &'static str,
        input: String,
        candidates: Vec<String>,
    },
}

struct Index {
    all: Vec<Instruction>,
    by_key: HashMap<(Arch, String), Vec<usize>>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let all = build();
        let mut by_key: HashMap<(Arch, String), Vec<usize>> = HashMap::new();
        for (i, ins) in all.iter().enumerate() {
            by_key
                .entry((ins.arch, ins.name.to_ascii_lowercase()))
                .or_default()
                .push(i);
        }
        Index { all, by_key }
    })
}

/// Every instruction of every architecture.
pub fn catalog() -> &'static [Instruction] {
    &index().all
}

/// The dense PTX spelling of a sparse one (`mma.sp::ordered_metadata.sync...`,
/// `mma.sp.sync...`, `wgmma.mma_async.sp.sync...`, `tcgen05.mma.sp...`), `None` for others.
fn dense_of_sparse(n: &str) -> Option<String> {
    for (sparse, dense) in [
        ("mma.sp::ordered_metadata.sync.", "mma.sync."),
        ("mma.sp.sync.", "mma.sync."),
        ("wgmma.mma_async.sp.sync.", "wgmma.mma_async.sync."),
        ("tcgen05.mma.sp.", "tcgen05.mma."),
    ] {
        if let Some(rest) = n.strip_prefix(sparse) {
            return Some(format!("{dense}{rest}"));
        }
    }
    None
}

/// Turns a PTX spelling into mmasim's short form (a sparse one into `sp.` and the short form
/// of its dense spelling, as `crate::sparse` names the rows); other names pass through
/// lower-cased.
fn normalise(name: &str) -> String {
    let n = name.trim().to_ascii_lowercase();
    if let Some(dense) = dense_of_sparse(&n) {
        return format!("sp.{}", normalise(&dense));
    }
    if let Some(rest) = n.strip_prefix("mma.sync.aligned.") {
        // mma.sync.aligned.m16n8k16.row.col[.kind::k][.block_scale.scale_vec::NX].d.a.b.c[.s]
        let parts: Vec<&str> = rest
            .split('.')
            .filter(|p| *p != "row" && *p != "col")
            .collect();
        // The block size the scale vector implies, as mmasim's name spells it (`block32`).
        let block: String;
        let mut kept = Vec::new();
        let mut vec = None;
        for p in &parts {
            if *p == "block_scale" {
                continue;
            }
            if let Some(v) = p.strip_prefix("scale_vec::") {
                vec = v.trim_end_matches('x').parse::<usize>().ok();
                continue;
            }
            kept.push(*p);
        }
        if let (Some(v), Some(shape)) = (vec, kept.first()) {
            // The scale vector size gives the block: K / vec elements per scale.
            let k: usize = shape
                .rsplit('k')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            if v > 0 && k > 0 {
                block = format!("block{}", k / v);
                kept.insert(2, block.as_str());
            }
        }
        return kept.join(".");
    }
    if let Some(rest) = n.strip_prefix("wgmma.mma_async.sync.aligned.") {
        return rest.to_string();
    }
    if let Some(rest) = n.strip_prefix("tcgen05.mma.") {
        // The PTX instruction names only the kind (and block scaling); shape and types come
        // from the instruction descriptor. Accept them appended in any order, e.g.
        // `tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.bf16.bf16`.
        let parts: Vec<&str> = rest
            .split('.')
            .filter(|p| {
                !p.starts_with("cta_group::")
                    && *p != "block_scale"
                    && !p.starts_with("scale_vec::")
            })
            .collect();
        let is_shape = |p: &str| {
            p.len() > 1
                && p.starts_with('m')
                && p.contains('n')
                && p.contains('k')
                && p.as_bytes()[1].is_ascii_digit()
        };
        if let Some(shape) = parts.iter().find(|p| is_shape(p)) {
            let rest: Vec<&str> = parts.iter().filter(|p| !is_shape(p)).copied().collect();
            return format!("{shape}.{}", rest.join("."));
        }
        return n;
    }
    n
}

fn op_of_ptx(name: &str) -> Option<Op> {
    let n = name.trim().to_ascii_lowercase();
    if let Some(dense) = dense_of_sparse(&n) {
        return match op_of_ptx(&dense)? {
            Op::Mma => Some(Op::MmaSp),
            Op::Wgmma => Some(Op::WgmmaSp),
            Op::Tcgen05Mma => Some(Op::Tcgen05MmaSp),
            _ => None,
        };
    }
    if n.starts_with("wgmma.") {
        Some(Op::Wgmma)
    } else if n.starts_with("tcgen05.") {
        Some(if n.contains("block_scale") {
            Op::Tcgen05MmaBlockScale
        } else {
            Op::Tcgen05Mma
        })
    } else if n.starts_with("mma.") {
        Some(if n.contains("block_scale") {
            Op::MmaBlockScale
        } else {
            Op::Mma
        })
    } else {
        None
    }
}

/// Looks an architecture up by architecture name, PTX target (`sm_90a`) or GPU product name
/// (`H100`), case-insensitive, ignoring spaces, dashes and underscores.
pub fn parse_arch(name: &str) -> Result<Arch, CatalogError> {
    Arch::named(name).ok_or_else(|| CatalogError::UnknownArch {
        input: mma_core::catalog::clip(name),
        near: closest(name, known_arch_names().map(str::to_string)),
    })
}

/// Looks an instruction up by architecture (name, PTX target or product) and instruction name
/// (mmasim's short form or a PTX spelling). `op` may be omitted when the name is unique.
pub fn find(
    arch: &str,
    op: Option<&str>,
    name: &str,
) -> Result<&'static Instruction, CatalogError> {
    let a = parse_arch(arch)?;
    let op = match op {
        Some(o) => Some(Op::parse(o).ok_or_else(|| {
            CatalogError::UnknownOp {
                input: mma_core::catalog::clip(o),
                near: closest(o, Op::ALL.iter().map(|op| op.name().to_string()))
                    .into_iter()
                    .take(1)
                    .collect(),
            }
        })?),
        None => op_of_ptx(name),
    };
    find_in(a, op, name)
}

/// As [`find`] with the architecture already known.
pub fn find_in(
    arch: Arch,
    op: Option<Op>,
    name: &str,
) -> Result<&'static Instruction, CatalogError> {
    let idx = index();
    let key = normalise(name);
    let hits: Vec<&Instruction> = idx
        .by_key
        .get(&(arch, key.clone()))
        .into_iter()
        .flatten()
        .map(|&i| &idx.all[i])
        .filter(|i| op.is_none() || op == Some(i.op))
        .collect();
    if let [one] = hits.as_slice() {
        return Ok(one);
    }
    if let Some(op) = op {
        // The name exists on this architecture under other operations: say which.
        let mut others: Vec<&str> = idx
            .by_key
            .get(&(arch, key.clone()))
            .into_iter()
            .flatten()
            .map(|&i| idx.all[i].op.name())
            .collect();
        others.dedup();
        if !others.is_empty() {
            return Err(CatalogError::UnknownInstruction {
                arch: arch.name(),
                input: format!("{} (op {})", mma_core::catalog::clip(name), op.name()),
                hint: format!(
                    "; it is a {} instruction there: use op {} or leave op out",
                    others.join("/"),
                    others.join(" or ")
                ),
            });
        }
    }
    // A dense name is offered dense names, a sparse one (`sp.`) sparse ones.
    let sparse = key.starts_with("sp.");
    let names = idx
        .all
        .iter()
        .filter(|i| i.arch == arch && i.sparse.is_some() == sparse)
        .map(|i| i.name.clone());
    let near = closest(&key, names);
    let hint = if key.starts_with("tcgen05.") {
        format!(
            "; tcgen05.mma takes its shape and types from the instruction descriptor: append them \
             (e.g. tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.bf16.bf16) or give mmasim's form, \
             e.g. {}",
            near.first().cloned().unwrap_or_default()
        )
    } else if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean: {}", near.join(", "))
    };
    Err(CatalogError::UnknownInstruction {
        arch: arch.name(),
        input: mma_core::catalog::clip(name),
        hint,
    })
}

/// Up to five candidates closest to `key`. A name that contains every `.`-separated part of
/// `key` (`m16n8k16.bf16` → `m16n8k16.f32.bf16.bf16.f32`) is a better match than any that
/// lacks one, however short its edit distance (`m16n8k16.f16.f16.f16.f16`): when such names
/// exist only they are offered; otherwise names missing fewer parts come first, then by edit
/// distance.
pub(crate) fn closest(key: &str, names: impl Iterator<Item = String>) -> Vec<String> {
    // No name is that long: an edit distance to a huge input would only cost time.
    if key.len() > 200 {
        return Vec::new();
    }
    let key = key.to_ascii_lowercase();
    let parts: Vec<&str> = key.split('.').filter(|p| !p.is_empty()).collect();
    let mut scored: Vec<(usize, usize, String)> = names
        .map(|n| {
            let lower = n.to_ascii_lowercase();
            let have: Vec<&str> = lower.split('.').collect();
            let missing = parts.iter().filter(|p| !have.contains(p)).count();
            (missing, strsim::levenshtein(&key, &lower), n)
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.2 == b.2);
    let complete = scored.iter().take_while(|s| s.0 == 0).count();
    let take = if complete > 0 { complete.min(5) } else { 5 };
    scored.into_iter().take(take).map(|(_, _, n)| n).collect()
}
