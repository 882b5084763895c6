//! Every integration test of the facade, as modules of one test binary: one link and one copy of
//! the generic code the tests instantiate, where a binary per file compiled and linked each again
//! (docs/performance.md, "Build time"). A module per file; nextest names a test `module::test`.

#[cfg(all(feature = "nvidia", feature = "amd", feature = "oracle"))]
mod error_bounds;
#[cfg(all(feature = "nvidia", feature = "amd"))]
mod evidence;
mod isa;
mod library_edges;
mod mmasim_nvidia;
mod readme;
mod unit_files;
mod vendor_shape;
