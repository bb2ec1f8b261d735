//! `kairos pareto` end to end: a small Chapter 5 file and a small Chapter 7 file run on one
//! and two threads and write the same fronts; a bad file is a clear error and exit code 1.

mod common;

use common::kairos;
use std::path::Path;

fn bench() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/s002-benchmarks-synthetic.toml")
        .display()
        .to_string()
}

fn run_twice(file: &Path, out: &Path, name: &str) -> String {
    let mut fronts = Vec::new();
    // `--jobs` is the former name of `--threads`, kept as an alias.
    for (flag, jobs) in [("--threads", "1"), ("--jobs", "2")] {
        let dir = out.join(format!("{name}-{jobs}"));
        let o = kairos(&[
            "pareto",
            file.to_str().unwrap(),
            flag,
            jobs,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        fronts.push(std::fs::read_to_string(dir.join("fronts.csv")).unwrap());
    }
    assert_eq!(fronts[0], fronts[1]);
    fronts.remove(0)
}

#[test]
fn chapter5_and_7_files_give_the_same_fronts_on_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let f5 = dir.path().join("c5.toml");
    std::fs::write(
        &f5,
        format!(
            "system = \"pareto\"\nname = \"c5\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 60\npopulation = 12\ncheckpoints = [0, 8]\n\
             populations = [{{ name = \"min energy\", seeds = [\"min-energy\"] }}, {{ name = \"random\" }}]\n",
            bench()
        ),
    )
    .unwrap();
    let fronts = run_twice(&f5, dir.path(), "c5");
    assert!(fronts.starts_with("population,generation,point,utility,energy_j\n"));
    assert!(fronts.contains("\nmin energy,8,0,") && fronts.contains("\nrandom,8,0,"));
    for svg in ["fronts-gen0.svg", "fronts-gen8.svg", "fronts-pop1.svg"] {
        assert!(dir.path().join("c5-1").join(svg).exists(), "{svg}");
    }
    let f7 = dir.path().join("c7.toml");
    std::fs::write(
        &f7,
        "system = \"pareto-stochastic\"\nname = \"c7\"\nseed = 2\ntasks = 40\nwindow_min = 2\narrivals = \"uniform\"\n\
         samples = 8\nscores = [\"expected\", \"p4\"]\npopulation = 8\ncheckpoints = [0, 3]\n\
         fuzzy = 5\n",
    )
    .unwrap();
    run_twice(&f7, dir.path(), "c7");
    let clouds = std::fs::read_to_string(dir.path().join("c7-1/clouds.csv")).unwrap();
    assert!(clouds
        .lines()
        .skip(1)
        .all(|l| l.starts_with("expected,") || l.starts_with("p4,")));
}

#[test]
fn a_bad_file_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.toml");
    std::fs::write(
        &f,
        "system = \"pareto\"\nname = \"x\"\ndata = \"set1\"\nseed = 1\nmutation = 2.0\n\
         checkpoints = [1]\npopulations = [{ name = \"a\" }]\n",
    )
    .unwrap();
    let o = kairos(&["pareto", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml:5: mutation = 2: must be between 0 and 1"),
        "{err}"
    );
    assert!(err.contains("benchmarks = (absent)"), "{err}");
}

/// The reports folder is checked before any generation runs: a folder holding an earlier
/// run's reports is refused without `--force` (exit 1, and the old reports are left
/// whole), `--force` runs again over it, and `--threads 0` is a usage error (exit 2).
#[test]
fn the_reports_folder_is_checked_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("c7.toml");
    std::fs::write(
        &f,
        "system = \"pareto-stochastic\"\nname = \"c7\"\nseed = 2\ntasks = 20\nwindow_min = 2\narrivals = \"uniform\"\n\
         samples = 4\nscores = [\"expected\"]\npopulation = 4\ncheckpoints = [0, 1]\n\
         fuzzy = 2\n",
    )
    .unwrap();
    let out = dir.path().join("o");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "pareto",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        kairos(&args)
    };
    let first = run(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let coverage = std::fs::read(out.join("coverage.csv")).unwrap();
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("pass --force"), "{err}");
    assert!(
        !err.contains("generation"),
        "refused before any generation: {err}"
    );
    assert_eq!(std::fs::read(out.join("coverage.csv")).unwrap(), coverage);
    let forced = run(&["--force"]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    let zero = run(&["--force", "--threads", "0"]);
    assert_eq!(zero.status.code(), Some(2));
}

/// A child process killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A run stopped after a checkpoint keeps that checkpoint's fronts: the first checkpoints
/// are reached in moments and the last would take days, so the run is killed once
/// `fronts.csv` holds the second checkpoint's fronts of both populations. What it left is
/// a partial folder (no `coverage.csv`) whose fronts and charts are the same bytes as a
/// whole run stopping at that checkpoint (`fronts.csv` is written after the charts and
/// timings of the same fronts, so once it is whole they are too).
#[test]
fn a_run_stopped_after_a_checkpoint_keeps_its_fronts() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("c5.toml");
    std::fs::write(
        &f,
        format!(
            "system = \"pareto\"\nname = \"c5\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 60\npopulation = 12\ncheckpoints = [0, 8, 1000000000]\n\
             populations = [{{ name = \"min energy\", seeds = [\"min-energy\"] }}, {{ name = \"random\" }}]\n",
            bench()
        ),
    )
    .unwrap();
    let whole = dir.path().join("whole");
    let o = kairos(&[
        "pareto",
        f.to_str().unwrap(),
        "--checkpoints",
        "0,8",
        "--out",
        whole.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stopped = dir.path().join("stopped");
    // An earlier run's marker is removed before the first front is written.
    std::fs::create_dir_all(&stopped).unwrap();
    std::fs::write(stopped.join("coverage.csv"), "earlier run").unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "pareto",
            f.to_str().unwrap(),
            "--threads",
            "2",
            "--force",
            "--out",
            stopped.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut child = Killed(child);
    let want = std::fs::read_to_string(whole.join("fronts.csv")).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let now = std::fs::read_to_string(stopped.join("fronts.csv")).unwrap_or_default();
        if now == want {
            break;
        }
        // Each state on the way is a prefix of the fronts, by population then checkpoint.
        assert!(
            now.is_empty() || now.lines().all(|l| want.lines().any(|w| w == l)),
            "{now}"
        );
        assert!(child.0.try_wait().unwrap().is_none(), "the run ended early");
        assert!(
            std::time::Instant::now() < deadline,
            "no fronts after 120 s: {now}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    assert!(!stopped.join("coverage.csv").exists());
    for svg in [
        "fronts-gen0.svg",
        "fronts-gen8.svg",
        "fronts-pop0.svg",
        "fronts-pop1.svg",
    ] {
        assert!(
            std::fs::read(stopped.join(svg)).unwrap() == std::fs::read(whole.join(svg)).unwrap(),
            "{svg} differs from the whole run's"
        );
    }
    assert!(!stopped.join("fronts-gen1000000000.svg").exists());
    let timings = std::fs::read_to_string(stopped.join("timings.csv")).unwrap();
    assert_eq!(timings.lines().count(), 5, "{timings}");
}
