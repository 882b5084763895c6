//! Fits as parameter maps, spelled as `mma list` and the unit files spell them, and grouped:
//! fits that differ in one parameter only are one entry listing that parameter's values.

use crate::grid::CUse;
use crate::infer::{Fit, NanSeen};
use mma_core::unit_file::{Param, UnitFile};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

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

/// The order in which [`group`] merges parameters, one pass per name, repeated until a round
/// merges nothing.
pub const KEY_ORDER: [&str; 17] = [
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

/// Groups fits (all with the same `explains`) into as few [`FitGroup`]s as exact grouping
/// allows: entries that agree on every parameter but one merge, repeatedly.
///
/// One pass per name of [`KEY_ORDER`], in rounds until a round merges nothing: a pass keeps
/// the entries in order and merges each into the first earlier entry that has the same model,
/// `explains` and parameter names and the same values everywhere but that name (the values of
/// that name joined). Such an entry is found by hashing everything but the name, so a pass
/// costs one look-up per entry; the linear search it replaces was quadratic (issue 56: the
/// 100,000 fits of one hardware record were still being grouped after four minutes).
/// The first pass runs while the fits are read, so that no entry of its input is kept: memory
/// is that of the first pass's output.
pub fn group(fits: &[Fit]) -> Vec<FitGroup> {
    let mut ids = Ids::default();
    let keys: Vec<u32> = KEY_ORDER.iter().map(|k| ids.name(k)).collect();
    let mut pass = Pass::new(keys[0]);
    // The parameter maps of a chunk on every core, then merged in order.
    for chunk in fits.chunks(4096) {
        let maps: Vec<_> = chunk
            .par_iter()
            .map(|f| (f.unit.model.name(), f.explains, params(f)))
            .collect();
        for (model, explains, p) in maps {
            let row = ids.row(model, explains, p);
            pass.add(row, &mut ids);
        }
    }
    let mut rows = pass.rows;
    let mut before = fits.len();
    let mut rest = &keys[1..];
    loop {
        for &key in rest {
            let mut pass = Pass::new(key);
            for r in rows {
                pass.add(r, &mut ids);
            }
            rows = pass.rows;
        }
        if rows.len() == before {
            break;
        }
        before = rows.len();
        rest = &keys[..];
    }
    rows.into_iter().map(|r| ids.group(r)).collect()
}

/// An entry of [`group`] with its names, values and value sets as numbers ([`Ids`]).
struct Row {
    model: u32,
    explains: usize,
    /// (name, value set), in the names' order (the order of the parameter map).
    cells: Vec<(u32, u32)>,
}

/// The names, values and value sets of [`group`]'s entries, numbered: a pass compares and
/// hashes numbers. A value set is its values' numbers, ascending, numbered once, so that
/// equal sets have one number.
#[derive(Default)]
struct Ids {
    models: Vec<&'static str>,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    values: Vec<Param>,
    value_ids: HashMap<(u8, i64, String), u32>,
    sets: Vec<Vec<u32>>,
    set_ids: HashMap<Vec<u32>, u32>,
    unions: HashMap<(u32, u32), u32>,
    /// The set of each value alone, by the value's number.
    singles: Vec<u32>,
}

impl Ids {
    fn name(&mut self, n: &str) -> u32 {
        if let Some(&i) = self.name_ids.get(n) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(n.to_string());
        self.name_ids.insert(n.to_string(), i);
        i
    }

    fn set(&mut self, values: Vec<u32>) -> u32 {
        if let Some(&i) = self.set_ids.get(&values) {
            return i;
        }
        let i = self.sets.len() as u32;
        self.sets.push(values.clone());
        self.set_ids.insert(values, i);
        i
    }

    fn value(&mut self, p: Param) -> u32 {
        let key = match p {
            Param::Int(x) => (0, x, String::new()),
            Param::Flag(x) => (1, i64::from(x), String::new()),
            Param::Text(s) => (2, 0, s),
        };
        if let Some(&i) = self.value_ids.get(&key) {
            return i;
        }
        let i = self.values.len() as u32;
        self.values.push(match &key {
            (0, x, _) => Param::Int(*x),
            (1, x, _) => Param::Flag(*x != 0),
            (_, _, s) => Param::Text(s.clone()),
        });
        self.value_ids.insert(key, i);
        i
    }

    fn single(&mut self, value: u32) -> u32 {
        let v = value as usize;
        if self.singles.len() <= v {
            self.singles.resize(v + 1, u32::MAX);
        }
        if self.singles[v] == u32::MAX {
            self.singles[v] = self.set(vec![value]);
        }
        self.singles[v]
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        let k = (a.min(b), a.max(b));
        if let Some(&i) = self.unions.get(&k) {
            return i;
        }
        let mut v: Vec<u32> = self.sets[a as usize]
            .iter()
            .chain(&self.sets[b as usize])
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        let i = self.set(v);
        self.unions.insert(k, i);
        i
    }

    fn row(&mut self, model: &'static str, explains: usize, p: BTreeMap<String, Param>) -> Row {
        let model = match self.models.iter().position(|m| *m == model) {
            Some(i) => i as u32,
            None => {
                self.models.push(model);
                (self.models.len() - 1) as u32
            }
        };
        let cells = p
            .into_iter()
            .map(|(k, v)| {
                let (name, value) = (self.name(&k), self.value(v));
                (name, self.single(value))
            })
            .collect();
        Row {
            model,
            explains,
            cells,
        }
    }

    fn group(&self, r: Row) -> FitGroup {
        let params = r
            .cells
            .iter()
            .map(|&(n, s)| {
                let mut vs: Vec<Param> = self.sets[s as usize]
                    .iter()
                    .map(|&v| self.values[v as usize].clone())
                    .collect();
                vs.sort_by_key(sort_key);
                (self.names[n as usize].clone(), vs)
            })
            .collect();
        FitGroup {
            model: self.models[r.model as usize].to_string(),
            params,
            explains: r.explains,
        }
    }
}

/// One pass of [`group`] over the name `key`: the entries so far, and where to find an entry
/// by everything but `key` (a hash, and a chain through the entries of equal hash).
struct Pass {
    key: u32,
    rows: Vec<Row>,
    first: HashMap<u64, usize>,
    next: Vec<usize>,
}

impl Pass {
    fn new(key: u32) -> Pass {
        Pass {
            key,
            rows: Vec::new(),
            first: HashMap::new(),
            next: Vec::new(),
        }
    }

    /// The hash of everything of `r` but `key`'s values (whether it has `key` counts).
    fn hash(&self, r: &Row) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (r.model, r.explains, r.cells.len()).hash(&mut h);
        for &(n, s) in &r.cells {
            (n, if n == self.key { u32::MAX } else { s }).hash(&mut h);
        }
        h.finish()
    }

    /// Whether `a` and `b` agree on everything but `key`'s values.
    fn same_rest(&self, a: &Row, b: &Row) -> bool {
        a.model == b.model
            && a.explains == b.explains
            && a.cells.len() == b.cells.len()
            && a.cells
                .iter()
                .zip(&b.cells)
                .all(|(x, y)| x.0 == y.0 && (x.0 == self.key || x.1 == y.1))
    }

    /// Merges `r` into the first entry that agrees with it on everything but `key`, or appends
    /// it.
    fn add(&mut self, r: Row, ids: &mut Ids) {
        const NONE: usize = usize::MAX;
        let h = self.hash(&r);
        let mut at = self.first.get(&h).copied().unwrap_or(NONE);
        let mut last = NONE;
        while at != NONE {
            if self.same_rest(&self.rows[at], &r) {
                let key = self.key;
                if let Some(c) = r.cells.iter().find(|c| c.0 == key) {
                    let mine = self.rows[at].cells.iter_mut().find(|c| c.0 == key);
                    if let Some(m) = mine {
                        m.1 = ids.union(m.1, c.1);
                    }
                }
                return;
            }
            last = at;
            at = self.next[at];
        }
        let i = self.rows.len();
        self.rows.push(r);
        self.next.push(NONE);
        if last == NONE {
            self.first.insert(h, i);
        } else {
            self.next[last] = i;
        }
    }
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
