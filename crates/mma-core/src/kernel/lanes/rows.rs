//! Operand rows into vector lanes: the generic entry to the row loads of each width
//! ([`Vector::columns`] and its shorter forms, in `x86/ymm.rs`, `x86/zmm.rs` and `aarch64/neon.rs`), and the
//! way back from lanes to rows is `Rows::with_row` (`words.rs`).
//! Soundness: `x86/mod.rs`; every pointer read is argued where it happens.

use super::vector::Vector;
use crate::kernel::words::{Rows, Word};

impl<W: Word> Rows<'_, W> {
    /// The columns of a block of `N` elements from `k0` for a group of `V::LANES` rows: eight
    /// ([`Vector::columns`]), or the four of a block of four ([`Vector::columns4`]), or the two
    /// of a block of two (two of the four columns around them where the rows have four,
    /// which transposes in registers; else [`Vector::columns2`]: one load where the rows are
    /// pairs of 16-bit words that follow each other, word by word otherwise).
    #[inline(always)]
    pub(in crate::kernel) fn block_columns<V: Vector, const N: usize>(
        &self,
        k0: usize,
    ) -> [V::I; 8] {
        if N <= 2 {
            if self.k() < 4 {
                return V::columns2(self, k0);
            }
            let from = k0.min(self.k() - 4);
            let c = V::columns4(self, from);
            let (z, at) = (V::zero(), k0 - from);
            [c[at], c[at + 1], z, z, z, z, z, z]
        } else if N < 8 {
            V::columns4(self, k0)
        } else {
            V::columns(self, k0)
        }
    }

    /// The columns of a block of `N` elements from `k0` (as [`Rows::block_columns`]) in pairs,
    /// `out[m]` = [`Vector::pack16`] of columns `2m` and `2m + 1`: read directly in that
    /// layout for rows of 16-bit words and `N >= 8` ([`Vector::pairs16`]), or `N = 4` and rows
    /// of four that follow each other ([`Vector::pairs16_4`]).
    #[inline(always)]
    pub(in crate::kernel) fn block_pairs16<V: Vector, const N: usize>(
        &self,
        k0: usize,
    ) -> [V::I; 4] {
        if W::BYTES == 2 && N >= 8 {
            return V::pairs16(self, k0);
        }
        if W::BYTES == 2 && N == 4 && self.stride == 4 {
            let [p0, p1] = V::pairs16_4(self, k0);
            return [p0, p1, V::zero(), V::zero()];
        }
        let c = self.block_columns::<V, N>(k0);
        [
            V::pack16(c[0], c[1]),
            V::pack16(c[2], c[3]),
            V::pack16(c[4], c[5]),
            V::pack16(c[6], c[7]),
        ]
    }
}
