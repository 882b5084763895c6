//! Every integration test of the oracle, as modules of one test binary: one link and one copy of
//! the generic code the tests instantiate, where a binary per file compiled and linked each again
//! (docs/performance.md, "Build time"). A module per file; nextest names a test `module::test`.

mod common;
mod dot_report_bounds;
mod exhaustive;
mod sample_stats;
mod vs_core_round;
mod vs_half;
mod vs_softfloat;
