//! The code the documents cite, and what the workspace's Rust sources define to check it
//! against (the tidy test `cited_code_exists`).
//!
//! Two kinds of citation, in backticks (not in fenced code blocks, which are examples). A module
//! file or folder without a root prefix (`lanes/e_fdpa_sum3.rs`, `kernel/lanes/`, `term.rs`)
//! must end some file's or folder's path. A Rust path (`model::Decoded::fill`, `Kernel::dots`,
//! `DotUnit::dot_plain(a, b, c)`, `catalog::Instruction<Arch, Op>`, `DotUnit::{kernel, gemm}`:
//! two or more names joined by `::`, a call's arguments or generics after them dropped, a group
//! taken name by name) must name, segment by segment, what exists: each segment after the first
//! is a name of the module before it (an item its file defines outside `impl` and `trait`
//! blocks or brings in by `use`, or a child module's file or folder) or a member of the type or
//! trait before it (a `fn`, `const` or `type` of an `impl` or `trait` block for that name, a
//! variant of that enum, a field of that struct); `crate::name` needs a module that holds
//! `name`. Paths of other crates (`std::`, `rayon::`, ...) and names that are not Rust (PTX's
//! `kind::f8f6f4`) are left out by their first segment ([`NOT_OURS`]).
//!
//! It reads lines, not syntax, and merges what has one name (every `mod.rs` of a folder `x86`
//! is module `x86`; `use a as b` gives `b` what `a` holds): good enough to catch a renamed or
//! moved item. The sources are rustfmt's, so a block ends at the first `}` on a line of its own
//! at the indentation of its header.

use std::collections::{BTreeMap, BTreeSet};

use super::{all_paths, code, documents, files, rel, root, rust_sources};

/// First segments of paths that are not this workspace's Rust: other crates, and names of other
/// languages that read like paths.
pub const NOT_OURS: &[&str] = &[
    "std",
    "core",
    "alloc",
    "serde",
    "serde_json",
    "rayon",
    "numpy",
    "pyo3",
    "matrixmultiply",
    "clap",
    "libc",
    "insta",
    "half",
    "rug",
    "criterion",
    "rand",
    "anyhow",
    "npyz",
    "strsim",
    // The prelude's types.
    "Box",
    "Vec",
    "String",
    "Option",
    "Result",
    // PTX's instruction qualifiers (`kind::f8f6f4`, `kind::mxf4nvf4`).
    "kind",
    // CONTRIBUTING's placeholder for a test module's name (`name::test`).
    "name",
];

/// Paths the documents cite as what does not exist (ARCHITECTURE.md: the facade has no
/// `mma::core`); the test checks that they do not.
pub const CITED_AS_ABSENT: &[&str] = &["mma::core"];

/// The pages whose citations are checked: the documents but the changelog (history: what it
/// cites was true when written), and the crates' and the probes' own pages.
pub fn checked_pages() -> Vec<String> {
    let mut pages = Vec::new();
    for dir in ["crates", "probes"] {
        files(&root().join(dir), "md", &mut pages);
    }
    let mut docs = documents();
    docs.retain(|d| d != "CHANGELOG.md");
    docs.extend(pages.iter().map(|p| rel(p)));
    docs
}

/// What the sources define: every file's and folder's path, the members of types and traits,
/// and the names each module holds.
#[derive(Default)]
pub struct Defined {
    /// Every file's path, and every folder's with a `/` at the end.
    paths: BTreeSet<String>,
    /// Type or trait → its methods, associated items, variants or fields.
    members: BTreeMap<String, BTreeSet<String>>,
    /// Module (file, folder, inline `mod` or crate) → the names in it.
    modules: BTreeMap<String, BTreeSet<String>>,
}

const ITEM_WORDS: &[&str] = &[
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "const",
    "static",
    "mod",
    "union",
    "macro_rules",
];

const TYPE_WORDS: &[&str] = &["struct", "enum", "trait", "union", "type"];

fn words(c: &str) -> Vec<&str> {
    c.split(|ch: char| !ch.is_alphanumeric() && ch != '_')
        .filter(|w| !w.is_empty())
        .collect()
}

/// The names the code `c` defines: the word after an item keyword (`kinds`).
fn defined_on(c: &str, kinds: &[&str]) -> Vec<String> {
    words(c)
        .windows(2)
        .filter(|p| kinds.contains(&p[0]))
        .map(|p| p[1].to_string())
        .collect()
}

/// `t` without its indentation, a leading visibility (`pub`, `pub(in crate::kernel)`) and
/// `unsafe`.
fn unqualified(t: &str) -> &str {
    let t = t.trim_start();
    let t = match t.strip_prefix("pub(") {
        Some(rest) => rest.split_once(')').map_or(rest, |(_, r)| r),
        None => t.strip_prefix("pub ").unwrap_or(t),
    };
    let t = t.trim_start();
    t.strip_prefix("unsafe ").unwrap_or(t).trim_start()
}

/// The module a source file is: its stem, its folder's name for `mod.rs`, its crate's for
/// `lib.rs` and `main.rs`; and the folder its child modules' files are in.
fn module_of(path: &str) -> (String, String) {
    let stem = path.trim_end_matches(".rs");
    let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
    match name {
        "mod" => (
            dir.rsplit('/').next().unwrap_or(dir).to_string(),
            dir.to_string(),
        ),
        "lib" | "main" => {
            let krate = path.strip_prefix("crates/").unwrap_or(path);
            let krate = krate.split('/').next().unwrap_or("");
            (krate.replace('-', "_"), dir.to_string())
        }
        _ => (name.to_string(), stem.to_string()),
    }
}

/// The type or trait whose block a header opens (`impl<T: A> B for C<T> where ... {`: `C`),
/// and whether the block lists variants or fields (an enum's, a struct's) rather than items;
/// `None` for a header that opens no such block.
fn block_owner(header: &str) -> Option<(String, bool)> {
    let mut h = unqualified(header).replace("->", " ");
    // Generics out, innermost first.
    while let Some(open) = h.find('<') {
        let close = h[open..].find('>').map(|x| open + x)?;
        let inner = h[open + 1..close].rfind('<').map_or(open, |x| open + 1 + x);
        h.replace_range(inner..=close, " ");
    }
    let w: Vec<&str> = h
        .split(|ch: char| ch.is_whitespace() || ch == '{' || ch == '(' || ch == '&')
        .filter(|w| !w.is_empty() && *w != "dyn")
        .collect();
    let owner = match *w.first()? {
        "impl" => match w.iter().rposition(|x| *x == "for") {
            Some(at) => w.get(at + 1)?,
            None => w.get(1)?,
        },
        "trait" | "enum" | "struct" => w.get(1)?,
        _ => return None,
    };
    let owner = owner.rsplit("::").next()?.trim_end_matches([',', ';', ':']);
    Some((owner.to_string(), w[0] == "enum" || w[0] == "struct"))
}

/// Records the members of the block whose header starts at `lines[i]`, if it opens one; for an
/// `impl` or `trait` block, the line that closes it (its items are no names of the module).
fn members_of_block(d: &mut Defined, lines: &[&str], i: usize) -> Option<usize> {
    let first = unqualified(lines[i]).split([' ', '<']).next().unwrap_or("");
    if !["impl", "trait", "enum", "struct"].contains(&first) {
        return None;
    }
    // The header runs to the line that opens the block (none: a unit or tuple struct).
    let end = (i..lines.len()).find(|&j| lines[j].trim_end().ends_with('{'))?;
    let ends = |l: &&str| l.trim_end().ends_with(';') || l.trim_end().ends_with('}');
    if lines[i..end].iter().any(ends) {
        return None;
    }
    let (owner, listed) = block_owner(&lines[i..=end].join(" "))?;
    let indent = lines[i].len() - lines[i].trim_start().len();
    let close = format!("{}}}", " ".repeat(indent));
    let members = d.members.entry(owner).or_default();
    let body = lines[end + 1..]
        .iter()
        .take_while(|l| l.trim_end() != close);
    for l in body.clone() {
        let inner = l.trim_start();
        if !listed {
            if !inner.starts_with("mod ") {
                members.extend(defined_on(l, ITEM_WORDS));
            }
            continue;
        }
        // A variant or a field: the first name on a line one level in (`A(u8)`, `pub x: T`).
        if l.len() - inner.len() != indent + 4 || inner.starts_with('#') {
            continue;
        }
        let name: String = unqualified(inner)
            .chars()
            .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
            .collect();
        if !name.is_empty() {
            members.insert(name);
        }
    }
    (!listed).then(|| end + 1 + body.count())
}

impl Defined {
    /// What the workspace's Rust sources define (but the tidy tests', whose planted texts
    /// define what does not exist).
    pub fn of_workspace() -> Defined {
        let sources: Vec<(String, String)> = rust_sources()
            .iter()
            .filter(|p| !rel(p).starts_with("xtask/tests/tidy"))
            .map(|p| (rel(p), std::fs::read_to_string(p).unwrap()))
            .collect();
        Defined::read(&sources, &all_paths())
    }

    /// Reads `sources` (pairs of a repository path and its text) and `paths` (every file's
    /// repository path, sources or not).
    pub fn read(sources: &[(String, String)], paths: &[String]) -> Defined {
        let mut d = Defined::default();
        let mut aliases = Vec::new();
        for path in paths.iter().chain(sources.iter().map(|(p, _)| p)) {
            d.paths.insert(path.clone());
            let mut p = path.as_str();
            while let Some((dir, _)) = p.rsplit_once('/') {
                d.paths.insert(format!("{dir}/"));
                p = dir;
            }
        }
        for (path, text) in sources {
            let (module, folder) = module_of(path);
            let mut names = BTreeSet::new();
            // Child modules: the files and folders directly in the module's folder.
            let inside = format!("{folder}/");
            for q in d.paths.iter().filter_map(|q| q.strip_prefix(&inside)) {
                let child = q.split('/').next().unwrap_or("");
                names.insert(child.trim_end_matches(".rs").to_string());
            }
            let lines: Vec<&str> = text.lines().map(code).collect();
            let mut inline = Vec::new();
            let (mut in_use, mut after_impl) = (false, 0);
            for (i, c) in lines.iter().enumerate() {
                if i >= after_impl {
                    names.extend(defined_on(c, ITEM_WORDS));
                }
                // Every type and trait, with members or without.
                for t in defined_on(c, TYPE_WORDS) {
                    d.members.entry(t).or_default();
                }
                // A `use` brings its names in (`as` aliases and re-exports included).
                let t = unqualified(c);
                in_use |= t.starts_with("use ");
                if in_use {
                    let w = words(c);
                    names.extend(w.iter().map(|w| w.to_string()));
                    for at in (1..w.len().saturating_sub(1)).filter(|&at| w[at] == "as") {
                        aliases.push((w[at - 1].to_string(), w[at + 1].to_string()));
                    }
                    in_use = !c.contains(';');
                }
                // An inline `mod name {` holds what its file holds (good enough).
                if let Some(m) = t.strip_prefix("mod ").filter(|_| t.ends_with('{')) {
                    inline.push(m.trim_end_matches(['{', ' ']).to_string());
                }
                if let Some(after) = members_of_block(&mut d, &lines, i) {
                    after_impl = after_impl.max(after);
                }
            }
            for m in inline.into_iter().chain([module]) {
                let held = d.modules.entry(m).or_default();
                held.extend(names.iter().cloned());
            }
        }
        // `use mma_catalog as catalog`: the alias holds what the original holds.
        for (original, alias) in aliases {
            for map in [&mut d.modules, &mut d.members] {
                if let Some(held) = map.get(&original).cloned() {
                    map.entry(alias.clone()).or_default().extend(held);
                }
            }
        }
        d
    }

    /// The citations on the lines of document `doc` (its `text`) that name nothing, as
    /// `doc:line: why`; `roots` are the prefixes of the paths checked elsewhere.
    pub fn offenders(&self, doc: &str, text: &str, roots: &[&str]) -> Vec<String> {
        let mut bad = Vec::new();
        let mut fenced = false;
        for (i, l) in text.lines().enumerate() {
            // Code blocks are examples, not citations.
            fenced ^= l.trim_start().starts_with("```");
            if fenced || l.trim_start().starts_with("```") {
                continue;
            }
            let (paths, items) = cited_on(l, roots);
            for p in paths.iter().filter(|p| !self.has_path(p)) {
                bad.push(format!("{doc}:{}: `{p}` is no file or folder", i + 1));
            }
            for item in items
                .iter()
                .filter(|x| !CITED_AS_ABSENT.contains(&x.as_str()))
            {
                if let Some(why) = self.why_not(item) {
                    bad.push(format!("{doc}:{}: `{item}`: {why}", i + 1));
                }
            }
        }
        bad
    }

    /// Whether a file's or folder's path ends in `cited` (`lanes/e_fdpa_sum3.rs`, `lanes/`).
    pub fn has_path(&self, cited: &str) -> bool {
        let tail = format!("/{cited}");
        self.paths.iter().any(|p| p == cited || p.ends_with(&tail))
    }

    /// Why the Rust path `cited` (`a::b::c`) names nothing, or `None` where it names something.
    pub fn why_not(&self, cited: &str) -> Option<String> {
        let segs: Vec<&str> = cited
            .split("::")
            .skip_while(|s| ["crate", "self", "super", "Self"].contains(s))
            .collect();
        // `crate::name`: a name some module holds.
        if let [name] = segs[..] {
            let held = self.modules.values().any(|m| m.contains(name));
            return (!held).then(|| format!("no module holds `{name}`"));
        }
        for p in segs.windows(2) {
            let (parent, child) = (p[0], p[1]);
            let member = self.members.get(parent).is_some_and(|m| m.contains(child));
            let item = self.modules.get(parent).is_some_and(|m| m.contains(child));
            if member || item {
                continue;
            }
            if !self.members.contains_key(parent) && !self.modules.contains_key(parent) {
                return Some(format!("`{parent}` is no module, type or trait"));
            }
            return Some(format!("`{parent}` has no `{child}`"));
        }
        None
    }
}

/// The citations in the backticks of one line of a document: module files and folders
/// without one of the `roots` prefixes, and Rust paths (a call's arguments and generics
/// dropped).
pub fn cited_on(line: &str, roots: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let spans = line.split('`').skip(1).step_by(2);
    for piece in spans.flat_map(|s| s.split(['(', ')', '[', ']', ' ', ',', ';', '"'])) {
        let piece = piece.trim_end_matches(['.', ':']);
        let placeholder = piece.contains(['*', '<', '{', '…', '$']) || piece.contains("...");
        let stem = piece.strip_suffix(".rs").unwrap_or("");
        let file = !stem.is_empty() && !stem.contains(['.', ':']);
        let folder = piece.ends_with('/') && piece.len() > 1 && !piece.starts_with('/');
        // Build output (`target/`) is no part of the repository.
        if placeholder
            || piece.starts_with('.')
            || piece.starts_with("target/")
            || piece.contains("://")
            || roots.iter().any(|p| piece.starts_with(p))
            || !(file || folder)
        {
            continue;
        }
        files.push(piece.to_string());
    }
    let ident = |x: &&str| {
        x.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_')
            && x.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    };
    let mut items = Vec::new();
    for span in line.split('`').skip(1).step_by(2) {
        let mut s = span.trim();
        // A group, `DotUnit::{kernel, gemm_in_rounds}`: each of its paths.
        let (s, group) = match s.strip_suffix('}').and_then(|g| g.split_once("::{")) {
            Some((path, group)) => (path, group.split(',').map(str::trim).collect()),
            None => {
                if s.ends_with(')') {
                    s = s.split('(').next().unwrap_or(s);
                }
                (
                    s.split('<').next().unwrap_or(s).trim_end_matches("::"),
                    vec![""],
                )
            }
        };
        for g in group {
            let path = if g.is_empty() {
                s.to_string()
            } else {
                format!("{s}::{g}")
            };
            let segs: Vec<&str> = path.split("::").collect();
            if segs.len() < 2 || !segs.iter().all(ident) || NOT_OURS.contains(&segs[0]) {
                continue;
            }
            items.push(path);
        }
    }
    (files, items)
}
