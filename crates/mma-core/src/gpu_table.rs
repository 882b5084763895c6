//! GPU products as data: for each GPU a vendor sells, the catalog architecture, the catalog
//! instruction its libraries' kernels are taken to issue per input dtype, the library platform
//! whose recipe models its FP8 GEMMs (if one does), and the evidence for the row.
//!
//! Each vendor crate ships its table as text, one GPU per line, cells separated by `|`:
//!
//! ```text
//! # names              | arch   | f16                     | bf16 | tf32 | f32 | fp8 | platform | evidence
//! A100, A10, RTX 3090  | Ampere | m16n8k16.f32.f16.f16.f32 | ...  | ...  | -   | -   | -        | assumed: ...
//! ```
//!
//! `names` are comma-separated (the first is the row's name); a dtype cell is the instruction's
//! name as the vendor catalog spells it, `-` for none, `OP:name` to pick the NVIDIA operation,
//! and `{a}`/`{b}` in the `fp8` cell stand for the FP8 formats of A and B as the vendor spells
//! them in instruction names. `platform` is a library platform's name or `-`. Lines starting
//! with `#` and blank lines are comments. Which instruction a library issues for a dtype is an
//! assumption (the evidence cell says so) except where a platform's recordings decide it.
//!
//! The core reads the text and knows no vendor; each vendor crate's test checks that every
//! cell of its table names an instruction of its catalog and every platform exists.

use std::fmt;

/// The dtype columns, in table order.
pub const GPU_COLUMNS: [&str; 5] = ["f16", "bf16", "tf32", "f32", "fp8"];

/// One GPU of a vendor's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuRow {
    /// The names it answers to; the first is its name.
    pub names: Vec<String>,
    /// The catalog architecture of its instructions.
    pub arch: String,
    /// Per column of [`GPU_COLUMNS`], the instruction (None: the libraries issue none).
    pub instr: [Option<String>; 5],
    /// The library platform of its FP8 recipe, if any.
    pub platform: Option<String>,
    /// Why the row says what it says.
    pub evidence: String,
}

impl GpuRow {
    /// The row's name (its first name).
    pub fn name(&self) -> &str {
        &self.names[0]
    }

    /// The instruction of a dtype column (`"f16"`, ..., `"fp8"`), None where there is none or
    /// the column is unknown.
    pub fn instr_for(&self, column: &str) -> Option<&str> {
        let i = GPU_COLUMNS.iter().position(|c| *c == column)?;
        self.instr[i].as_deref()
    }

    /// Whether `name` is one of the row's names, ignoring case, spaces, dashes and underscores.
    pub fn answers_to(&self, name: &str) -> bool {
        let k = gpu_key(name);
        self.names.iter().any(|n| gpu_key(n) == k)
    }
}

/// A GPU name compared as users write it: case, spaces, dashes and underscores ignored.
pub fn gpu_key(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Why a GPU table's text is not a table: the line (from 1) and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuTableError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for GpuTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GPU table line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for GpuTableError {}

/// Reads a GPU table (see the module docs).
pub fn parse_gpu_table(text: &str) -> Result<Vec<GpuRow>, GpuTableError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let bad = |msg: String| GpuTableError { line: i + 1, msg };
        let cells: Vec<&str> = t.split('|').map(str::trim).collect();
        let want = 4 + GPU_COLUMNS.len();
        if cells.len() != want {
            return Err(bad(format!(
                "{} cells, expected {want} (names | arch | {} | platform | evidence)",
                cells.len(),
                GPU_COLUMNS.join(" | ")
            )));
        }
        let names: Vec<String> = cells[0].split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(String::is_empty) {
            return Err(bad("an empty GPU name".into()));
        }
        let cell = |s: &str| (s != "-").then(|| s.to_string());
        let evidence = cells[want - 1].to_string();
        if evidence.is_empty() {
            return Err(bad("no evidence: say why the row is what it is".into()));
        }
        rows.push(GpuRow {
            names,
            arch: cells[1].to_string(),
            instr: std::array::from_fn(|c| cell(cells[2 + c])),
            platform: cell(cells[2 + GPU_COLUMNS.len()]),
            evidence,
        });
    }
    Ok(rows)
}
