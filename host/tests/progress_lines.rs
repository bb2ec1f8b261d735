//! Progress of the long commands whose steps are counted deep in the library (`kairos run`
//! in simulated hours, `replay` in jobs, `generate-swf` over both passes, `sweep-knapsack`
//! in jobs scheduled): lines on stderr once the quiet start has passed, none for a short
//! run by default, and never a byte of any output changed by them. `--threads` far above
//! the cores is capped with a warning.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs kairos with `args`; `shown`: with no quiet start (`KAIROS_PROGRESS_QUIET_MS=0`),
/// so that a short run shows its lines.
fn kairos(args: &[&str], shown: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kairos"));
    c.args(args).env_remove("KAIROS_PROGRESS_QUIET_MS");
    if shown {
        c.env("KAIROS_PROGRESS_QUIET_MS", "0");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `args` (with `{out}` for an output path) quiet and shown; checks the shown run's
/// stderr ends with `last` and the quiet one's holds no `unit`; returns both outputs.
fn both(dir: &Path, args: &[&str], unit: &str, last: &str) -> (Vec<u8>, Vec<u8>) {
    let mut outs = Vec::new();
    for shown in [false, true] {
        let out = dir.join(if shown { "shown" } else { "quiet" });
        let a: Vec<&str> = args
            .iter()
            .map(|x| if *x == "{out}" { s(&out) } else { *x })
            .collect();
        let o = kairos(&a, shown);
        let e = String::from_utf8_lossy(&o.stderr);
        if shown {
            let lines: Vec<&str> = e.lines().filter(|l| l.contains(unit)).collect();
            assert!(
                lines.last().is_some_and(|l| l.starts_with(last)),
                "{args:?}: {e}"
            );
        } else {
            assert!(!e.contains(unit), "{args:?}: a short run is quiet: {e}");
        }
        outs.push(out);
    }
    let read = |p: &PathBuf| {
        if p.is_dir() {
            let mut v = Vec::new();
            let mut names: Vec<_> = std::fs::read_dir(p).unwrap().flatten().collect();
            names.sort_by_key(|e| e.file_name());
            for e in names {
                let name = e.file_name().to_string_lossy().to_string();
                // The wall times differ run to run, with or without progress.
                if name != "timing.json" && name != "summary.json" {
                    v.extend(name.into_bytes());
                    v.extend(std::fs::read(e.path()).unwrap());
                }
            }
            v
        } else {
            std::fs::read(p).unwrap()
        }
    };
    (read(&outs[0]), read(&outs[1]))
}

#[test]
fn progress_lines_leave_every_output_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/essc_small.toml");
    let log = common::swf("easy_backfills.swf");
    let cases: [(&str, Vec<&str>, &str, &str); 4] = [
        (
            "run",
            vec![
                "run",
                s(&scenario),
                "--heuristic",
                "max-upe",
                "--trace-out",
                "{out}",
            ],
            "simulated hours",
            "run: 8/8 simulated hours (100%)",
        ),
        (
            "replay",
            vec!["replay", "--policy", "easy", s(&log), "--jobs-out", "{out}"],
            "jobs completed",
            "replay: ",
        ),
        (
            "generate-swf",
            vec![
                "generate-swf",
                "--model",
                "lublin99",
                "--procs",
                "64",
                "--jobs",
                "70000",
                "-o",
                "{out}",
            ],
            "jobs (two passes)",
            "generate-swf: 140000/140000 jobs (two passes) (100%)",
        ),
        (
            "sweep-knapsack",
            vec![
                "sweep-knapsack",
                "--synthetic",
                "--jobs",
                "12",
                "--step",
                "1",
                "--threads",
                "1",
                "--out",
                "{out}",
            ],
            "jobs scheduled",
            // 5^3 = 125 points of 12 jobs each.
            "sweep-knapsack: 1500/1500 jobs scheduled (100%)",
        ),
    ];
    for (name, args, unit, last) in cases {
        let dir = t.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let (quiet, shown) = both(&dir, &args, unit, last);
        assert!(!quiet.is_empty(), "{name}");
        assert!(quiet == shown, "{name}: the progress changed an output");
    }
}

/// A replay's last line counts every job of the log once, whatever the attempts.
#[test]
fn a_replays_progress_counts_each_job_once() {
    let log = common::swf("easy_backfills.swf");
    let jobs = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .count();
    let o = kairos(&["replay", "--policy", "easy", s(&log)], true);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("replay: {jobs}/{jobs} jobs completed (100%)")),
        "{e}"
    );
}

/// `--threads 1024` on any command that takes it: a warning, the cores used, the same
/// results.
#[test]
fn threads_far_above_the_cores_are_capped_with_a_warning() {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if 1024 <= 4 * cores {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let exp = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/experiment_small.toml");
    let pareto = t.join("p.toml");
    std::fs::write(
        &pareto,
        format!(
            "system = \"pareto\"\nname = \"p\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 20\npopulation = 6\ncheckpoints = [0, 2]\n\
             populations = [{{ name = \"a\", seeds = [\"min-energy\"] }}]\n",
            s(&root.join("data/s002-benchmarks-synthetic.toml"))
        ),
    )
    .unwrap();
    let seed003 = t.join("s3.toml");
    std::fs::write(
        &seed003,
        format!(
            "name = \"s3\"\nscenario = {:?}\ntrials = 1\n[seed003]\naxis = \"nodes\"\n\
             nodes = [2]\napproaches = [\"valopt\"]\n",
            s(&root.join("scenarios/seed003.toml"))
        ),
    )
    .unwrap();
    let cases: [(&str, Vec<&str>); 4] = [
        ("experiment", vec!["experiment", s(&exp), "--threads"]),
        ("pareto", vec!["pareto", s(&pareto), "--threads"]),
        ("seed003", vec!["experiment", s(&seed003), "--threads"]),
        (
            "sweep-knapsack",
            vec![
                "sweep-knapsack",
                "--synthetic",
                "--jobs",
                "8",
                "--step",
                "2",
                "--threads",
            ],
        ),
    ];
    for (name, args) in cases {
        let mut reports = Vec::new();
        for n in ["1024", "1"] {
            let out = t.join(format!("{name}-{n}"));
            let mut a = args.clone();
            a.extend([n, "--out", s(&out)]);
            let o = kairos(&a, false);
            let e = String::from_utf8_lossy(&o.stderr);
            let warned = e.contains(&format!(
                "warning: --threads 1024: far above the {cores} cores of this machine; using \
                 {cores}"
            ));
            assert_eq!(warned, n == "1024", "{name} --threads {n}: {e}");
            let mut files: Vec<_> = std::fs::read_dir(&out)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                // Not the wall times (timing.csv, timings.csv).
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "csv")
                        && !p
                            .file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with("timing"))
                })
                .collect();
            files.sort();
            assert!(!files.is_empty(), "{name}");
            reports.push(
                files
                    .iter()
                    .map(|p| std::fs::read(p).unwrap())
                    .collect::<Vec<_>>(),
            );
        }
        assert!(
            reports[0] == reports[1],
            "{name}: results depend on --threads"
        );
    }
}

/// Runs kairos with `args` and no quiet start; its stderr's lines holding `unit`.
fn lines_of(args: &[&str], unit: &str) -> (Vec<String>, String) {
    let o = kairos(args, true);
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    let lines = e
        .lines()
        .filter(|l| l.contains(unit))
        .map(String::from)
        .collect();
    (lines, e)
}

/// (done, total) of a progress line `label: done/total unit (p%), ...`.
fn counts(line: &str) -> (u64, u64) {
    let after = line.rsplit_once(": ").map_or(line, |(_, a)| a);
    let (done, rest) = after.split_once('/').unwrap();
    let total = rest.split_whitespace().next().unwrap();
    (done.parse().unwrap(), total.parse().unwrap())
}

/// A seed 002 experiment of one trial speaks while the trial runs, not only when it ends:
/// its runs tell their simulated hours from inside the loop, all of them by the end (8
/// configurations of 26 hours), and the reports are those of a run without lines.
#[test]
fn a_seed002_trial_shows_its_simulated_hours_as_it_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let serial = t.join("serial.toml");
    std::fs::write(
        &serial,
        "name = \"s\"\nsystem = \"serial\"\nseed = 7\ntasks_per_day = 1500\n\
         heuristics = [\"max-util\", \"min-min-comp\", \"sufferage\", \"max-max-upt\"]\n\
         thetas = [0, 0.5]\n",
    )
    .unwrap();
    let energy = t.join("energy.toml");
    std::fs::write(
        &energy,
        "name = \"e\"\nsystem = \"serial-energy\"\nchapter = 4\nseed = 7\n\
         tasks_per_day = 100\nbudget_gj = 0.03\nheuristics = [\"max-upe\", \"random\"]\n",
    )
    .unwrap();
    for (file, total) in [(&serial, Some(8 * 26)), (&energy, None)] {
        let out = t.join(file.file_stem().unwrap());
        let args = [
            "experiment",
            s(file),
            "--trials",
            "1",
            "--threads",
            "1",
            "--out",
            s(&out),
        ];
        let (lines, e) = lines_of(&args, "simulated hours (all runs)");
        assert!(lines.len() >= 2, "{e}");
        let (first, all) = counts(&lines[0]);
        assert!(first < all, "the first line comes before the runs end: {e}");
        let (last, all_again) = counts(lines.last().unwrap());
        assert_eq!((last, all_again), (all, all), "{e}");
        if let Some(total) = total {
            assert_eq!(all, total, "{e}");
        }
        // The hours' first line comes before the trial's.
        let hours_at = e.find("simulated hours").unwrap();
        let trial_at = e.find("1/1 trials").expect(&e);
        assert!(hours_at < trial_at, "{e}");
        // The same reports without the lines.
        let quiet = t.join(format!(
            "{}-quiet",
            file.file_stem().unwrap().to_str().unwrap()
        ));
        let mut a = args.to_vec();
        let last = a.len() - 1;
        a[last] = s(&quiet);
        let o = kairos(&a, false);
        let eq = String::from_utf8_lossy(&o.stderr);
        assert!(
            !eq.contains("simulated hours"),
            "a short run is quiet: {eq}"
        );
        for name in ["summary.csv", "trials.csv"] {
            let (x, y) = (out.join(name), quiet.join(name));
            if x.exists() || y.exists() {
                assert_eq!(
                    std::fs::read(x).unwrap(),
                    std::fs::read(y).unwrap(),
                    "{name}"
                );
            }
        }
    }
}

/// `replay --stream` and `--allocation pool` read the log as they replay it: their
/// progress counts the KiB read, from a first line well before the end to the whole file,
/// and the jobs file is that of a run without lines.
#[test]
fn a_streamed_replay_shows_the_log_read() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let log = t.join("big.swf");
    kairos(
        &[
            "generate-swf",
            "--model",
            "lublin99",
            "--procs",
            "64",
            "--jobs",
            "20000",
            "-o",
            s(&log),
        ],
        false,
    );
    let kib = std::fs::metadata(&log).unwrap().len() / 1024;
    assert!(kib > 256, "{kib} KiB: several reads of 64 KiB");
    for how in [&["--stream"][..], &["--allocation", "pool"][..]] {
        let mut outs = Vec::new();
        for shown in [true, false] {
            let jobs = t.join(format!("{}-{shown}.csv", how.join("")));
            let mut args = vec!["replay", "--policy", "easy", s(&log), "--jobs-out"];
            args.push(s(&jobs));
            args.extend_from_slice(how);
            let o = kairos(&args, shown);
            let e = String::from_utf8_lossy(&o.stderr);
            let lines: Vec<&str> = e
                .lines()
                .filter(|l| l.contains("KiB of the log read"))
                .collect();
            if shown {
                assert!(lines.len() >= 2, "{how:?}: {e}");
                let (first, all) = counts(lines[0]);
                assert!(first < all, "{how:?}: {e}");
                assert_eq!(counts(lines.last().unwrap()), (kib, kib), "{how:?}: {e}");
            } else {
                assert!(lines.is_empty(), "{how:?}: a short run is quiet: {e}");
            }
            outs.push(std::fs::read(&jobs).unwrap());
        }
        assert!(
            outs[0] == outs[1],
            "{how:?}: the progress changed the jobs file"
        );
    }
}

/// A Batsim workload's reading speaks as its jobs are read (the count known once its JSON
/// is parsed), and a pareto run's setup as its first generation's chromosomes are
/// evaluated, before its first checkpoint's line.
#[test]
fn a_workloads_reading_and_a_pareto_setup_show_their_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let log = t.join("w.swf");
    let json = t.join("w.json");
    kairos(
        &[
            "generate-swf",
            "--model",
            "lublin99",
            "--procs",
            "64",
            "--jobs",
            "3000",
            "-o",
            s(&log),
        ],
        false,
    );
    kairos(
        &["export", "--format", "batsim", s(&log), "-o", s(&json)],
        false,
    );
    let (lines, e) = lines_of(
        &["replay", "--policy", "easy", s(&json)],
        "jobs of the workload read",
    );
    assert!(lines.len() >= 2, "{e}");
    assert!(counts(&lines[0]).0 < 3000, "{e}");
    assert_eq!(counts(lines.last().unwrap()), (3000, 3000), "{e}");
    let read_at = e.find("jobs of the workload read").unwrap();
    let replay_at = e.find("jobs completed").expect(&e);
    assert!(read_at < replay_at, "{e}");

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pareto = t.join("p.toml");
    std::fs::write(
        &pareto,
        format!(
            "system = \"pareto\"\nname = \"p\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 200\npopulation = 6\ncheckpoints = [0, 2]\n\
             populations = [{{ name = \"a\", seeds = [\"min-energy\"] }}, {{ name = \"b\" }}]\n",
            s(&root.join("data/s002-benchmarks-synthetic.toml"))
        ),
    )
    .unwrap();
    let out = t.join("p");
    let (lines, e) = lines_of(
        &["pareto", s(&pareto), "--threads", "1", "--out", s(&out)],
        "chromosomes of generation 0 evaluated",
    );
    assert!(lines.len() >= 2, "{e}");
    assert!(counts(&lines[0]).0 < 12, "{e}");
    assert_eq!(counts(lines.last().unwrap()), (12, 12), "{e}");
    let setup_at = e.find("chromosomes of generation 0").unwrap();
    let first_checkpoint = e.find("population 0: generation 0").expect(&e);
    assert!(setup_at < first_checkpoint, "{e}");
}
