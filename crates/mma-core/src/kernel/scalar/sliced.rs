//! The per-dot Sliced-FDPA block (Hopper and Blackwell `mma.sync` with fp8 operands): each
//! pass through the per-dot T-FDPA kernel, C added last by the plain model's own step.
//!
//! Steps, as `models/sliced_fdpa.rs`: gather the elements of each pass (`(k / group) % passes
//! == p`, in order) into arrays on the stack; run the passes in order through
//! [`tfdpa_block`] with the pass's T-FDPA parameters, the first from +0 and each later one from
//! the previous pass's result (a word of D's format); then add C through
//! [`SlicedFdpa::add_c_last`], the one exact, rounded addition of the plain model. A pass the
//! T-FDPA kernel leaves to the plain model (an Inf/NaN input, a length it does not take) sends
//! the whole block there (`None`), so the specials stay in one place.

use super::t_fdpa::tfdpa_block;
use crate::kernel::plan::TPath;
use crate::model::{BlockIn, Formats, MAX_BLOCK};
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::value::Value;

/// Sliced-FDPA over one block through the T-FDPA kernel of its passes (`p`: the pass's
/// prepared path).
#[inline(always)]
pub(in crate::kernel) fn sliced_block(
    m: &SlicedFdpa,
    f: &Formats,
    p: &TPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let mut acc = f.d.encode(Value::POS_ZERO, 0);
    let mut ga = [0u64; MAX_BLOCK];
    let mut gb = [0u64; MAX_BLOCK];
    for pass in 0..m.passes {
        let mut n = 0;
        for k in 0..x.a.len() {
            if (k / m.group) % m.passes == pass {
                ga[n] = x.a[k];
                gb[n] = x.b[k];
                n += 1;
            }
        }
        let step = BlockIn {
            a: &ga[..n],
            b: &gb[..n],
            c: acc,
            c_fmt: &f.d,
            scale_a: &[],
            scale_b: &[],
        };
        acc = tfdpa_block(&m.pass, f, p, &step)?;
    }
    Some(m.add_c_last(f, acc, x.c, x.c_fmt))
}
