//! NVIDIA GPUs as data (`library/gpus.txt`, the schema of [`mma_core::gpu_table`]): for each
//! product, the catalog instruction its libraries' kernels are taken to issue per input dtype,
//! the library platform of its FP8 recipe, and the row's evidence. The catalog door's test
//! (`crates/mma-catalog/tests/door.rs`) checks that every cell names an instruction of this
//! catalog.

use mma_core::gpu_table::{parse_gpu_table, GpuRow};
use std::sync::OnceLock;

/// The FP8 formats of the table's `{a}`/`{b}` placeholders: (format name as `mma list`
/// prints it, the spelling in this vendor's instruction names).
pub const FP8_SPELLINGS: [(&str, &str); 2] = [("e4m3", "e4m3"), ("e5m2", "e5m2")];

/// Every GPU of the shipped table, read once.
pub fn gpus() -> &'static [GpuRow] {
    static ALL: OnceLock<Vec<GpuRow>> = OnceLock::new();
    ALL.get_or_init(|| {
        parse_gpu_table(include_str!("../library/gpus.txt"))
            .unwrap_or_else(|e| panic!("the shipped GPU table is invalid: {e}"))
    })
}
