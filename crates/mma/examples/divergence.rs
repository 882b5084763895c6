//! Why two GPUs disagree: one f16 dot product, evaluated bit for bit on the f16 → f32
//! instruction of every architecture (the first paper's Table IV example: C = -2^23, products
//! 2^23, -1/2, -1/4, -1/8; the exact result is -0.875).
//!
//! Run with `cargo run --example divergence -p mma`.

use mma::nvidia::{find, Arch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A row and B column as f16 bits, C as f32 bits.
    let mut a = vec![0x6c00u64, 0xb800, 0xb400, 0xb000];
    let mut b = vec![0x6800u64, 0x3c00, 0x3c00, 0x3c00];
    let c = 0xcb00_0000u64;
    for arch in Arch::ALL {
        let name = match arch {
            Arch::Volta => "m8n8k4.f32.f16.f16.f32",
            Arch::Turing => "m16n8k8.f32.f16.f16.f32",
            _ => "m16n8k16.f32.f16.f16.f32",
        };
        let ins = find(arch.name(), None, name)?;
        a.resize(ins.k, 0);
        b.resize(ins.k, 0);
        let unit = &ins.unit;
        unit.check(&a, &b, c, &[], &[])?;
        let d = unit.dot(&a, &b, c, &[], &[]);
        let v = unit.formats.d.decode(d).to_f64();
        println!(
            "{:14} {:28} d = {d:08x} = {v:+}   ({})",
            arch.name(),
            ins.name,
            unit.describe()
        );
    }
    // The same products on AMD CDNA1 (exact sum, one rounding): the exact -0.875.
    let ins = mma::amd::find("MI100", "v_mfma_f32_32x32x8f16")?;
    let d = ins.unit.dot(&a[..ins.k], &b[..ins.k], c, &[], &[]);
    println!(
        "{:14} {:28} d = {d:08x} = {:+}",
        "CDNA1",
        ins.name,
        ins.unit.formats.d.decode(d).to_f64()
    );
    Ok(())
}
