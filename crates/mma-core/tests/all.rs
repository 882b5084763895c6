//! Every integration test of the core, as modules of one test binary: one link and one copy of the
//! generic code the tests instantiate, where a binary per file compiled and linked each again
//! (docs/performance.md, "Build time"). A module per file; nextest names a test `module::test`.

mod common;
mod exact_dot;
mod fast_paths;
mod formats;
mod gemm;
mod integer;
mod integer_kernel;
mod internal_checks;
mod lanes;
mod layout;
mod library;
mod models;
mod scaled_gtr;
mod sparse;
