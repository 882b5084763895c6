//! placeholder until the AMD catalog lands
use mma_core::DotUnit;
pub struct Instruction {
    pub name: String,
    pub k: usize,
    pub unit: DotUnit,
}
#[derive(Debug, thiserror::Error)]
#[error("AMD catalog not available: {0}")]
pub struct CatalogError(String);
pub fn find(_arch: &str, name: &str) -> Result<&'static Instruction, CatalogError> {
    Err(CatalogError(name.to_string()))
}
