//! The `units` target: unit files as a user may write them, valid or not. Each is built with
//! random formats and parameters (in range and out of it), written as JSON, sometimes mutated
//! byte by byte, and read back (`UnitFile`, `DotUnit::try_from`). A file the loader refuses
//! must be refused with an error, never a panic; a file it accepts must round-trip through
//! `UnitFile::from`, and its unit must compute: the lane batch, the per-dot kernel, the plain
//! model (`models::check`), the trace (`DotUnit::explain`) and the matrix driver
//! (`DotUnit::gemm` at the file's K, equal to the instructions chained by hand) all agree
//! bit for bit, and none panics.

use super::ctx::Ctx;
use mma::format::{self, Format};
use mma::unit_file::{Param, UnitFile};
use mma::{DotUnit, GemmIn};
use rand::Rng;
use std::collections::BTreeMap;

const MODELS: [&str; 9] = [
    "FMA",
    "E-FDPA",
    "T-FDPA",
    "ST-FDPA",
    "GST-FDPA",
    "Sliced-FDPA",
    "FTZ-MulAdd",
    "TR-FDPA",
    "GTR-FDPA",
];

/// A format name: one of the project's formats, now and then `e8m13` or nonsense.
fn format_name(ctx: &mut Ctx) -> String {
    match ctx.below(20) {
        0 => "e8m13".into(),
        1 => "f17".into(),
        _ => format::ALL[ctx.below(format::ALL.len())].name.into(),
    }
}

/// An integer: usually small and plausible, sometimes an extreme.
fn int(ctx: &mut Ctx, lo: i64, hi: i64) -> Param {
    Param::Int(match ctx.below(10) {
        0 => [0, -1, 1 << 20, -(1 << 20), i64::from(i32::MAX), i64::MIN][ctx.below(6)],
        _ => ctx.rng.random_range(lo..=hi),
    })
}

fn text(ctx: &mut Ctx, options: &[&str]) -> Param {
    if ctx.coin(0.05) {
        return Param::Text("bogus".into());
    }
    Param::Text(options[ctx.below(options.len())].into())
}

/// The output keys of most models.
fn output(ctx: &mut Ctx, p: &mut BTreeMap<String, Param>, d: &str) {
    let fmt = if ctx.coin(0.8) {
        match d {
            "f32" if ctx.coin(0.3) => "E8M13".to_string(),
            "f32" => "FP32".into(),
            "f16" => "FP16".into(),
            other => other.to_uppercase(),
        }
    } else {
        format_name(ctx).to_uppercase()
    };
    let mode = ["RNE", "RZ", "RU", "RD", "RNA"][ctx.below(5)];
    p.insert("rho".into(), Param::Text(format!("{mode}-{fmt}")));
    p.insert("overflow".into(), text(ctx, &["ieee", "inf", "saturate"]));
    if ctx.coin(0.3) {
        p.insert("ftz".into(), Param::Flag(ctx.coin(0.5)));
    }
    p.insert(
        "nan".into(),
        text(ctx, &["all-ones", "default", "negative"]),
    );
    p.insert("neg_zero_to_pos".into(), Param::Flag(ctx.coin(0.5)));
}

/// A random unit file, mostly well formed.
fn unit_file(ctx: &mut Ctx) -> UnitFile {
    let model = MODELS[ctx.below(MODELS.len())];
    let small = ["e4m3", "e5m2", "e2m1", "e3m2", "e2m3"];
    let wide = ["f16", "bf16", "tf32", "f32", "f64"];
    let a = if ctx.coin(0.5) {
        small[ctx.below(small.len())].to_string()
    } else if ctx.coin(0.9) {
        wide[ctx.below(wide.len())].to_string()
    } else {
        format_name(ctx)
    };
    let b = if ctx.coin(0.8) {
        a.clone()
    } else {
        format_name(ctx)
    };
    let c = ["f32", "f16", "f64", "bf16"][ctx.below(4)].to_string();
    let d = if ctx.coin(0.8) {
        c.clone()
    } else {
        format_name(ctx)
    };
    let scaled = matches!(model, "ST-FDPA" | "GST-FDPA") || ctx.coin(0.05);
    let choices = if ctx.coin(0.9) { 7 } else { 10 };
    let l_max = [1, 2, 4, 8, 16, 32, 64, 0, 65, 3][ctx.below(choices)];
    let (scale, scale_block) = if scaled {
        (
            Some(["ue8m0", "ue4m3", "e4m3"][ctx.below(3)].to_string()),
            Some([16, 32, l_max.max(1), 0, 7][ctx.below(5)]),
        )
    } else {
        (None, None)
    };
    let k = match ctx.below(6) {
        0 => None,
        1 => Some([0, 3, 7, 128][ctx.below(4)]),
        _ => Some(l_max.max(1) * [1, 1, 2, 4][ctx.below(4)]),
    };
    let mut p = BTreeMap::new();
    match model {
        "FMA" => {
            p.insert(
                "rounding".into(),
                text(ctx, &["RNE", "RZ", "RU", "RD", "RNA"]),
            );
            p.insert(
                "nan".into(),
                text(ctx, &["all-ones", "default", "negative"]),
            );
        }
        "FTZ-MulAdd" => {
            p.insert("P".into(), int(ctx, 1, 8));
            p.insert(
                "acc".into(),
                Param::Text(if ctx.coin(0.8) {
                    d.clone()
                } else {
                    format_name(ctx)
                }),
            );
            p.insert(
                "nan".into(),
                text(ctx, &["all-ones", "default", "negative"]),
            );
        }
        "E-FDPA" => output(ctx, &mut p, &d),
        "T-FDPA" | "ST-FDPA" => {
            p.insert("F".into(), int(ctx, 1, 40));
            p.insert("e_zero".into(), int(ctx, -300, 0));
            output(ctx, &mut p, &d);
        }
        "GST-FDPA" => {
            // Mostly a G that divides the scale block (one scale pair per group), as the
            // reader requires; now and then any.
            let g = match scale_block {
                Some(n) if n > 0 && ctx.coin(0.8) => {
                    let divisors: Vec<usize> = (1..=n).filter(|g| n % g == 0).collect();
                    Param::Int(divisors[ctx.below(divisors.len())] as i64)
                }
                _ => int(ctx, 1, 20),
            };
            p.insert("G".into(), g);
            p.insert("F".into(), int(ctx, 1, 40));
            p.insert("e_zero".into(), int(ctx, -300, 0));
            output(ctx, &mut p, &d);
        }
        "Sliced-FDPA" => {
            p.insert("passes".into(), int(ctx, 1, 4));
            p.insert("group".into(), int(ctx, 1, 32));
            p.insert("F".into(), int(ctx, 1, 40));
            p.insert("e_zero".into(), int(ctx, -300, 0));
            p.insert("last".into(), text(ctx, &["RNE", "RZ", "RU", "RD"]));
            output(ctx, &mut p, &d);
        }
        _ => {
            p.insert("F".into(), int(ctx, 1, 40));
            p.insert("F2".into(), int(ctx, 1, 40));
            p.insert("e_zero_c".into(), int(ctx, -300, 0));
            p.insert("e_norm_min".into(), int(ctx, -300, 0));
            if model == "GTR-FDPA" {
                p.insert("c_drop".into(), int(ctx, 0, 64));
            } else if ctx.coin(0.3) {
                p.insert("product_inf_exp".into(), int(ctx, 100, 200));
            }
            output(ctx, &mut p, &d);
        }
    }
    if ctx.coin(0.03) {
        p.insert("unknown".into(), Param::Int(1));
    }
    UnitFile {
        a,
        b,
        c,
        d,
        scale,
        scale_block,
        k,
        l_max,
        // How case files hold A and B: mostly absent, sometimes each layout or a misspelling.
        layout: if ctx.coin(0.7) {
            None
        } else {
            Some(["plain", "byte", "packed_fp4", "bytes"][ctx.below(4)].to_string())
        },
        model: model.into(),
        params: p,
    }
}

/// One unit file: built, written, maybe mutated, read, and if accepted, computed with.
pub fn step(ctx: &mut Ctx) {
    let file = unit_file(ctx);
    let mut json = serde_json::to_string(&file)
        .unwrap_or_default()
        .into_bytes();
    if ctx.coin(0.2) && !json.is_empty() {
        for _ in 0..1 + ctx.below(3) {
            let i = ctx.below(json.len());
            json[i] = b"{}[]\":,-0123456789aeE"[ctx.below(21)];
        }
    }
    let text = String::from_utf8_lossy(&json).into_owned();
    let read = ctx.guard(
        || format!("unit file {text}"),
        || -> Option<(UnitFile, DotUnit)> {
            let f: UnitFile = serde_json::from_str(&text).ok()?;
            let u = DotUnit::try_from(&f).ok()?;
            Some((f, u))
        },
    );
    let Some(Some((file, unit))) = read else {
        return;
    };
    // The layout check answers (a layout or an error naming the key) and never panics.
    if ctx
        .guard(|| format!("layout of {text}"), || file.case_layout())
        .is_none()
    {
        return;
    }
    // What the loader accepts round-trips.
    let again = DotUnit::try_from(&UnitFile::from(&unit));
    if again.as_ref().ok() != Some(&unit) {
        ctx.report(format!("unit file does not round-trip ({again:?}): {text}"));
        return;
    }
    let k = file.k.unwrap_or(unit.block);
    let name = format!("unit file {text}");
    let Some(kernel) = ctx.guard(|| name.clone(), || unit.kernel()) else {
        return;
    };
    super::models::check(ctx, &name, &unit, &kernel, k);
    trace_and_gemm(ctx, &name, &unit, k);
}

/// The trace's result is the plain model's; the matrix driver at the file's K over two
/// instructions equals the two chained by hand (where D can be fed back as C).
fn trace_and_gemm(ctx: &mut Ctx, name: &str, unit: &DotUnit, k: usize) {
    let f = unit.formats;
    let word = |fmt: &Format, ctx: &mut Ctx| ctx.rng.random::<u64>() & fmt.storage_mask();
    let valid = |fmt: &Format, w: u64| if fmt.is_valid_encoding(w) { w } else { 0 };
    let steps = if f.c == f.d { 2 } else { 1 };
    let kk = k * steps;
    let a: Vec<u64> = (0..kk)
        .map(|_| word(&f.a, ctx))
        .map(|w| valid(&f.a, w))
        .collect();
    let b: Vec<u64> = (0..kk)
        .map(|_| word(&f.b, ctx))
        .map(|w| valid(&f.b, w))
        .collect();
    let c = valid(&f.c, word(&f.c, ctx));
    let ns = unit.scales_for(k);
    let one = f.scale.map_or(0, |(sf, _)| {
        // A scale of 1 (exponent at the bias).
        (sf.bias as u64) << sf.man_bits
    });
    let (sa, sb) = (vec![one; ns * steps], vec![one; ns * steps]);
    let desc = || format!("{name}: a={a:x?} b={b:x?} c={c:x}");
    let got = ctx.guard(desc, || {
        let mut chained = c;
        for t in 0..steps {
            let r = t * k..(t + 1) * k;
            let s = t * ns..(t + 1) * ns;
            chained = unit.dot_plain_scaled(&a[r.clone()], &b[r], chained, &sa[s.clone()], &sb[s]);
        }
        let traced = unit.explain_by_instruction(k, &a, &b, c, &sa, &sb).d;
        let mut d = [0u64];
        let x = GemmIn {
            a: &a,
            b_cols: &b,
            c: &[c],
            scale_a: &sa,
            scale_b: &sb,
        };
        let gemm = unit.gemm((1, 1, kk), k, &x, &mut d, 1).map(|()| d[0]);
        (chained, traced, gemm)
    });
    if let Some((chained, traced, gemm)) = got {
        if traced != chained || gemm.as_ref().is_ok_and(|&g| g != chained) {
            ctx.report(format!(
                "instructions chained {chained:x}, trace {traced:x}, gemm {gemm:?}: {}",
                desc_text(name, &a, &b, c)
            ));
        }
    }
}

fn desc_text(name: &str, a: &[u64], b: &[u64], c: u64) -> String {
    format!("{name}: a={a:x?} b={b:x?} c={c:x}")
}
