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

    // Many dot products at once (eight across vector lanes in AVX2 builds).
    let kern = ins.unit.kernel();
    let (n, k) = (1000, 16);
    let (a, b, c) = (
        vec![0x3c00u64; n * k],
        vec![0x3c00u64; n * k],
        vec![0u64; n],
    );
    let mut d = vec![0u64; n];
    kern.dots(k, &a, &b, &c, &[], &[], &mut d)?;
    // Sixteen products 1·1 plus C = +0: exactly 16.0.
    assert!(d.iter().all(|&x| x == 0x4180_0000));
    // A length that does not match is an error naming the operand.
    let err = kern.dots(k, &a[1..], &b, &c, &[], &[], &mut d).unwrap_err();
    assert_eq!(err.to_string(), "A: 15999 elements, expected 16000");
    Ok(())
}
