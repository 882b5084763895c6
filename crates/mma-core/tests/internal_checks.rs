//! The checks of private steps that live beside their code (`mma_core::internal_checks`, the
//! `internal-checks` feature: `src/lib.rs` says why they are not unit tests), one test each, and
//! a test that every check is listed here: a check nobody calls would pass by not running.

use mma_core::internal_checks::{fma, ftz_mul_add, gtr_fdpa, kernel, split_k, tr_fdpa};

/// `(module, check)`: every check, run by the test of the same name below.
macro_rules! checks {
    ($($module:ident :: $check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                $module::$check();
            }
        )*
        const LISTED: &[(&str, &str)] = &[$((stringify!($module), stringify!($check))),*];
    };
}

checks! {
    kernel::tables_match_decode,
    kernel::arithmetic_16_bit_decoders_match_tables,
    kernel::tf32_decoder_matches_format_decode,
    kernel::fast_round_matches_round_encode,
    kernel::sliced_last_add_matches_add_c_last,
    kernel::byte_permute_matches_its_definition,
    fma::fp32_fma_matches_softfloat_in_every_mode,
    fma::fp64_fma_matches_softfloat_in_every_mode,
    ftz_mul_add::exact_fp32_add_matches_softfloat,
    ftz_mul_add::exact_fp32_mul_matches_softfloat,
    ftz_mul_add::input_flush_makes_subnormals_and_negative_zero_positive_zero,
    gtr_fdpa::group_sums_are_rounded_down_separately,
    gtr_fdpa::no_products_means_no_dot,
    tr_fdpa::floor_shift_rounds_toward_minus_infinity,
    tr_fdpa::zero_c_counts_at_its_e_zero,
    tr_fdpa::exact_cancellation_is_positive_zero,
    split_k::ieee_addition,
    split_k::matches_host_fp32_addition,
}

/// The source of each module's checks: the kernel's file, or the `checks` module at the end of
/// a model's file.
const SOURCES: &[(&str, &str)] = &[
    ("kernel", include_str!("../src/kernel/checks.rs")),
    ("fma", include_str!("../src/models/fma.rs")),
    ("ftz_mul_add", include_str!("../src/models/ftz_mul_add.rs")),
    ("gtr_fdpa", include_str!("../src/models/gtr_fdpa.rs")),
    ("tr_fdpa", include_str!("../src/models/tr_fdpa.rs")),
    ("split_k", include_str!("../src/split_k.rs")),
];

/// The public functions of a module's checks: every `pub fn` of the kernel's file, or of a
/// model file after its `pub mod checks {` line.
fn checks_in(module: &str, source: &str) -> Vec<String> {
    let body = match module {
        "kernel" => source,
        _ => {
            let at = source
                .find("\npub mod checks {")
                .unwrap_or_else(|| panic!("{module}: no `pub mod checks`"));
            &source[at..]
        }
    };
    body.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub fn "))
        .map(|rest| rest.split('(').next().unwrap_or(rest).to_string())
        .collect()
}

#[test]
fn every_check_is_listed_once() {
    let mut found = Vec::new();
    for (module, source) in SOURCES {
        for check in checks_in(module, source) {
            found.push(format!("{module}::{check}"));
        }
    }
    let mut listed: Vec<String> = LISTED.iter().map(|(m, c)| format!("{m}::{c}")).collect();
    found.sort();
    listed.sort();
    assert_eq!(
        found, listed,
        "the checks in the sources and those listed here"
    );
    // The planted case: a file whose check is not listed is found.
    let planted = "pub mod checks {\n    pub fn not_listed() {}\n}\n";
    assert_eq!(checks_in("fma", &format!("\n{planted}")), ["not_listed"]);
}
