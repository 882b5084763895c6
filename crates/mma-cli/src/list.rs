//! `mma list`: the instruction catalogs, as a table, JSON, or one instruction's unit file.

use anyhow::Result;
use mma::cases;
use mma_io::out::stdout_error;
use std::io::{BufWriter, Write};

/// List the instruction catalog: instruction, model, parameters, and what the model rests on
/// (evidence: hardware records, the reference corpus, or unverified).
///
/// Example: mma list --vendor amd --filter f16 --json
#[derive(clap::Args)]
pub struct ListCmd {
    /// Only this vendor's catalog.
    #[arg(long, value_enum)]
    pub vendor: Option<Vendor>,
    /// Print a JSON array, one object per instruction (vendor, arch, op, instruction, k,
    /// ptx_isa, model, evidence).
    #[arg(long, conflicts_with = "unit_file")]
    pub json: bool,
    /// Only this architecture (name, PTX target or GPU product).
    #[arg(long)]
    pub arch: Option<String>,
    /// Only instructions whose name contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// With --unit-file: the instruction to print.
    #[arg(long, requires = "unit_file")]
    pub instr: Option<String>,
    /// Print the unit of --arch and --instr as a unit file (JSON).
    #[arg(long, requires_all = ["arch", "instr"])]
    pub unit_file: bool,
    /// List the GPU products instead: per GPU, the instruction its libraries are taken to
    /// issue per input dtype, its library platform and the evidence (with --json, an array).
    #[arg(long, conflicts_with_all = ["arch", "filter", "instr", "unit_file"])]
    pub gpus: bool,
}

impl ListCmd {
    pub fn run(self) -> Result<bool> {
        if self.gpus {
            return gpus(self.vendor, self.json);
        }
        match (&self.arch, &self.instr) {
            (Some(arch), Some(instr)) if self.unit_file => unit_file(arch, instr),
            (arch, _) => list(
                arch.as_deref(),
                self.filter.as_deref(),
                self.vendor,
                self.json,
            ),
        }
    }
}

/// `mma list --arch A --instr I --unit-file`: the catalog unit as a unit file (JSON), with the
/// instruction's K.
fn unit_file(arch: &str, instr: &str) -> Result<bool> {
    let t = cases::resolve(
        mma::catalog::vendor_or_default(arch).name(),
        arch,
        None,
        instr,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    // With its K and its layout (fp4 in bits 5:2 of a byte, or two to a byte), so that case
    // lines read as the catalog reads them.
    let file = t.unit_file();
    mma_cli::outln!("{}", serde_json::to_string_pretty(&file)?);
    Ok(true)
}

/// Every architecture name of the built-in catalogs, for the error on an unknown one.
fn known_archs() -> String {
    let names = |v: mma::catalog::Vendor| v.architectures().join(", ");
    format!(
        "NVIDIA: {}; AMD: {} (PTX targets such as sm_90 and products such as H100 or MI300X work too)",
        names(mma::catalog::Vendor::Nvidia),
        names(mma::catalog::Vendor::Amd)
    )
}

/// Which vendors `mma list` shows.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Vendor {
    Nvidia,
    Amd,
}

impl Vendor {
    fn catalog(self) -> mma::catalog::Vendor {
        match self {
            Vendor::Nvidia => mma::catalog::Vendor::Nvidia,
            Vendor::Amd => mma::catalog::Vendor::Amd,
        }
    }
}

fn list(
    arch: Option<&str>,
    filter: Option<&str>,
    vendor: Option<Vendor>,
    json: bool,
) -> Result<bool> {
    let selected =
        mma::catalog::select(vendor.map(Vendor::catalog), arch).map_err(|e| match e {
            mma::catalog::CatalogError::UnknownArch(a) => {
                anyhow::anyhow!("unknown architecture {a:?}; known: {}", known_archs())
            }
            e => anyhow::anyhow!("--{}: {e}", e.field()),
        })?;
    let filter_lc = filter.map(str::to_ascii_lowercase);
    let keep = |name: &str| match &filter_lc {
        None => true,
        Some(f) => name.to_ascii_lowercase().contains(f),
    };
    let rows: Vec<[String; 8]> = selected
        .iter()
        .filter(|r| keep(r.name))
        .map(|r| {
            [
                r.vendor.name().into(),
                r.arch.into(),
                r.op.into(),
                r.name.into(),
                r.k.to_string(),
                r.mnemonic.into(),
                r.unit.describe(),
                r.evidence.name().into(),
            ]
        })
        .collect();
    if rows.is_empty() {
        // Only a filter can leave nothing: every architecture has instructions.
        anyhow::bail!(
            "no instruction{} contains {:?}",
            arch.map(|a| format!(" of {a}")).unwrap_or_default(),
            filter.unwrap_or_default()
        );
    }
    if json {
        let keys = [
            "vendor",
            "arch",
            "op",
            "instruction",
            "k",
            "ptx_isa",
            "model",
            "evidence",
        ];
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut m = serde_json::Map::new();
                for (key, v) in keys.iter().zip(r) {
                    let v = match *key {
                        "k" => serde_json::Value::from(v.parse::<u64>().unwrap_or_default()),
                        _ => serde_json::Value::from(v.as_str()),
                    };
                    m.insert((*key).into(), v);
                }
                serde_json::Value::Object(m)
            })
            .collect();
        mma_cli::outln!("{}", serde_json::Value::Array(items));
        return Ok(true);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let header = [
        "vendor",
        "arch",
        "op",
        "instruction",
        "K",
        "PTX/ISA",
        "model",
        "evidence",
    ];
    // A reader that goes away (`mma list | head`) ends the process through SIGPIPE; any
    // other failed write (a full disk) is an error.
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        writeln!(out, "{}", row.join("\t")).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(true)
}

/// `mma list --gpus`: the GPU tables of the vendor crates (`mma::catalog::gpus`), one GPU per
/// line (names, vendor, architecture, the instruction per dtype, platform, evidence).
fn gpus(vendor: Option<Vendor>, json: bool) -> Result<bool> {
    let cols = mma::gpu_table::GPU_COLUMNS;
    let rows: Vec<_> = mma::catalog::gpus()
        .into_iter()
        .filter(|g| vendor.is_none_or(|v| v.catalog() == g.vendor))
        .collect();
    if json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|g| {
                let instr: serde_json::Map<String, serde_json::Value> = cols
                    .iter()
                    .zip(&g.row.instr)
                    .map(|(c, i)| ((*c).to_string(), serde_json::json!(i)))
                    .collect();
                serde_json::json!({
                    "names": g.row.names, "vendor": g.vendor.name(), "arch": g.row.arch,
                    "instr": instr, "platform": g.row.platform, "evidence": g.row.evidence,
                })
            })
            .collect();
        mma_cli::outln!("{}", serde_json::Value::Array(items));
        return Ok(true);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let header: Vec<String> = ["names", "vendor", "arch"]
        .into_iter()
        .chain(cols)
        .chain(["platform", "evidence"])
        .map(String::from)
        .collect();
    writeln!(out, "{}", header.join("\t")).map_err(stdout_error)?;
    for g in rows {
        let mut cells = vec![
            g.row.names.join(", "),
            g.vendor.name().into(),
            g.row.arch.clone(),
        ];
        cells.extend(
            g.row
                .instr
                .iter()
                .map(|i| i.as_deref().unwrap_or("-").to_string()),
        );
        cells.push(g.row.platform.as_deref().unwrap_or("-").into());
        cells.push(g.row.evidence.clone());
        writeln!(out, "{}", cells.join("\t")).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(true)
}
