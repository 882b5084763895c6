//! Instruction families: catalog instructions that differ only in M or N compute every output
//! element with the same arithmetic, so one representative of each family is evaluated.
//!
//! A family is keyed by (vendor, architecture, operation, K, the [`DotUnit`] — formats, block
//! length, model and parameters —, and the instruction name with its M and N numbers removed).
//! The instructions come through the one catalog door, `mma::catalog::instructions()` (NVIDIA's,
//! then AMD's).

use mma_core::DotUnit;
use std::collections::{BTreeSet, HashMap};

/// One family of arithmetically identical instructions.
#[derive(Clone, Debug)]
pub struct Family {
    /// `"nvidia"` or `"amd"`.
    pub vendor: &'static str,
    /// Architecture as case files name it (`"Hopper"`, `"CDNA3"`).
    pub arch: String,
    /// Operation (`"MMA"`, `"WGMMA"`, ...; `"MFMA"` for AMD).
    pub op: String,
    /// Family name: the representative's name with varying M/N written `M`/`N`.
    pub label: String,
    /// The representative instruction (the first of the family in catalog order).
    pub rep: String,
    /// Number of catalog instructions in the family.
    pub members: usize,
    pub k: usize,
    pub unit: &'static DotUnit,
}

impl Family {
    /// `"Hopper WGMMA m64nNk16.f32.f16.f16"`.
    pub fn title(&self) -> String {
        format!("{} {} {} {}", self.vendor, self.arch, self.op, self.label)
    }

    /// File-name-safe form of the title.
    pub fn slug(&self) -> String {
        self.title()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// An instruction as the grouping needs it.
struct Entry {
    vendor: &'static str,
    arch: String,
    op: String,
    name: String,
    m: usize,
    n: usize,
    k: usize,
    unit: &'static DotUnit,
}

/// `m16n8k16.f32.f16.f16.f32` → (16, 8, `k16.f32.f16.f16.f32`); names without an `mMnN` prefix
/// are returned whole.
fn split_shape(name: &str) -> Option<(usize, usize, String)> {
    let rest = name.strip_prefix('m')?;
    let n_at = rest.find('n')?;
    let m: usize = rest[..n_at].parse().ok()?;
    let rest = &rest[n_at + 1..];
    let k_at = rest.find('k')?;
    let n: usize = rest[..k_at].parse().ok()?;
    Some((m, n, rest[k_at..].to_string()))
}

fn group(entries: Vec<Entry>) -> Vec<Family> {
    type Key = (&'static str, String, String, usize, DotUnit, String);
    let mut order: Vec<Key> = Vec::new();
    let mut groups: HashMap<Key, Vec<Entry>> = HashMap::new();
    for e in entries {
        let rest = split_shape(&e.name).map_or_else(|| e.name.clone(), |(_, _, r)| r);
        let key = (e.vendor, e.arch.clone(), e.op.clone(), e.k, *e.unit, rest);
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(e);
    }
    order
        .into_iter()
        .map(|key| {
            let members = groups.remove(&key).expect("grouped");
            let first = &members[0];
            let ms: BTreeSet<usize> = members.iter().map(|e| e.m).collect();
            let ns: BTreeSet<usize> = members.iter().map(|e| e.n).collect();
            let label = match split_shape(&first.name) {
                Some((m, n, rest)) => {
                    let m = if ms.len() > 1 {
                        "M".into()
                    } else {
                        m.to_string()
                    };
                    let n = if ns.len() > 1 {
                        "N".into()
                    } else {
                        n.to_string()
                    };
                    format!("m{m}n{n}{rest}")
                }
                None => first.name.clone(),
            };
            Family {
                vendor: first.vendor,
                arch: first.arch.clone(),
                op: first.op.clone(),
                label,
                rep: first.name.clone(),
                members: members.len(),
                k: first.k,
                unit: first.unit,
            }
        })
        .collect()
}

/// Every family of every vendor built in, in catalog order (NVIDIA first). AMD names have no
/// `mMnN` prefix: an AMD family is one instruction and its `_Nb` forms, which share their
/// single-block arithmetic. The structured-sparse rows are left out: their arithmetic is
/// their dense sibling's unit on the kept products (`mma_core::sparse`), which that sibling's
/// family runs, and the vectors' lines carry no metadata.
pub fn families() -> Vec<Family> {
    group(
        mma::catalog::instructions()
            .filter(|r| r.sparse.is_none())
            .map(|r| Entry {
                vendor: r.vendor.name(),
                arch: r.arch.to_string(),
                op: r.op.to_string(),
                name: r.name.to_string(),
                m: r.m,
                n: r.n,
                k: r.k,
                unit: r.unit,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_split() {
        assert_eq!(
            split_shape("m64n8k16.f32.f16.f16"),
            Some((64, 8, "k16.f32.f16.f16".to_string()))
        );
        assert_eq!(split_shape("f32_32x32x8f16"), None);
    }

    #[test]
    fn wgmma_n_variants_form_one_family() {
        let fams = families();
        let w: Vec<&Family> = fams
            .iter()
            .filter(|f| {
                f.arch == "Hopper" && f.op == "WGMMA" && f.label.ends_with("k16.f32.f16.f16")
            })
            .collect();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].label, "m64nNk16.f32.f16.f16");
        assert_eq!(w[0].members, 32);
        let t: Vec<&Family> = fams
            .iter()
            .filter(|f| f.op == "TCGen05MMA" && f.label.contains("kind::f16.f32.bf16"))
            .collect();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].label, "mMnNk16.kind::f16.f32.bf16.bf16");
        assert_eq!(t[0].members, 64);
    }
}
