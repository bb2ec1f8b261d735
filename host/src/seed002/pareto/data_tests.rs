use super::*;

#[test]
fn mvsk_by_hand() {
    // 1..5: mean 3, variance 2, symmetric, fourth moment 6.8 = 1.7 variance^2.
    let [m, sd, g1, g2] = mvsk(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(m, 3.0);
    assert!((sd - 2f64.sqrt()).abs() < 1e-12);
    assert!(g1.abs() < 1e-12);
    assert!((g2 + 1.3).abs() < 1e-12);
    assert_eq!(mvsk(&[4.0, 4.0]), [4.0, 0.0, 0.0, 0.0]);
}

#[test]
fn gram_charlier_is_the_normal_without_skew_and_a_density_with_it() {
    let n = gram_charlier([0.0, 1.0, 0.0, 0.0], 0.0);
    assert!((n - 1.0 / (2.0 * std::f64::consts::PI).sqrt()).abs() < 1e-15);
    for d in [
        [10.0, 2.0, 0.0, 0.0],
        [10.0, 2.0, 0.5, 0.3],
        [10.0, 2.0, -0.4, -0.8],
    ] {
        // The Hermite terms integrate to zero: the mass on +-4 sd stays about 1.
        let steps = 8000;
        let h = 16.0 / steps as f64;
        let mass: f64 = (0..steps)
            .map(|k| gram_charlier(d, 2.0 + (k as f64 + 0.5) * h) * h)
            .sum();
        assert!((mass - 1.0).abs() < 0.02, "{d:?}: {mass}");
    }
}

#[test]
fn gram_charlier_samples_have_its_mean_and_skew_sign() {
    let d = [10.0, 2.0, 0.6, 0.0];
    let mut r = Stream::new(7, 0, "test", 0);
    let x: Vec<f64> = (0..20_000)
        .map(|_| sample_gram_charlier(d, &mut r))
        .collect();
    assert!(x.iter().all(|&v| v > 0.0 && (2.0..=18.0).contains(&v)));
    let [m, sd, g1, _] = mvsk(&x);
    assert!((m - 10.0).abs() < 0.1, "{m}");
    assert!((sd - 2.0).abs() < 0.15, "{sd}");
    assert!(g1 > 0.3, "{g1}");
}

fn bench() -> Tables {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/s002-benchmarks-synthetic.toml");
    load_benchmarks(&path).unwrap().tables
}

#[test]
fn the_stand_in_file_loads_and_says_it_is_synthetic() {
    let t = bench();
    assert_eq!((t.task_types, t.machine_types), (5, 9));
    assert!(t.source.starts_with("synthetic stand-in"));
    assert_eq!(t.etc(0, 0), 190.0);
}

#[test]
fn synthesis_keeps_the_real_rows_and_adds_special_types() {
    let b = bench();
    let s = synthesize(&b, 25, 4, 3);
    assert_eq!(
        (s.task_types, s.machine_types, s.special_types),
        (30, 13, 4)
    );
    for i in 0..5 {
        for j in 0..9 {
            assert_eq!(s.etc(i, 4 + j), b.etc(i, j));
            assert_eq!(s.epc(i, 4 + j), b.epc(i, j));
        }
    }
    let mut special_rows = std::collections::BTreeSet::new();
    for j in 0..4 {
        let rows: Vec<usize> = (0..30).filter(|&i| s.etc(i, j).is_finite()).collect();
        assert!((2..=3).contains(&rows.len()), "{rows:?}");
        for &i in &rows {
            let mean = (4..13).map(|k| s.etc(i, k)).sum::<f64>() / 9.0;
            let pmean = (4..13).map(|k| s.epc(i, k)).sum::<f64>() / 9.0;
            assert!((s.etc(i, j) - mean / 10.0).abs() < 1e-9);
            assert!((s.epc(i, j) - pmean).abs() < 1e-9);
            assert!(special_rows.insert(i), "a task type on two special types");
        }
    }
    assert!(s.etc_s.iter().all(|&e| e > 0.0) && s.epc_w.iter().all(|&p| p >= 0.0));
    // The same seed, the same tables; another seed, others.
    assert_eq!(synthesize(&b, 25, 4, 3), s);
    assert_ne!(synthesize(&b, 25, 4, 4).etc_s, s.etc_s);
}

#[test]
fn a_bad_benchmark_file_names_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.toml");
    std::fs::write(
        &p,
        "synthetic = true\nsource = \"x\"\nprograms = [\"a\", \"b\"]\nmachines = [\"m\", \"n\"]\n\
         etc_s = [[1.0, 2.0], [3.0]]\nepc_w = [[1.0, 2.0], [3.0, -4.0]]\n",
    )
    .unwrap();
    let e = load_benchmarks(&p).unwrap_err().to_string();
    assert!(e.contains("b.toml:5: etc_s[1] = 1 entries"), "{e}");
    assert!(e.contains("b.toml:6: epc_w[1][1] = -4"), "{e}");
}
