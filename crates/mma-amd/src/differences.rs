//! The documented differences from mmasim 2.1.1 (the crate docs, "DIFFERENCES from mmasim
//! 2.1.1"), as a rule over an instruction and its inputs that the differential tests use.

use crate::Instruction;

/// A documented difference from mmasim 2.1.1 (the crate docs, "DIFFERENCES from mmasim 2.1.1").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownDifference {
    /// CDNA3 fp8/bf8 with an Inf or NaN C: mmasim may drop C; this crate gives the IEEE NaN or
    /// Inf.
    NonFiniteCDropped,
    /// CDNA1 E-FDPA where every product and C are negative zeros: IEEE gives -0, mmasim +0.
    NegativeZeroSum,
    /// CDNA3 fp8/bf8 with a NaN operand in a block before the last: mmasim may drop the NaN
    /// partial result; this crate gives NaN.
    NanOperandDropped,
}

impl KnownDifference {
    pub fn reason(self) -> &'static str {
        match self {
            KnownDifference::NonFiniteCDropped => {
                "CDNA3 fp8/bf8 with Inf/NaN C: mmasim may drop C, IEEE keeps it"
            }
            KnownDifference::NegativeZeroSum => {
                "CDNA1 exact sum of negative zeros: IEEE gives -0, mmasim +0"
            }
            KnownDifference::NanOperandDropped => {
                "CDNA3 fp8/bf8 NaN operand before the last block: mmasim may drop it, IEEE gives NaN"
            }
        }
    }
}

/// Whether a differential-test case falls in a documented difference class. The rule depends
/// only on the instruction and its inputs (`c` is the instruction's C word), never on mmasim's
/// answer.
pub fn known_difference(
    ins: &Instruction,
    a: &[u64],
    b: &[u64],
    c: u64,
) -> Option<KnownDifference> {
    let f = &ins.unit.formats;
    let cv = f.c.decode(c);
    match ins.unit.model {
        mma_core::Model::GtrFdpa(_) if cv.is_nan() || cv.is_inf() => {
            Some(KnownDifference::NonFiniteCDropped)
        }
        mma_core::Model::GtrFdpa(_) => {
            // The blocks before the last: their results reach the next block as its C.
            let last_start = a.len().saturating_sub(1) / ins.unit.block * ins.unit.block;
            let nan_in = |xs: &[u64], fmt: &mma_core::Format| {
                xs[..last_start.min(xs.len())]
                    .iter()
                    .any(|&x| fmt.decode(x).is_nan())
            };
            (nan_in(a, &f.a) || nan_in(b, &f.b)).then_some(KnownDifference::NanOperandDropped)
        }
        mma_core::Model::EFdpa(_) if cv == mma_core::Value::Zero { neg: true } => {
            let negative_zero_product = |(&x, &y): (&u64, &u64)| {
                let (x, y) = (f.a.decode(x), f.b.decode(y));
                let finite = |v: &mma_core::Value| !v.is_nan() && !v.is_inf();
                (x.is_zero() || y.is_zero()) && finite(&x) && finite(&y) && x.is_neg() != y.is_neg()
            };
            a.iter()
                .zip(b)
                .all(negative_zero_product)
                .then_some(KnownDifference::NegativeZeroSum)
        }
        _ => None,
    }
}
