//! The input targets: case-file lines, hardware-record folders and command-line values, each
//! mutated from real seeds and run where a panic would be caught.

use super::ctx::Ctx;
use rand::Rng;
use std::path::Path;

/// Seed inputs: case lines from the repository's vector files and one small, valid record
/// folder (Volta fp16; record 1 = 1·1 + 0.5·0.5 + 0.25 = 1.5, written out by hand).
pub struct Seeds {
    pub lines: Vec<String>,
    pub names: Vec<String>,
    hw: [(&'static str, &'static str); 5],
}

const A: &str = "3f800000 3f000000 00000000 00000000\n7f800000 00000000 00000000 00000000\n";
const C: &str = "00111110100000000000000000000000\n00000000000000000000000000000000\n";
const D32: &str = "00111111110000000000000000000000\n01111111111111111111111111111111\n";
const D16: &str = "00111111110000000000000000000000\n01111111111111111110000000000000\n";

impl Seeds {
    pub fn load(root: &Path) -> Seeds {
        let mut lines = Vec::new();
        let mut dirs = vec![root.join("vectors")];
        while let Some(dir) = dirs.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    let text = std::fs::read_to_string(&p).unwrap_or_default();
                    // A few lines of every file: every vendor, format and packing.
                    lines.extend(
                        text.lines()
                            .filter(|l| l.starts_with('{'))
                            .step_by(97)
                            .take(8)
                            .map(str::to_string),
                    );
                }
            }
        }
        // Every 37th NVIDIA name and every AMD one.
        let nvidia = |i: &mma::catalog::Row| i.vendor == mma::catalog::Vendor::Nvidia;
        let all = mma::catalog::instructions;
        let names: Vec<String> = all()
            .filter(nvidia)
            .step_by(37)
            .chain(all().filter(|i| !nvidia(i)))
            .map(|i| i.name.to_string())
            .collect();
        Seeds {
            lines,
            names,
            hw: [
                ("a_V100_fp16.txt", A),
                ("b_V100_fp16.txt", A),
                ("c_V100_fp32.txt", C),
                ("d_V100_fp32.txt", D32),
                ("d_V100_fp16.txt", D16),
            ],
        }
    }
}

/// Bytes that break parsers: quotes, separators, line endings, NUL, invalid UTF-8.
const NASTY: &[u8] = b"\"',:{}[]\\\r\n\0\xff\xfe\xef\xbb\xbf x0-+.e9";

/// A few random byte-level edits: flips, insertions, deletions, duplications, truncation.
fn mutate_bytes(ctx: &mut Ctx, bytes: &mut Vec<u8>) {
    for _ in 0..1 + ctx.below(4) {
        let n = bytes.len();
        let at = ctx.below(n + 1);
        match ctx.below(6) {
            0 if n > 0 => bytes[at.min(n - 1)] ^= 1 << ctx.below(8),
            1 => {
                let b = NASTY[ctx.below(NASTY.len())];
                bytes.insert(at, b);
            }
            2 if n > 0 => {
                let end = (at + 1 + ctx.below(8)).min(n);
                bytes.drain(at.min(n - 1)..end);
            }
            3 if n > 0 => {
                let end = (at + 1 + ctx.below(16)).min(n);
                let span = bytes[at.min(n - 1)..end].to_vec();
                let to = ctx.below(bytes.len() + 1);
                bytes.splice(to..to, span);
            }
            4 => bytes.truncate(at),
            _ => {
                let b = ctx.rng.random::<u8>();
                bytes.insert(at, b);
            }
        }
    }
}

/// A random JSON value, for replacing a field.
fn random_json(ctx: &mut Ctx, names: &[String]) -> serde_json::Value {
    use serde_json::json;
    match ctx.below(9) {
        0 => json!(null),
        1 => json!(ctx.rng.random::<i64>()),
        2 => json!(1e308 * 10.0f64.powi(ctx.below(3) as i32)),
        3 => json!(names[ctx.below(names.len())]),
        4 => json!(format!("{:x}", ctx.rng.random::<u64>() >> ctx.below(64))),
        5 => json!([]),
        6 => json!(vec!["3c00"; ctx.below(300)]),
        7 => json!({"a": [1, 2]}),
        _ => json!("x".repeat(ctx.below(5000))),
    }
}

/// A field-level edit of a JSON case: a field replaced, removed, or a word list resized.
fn mutate_fields(ctx: &mut Ctx, line: &str, names: &[String]) -> String {
    let Ok(serde_json::Value::Object(mut m)) = serde_json::from_str(line) else {
        return line.to_string();
    };
    let keys = [
        "vendor", "arch", "op", "instr", "a", "b", "c", "d", "scale_a", "scale_b",
    ];
    let key = keys[ctx.below(keys.len())];
    match ctx.below(4) {
        0 => {
            m.remove(key);
        }
        1 => {
            if let Some(serde_json::Value::Array(xs)) = m.get_mut(key) {
                let n = ctx.below(xs.len() * 2 + 2);
                let fill = xs.first().cloned().unwrap_or_else(|| "00".into());
                xs.resize(n, fill);
            }
        }
        _ => {
            let v = random_json(ctx, names);
            m.insert(key.to_string(), v);
        }
    }
    serde_json::Value::Object(m).to_string()
}

/// One mutated case line through parse, look-up, operand checks and evaluation, and the
/// same bytes through the line reader.
pub fn case_step(ctx: &mut Ctx, seeds: &Seeds) {
    if seeds.lines.is_empty() {
        return;
    }
    let seed = &seeds.lines[ctx.below(seeds.lines.len())];
    let mut text = if ctx.coin(0.5) {
        mutate_fields(ctx, seed, &seeds.names)
    } else {
        seed.clone()
    };
    if ctx.coin(0.5) {
        let mut bytes = text.into_bytes();
        mutate_bytes(ctx, &mut bytes);
        let lines = bytes.clone();
        ctx.guard(
            || format!("line reader over {:?}", String::from_utf8_lossy(&lines)),
            || mma_io::Lines::new(&lines[..]).count(),
        );
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    let shown = text.clone();
    ctx.guard(
        || shown,
        || {
            if let Ok(case) = mma::cases::parse_line(&text) {
                if let Ok((t, _)) = mma::cases::evaluate(&case) {
                    let _ = mma::cases::expected_d(&case, &t);
                }
            }
        },
    );
}

/// The seed record folder with one file mutated, through the reader and the checker.
pub fn hw_step(ctx: &mut Ctx, seeds: &Seeds) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let folder = dir.path().join("V100").join("fp16");
    if std::fs::create_dir_all(&folder).is_err() {
        return;
    }
    let victim = ctx.below(seeds.hw.len());
    let mut shown = String::new();
    for (i, (name, text)) in seeds.hw.iter().enumerate() {
        let mut bytes = text.as_bytes().to_vec();
        if i == victim {
            mutate_bytes(ctx, &mut bytes);
            shown = format!("{name}: {:?}", String::from_utf8_lossy(&bytes));
        }
        if std::fs::write(folder.join(name), &bytes).is_err() {
            return;
        }
    }
    let root = dir.path().to_path_buf();
    ctx.guard(
        || shown,
        || {
            let (sets, _errors) = mma::hw::load_dir(&root);
            for s in &sets {
                mma::hw::check_set(s);
            }
        },
    );
}

/// A random string: a mutated known name, a number-like text, or arbitrary characters.
fn random_text(ctx: &mut Ctx, names: &[String]) -> String {
    let base = match ctx.below(4) {
        0 => names[ctx.below(names.len())].clone(),
        1 => format!(
            "{}",
            ctx.rng.random::<f64>() * 10f64.powi(ctx.below(40) as i32 - 20)
        ),
        2 => [
            "nan", "inf", "-0", "1e999", "0x10", "", " 1", "16", "H100", "MI300X", "sm_90a",
        ][ctx.below(11)]
        .to_string(),
        _ => (0..ctx.below(12))
            .map(|_| char::from_u32(ctx.rng.random_range(0..0x3000)).unwrap_or('?'))
            .collect(),
    };
    let mut bytes = base.into_bytes();
    if ctx.coin(0.5) {
        mutate_bytes(ctx, &mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The codec's parsers of command-line words and operands (`mma::codec`) and the catalog look-ups
/// over arbitrary strings.
pub fn values_step(ctx: &mut Ctx) {
    let names = ctx_names();
    let s = random_text(ctx, names);
    let t = random_text(ctx, names);
    let shown = format!("{s:?} / {t:?}");
    ctx.guard(
        || shown,
        || {
            let _ = mma::codec::words::seconds(&s);
            let _ = mma::codec::words::samples(&s);
            let _ = mma::codec::words::gemm_size(&s);
            let _ = mma::codec::words::word_list(&s);
            let _ = mma::codec::operand::rounding(&s);
            for fmt in mma::format::ALL {
                let mode = Some(mma::Rounding::NearestEven);
                let _ = mma::codec::operand::classify(&s, fmt, fmt.hex_digits(), Some, None);
                if let Ok(Some(n)) = mma::codec::operand::parse_number(&s) {
                    let _ = mma::codec::operand::encode(fmt, &n, None);
                    let _ = mma::codec::operand::encode(fmt, &n, mode);
                }
            }
            let _ = mma::nvidia::parse_arch(&s);
            let _ = mma::amd::parse_arch(&s);
            let _ = mma::catalog::vendor_of(&s);
            let _ = mma::catalog::Vendor::parse(&s);
            let _ = mma::catalog::find(None, &s, None, &t);
            let _ = mma::catalog::find(None, "MI300X", Some(&s), &t);
            let _ = mma::catalog::select(None, Some(&s));
            let _ = mma::nvidia::find(&s, None, &t);
            let _ = mma::nvidia::find("H100", Some(&s), &t);
            let _ = mma::amd::find(&s, None, &t);
            let _ = mma::amd::find("MI300X", None, &t);
            let _ = s.parse::<mma::error_report::Source>();
        },
    );
}

/// Instruction and architecture names, built once.
fn ctx_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        // Every 11th NVIDIA spelling and every AMD one.
        let nvidia = |i: &mma::catalog::Row| i.vendor == mma::catalog::Vendor::Nvidia;
        let all = mma::catalog::instructions;
        all()
            .filter(nvidia)
            .step_by(11)
            .chain(all().filter(|i| !nvidia(i)))
            .map(|i| i.mnemonic.to_string())
            .collect()
    })
}
