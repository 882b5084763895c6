//! Structured sparsity: which elements of a row of A an instruction's metadata selects.
//!
//! A structured-sparse instruction (NVIDIA `mma.sp`, `wgmma.mma_async.sp`, `tcgen05.mma.sp`;
//! AMD `v_smfmac`) takes a row of A of logical length K that holds, in every group of
//! `group` consecutive elements, at most `keep` non-zero ones: 2 of each 4 (1 of each 2 for
//! tf32, which the ISA spells as pairs; 4 of each 8 in adjacent pairs for the fp4 kinds
//! `mxf4` and `mxf4nvf4`, the PTX ISA's pair-wise sparsity, which sf-tensor/tcgen05's MODEL.md
//! describes the same way: two pair selectors per eight elements). A holds only the kept elements (K·keep/group of
//! them, "compressed"), and the metadata says, for each kept element, its position within
//! its group. The instruction multiplies each kept element with B's element at that logical
//! position; the other positions of B are not read.
//!
//! What the arithmetic does with the selected products is not in any ISA text. This project
//! takes the reading a published B200 model states (sf-tensor/tcgen05, MIT, its MODEL.md, a
//! 46 M-case B200 validation reported there): the disabled positions are absent from the dot
//! product (a NaN or Inf there has no effect) and the selected products meet as the dense
//! instruction's products do, in the dense unit's blocks. So a sparse instruction here is its
//! dense unit applied to the compressed A and the gathered B: this module turns (A, B,
//! metadata) into those two vectors, and nothing downstream knows about sparsity. No record
//! of an Ampere, Ada, Hopper or CDNA3 sparse instruction is public: their rows are unverified.
//!
//! The metadata is written per kept element (its index within the group, `0..group`), in the
//! order of the kept elements; within a group the indices must increase (two kept elements
//! never share a position; PTX's `.sp::ordered_metadata` states the order, and the hardware
//! encodings of the other selectors are undefined behaviour). [`Sparsity::nibble`] gives the
//! 4-bit field the PTX metadata register holds for a pair of a 2:4 group (`i0 | i1 << 2`).

/// The sparsity pattern of an instruction: `keep` of every `group` consecutive elements;
/// with `pairs`, the kept elements come in adjacent pairs (2i, 2i + 1) of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sparsity {
    pub keep: usize,
    pub group: usize,
    pub pairs: bool,
}

/// Why a row's metadata selects nothing valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SparseError {
    #[error("{got} metadata indices for K = {k}; {pattern} sparsity keeps {want}")]
    Count {
        got: usize,
        k: usize,
        want: usize,
        pattern: String,
    },
    #[error("group {group}: selector {indices:?} is not allowed ({why})")]
    Selector {
        group: usize,
        indices: Vec<u8>,
        why: &'static str,
    },
    #[error("{what} has {got} elements, expected {want}")]
    Length {
        what: &'static str,
        got: usize,
        want: usize,
    },
}

impl Sparsity {
    /// 2 of each 4 (f16, bf16, fp8, integer and fp4 sparse forms).
    pub const TWO_OF_FOUR: Sparsity = Sparsity {
        keep: 2,
        group: 4,
        pairs: false,
    };
    /// 1 of each 2 (tf32).
    pub const ONE_OF_TWO: Sparsity = Sparsity {
        keep: 1,
        group: 2,
        pairs: false,
    };
    /// 4 of each 8 as two adjacent pairs (`kind::mxf4`, `kind::mxf4nvf4`): the metadata still
    /// gives each kept element's index in its group, so a group's four indices are
    /// `2p, 2p + 1, 2q, 2q + 1` with p < q.
    pub const PAIRS_FOUR_OF_EIGHT: Sparsity = Sparsity {
        keep: 4,
        group: 8,
        pairs: true,
    };

    /// `2:4`, `1:2`, `4:8-pairs`.
    pub fn name(&self) -> String {
        let pairs = if self.pairs { "-pairs" } else { "" };
        format!("{}:{}{pairs}", self.keep, self.group)
    }

    /// The pattern [`Sparsity::name`] spells as `name`.
    pub fn by_name(name: &str) -> Option<Sparsity> {
        [
            Sparsity::TWO_OF_FOUR,
            Sparsity::ONE_OF_TWO,
            Sparsity::PAIRS_FOUR_OF_EIGHT,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }

    /// Elements A stores (and metadata indices) for a logical K: `K·keep/group`.
    pub const fn stored(&self, k: usize) -> usize {
        k / self.group * self.keep
    }

    /// Checks a row's metadata for a logical `k`: one index per kept element, each below
    /// `group`, increasing within each group. The error names the group (from 0).
    pub fn check(&self, k: usize, indices: &[u8]) -> Result<(), SparseError> {
        let want = self.stored(k);
        if indices.len() != want || !k.is_multiple_of(self.group) {
            return Err(SparseError::Count {
                got: indices.len(),
                k,
                want,
                pattern: self.name(),
            });
        }
        for (group, sel) in indices.chunks(self.keep).enumerate() {
            let bad = |why| SparseError::Selector {
                group,
                indices: sel.to_vec(),
                why,
            };
            if sel.iter().any(|&i| usize::from(i) >= self.group) {
                return Err(bad("an index beyond the group"));
            }
            if sel.windows(2).any(|w| w[0] >= w[1]) {
                return Err(bad("indices must increase within a group"));
            }
            if self.pairs
                && sel
                    .chunks(2)
                    .any(|p| p.len() != 2 || p[0] % 2 != 0 || p[1] != p[0] + 1)
            {
                return Err(bad("kept elements come in adjacent pairs 2i, 2i + 1"));
            }
        }
        Ok(())
    }

    /// The logical positions (in `0..k`) the metadata selects, in order. The metadata must
    /// have passed [`Sparsity::check`].
    pub fn positions<'a>(&self, indices: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        let (keep, group) = (self.keep, self.group);
        indices
            .iter()
            .enumerate()
            .map(move |(j, &i)| j / keep * group + usize::from(i))
    }

    /// B's elements at the selected positions (the products' other factors, in order).
    pub fn gather(&self, b: &[u64], indices: &[u8]) -> Result<Vec<u64>, SparseError> {
        self.check(b.len(), indices)?;
        Ok(self.positions(indices).map(|p| b[p]).collect())
    }

    /// A's kept elements from its dense logical row of `k` elements (the disabled positions
    /// are not read: whatever they hold, NaN included, has no effect).
    pub fn compress(&self, dense: &[u64], indices: &[u8]) -> Result<Vec<u64>, SparseError> {
        self.gather(dense, indices)
    }

    /// The dense logical row of a compressed one: each kept element at its position, `zero`
    /// (the format's +0 word) elsewhere.
    pub fn expand(
        &self,
        compressed: &[u64],
        indices: &[u8],
        k: usize,
        zero: u64,
    ) -> Result<Vec<u64>, SparseError> {
        self.check(k, indices)?;
        if compressed.len() != indices.len() {
            return Err(SparseError::Length {
                what: "compressed A",
                got: compressed.len(),
                want: indices.len(),
            });
        }
        let mut out = vec![zero; k];
        for (p, &w) in self.positions(indices).zip(compressed) {
            out[p] = w;
        }
        Ok(out)
    }

    /// The 4-bit metadata field of a 2:4 group's selector pair as PTX's metadata register
    /// holds it: the first index in bits 1:0, the second in bits 3:2.
    pub const fn nibble(pair: [u8; 2]) -> u8 {
        (pair[0] & 3) | (pair[1] & 3) << 2
    }

    /// The selector pair of a metadata nibble ([`Sparsity::nibble`]'s inverse).
    pub const fn pair(nibble: u8) -> [u8; 2] {
        [nibble & 3, (nibble >> 2) & 3]
    }
}
