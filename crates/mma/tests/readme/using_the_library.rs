fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The one catalog door: vendor (None: the one that knows the GPU), GPU, operation, name.
    let ins = mma::catalog::find(
        None,
        "H100",
        None,
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
    )?;
    let (a, b) = (vec![0x3c00u64; 16], vec![0x3c00u64; 16]); // f16 1.0
    ins.unit.check(&a, &b, 0x3f80_0000)?; // shapes and encodings
    let d = ins.unit.dot(&a, &b, 0x3f80_0000);
    assert_eq!(d, 0x4188_0000); // 16 · 1.0 + 1.0 = 17.0, exactly

    // n dot products: rows of A and B one after another, one C and one D word each.
    let kern = ins.unit.kernel();
    println!("lane path: {} ({:?})", kern.is_batched(), kern.isa()); // true on AVX2 and aarch64 CPUs
    let (n, k) = (1000, 16);
    let (a, b, c) = (
        vec![0x3c00u64; n * k],
        vec![0x3c00u64; n * k],
        vec![0u64; n],
    );
    let mut d = vec![0u64; n];
    kern.dots(k, &a, &b, &c, &mut d)?;
    assert!(d.iter().all(|&x| x == 0x4180_0000)); // 16.0 each
    Ok(())
}
