//! Fits as parameter maps, spelled as `mma list` and the unit files spell them, and grouped:
//! fits that differ in one parameter only are one entry listing that parameter's values.

use crate::grid::CUse;
use crate::infer::{Fit, NanSeen};
use mma_core::unit_file::{Param, UnitFile};
use std::collections::BTreeMap;

/// A fit's parameters: the unit file's, with `L_max`, `nan` as the records show it, and
/// `C: "ignored"` where the records match C = +0.
pub fn params(fit: &Fit) -> BTreeMap<String, Param> {
    let mut p = UnitFile::from(&fit.unit).params;
    p.insert("L_max".into(), Param::Int(fit.unit.block as i64));
    if let mma_core::Model::TrFdpa(t) = &fit.unit.model {
        if t.product_inf_exp.is_none() {
            p.insert("product_inf_exp".into(), Param::Text("none".into()));
        }
    }
    let nan = match fit.nan {
        NanSeen::Unseen => "open".to_string(),
        NanSeen::Varied => "varied".to_string(),
        NanSeen::Bits(b) => match fit.nan.style(&fit.unit.formats.d) {
            Some(_) => match p.get("nan") {
                Some(Param::Text(s)) => s.clone(),
                _ => format!("{b:#x}"),
            },
            None => format!("{b:#x}"),
        },
    };
    p.insert("nan".into(), Param::Text(nan));
    if fit.c == CUse::Ignored {
        p.insert("C".into(), Param::Text("ignored".into()));
    }
    p
}

/// A group of fits: one model, each parameter with the values the records leave open (one
/// value where they fix it). The group stands for every combination of its values.
#[derive(Clone, Debug, PartialEq)]
pub struct FitGroup {
    pub model: String,
    pub params: BTreeMap<String, Vec<Param>>,
    pub explains: usize,
}

/// Groups fits (all with the same `explains`) into as few [`FitGroup`]s as exact grouping
/// allows: entries that agree on every parameter but one merge, repeatedly.
pub fn group(fits: &[Fit]) -> Vec<FitGroup> {
    let mut gs: Vec<FitGroup> = fits
        .iter()
        .map(|f| FitGroup {
            model: f.unit.model.name().to_string(),
            params: params(f).into_iter().map(|(k, v)| (k, vec![v])).collect(),
            explains: f.explains,
        })
        .collect();
    let key_order = [
        "e_zero",
        "e_zero_c",
        "overflow",
        "neg_zero_to_pos",
        "F",
        "F2",
        "L_max",
        "rho",
        "c_drop",
        "product_inf_exp",
        "P",
        "G",
        "group",
        "passes",
        "last",
        "rounding",
        "C",
    ];
    loop {
        let before = gs.len();
        for key in key_order {
            let mut merged: Vec<FitGroup> = Vec::new();
            for g in gs {
                let same_rest = |h: &FitGroup| {
                    h.model == g.model
                        && h.explains == g.explains
                        && h.params.len() == g.params.len()
                        && h.params
                            .iter()
                            .all(|(k, v)| k == key || g.params.get(k) == Some(v))
                        && h.params.contains_key(key) == g.params.contains_key(key)
                };
                match merged.iter_mut().find(|h| same_rest(h)) {
                    Some(h) => {
                        if let (Some(hv), Some(gv)) = (h.params.get_mut(key), g.params.get(key)) {
                            for v in gv {
                                if !hv.contains(v) {
                                    hv.push(v.clone());
                                }
                            }
                            hv.sort_by_key(sort_key);
                        }
                    }
                    None => merged.push(g),
                }
            }
            gs = merged;
        }
        if gs.len() == before {
            break;
        }
    }
    for g in &mut gs {
        for v in g.params.values_mut() {
            v.sort_by_key(sort_key);
        }
    }
    gs
}

fn sort_key(p: &Param) -> (u8, i64, String) {
    match p {
        Param::Int(x) => (0, *x, String::new()),
        Param::Flag(x) => (1, i64::from(*x), String::new()),
        Param::Text(s) => (2, 0, s.clone()),
    }
}

/// `-142..-126`-style text for a sorted list of values (runs of consecutive integers joined).
pub fn values_text(vs: &[Param]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < vs.len() {
        if let Param::Int(start) = vs[i] {
            let mut j = i;
            while let (Some(Param::Int(a)), Some(Param::Int(b))) = (vs.get(j), vs.get(j + 1)) {
                if *b != *a + 1 {
                    break;
                }
                j += 1;
            }
            if let Param::Int(end) = vs[j] {
                if j > i + 1 {
                    parts.push(format!("{start}..{end}"));
                } else {
                    parts.extend(vs[i..=j].iter().map(Param::to_string));
                }
            }
            i = j + 1;
        } else {
            parts.push(vs[i].to_string());
            i += 1;
        }
    }
    parts.join(",")
}

/// One line: `T-FDPA F=25 L_max=16 rho=RZ-FP32 ...; open: e_zero in {..}`.
pub fn describe(g: &FitGroup) -> String {
    let fixed: Vec<String> = g
        .params
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(k, v)| format!("{k}={}", v[0]))
        .collect();
    let open: Vec<String> = g
        .params
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| format!("{k} in {{{}}}", values_text(v)))
        .collect();
    let mut s = format!("{} {}", g.model, fixed.join(" "));
    if !open.is_empty() {
        s.push_str(&format!("; open: {}", open.join(", ")));
    }
    s
}
