//! The README's library snippet, kept compiling and correct.

#[test]
fn readme_snippet() -> Result<(), Box<dyn std::error::Error>> {
    let ins = mma::nvidia::find(
        "H100",
        None,
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
    )?;
    let (a, b) = (vec![0x3c00u64; 16], vec![0x3c00u64; 16]); // f16 1.0
    ins.unit.check(&a, &b, 0x3f80_0000, &[], &[])?;
    let d = ins.unit.dot(&a, &b, 0x3f80_0000, &[], &[]);
    // Sixteen products 1·1 plus C = 1: exactly 17.0.
    assert_eq!(d, 0x4188_0000);
    Ok(())
}
