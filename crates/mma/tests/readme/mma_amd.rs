fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Also found by the mmasim suffix (f32_32x32x8_f16) or the builtin's name.
    let ins = mma_amd::find("MI300X", None, "v_mfma_f32_32x32x8_f16")?;
    assert_eq!(ins.k, 8);
    let (a_row, b_col) = ([0x3c00u64; 8], [0x3c00u64; 8]); // f16 1.0, raw storage words
    let c = 0x3f00_0000; // f32 0.5
    let d = ins.dot(&a_row, &b_col, c);
    assert_eq!(d, 0x4108_0000); // 8 · 1.0 + 0.5 = 8.5, exactly
    Ok(())
}
