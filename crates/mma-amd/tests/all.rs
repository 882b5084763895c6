//! Every integration test of the AMD catalog, as modules of one test binary: one link and one copy
//! of the generic code the tests instantiate, where a binary per file compiled and linked each
//! again (docs/performance.md, "Build time"). A module per file; nextest names a test
//! `module::test`.

mod differences;
mod fast_catalog;
mod hand_derived;
mod int_cdna4;
mod lookup;
mod mmasim_corpus;
