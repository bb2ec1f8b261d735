//! The statistics of `kairos experiment`: Student t quantiles against published values, and
//! means and 95% confidence intervals.

/// Named so that `cargo test -p kairos-host experiment` selects these tests.
mod experiment {
    use kairos_host::report::stats::{mean_ci, t_cdf, t_quantile};

    #[test]
    fn t_quantiles_match_the_tables() {
        // t(0.975, df), to the three decimals every table prints.
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (3.0, 3.182),
            (4.0, 2.776),
            (5.0, 2.571),
            (10.0, 2.228),
            (20.0, 2.086),
            (30.0, 2.042),
            (47.0, 2.012),
            (100.0, 1.984),
            (1000.0, 1.962),
        ] {
            let q = t_quantile(0.975, df);
            assert!((q - t).abs() < 5e-4, "t(0.975, {df}) = {q}, tables: {t}");
        }
        // More digits where they are known exactly: t(0.975, 1) = tan(0.475 pi),
        // t(0.975, 2) = 4.30265...
        let exact1 = (0.475 * std::f64::consts::PI).tan();
        assert!((t_quantile(0.975, 1.0) - exact1).abs() < 1e-9);
        assert!((t_quantile(0.975, 2.0) - 4.302_652_729_9).abs() < 1e-8);
        // Other levels, and symmetry.
        assert!((t_quantile(0.95, 10.0) - 1.812).abs() < 5e-4);
        assert!((t_quantile(0.995, 47.0) - 2.685).abs() < 1e-3);
        assert_eq!(t_quantile(0.025, 9.0), -t_quantile(0.975, 9.0));
        assert_eq!(t_quantile(0.5, 9.0), 0.0);
        // The CDF it inverts.
        assert!((t_cdf(0.0, 5.0) - 0.5).abs() < 1e-15);
        assert!((t_cdf(2.776, 4.0) - 0.975).abs() < 1e-4);
    }

    #[test]
    fn the_ci_of_identical_values_is_zero() {
        for v in [0.1, 61.234_567, 1.2e10, 0.0] {
            for n in [2, 3, 10, 48] {
                let m = mean_ci(&vec![v; n]);
                assert_eq!(m.n, n);
                assert_eq!(m.mean, v, "mean of {n} x {v}");
                assert_eq!(m.ci95, Some(0.0), "ci of {n} x {v}");
            }
        }
    }

    #[test]
    fn mean_and_ci_of_a_small_sample() {
        // 1..5: mean 3, s = sqrt(2.5), half-width t(0.975, 4) x s / sqrt(5) = 1.9632.
        let m = mean_ci(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(m.n, 5);
        assert!((m.mean - 3.0).abs() < 1e-12);
        let expected = t_quantile(0.975, 4.0) * 2.5f64.sqrt() / 5f64.sqrt();
        assert!((m.ci95.unwrap() - expected).abs() < 1e-12);
        assert!((m.ci95.unwrap() - 1.9632).abs() < 1e-4);
        // One value: a mean, no interval; none: neither.
        let one = mean_ci(&[7.5]);
        assert_eq!((one.n, one.mean, one.ci95), (1, 7.5, None));
        assert_eq!(mean_ci(&[]).ci95, None);
        // The order of the values does not matter beyond rounding.
        let a = mean_ci(&[0.3, 0.1, 0.2]);
        let b = mean_ci(&[0.1, 0.2, 0.3]);
        assert!((a.mean - b.mean).abs() < 1e-15);
    }
}
