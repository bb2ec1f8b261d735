use super::*;
use crate::seed002::pareto::checkpoints::Watch;
use crate::seed002::pareto::experiment::{run, ParetoExperiment};
use crate::seed002::pareto::stochastic_run::{self, StochasticExperiment};

fn small_file(dir: &Path) -> PathBuf {
    let bench =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/s002-benchmarks-synthetic.toml");
    let p = dir.join("small.toml");
    std::fs::write(
        &p,
        format!(
            "system = \"pareto\"\nname = \"small\"\ndata = \"set1\"\nbenchmarks = {:?}\n\
             seed = 3\ntasks = 40\npopulation = 20\ncheckpoints = [0, 60]\n\
             populations = [{{ name = \"min-min\", seeds = [\"min-min\"] }}, {{ name = \"random\" }}]\n",
            bench.display().to_string()
        ),
    )
    .unwrap();
    p
}

fn state(dir: &Path, resume: bool, name: &str) -> StateDir {
    StateDir {
        dir: dir.join("state"),
        resume,
        name: name.into(),
    }
}

/// Points and chromosomes of each (population, generation), the wall times left out.
type Key = (
    usize,
    u64,
    Vec<[u64; 2]>,
    Vec<Vec<crate::seed002::pareto::Gene>>,
);

fn keyed(f: &[crate::seed002::pareto::experiment::Front]) -> Vec<Key> {
    f.iter()
        .map(|f| {
            (
                f.population,
                f.generation,
                f.points.iter().map(|p| p.map(f64::to_bits)).collect(),
                f.chromosomes.clone(),
            )
        })
        .collect()
}

#[test]
fn pieces_give_the_fronts_of_one_sitting() {
    let dir = tempfile::tempdir().unwrap();
    let mut exp = ParetoExperiment::load(&small_file(dir.path())).unwrap();
    let (_, inst) = exp.instance().unwrap();
    exp.checkpoints = vec![0, 25, 60, 90];
    let whole = run(&exp, &inst, Some(2), &Watch::none()).unwrap();
    // Piece 1 to 25 (its state saved), piece 2 from 25 to 60, piece 3 from 60 to 90.
    let mut pieces = Vec::new();
    for (i, cps) in [vec![0, 25], vec![60], vec![90]].into_iter().enumerate() {
        exp.checkpoints = cps;
        let st = state(dir.path(), i > 0, "small");
        let watch = Watch {
            state: Some(&st),
            ..Watch::none()
        };
        pieces.extend(run(&exp, &inst, Some(2), &watch).unwrap());
    }
    pieces.sort_by_key(|f| (f.population, f.generation));
    assert_eq!(keyed(&whole), keyed(&pieces));
    // The saved state is the population at 90, and a resume asking for a checkpoint at or
    // before it is refused, naming the generation.
    exp.checkpoints = vec![90, 100];
    let st = state(dir.path(), true, "small");
    let watch = Watch {
        state: Some(&st),
        ..Watch::none()
    };
    let e = run(&exp, &inst, Some(1), &watch).unwrap_err().to_string();
    assert!(e.contains("resumes from generation 90"), "{e}");
    // Another experiment's state is refused, naming the file.
    exp.checkpoints = vec![100];
    let st = state(dir.path(), true, "other");
    let watch = Watch {
        state: Some(&st),
        ..Watch::none()
    };
    let e = run(&exp, &inst, Some(1), &watch).unwrap_err().to_string();
    assert!(
        e.contains("population-0.state") && e.contains("\"small\""),
        "{e}"
    );
    // A damaged file too.
    let f = dir.path().join("state/population-0.state");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..b.len() - 3]).unwrap();
    let st = state(dir.path(), true, "small");
    let watch = Watch {
        state: Some(&st),
        ..Watch::none()
    };
    let e = run(&exp, &inst, Some(1), &watch).unwrap_err().to_string();
    assert!(e.contains("cut short"), "{e}");
}

#[test]
fn chapter_7_pieces_give_the_fronts_of_one_sitting() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("ch7.toml");
    std::fs::write(
        &p,
        "system = \"pareto-stochastic\"\nname = \"ch7\"\nseed = 2\ntasks = 60\n\
         window_min = 10\narrivals = \"uniform\"\nsamples = 8\nscores = [\"expected\", \"p4\"]\n\
         population = 12\ncheckpoints = [0, 20]\nfuzzy = 4\n",
    )
    .unwrap();
    let mut exp = StochasticExperiment::load(&p).unwrap();
    exp.checkpoints = vec![10, 20];
    let (_, whole) = stochastic_run::run(&exp, Some(2), &Watch::none()).unwrap();
    let mut pieces = Vec::new();
    for (i, cp) in [10, 20].into_iter().enumerate() {
        exp.checkpoints = vec![cp];
        let st = state(dir.path(), i > 0, "ch7");
        let watch = Watch {
            state: Some(&st),
            ..Watch::none()
        };
        pieces.extend(stochastic_run::run(&exp, Some(2), &watch).unwrap().1);
    }
    pieces.sort_by_key(|f| (f.score, f.generation));
    let key = |v: &[stochastic_run::SFront]| -> Vec<_> {
        v.iter()
            .map(|f| {
                (
                    f.score,
                    f.generation,
                    f.points
                        .iter()
                        .map(|p| p.map(f64::to_bits))
                        .collect::<Vec<_>>(),
                    f.chromosomes.clone(),
                )
            })
            .collect()
    };
    assert_eq!(key(&whole), key(&pieces));
}

#[test]
fn the_stream_resumes_draw_for_draw() {
    let mut a = Stream::new(9, 1, "state-test", 3);
    for _ in 0..37 {
        a.u64();
    }
    let _ = a.unit();
    let mut b = Stream::resume(&a.position());
    let x: Vec<u64> = (0..100).map(|_| a.u64()).collect();
    let y: Vec<u64> = (0..100).map(|_| b.u64()).collect();
    assert_eq!(x, y);
}
