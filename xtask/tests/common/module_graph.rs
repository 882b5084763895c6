//! Which file of a crate names which: the arrows between a crate's source files, read from its
//! `use` declarations and its paths (`crate::…`, `super::…`, `self::…`, a child module's
//! name), and the circles they make. A path names the file that defines the item it ends in,
//! so that a re-export (`pub use words::Rows` in `kernel/mod.rs`) is not an arrow to the file
//! that re-exports it. Method calls and names brought in by an import are not read again: the
//! import is the arrow.
//!
//! It reads tokens, not syntax: comments, strings and character literals are skipped, and a
//! module's files are found from its `mod` declarations (`#[path]` included), from the crate
//! root down, as rustc finds them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    ColCol,
    Open,
    Close,
    Semi,
    Comma,
    Other(char),
}

/// The tokens of `text` that matter for paths, each with its line (1-based).
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '"' | '#')))
        {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| at(j + 1 + h) == '#') {
                    j += 1 + hashes;
                    break;
                }
                line += usize::from(c[j] == '\n');
                j += 1;
            }
            i = j;
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                line += usize::from(c[i] == '\n');
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // A character literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime: its name is not a path (`&'static str` defines no `str`).
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::ColCol, line));
            i += 2;
        } else {
            out.push((
                match ch {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    ';' => Tok::Semi,
                    ',' => Tok::Comma,
                    _ => Tok::Other(ch),
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

/// A crate's source files as rustc finds them: module path (`["kernel", "lanes"]`) → file.
pub fn module_files(root_file: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut todo = vec![(Vec::new(), root_file.to_path_buf())];
    while let Some((module, file)) = todo.pop() {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let dir = file.parent().unwrap().to_path_buf();
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let owns_dir = module.is_empty() || stem == "mod";
        let children = if owns_dir {
            dir.clone()
        } else {
            dir.join(&stem)
        };
        // `#[path = "…"]` on the declaration that follows it.
        let mut path_attr: Option<String> = None;
        for line in text.lines() {
            let t = line.trim();
            if let Some(p) = t.strip_prefix("#[path = \"") {
                path_attr = p.split('"').next().map(str::to_string);
                continue;
            }
            // Any visibility: `pub`, `pub(crate)`, `pub(in crate::kernel)`.
            let decl = match t.strip_prefix("pub(") {
                Some(r) => r.split_once(") ").map_or(t, |(_, d)| d),
                None => t.strip_prefix("pub ").unwrap_or(t),
            };
            if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                let child = match path_attr.take() {
                    Some(p) => dir.join(p),
                    None if children.join(format!("{name}.rs")).exists() => {
                        children.join(format!("{name}.rs"))
                    }
                    None => children.join(name).join("mod.rs"),
                };
                let mut m = module.clone();
                m.push(name.to_string());
                todo.push((m, child));
            } else if !t.starts_with("#[") {
                path_attr = None;
            }
        }
        out.insert(module, file);
    }
    out
}

/// The names a file's tokens define (types, traits, functions, constants, macros, modules).
fn definitions(toks: &[(Tok, usize)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for w in toks.windows(3) {
        let kw = ident(Some(&w[0]));
        let name = ident(Some(&w[1]));
        match (kw, name) {
            (Some("macro_rules"), _) => {
                if let Some(n) = ident(Some(&w[2])) {
                    out.insert(n.to_string());
                }
            }
            (Some(k), Some(n))
                if n != "fn"
                    && matches!(
                        k,
                        "struct"
                            | "enum"
                            | "trait"
                            | "type"
                            | "fn"
                            | "const"
                            | "static"
                            | "union"
                            | "mod"
                    ) =>
            {
                out.insert(n.to_string());
            }
            _ => {}
        }
    }
    out
}

/// An arrow: `from` names `to` at line `line` of `from`, by `path` (as written, `::` apart).
#[derive(Clone, Debug)]
pub struct Arrow {
    pub from: PathBuf,
    pub to: PathBuf,
    pub line: usize,
    pub path: String,
}

/// Every arrow between the files of the crate whose root is `root_file` (`src/lib.rs`).
pub fn arrows(root_file: &Path) -> Vec<Arrow> {
    let files = module_files(root_file);
    let toks: BTreeMap<&Vec<String>, Vec<(Tok, usize)>> = files
        .iter()
        .map(|(m, f)| (m, tokens(&fs::read_to_string(f).unwrap_or_default())))
        .collect();
    let defs: BTreeMap<&Vec<String>, BTreeSet<String>> =
        toks.iter().map(|(m, t)| (*m, definitions(t))).collect();
    // The file an absolute path (from the crate root) names, if it is one of the crate's.
    let target = |abs: &[String]| -> Option<PathBuf> {
        let n = (0..=abs.len())
            .rev()
            .find(|&n| files.contains_key(&abs[..n]))?;
        let module = &abs[..n];
        let Some(item) = abs.get(n).filter(|i| *i != "*") else {
            return Some(files[module].clone());
        };
        if defs[&module.to_vec()].contains(item) {
            return Some(files[module].clone());
        }
        let below: Vec<&Vec<String>> = defs
            .iter()
            .filter(|(m, d)| m.starts_with(module) && d.contains(item))
            .map(|(m, _)| *m)
            .collect();
        Some(match below.as_slice() {
            [only] => files[*only].clone(),
            _ => files[module].clone(),
        })
    };
    let mut out = Vec::new();
    for (module, t) in &toks {
        let from = &files[*module];
        // Inline modules (`mod tests { … }`) open at a brace depth.
        let (mut depth, mut inline): (usize, Vec<(String, usize)>) = (0, Vec::new());
        // Inside a `macro_rules!` body from this depth on: `super::` and `self::` there mean
        // the module the macro is expanded in, which tokens do not tell.
        let mut macro_body: Option<usize> = None;
        let mut i = 0;
        while i < t.len() {
            match &t[i].0 {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth = depth.saturating_sub(1);
                    while inline.last().is_some_and(|(_, d)| *d > depth) {
                        inline.pop();
                    }
                    if macro_body.is_some_and(|d| d > depth) {
                        macro_body = None;
                    }
                }
                _ => {}
            }
            if ident(t.get(i)) == Some("macro_rules") && macro_body.is_none() {
                macro_body = Some(depth + 1);
            }
            let here: Vec<String> = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect();
            // A path relative to `here`, made absolute; `None` for another crate's.
            let absolute = |segs: &[String]| -> Option<Vec<String>> {
                let mut cur = here.clone();
                let mut rest = segs;
                match rest.first().map(String::as_str) {
                    Some("self" | "super") if macro_body.is_some() => return None,
                    Some("crate") => {
                        cur.clear();
                        rest = &rest[1..];
                    }
                    Some("self") => rest = &rest[1..],
                    Some("super") => {
                        while rest.first().is_some_and(|s| s == "super") {
                            cur.pop()?;
                            rest = &rest[1..];
                        }
                    }
                    Some(first) => {
                        let mut child = cur.clone();
                        child.push(first.to_string());
                        if !files.contains_key(&child) && !inline.iter().any(|(n, _)| n == first) {
                            return None;
                        }
                    }
                    None => return None,
                }
                cur.extend(rest.iter().cloned());
                Some(cur)
            };
            let line = t[i].1;
            let add = |segs: &[String], out: &mut Vec<Arrow>| {
                if let Some(to) = absolute(segs).and_then(|a| target(&a)) {
                    if &to != from {
                        out.push(Arrow {
                            from: from.clone(),
                            to,
                            line,
                            path: segs.join("::"),
                        });
                    }
                }
            };
            match ident(t.get(i)) {
                Some("mod") if matches!(t.get(i + 2), Some((Tok::Open, _))) => {
                    inline.push((ident(t.get(i + 1)).unwrap_or("").to_string(), depth + 1));
                    i += 1;
                }
                Some("use") => {
                    let (paths, end) = use_tree(t, i + 1, &[]);
                    for p in paths {
                        add(&p, &mut out);
                    }
                    i = end;
                    continue;
                }
                // Not the middle of a path, nor a visibility (`pub(in crate::kernel)`).
                Some(_)
                    if !matches!(i.checked_sub(1).map(|p| &t[p].0), Some(Tok::ColCol))
                        && ident(i.checked_sub(1).and_then(|p| t.get(p))) != Some("in") =>
                {
                    let mut segs = vec![ident(t.get(i)).unwrap().to_string()];
                    let mut j = i + 1;
                    while matches!(t.get(j), Some((Tok::ColCol, _))) {
                        match ident(t.get(j + 1)) {
                            Some(s) => segs.push(s.to_string()),
                            None => break,
                        }
                        j += 2;
                    }
                    if segs.len() > 1 {
                        add(&segs, &mut out);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// The paths of the use tree at `t[i..]` (after `use`), each prefixed by `prefix`, and the
/// index after the tree.
fn use_tree(t: &[(Tok, usize)], mut i: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut segs = prefix.to_vec();
    let mut out = Vec::new();
    if matches!(t.get(i), Some((Tok::ColCol, _))) {
        // `use ::other_crate::…`: not this crate.
        return (out, skip_to_end(t, i));
    }
    loop {
        match t.get(i).map(|x| &x.0) {
            Some(Tok::Ident(s)) if s == "as" => {
                i += 2;
            }
            Some(Tok::Ident(s)) => {
                if s != "self" || segs.is_empty() {
                    segs.push(s.clone());
                }
                i += 1;
            }
            Some(Tok::ColCol) => i += 1,
            Some(Tok::Other('*')) => {
                segs.push("*".to_string());
                i += 1;
            }
            Some(Tok::Open) => {
                i += 1;
                loop {
                    let (sub, end) = use_tree(t, i, &segs);
                    out.extend(sub);
                    i = end;
                    match t.get(i).map(|x| &x.0) {
                        Some(Tok::Comma) => i += 1,
                        Some(Tok::Close) => {
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                    if matches!(t.get(i), Some((Tok::Close, _))) {
                        i += 1;
                        break;
                    }
                }
                return (out, i);
            }
            _ => break,
        }
    }
    if segs.len() > prefix.len() || !prefix.is_empty() {
        out.push(segs);
    }
    (out, i)
}

fn skip_to_end(t: &[(Tok, usize)], mut i: usize) -> usize {
    while i < t.len() && t[i].0 != Tok::Semi {
        i += 1;
    }
    i
}

/// The circles among `arrows`: each a set of files every one of which reaches every other
/// (Tarjan's strongly connected components of more than one file), with the arrows inside it.
pub fn circles(arrows: &[Arrow]) -> Vec<Vec<Arrow>> {
    let nodes: Vec<&PathBuf> = arrows
        .iter()
        .flat_map(|a| [&a.from, &a.to])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let index = |p: &PathBuf| nodes.iter().position(|n| *n == p).unwrap();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for a in arrows {
        next[index(&a.from)].push(index(&a.to));
    }
    // Tarjan, iteratively.
    let n = nodes.len();
    let (mut idx, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut comps, mut counter) = (Vec::new(), Vec::new(), 0);
    for s in 0..n {
        if idx[s] != usize::MAX {
            continue;
        }
        let mut work = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 && idx[v] == usize::MAX {
                idx[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on[v] = true;
            }
            if *k < next[v].len() {
                let w = next[v][*k];
                *k += 1;
                if idx[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == idx[v] {
                let mut comp = BTreeSet::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.insert(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comps.push(comp);
                }
            }
        }
    }
    comps
        .into_iter()
        .map(|comp| {
            arrows
                .iter()
                .filter(|a| comp.contains(&index(&a.from)) && comp.contains(&index(&a.to)))
                .cloned()
                .collect()
        })
        .collect()
}
