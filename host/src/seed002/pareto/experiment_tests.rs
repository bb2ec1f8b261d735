use super::*;
use crate::seed002::pareto::checkpoints::Watch;
use crate::seed002::pareto::report::{coverage, fronts_csv};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn small_file(dir: &Path) -> PathBuf {
    let bench =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/s002-benchmarks-synthetic.toml");
    write(
        dir,
        "small.toml",
        &format!(
            "system = \"pareto\"\nname = \"small\"\ndata = \"set1\"\nbenchmarks = {:?}\n\
             seed = 3\ntasks = 40\npopulation = 20\ncheckpoints = [0, 60]\n\
             populations = [{{ name = \"min-min\", seeds = [\"min-min\"] }}, {{ name = \"random\" }}]\n",
            bench.display().to_string()
        ),
    )
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn fronts(path: &Path, jobs: usize) -> (String, Vec<Front>) {
    let exp = ParetoExperiment::load(path).unwrap();
    let (_, inst) = exp.instance().unwrap();
    let f = run(&exp, &inst, Some(jobs), &Watch::none()).unwrap();
    (fronts_csv(&exp, &inst, &f), f)
}

#[test]
fn a_small_front_is_golden_and_the_same_on_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let p = small_file(dir.path());
    let (one, f) = fronts(&p, 1);
    let (two, _) = fronts(&p, 2);
    assert_eq!(one, two);
    // Pinned: a change here changes what every Pareto experiment reports.
    assert_eq!(fnv(&one), GOLDEN, "{one}");
    // Every recorded front is mutually non-dominated, and the seeded population's front
    // at generation 0 is where it starts.
    for fr in &f {
        assert!(!fr.points.is_empty());
        assert_eq!(coverage(&fr.points, &fr.points), 0.0);
    }
}

const GOLDEN: u64 = 4292717555877409348;

#[test]
fn every_pareto_experiment_file_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("s002-pareto-")
            && name.ends_with(".toml")
            && !name.contains("stochastic")
        {
            assert!(is_pareto(&p), "{name}");
            let exp = ParetoExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!exp.populations.is_empty(), "{name}");
            if let Some(b) = &exp.benchmarks {
                assert!(b.exists(), "{name}: {}", b.display());
            }
            n += 1;
        }
    }
    assert_eq!(n, 7);
    assert!(
        crate::seed002::pareto::stochastic_run::StochasticExperiment::load(
            &dir.join("s002-pareto-fig7.4-7.7-stochastic.toml")
        )
        .is_ok()
    );
}

#[test]
fn bad_pareto_files_name_the_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "bad.toml",
        "system = \"pareto\"\nname = \"x\"\ndata = \"set9\"\nseed = 1\npopulation = 1\n\
         checkpoints = [10, 5]\npopulations = [{ name = \"a\", seeds = [\"best\"] }]\n",
    );
    let e = ParetoExperiment::load(&p).unwrap_err().to_string();
    assert!(
        e.contains("bad.toml:3: data = set9: unknown data set"),
        "{e}"
    );
    assert!(
        e.contains("bad.toml:5: population = 1: must be between 2"),
        "{e}"
    );
    assert!(e.contains("checkpoints[1] = 5: must increase"), "{e}");
    assert!(
        e.contains("populations[0].seeds[0] = best: unknown seed"),
        "{e}"
    );
    // A missing benchmark file is an error naming it, not a panic.
    let p = write(
        dir.path(),
        "nofile.toml",
        "system = \"pareto\"\nname = \"x\"\ndata = \"set1\"\nbenchmarks = \"missing.toml\"\n\
         seed = 1\ncheckpoints = [1]\npopulations = [{ name = \"a\" }]\n",
    );
    let e = ParetoExperiment::load(&p)
        .unwrap()
        .instance()
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.toml: cannot read"), "{e}");
}

/// The reports written on the way are overwritten by the final ones, which are the same
/// bytes as the reports of a run that wrote nothing on the way (`write_all` alone), file
/// for file; only the wall times of `timings.csv` differ.
#[test]
fn the_final_reports_are_those_of_a_run_that_wrote_nothing_on_the_way() {
    let dir = tempfile::tempdir().unwrap();
    let p = small_file(dir.path());
    let exp = ParetoExperiment::load(&p).unwrap();
    let (_, inst) = exp.instance().unwrap();
    let plain = dir.path().join("plain");
    let f = run(&exp, &inst, Some(2), &Watch::none()).unwrap();
    crate::seed002::pareto::report::write_all(&plain, &exp, &inst, &f).unwrap();
    let lines = std::sync::Mutex::new(Vec::new());
    let progress = |p: &crate::seed002::pareto::checkpoints::Progress| {
        lines
            .lock()
            .unwrap()
            .push((p.population, p.generation, p.checkpoint));
    };
    let out = crate::seed002::ReportsDir {
        dir: Some(dir.path().join("watched")),
        force: false,
    };
    let (_, watched) =
        crate::seed002::run_pareto_file(&p, None, out, Some(2), None, &progress).unwrap();
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&plain), names(&watched));
    for n in names(&plain) {
        if n != "timings.csv" {
            assert_eq!(
                std::fs::read(plain.join(&n)).unwrap(),
                std::fs::read(watched.join(&n)).unwrap(),
                "{n}"
            );
        }
    }
    let mut l = lines.into_inner().unwrap();
    l.sort();
    assert_eq!(
        l,
        vec![(0, 0, true), (0, 60, true), (1, 0, true), (1, 60, true)]
    );
}
