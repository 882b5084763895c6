//! How the catalogs read the names users type for one of a fixed set of items (a vendor's
//! operations: `"MMA"`, `"mfma"`), in one place for both vendor crates, so that their case
//! files and command lines accept the same spellings.

/// The item of `all` whose `name` is `s` in any ASCII case (`"wgmma"` for `"WGMMA"`); `None`
/// when there is none, for the caller's own error, which names the field and the choices.
///
/// ```
/// let all = [1u8, 2];
/// let name = |x: u8| if x == 1 { "MMA" } else { "WGMMA" };
/// assert_eq!(mma_core::catalog_names::by_name(&all, name, "wgmma"), Some(2));
/// assert_eq!(mma_core::catalog_names::by_name(&all, name, "mfma"), None);
/// ```
pub fn by_name<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, s: &str) -> Option<T> {
    all.iter()
        .copied()
        .find(|&x| name(x).eq_ignore_ascii_case(s))
}
