//! The exact value of a dot product `Σ a_k·b_k·sa_{k/n}·sb_{k/n} + c` from storage words:
//! nothing rounded, nothing dropped. The one exact sum of the workspace: the oracle rounds it
//! with MPFR (`mma-oracle`), the command line prints its digits and measures a model's error
//! against it in ulps (without GMP), and both take it from here.
//!
//! Specials follow IEEE 754: a NaN factor, an infinite factor times a zero one (`0·Inf`), or
//! infinite summands of both signs give NaN; any other infinite summand gives an infinity of its
//! sign. A finite result is `(-1)^neg · mag · 2^exp` with `mag` an integer of any width (64-bit
//! limbs), and carries the sign an exact zero takes, which IEEE 754 §6.3 fixes and which depends
//! on the rounding direction (what folding IEEE products and sums over the summands in order
//! gives; the oracle's tests hold the two to each other):
//!
//! - summands that are all zeros (products of zeros carry the exclusive-or of their factors'
//!   signs) sum to -0 when every one is -0 (any direction but RD), and in RD to -0 unless every
//!   one is +0;
//! - non-zero summands that cancel exactly sum to +0, and to -0 in RD;
//! - C alone (no products) is its own value.
//!
//! The sum itself is the two's-complement accumulator of [`crate::wide`] sized for the span of
//! the summands: `mag` is every bit of it.

use crate::model::Formats;
use crate::value::Value;
use crate::wide::BigSum;

/// An exact dot-product result ([`ExactDot::of`], [`ExactDot::of_scaled`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactDot {
    Nan,
    Inf {
        neg: bool,
    },
    /// `(-1)^neg · mag · 2^exp`, `mag` in little-endian 64-bit limbs without high zero limbs
    /// (empty for an exact zero, whose `neg` is false: `zero_neg` and `zero_neg_rd` give its
    /// sign).
    Finite {
        neg: bool,
        mag: Vec<u64>,
        exp: i32,
        /// Sign of the value when it is zero, in every rounding direction except RD.
        zero_neg: bool,
        /// Sign of the value when it is zero in RD (round toward -Inf).
        zero_neg_rd: bool,
    },
}

/// One summand of a dot product, the product of its decoded factors (`a·b`, times the block
/// scales, or `C` alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    Nan,
    Inf {
        neg: bool,
    },
    /// A zero product, with the exclusive-or of its factors' signs.
    Zero {
        neg: bool,
    },
    /// `(-1)^neg · mag · 2^exp`, `mag` (little-endian 64-bit limbs) the product of the factors'
    /// significands: four factors of up to 64 bits fit.
    Finite {
        neg: bool,
        mag: [u64; 4],
        exp: i32,
    },
}

impl Product {
    /// The exact product of up to four decoded factors (checked when compiled): NaN for a NaN
    /// factor or an infinite one with a zero one; otherwise the sign of an infinite or zero
    /// product is the exclusive-or of the factors' signs. A finite factor with a zero
    /// significand is a zero (+0 as a value: `Value::Finite { sig: 0, .. }`).
    pub fn of<const N: usize>(factors: [Value; N]) -> Product {
        const { assert!(N <= 4, "at most four factors fit a product's 256 bits") };
        let mut neg = false;
        let (mut inf, mut zero) = (false, false);
        for v in factors {
            match v {
                Value::Nan => return Product::Nan,
                Value::Inf { neg: n } => (inf, neg) = (true, neg ^ n),
                Value::Zero { neg: n } => (zero, neg) = (true, neg ^ n),
                Value::Finite { sig: 0, .. } => zero = true,
                Value::Finite { neg: n, .. } => neg ^= n,
            }
        }
        if inf && zero {
            return Product::Nan;
        }
        if inf {
            return Product::Inf { neg };
        }
        if zero {
            return Product::Zero { neg };
        }
        let mut mag = [1u64, 0, 0, 0];
        let mut exp = 0i32;
        for v in factors {
            if let Value::Finite { sig, exp: e, .. } = v {
                // mag · sig, limb by limb (the product of N factors of 64 bits has 64·N bits).
                let mut carry = 0u128;
                for limb in mag.iter_mut() {
                    let p = *limb as u128 * sig as u128 + carry;
                    *limb = p as u64;
                    carry = p >> 64;
                }
                exp += e;
            }
        }
        Product::Finite { neg, mag, exp }
    }

    /// The product's significant bits above `2^exp` (0 for anything but a finite product).
    fn bits(&self) -> i32 {
        match self {
            Product::Finite { mag, .. } => match mag.iter().rposition(|&l| l != 0) {
                Some(i) => 64 * i as i32 + 64 - mag[i].leading_zeros() as i32,
                None => 0,
            },
            _ => 0,
        }
    }
}

impl ExactDot {
    /// The exact value of `Σ a_k·b_k + c` for the storage words of `formats` (`formats.c` for
    /// `c`), without block scales ([`ExactDot::of_scaled`] takes them).
    ///
    /// # Panics
    /// If `a` and `b` differ in length.
    pub fn of(formats: &Formats, a: &[u64], b: &[u64], c: u64) -> ExactDot {
        let formats = Formats {
            scale: None,
            ..*formats
        };
        ExactDot::of_scaled(&formats, a, b, c, &[], &[])
    }

    /// The exact value of what `unit` sums: [`ExactDot::of_scaled`] over its formats, except
    /// for an I-DPA unit counting XORs (`.xor.popc`), whose terms are `a_k XOR b_k`: each is
    /// summed as the product `(a_k XOR b_k) · 1` of single bits, so that the one exact sum
    /// serves every model. Every client that knows the unit (`mma dot`, error reports, the
    /// Python package) asks here.
    ///
    /// # Panics
    /// As [`ExactDot::of_scaled`].
    pub fn of_unit(
        unit: &crate::DotUnit,
        a: &[u64],
        b: &[u64],
        c: u64,
        scale_a: &[u64],
        scale_b: &[u64],
    ) -> ExactDot {
        use crate::models::int_dpa::{IDpa, IntOp};
        let f = &unit.formats;
        if let crate::unit::Model::IDpa(IDpa { op: IntOp::Xor, .. }) = unit.model {
            assert_eq!(a.len(), b.len(), "A and B lengths differ");
            let x: Vec<u64> = a.iter().zip(b).map(|(&p, &q)| (p ^ q) & 1).collect();
            let ones = vec![1; x.len()];
            let bits = Formats {
                a: crate::format::B1,
                b: crate::format::B1,
                scale: None,
                ..*f
            };
            return ExactDot::of_scaled(&bits, &x, &ones, c, &[], &[]);
        }
        ExactDot::of_scaled(f, a, b, c, scale_a, scale_b)
    }

    /// The exact value of `Σ a_k·b_k·scale_a[k/n]·scale_b[k/n] + c` for the storage words of
    /// `formats` (`formats.c` for `c`), where `formats.scale = Some((fmt, n))` gives the scale
    /// format and the elements one scale covers (without it the scales are not read).
    ///
    /// # Panics
    /// If `a` and `b` differ in length, or a scale slice is too short for `a`: a caller's
    /// error, which the readers of operands (files, flags, arrays) rule out with a message.
    pub fn of_scaled(
        formats: &Formats,
        a: &[u64],
        b: &[u64],
        c: u64,
        scale_a: &[u64],
        scale_b: &[u64],
    ) -> ExactDot {
        assert_eq!(a.len(), b.len(), "A and B lengths differ");
        if let Some((_, per)) = formats.scale {
            let need = a.len().div_ceil(per);
            assert!(
                scale_a.len() >= need && scale_b.len() >= need,
                "{need} scale factors needed per operand"
            );
        }
        let mut products = Vec::with_capacity(a.len() + 1);
        for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
            let (va, vb) = (formats.a.decode(x), formats.b.decode(y));
            products.push(match &formats.scale {
                Some((sf, per)) => {
                    let (sa, sb) = (sf.decode(scale_a[k / per]), sf.decode(scale_b[k / per]));
                    Product::of([va, vb, sa, sb])
                }
                None => Product::of([va, vb]),
            });
        }
        products.push(Product::of([formats.c.decode(c)]));
        ExactDot::sum(&products, a.is_empty())
    }

    /// The exact sum of `products` (`c_alone`: the list is C only, which keeps its own value).
    fn sum(products: &[Product], c_alone: bool) -> ExactDot {
        let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
        let (mut zeros_all_neg, mut zeros_any_neg) = (true, false);
        let (mut lo, mut top, mut finite) = (i32::MAX, i32::MIN, 0usize);
        for p in products {
            match *p {
                Product::Nan => nan = true,
                Product::Inf { neg } => *(if neg { &mut neg_inf } else { &mut pos_inf }) = true,
                Product::Zero { neg } => {
                    zeros_all_neg &= neg;
                    zeros_any_neg |= neg;
                }
                Product::Finite { exp, .. } => {
                    lo = lo.min(exp);
                    top = top.max(exp + p.bits());
                    finite += 1;
                }
            }
        }
        if nan || (pos_inf && neg_inf) {
            return ExactDot::Nan;
        }
        if pos_inf || neg_inf {
            return ExactDot::Inf { neg: neg_inf };
        }
        if finite == 0 {
            return ExactDot::Finite {
                neg: false,
                mag: Vec::new(),
                exp: 0,
                zero_neg: zeros_all_neg,
                zero_neg_rd: zeros_any_neg,
            };
        }
        // Room for the carries of every summand (`spanning` has room for 256 of them).
        let carries = usize::BITS as i32 - finite.leading_zeros() as i32;
        let mut acc = BigSum::spanning(lo, top + carries);
        for p in products {
            if let Product::Finite { neg, mag, exp } = *p {
                let low = mag[0] as u128 | (mag[1] as u128) << 64;
                let high = mag[2] as u128 | (mag[3] as u128) << 64;
                acc.add(neg, low, exp);
                acc.add(neg, high, exp + 128);
            }
        }
        let (neg, mag) = acc.to_sign_magnitude();
        ExactDot::Finite {
            neg,
            mag,
            exp: lo,
            // C alone is its own value; a zero sum of non-zero summands is +0 (RD: -0).
            zero_neg: false,
            zero_neg_rd: !c_alone,
        }
    }

    /// The sign bit of this result when it is rounded in a direction (`rd`: round toward
    /// -Inf); NaN counts as positive.
    pub fn sign(&self, rd: bool) -> bool {
        match self {
            ExactDot::Nan => false,
            ExactDot::Inf { neg } => *neg,
            ExactDot::Finite {
                neg,
                mag,
                zero_neg,
                zero_neg_rd,
                ..
            } => match (mag.is_empty(), rd) {
                (false, _) => *neg,
                (true, false) => *zero_neg,
                (true, true) => *zero_neg_rd,
            },
        }
    }
}
