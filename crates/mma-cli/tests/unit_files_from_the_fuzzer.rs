//! Regression tests of the `units` fuzz target's findings (unit files as users may write
//! them): each panicked, looped for minutes or gave wrong bits before its fix. A file the
//! models can compute gives the hand-derived result written next to it; one they cannot is
//! refused when read, naming the key and the reason.

use crate::common;
use common::mma;
use std::path::Path;

fn unit_file(dir: &Path, name: &str, json: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, json).unwrap();
    p.to_str().expect("utf-8 path").to_string()
}

/// `mma dot --unit FILE` on bit patterns; returns (exit code, stdout, stderr).
fn dot(unit: &str, a: &str, b: &str, c: &str) -> (i32, String, String) {
    mma(&["dot", "--unit", unit, "--a", a, "--b", b, "--c", c])
}

#[test]
fn ftz_mul_add_adds_a_c_far_above_its_accumulator_anchor() {
    // FTZ-MulAdd with f64 products and C: the pairwise adds summed in a fixed-point window
    // anchored at 2^-352 that ends near 2^344; C = 2^900 lay beyond it (a panic in debug
    // builds, C dropped in release). Hand derivation: the products are 1·1 = 1 and 0·0 = +0,
    // their group sum 1; 2^900 + 1 rounded to nearest even in f64 is 2^900 (1 lies 848 bits
    // below its last place): exponent field 900 + 1023 = 0x783, D = 0x7830000000000000.
    let dir = tempfile::tempdir().unwrap();
    let unit = unit_file(
        dir.path(),
        "ftz.json",
        r#"{"a":"f16","b":"f16","c":"f64","d":"f64","L_max":2,"model":"FTZ-MulAdd","params":{"P":2,"acc":"f64","nan":"default"}}"#,
    );
    let (code, out, err) = dot(&unit, "1,0", "1,0", "bits:7830000000000000");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("7830000000000000"), "{out}");
}

#[test]
fn fma_rounds_down_past_a_tiny_c_of_the_other_sign() {
    // An FMA whose operands lie more than the accumulator's span apart keeps the small one as
    // a sticky bit. It kept the big operand's own significand (here a 4-bit e2m3 product),
    // whose last place lies far above f64's: 1 - tiny rounded down came out as 255/256.
    // Hand derivation: 1·1 + (-2^-1000) lies strictly between 1 - 2^-53 (the f64 just
    // below 1) and 1, so rounding down gives 1 - 2^-53 = 0x3FEFFFFFFFFFFFFF. C = -2^-1000:
    // sign 1, exponent field -1000 + 1023 = 23 = 0x017, bits 0x8170000000000000.
    let dir = tempfile::tempdir().unwrap();
    let unit = unit_file(
        dir.path(),
        "fma.json",
        r#"{"a":"e2m3","b":"e2m3","c":"f64","d":"f64","L_max":1,"model":"FMA","params":{"nan":"default","rounding":"RD"}}"#,
    );
    let (code, out, err) = dot(&unit, "1", "1", "bits:8170000000000000");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3fefffffffffffff"), "{out}");
}

#[test]
fn tr_fdpa_keeps_c_on_its_own_finer_grid() {
    // TR-FDPA with F = 20 > F2 + 1 = 5: C's grid (2^(e_max - F)) lies below the product
    // sum's (2^(e_max - F2 - 1)); the shift between them was negative (a panic). Hand
    // derivation: one product 1·1 = 1, so e_dot = 0 and e_max = max(0, e_c = -3) = 0. The
    // product sum is 1 on the grid 2^-5; C = 2^-3 + 2^-8 rounded down to 2^-20 is itself.
    // Their exact sum 1 + 2^-3 + 2^-8 rounded down to F2 = 4 fraction bits is 1.125, which
    // RNE to fp32 keeps: D = 0x3F900000.
    let dir = tempfile::tempdir().unwrap();
    let unit = unit_file(
        dir.path(),
        "tr.json",
        r#"{"a":"f16","b":"f16","c":"f32","d":"f32","L_max":1,"model":"TR-FDPA","params":{"F":20,"F2":4,"e_zero_c":-126,"e_norm_min":-126,"rho":"RNE-FP32","overflow":"ieee","nan":"default","neg_zero_to_pos":true}}"#,
    );
    // 2^-3 + 2^-8 = 0.12890625: fp32 exponent field 124 (0x3E000000), fraction 2^-5 of it.
    let (code, out, err) = dot(&unit, "1", "1", "bits:3e040000");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3f900000"), "{out}");
}

#[test]
fn unit_files_the_models_cannot_compute_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // Group sums of e5m2 products (up to 2^32) need more than GST-FDPA's 64 bits.
        (
            r#"{"a":"e5m2","b":"e5m2","c":"f32","d":"f32","scale":"ue8m0","scale_block":16,"L_max":16,"model":"GST-FDPA","params":{"G":16,"F":35,"e_zero":-139,"rho":"RZ-FP32","overflow":"inf","nan":"all-ones","neg_zero_to_pos":true}}"#,
            "GST-FDPA keeps 64",
        ),
        // A group of 9 across scale blocks of 1 took its first element's scale only.
        (
            r#"{"a":"e2m1","b":"e2m1","c":"f32","d":"f32","scale":"ue8m0","scale_block":1,"L_max":16,"model":"GST-FDPA","params":{"G":9,"F":35,"e_zero":-139,"rho":"RZ-FP32","overflow":"inf","nan":"all-ones","neg_zero_to_pos":true}}"#,
            "G must divide the elements per scale factor (1)",
        ),
        // A million passes ran for a minute per dot product.
        (
            r#"{"a":"e4m3","b":"e4m3","c":"f32","d":"f32","L_max":16,"model":"Sliced-FDPA","params":{"F":25,"e_zero":-133,"group":2,"passes":1048576,"last":"RNE","rho":"RZ-FP32","overflow":"inf","nan":"default","neg_zero_to_pos":true}}"#,
            "\"passes\"",
        ),
        // Scales on a model that does not apply them were checked for NaN by one path and
        // ignored by the other.
        (
            r#"{"a":"e4m3","b":"e4m3","c":"f32","d":"f32","scale":"e4m3","scale_block":2,"L_max":2,"model":"E-FDPA","params":{"rho":"RZ-FP32","overflow":"ieee","nan":"default","neg_zero_to_pos":false}}"#,
            "only ST-FDPA, GST-FDPA and GTR-FDPA apply block scale factors",
        ),
        // Without "k" the instruction is one block of 8, which holds no whole scale block.
        (
            r#"{"a":"e4m3","b":"e4m3","c":"f32","d":"f32","scale":"ue8m0","scale_block":32,"L_max":8,"model":"ST-FDPA","params":{"F":25,"e_zero":-133,"rho":"RZ-FP32","overflow":"inf","nan":"default","neg_zero_to_pos":true}}"#,
            "must be a multiple of the elements per scale factor (32); give \"k\"",
        ),
        // f64 × e4m3 significands (57 bits) times two ue4m3 scale significands overflowed.
        (
            r#"{"a":"f64","b":"e4m3","c":"f32","d":"f32","scale":"ue4m3","scale_block":16,"L_max":16,"model":"ST-FDPA","params":{"F":25,"e_zero":-133,"rho":"RZ-FP32","overflow":"inf","nan":"default","neg_zero_to_pos":true}}"#,
            "products (scaled) need 65 significand bits",
        ),
    ];
    for (i, (json, why)) in cases.iter().enumerate() {
        let unit = unit_file(dir.path(), &format!("u{i}.json"), json);
        let (code, _, err) = dot(&unit, "1", "1", "0");
        assert_eq!(code, 2, "{json}: {err}");
        assert!(err.contains(why), "{json}: {err}");
    }
}
