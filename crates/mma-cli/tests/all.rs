//! Every integration test of the command line (each test runs the built `mma` binary), as modules
//! of one test binary: one link and one copy of the generic code the tests instantiate, where a
//! binary per file compiled and linked each again (docs/performance.md, "Build time"). A module per
//! file; nextest names a test `module::test`.

mod bench_cli;
mod broken_by_users;
mod cli;
mod common;
mod dot_values;
mod error_report_file;
mod explain_compare;
mod gemm_checks;
mod gemm_cli;
mod gemm_library_cli;
mod gemm_memory;
mod help_and_list;
mod infer_hw;
mod input_contract;
mod integer_kernel_catalog;
mod integer_operands;
mod probe_cli;
mod questions;
mod sparse_operands;
mod unit_file_cli;
mod unit_files_from_the_fuzzer;
