//! A fast `exp` for the utility curves' decay, with an absolute error bound that
//! [`crate::seed002::pareto::curve`] uses to decide when it may trust it: the curves' utilities are
//! integer micro-units, so an approximate value that lies farther than the bound from a
//! rounding edge rounds to the same integer as `libm::exp`'s would (near an edge, the curve
//! falls back to `libm`). So the fast `exp` never changes a decision.
//!
//! Why it is fast: `libm::exp` (FreeBSD's) branches on its argument's range, divides, and
//! scales by a call to `scalbn`. A decay's argument is at most 0, and past [`CUTOFF`] its
//! exponential is below the bound, so here one table of 2^(j/64), a degree-5 polynomial and
//! an exponent added as bits do, with no division and one branch.
//!
//! The bound, for `y <= 0` (all magnitudes relative to u = 2^-53):
//! - `y < CUTOFF` (-40): the result 0 is off by e^y < 4.3e-18.
//! - otherwise y = k ln2/64 + r: k = round(y 64/ln2) by the 1.5 * 2^52 shift (any integer
//!   k works, it only keeps |r| <= ln2/128 (1 + 2^-40)), |k| <= 3,694, so k * [`LN2_64_HI`]
//!   (32 significant bits) is exact and so is `y - k * LN2_64_HI` (Sterbenz: for k != 0 the
//!   two are within ln2/128 + 2^-40 of each other and at least ln2/64 - 2^-40 apart from 0);
//!   subtracting k * [`LN2_64_LO`] rounds twice, each by at most u |r| (+ ln2's own tail,
//!   below 2^-80): r is off by at most 3u |r|, so e^r by at most 3u |r| e^r < 0.02u e^r.
//! - 2^(j/64) from [`TABLE`] is correctly rounded (0.5u); scaling by 2^(k >> 6) is exact
//!   (the result stays normal, above 2^-58).
//! - e^r - 1 = r + r^2/2 + ... + r^5/120 truncated at degree 5: |r|^6/720 e^|r| < 4e-17
//!   (0.4u); Horner's five roundings on terms below |r| <= 0.0055: under 0.01u; then
//!   s + s p rounds twice (the product below 0.006u s, the sum 0.5u of the result).
//!
//! So the result is within 1.5u e^y < 2u e^y (2.3e-16 e^y, so 2.3e-16 absolute) of e^y: the
//! constant [`ABS_ERROR`] (2^-50, about 8.9e-16) leaves four times that. The tests check the
//! bound against `libm::exp` (itself within 1 ulp) over the whole domain.

/// Below this argument the result is 0 (e^-40 < 4.3e-18, inside the bound).
pub(super) const CUTOFF: f64 = -40.0;

/// A bound on |[`exp_decay`]`(y)` - e^y| for every `y <= 0`.
pub(super) const ABS_ERROR: f64 = 1.0 / (1u64 << 50) as f64;

/// 64 / ln 2.
const INV_LN2_64: f64 = 92.332_482_616_893_66;
/// ln2/64's high part (FreeBSD's ln2 high half, 0x3fe62e42fee00000: 32 significant bits;
/// over 64, exact).
const LN2_64_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000) / 64.0;
/// ln2/64 - [`LN2_64_HI`] (FreeBSD's ln2 low half, 0x3dea39ef35793c76, over 64).
const LN2_64_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76) / 64.0;
/// Rounds to an integer when added (1.5 * 2^52: the integer in the low bits).
const SHIFT: f64 = 6_755_399_441_055_744.0;

/// 2^(j/64), j = 0..64, each the nearest double (computed to 60 digits).
#[rustfmt::skip]
const TABLE: [u64; 64] = [
    0x3ff0000000000000, 0x3ff02c9a3e778061, 0x3ff059b0d3158574, 0x3ff0874518759bc8,
    0x3ff0b5586cf9890f, 0x3ff0e3ec32d3d1a2, 0x3ff11301d0125b51, 0x3ff1429aaea92de0,
    0x3ff172b83c7d517b, 0x3ff1a35beb6fcb75, 0x3ff1d4873168b9aa, 0x3ff2063b88628cd6,
    0x3ff2387a6e756238, 0x3ff26b4565e27cdd, 0x3ff29e9df51fdee1, 0x3ff2d285a6e4030b,
    0x3ff306fe0a31b715, 0x3ff33c08b26416ff, 0x3ff371a7373aa9cb, 0x3ff3a7db34e59ff7,
    0x3ff3dea64c123422, 0x3ff4160a21f72e2a, 0x3ff44e086061892d, 0x3ff486a2b5c13cd0,
    0x3ff4bfdad5362a27, 0x3ff4f9b2769d2ca7, 0x3ff5342b569d4f82, 0x3ff56f4736b527da,
    0x3ff5ab07dd485429, 0x3ff5e76f15ad2148, 0x3ff6247eb03a5585, 0x3ff6623882552225,
    0x3ff6a09e667f3bcd, 0x3ff6dfb23c651a2f, 0x3ff71f75e8ec5f74, 0x3ff75feb564267c9,
    0x3ff7a11473eb0187, 0x3ff7e2f336cf4e62, 0x3ff82589994cce13, 0x3ff868d99b4492ed,
    0x3ff8ace5422aa0db, 0x3ff8f1ae99157736, 0x3ff93737b0cdc5e5, 0x3ff97d829fde4e50,
    0x3ff9c49182a3f090, 0x3ffa0c667b5de565, 0x3ffa5503b23e255d, 0x3ffa9e6b5579fdbf,
    0x3ffae89f995ad3ad, 0x3ffb33a2b84f15fb, 0x3ffb7f76f2fb5e47, 0x3ffbcc1e904bc1d2,
    0x3ffc199bdd85529c, 0x3ffc67f12e57d14b, 0x3ffcb720dcef9069, 0x3ffd072d4a07897c,
    0x3ffd5818dcfba487, 0x3ffda9e603db3285, 0x3ffdfc97337b9b5f, 0x3ffe502ee78b3ff6,
    0x3ffea4afa2a490da, 0x3ffefa1bee615a27, 0x3fff50765b6e4540, 0x3fffa7c1819e90d8,
];

/// e^y within [`ABS_ERROR`], for `y <= 0` (a decay's argument; larger `y` are not bounded).
#[inline(always)]
pub(super) fn exp_decay(y: f64) -> f64 {
    // (A NaN would go on to a NaN, which the curve's rounding declines.)
    if y < CUTOFF {
        return 0.0;
    }
    let z = y * INV_LN2_64 + SHIFT;
    let k = (z.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let kf = z - SHIFT;
    let r = (y - kf * LN2_64_HI) - kf * LN2_64_LO;
    let s = f64::from_bits(TABLE[(k & 63) as usize].wrapping_add(((k >> 6) as u64) << 52));
    let p = r + r * r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0))));
    s + s * p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::rng::Stream;

    /// |fast - libm| within the bound less libm's own ulp.
    fn check(y: f64) {
        let (fast, slow) = (exp_decay(y), libm::exp(y));
        let ulp = f64::from_bits(slow.to_bits() + 1) - slow;
        assert!(
            (fast - slow).abs() + ulp <= ABS_ERROR,
            "y = {y:e}: {fast:e} against {slow:e}"
        );
        // Relative to e^y too, where the result is not 0 (the proof's 2u, with libm's ulp).
        if y >= CUTOFF {
            assert!(
                (fast - slow).abs() <= 3.0 * slow * f64::EPSILON / 2.0 + ulp,
                "{y:e}"
            );
        }
    }

    #[test]
    fn decay_is_within_its_bound_over_the_whole_domain() {
        // Every table entry's neighbourhood and the reduction's rounding edges: k/64 ln2
        // and halfway between, and their neighbouring doubles.
        for k in -3_700i64..=0 {
            for frac in [0.0, 0.5, -0.5] {
                let y = (k as f64 + frac) * std::f64::consts::LN_2 / 64.0;
                for v in [
                    y,
                    f64::from_bits(y.to_bits() + 1),
                    f64::from_bits(y.to_bits().saturating_sub(1)),
                ] {
                    if v <= 0.0 {
                        check(v);
                    }
                }
            }
        }
        let mut rng = Stream::new(3, 0, "exp", 0);
        for _ in 0..1_000_000 {
            // Uniform over [-45, 0] and log-uniform towards 0 (the decay starts at 0).
            check(-45.0 * rng.unit());
            check(-(10f64.powf(-12.0 * rng.unit())));
        }
        for y in [
            0.0,
            -0.0,
            -1e-300,
            -5e-324,
            CUTOFF,
            f64::from_bits(CUTOFF.to_bits() - 1),
            -40.000001,
            -700.0,
            -1e300,
            f64::NEG_INFINITY,
        ] {
            check(y);
        }
        assert_eq!(exp_decay(0.0), 1.0);
        assert_eq!(exp_decay(-41.0), 0.0);
    }

    #[test]
    fn the_table_is_two_to_the_sixty_fourths() {
        for (j, &bits) in TABLE.iter().enumerate() {
            let t = f64::from_bits(bits);
            let want = libm::exp2(j as f64 / 64.0);
            assert!((t - want).abs() <= f64::EPSILON * 2.0, "{j}");
        }
        // ln2's halves are ln2 to well beyond a double.
        assert_eq!(LN2_64_HI.to_bits() & ((1 << 20) - 1), 0);
        assert!(((LN2_64_HI + LN2_64_LO) * 64.0 - std::f64::consts::LN_2).abs() <= 1e-16);
    }
}
