//! Means and 95% confidence intervals over trials (Student t), computed exactly.
//!
//! The t quantile inverts the t distribution's CDF, written with the regularized incomplete
//! beta function (continued fraction, Numerical Recipes §6.4), by bisection: no table, correct
//! to ~1e-12 for every number of degrees of freedom. `libm` keeps the last bit the same on
//! every machine.

use serde::Serialize;

/// The mean of a sample and the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeanCi {
    /// Sample size.
    pub n: usize,
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval of the mean, t(0.975, n-1) x s / sqrt(n);
    /// `None` with fewer than 2 values.
    pub ci95: Option<f64>,
}

/// The mean of `values` and its 95% confidence interval (Student t, n-1 degrees of freedom).
///
/// The sums run from the first value (mean = x0 + sum(x - x0) / n) so that identical values
/// give exactly their value and a zero interval.
pub fn mean_ci(values: &[f64]) -> MeanCi {
    let n = values.len();
    if n == 0 {
        return MeanCi {
            n,
            mean: 0.0,
            ci95: None,
        };
    }
    let x0 = values[0];
    let mean = x0 + values.iter().map(|x| x - x0).sum::<f64>() / n as f64;
    if n < 2 {
        return MeanCi {
            n,
            mean,
            ci95: None,
        };
    }
    let ss: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
    let sd = libm::sqrt(ss / (n - 1) as f64);
    let ci = t_quantile(0.975, (n - 1) as f64) * sd / libm::sqrt(n as f64);
    MeanCi {
        n,
        mean,
        ci95: Some(ci),
    }
}

/// The `p` quantile of Student's t distribution with `df` degrees of freedom (`df > 0`,
/// `0 < p < 1`): t(0.975, 1) = 12.706, t(0.975, 47) = 2.012.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0 && df > 0.0, "t_quantile({p}, {df})");
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let mut lo = 0.0;
    let mut hi = 1.0;
    while t_cdf(hi, df) < p {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// P(T <= t) for Student's t with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    let tail = 0.5 * inc_beta(0.5 * df, 0.5, x);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The regularized incomplete beta function I_x(a, b).
fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b)
        + a * libm::log(x)
        + b * libm::log(1.0 - x);
    let front = libm::exp(ln_front);
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if libm::fabs(d) < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if libm::fabs(d) < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if libm::fabs(c) < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if libm::fabs(d) < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if libm::fabs(c) < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if libm::fabs(del - 1.0) < 1e-15 {
            break;
        }
    }
    h
}
