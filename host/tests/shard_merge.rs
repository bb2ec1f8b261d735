//! Sharded sweeps through the binary: `kairos experiment --shard K/N` and
//! `kairos sweep-knapsack --shard K/N`, then `kairos merge`: the merged reports are the bytes
//! of a one-machine run; a missing shard names its runs; shards of different experiments,
//! overlapping shards and an experiment changed since its shards ran are refused. (The same
//! flow on a real Slurm is scripts/test-slurm.sh.)

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::kairos;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn ok(args: &[&str]) -> String {
    let out = kairos(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let out: Output = kairos(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

/// The files of `dir` by name, but timing.json (wall times).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "timing.json")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs shards `ks` of `n` of `file` into `dir`.
fn shards(file: &Path, n: u32, ks: &[u32], dir: &Path) {
    for k in ks {
        ok(&[
            "experiment",
            s(file),
            "--shard",
            &format!("{k}/{n}"),
            "--out",
            s(dir),
            "--jobs",
            "1",
        ]);
    }
}

#[test]
fn shard_merge_is_byte_identical_to_one_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let file = data("experiment_small.toml");
    let one = tmp.path().join("one");
    ok(&["experiment", s(&file), "--out", s(&one)]);
    // 8 runs (4 configurations x 2 trials) in 3 uneven shards (2, 3, 3 runs), two of them
    // cutting a trial's configurations apart; and in 8 shards of one run each.
    for n in [3, 8] {
        let dir = tmp.path().join(format!("shards-{n}"));
        shards(&file, n, &(1..=n).collect::<Vec<_>>(), &dir);
        let merged = tmp.path().join(format!("merged-{n}"));
        let out = ok(&["merge", s(&dir), "--out", s(&merged)]);
        assert!(
            out.contains(&format!("merged {n} shard files (8 runs)")),
            "{out}"
        );
        let (a, b) = (files(&one), files(&merged));
        assert_eq!(
            a.len(),
            7,
            "{:?}",
            a.iter().map(|x| &x.0).collect::<Vec<_>>()
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.0, y.0);
            assert!(x.1 == y.1, "{} differs after merging {n} shards", x.0);
        }
        assert!(merged.join("timing.json").exists());
    }
}

#[test]
fn shard_merge_names_the_missing_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = data("experiment_small.toml");
    let dir = tmp.path().join("shards");
    // Shard 2 of 3 (runs 2-4: configurations 2 and 3 of trial 0, 0 of trial 1) never ran.
    shards(&file, 3, &[1, 3], &dir);
    let e = fails(&["merge", s(&dir), "--out", s(&tmp.path().join("m"))]);
    assert!(e.contains("3 of the 8 runs are missing (runs 2-4)"), "{e}");
    assert!(
        e.contains("run 2 (\"Max UPR PH + EPT L=1\", trial 0), run 3 (\"Max UPR PH + EPT L=4\", trial 0), run 4 (\"EASY\", trial 1)"),
        "{e}"
    );
    assert!(e.contains("they belong to shard 2 of 3"), "{e}");
    assert!(
        !tmp.path().join("m").exists(),
        "no reports from a partial merge"
    );
}

#[test]
fn shard_merge_refuses_other_experiments_overlaps_and_changes() {
    let tmp = tempfile::tempdir().unwrap();
    // A second experiment: the same file with one leniency changed, beside its scenario.
    let other = tmp.path().join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(data("experiment_small.toml"))
            .unwrap()
            .replace("leniencies = [1, 4]", "leniencies = [1, 3]"),
    )
    .unwrap();
    std::fs::copy(
        data("experiment_scenario.toml"),
        tmp.path().join("experiment_scenario.toml"),
    )
    .unwrap();
    let dir = tmp.path().join("mixed");
    shards(&data("experiment_small.toml"), 2, &[1], &dir);
    shards(&other, 2, &[2], &dir);
    let e = fails(&["merge", s(&dir)]);
    assert!(
        e.contains("refusing to merge shards of different experiments")
            && e.contains("experiment_small.toml")
            && e.contains("other.toml"),
        "{e}"
    );

    // Overlapping slicings of one experiment: runs in two shards.
    let dir = tmp.path().join("overlap");
    shards(&other, 2, &[1, 2], &dir);
    shards(&other, 4, &[1], &dir);
    let e = fails(&["merge", s(&dir)]);
    assert!(e.contains("2 of the 8 runs are in two shards"), "{e}");
    assert!(e.contains("run 0 (\"EASY\", trial 0) is in"), "{e}");

    // The experiment edited after its shards ran.
    let dir = tmp.path().join("changed");
    shards(&other, 1, &[1], &dir);
    std::fs::write(
        &other,
        std::fs::read_to_string(&other)
            .unwrap()
            .replace("[1, 3]", "[1, 2]"),
    )
    .unwrap();
    let e = fails(&["merge", s(&dir)]);
    assert!(e.contains("changed since the shards ran"), "{e}");

    // A shard cut short (its job killed while writing), and bad --shard values.
    let dir = tmp.path().join("cut");
    shards(&data("experiment_small.toml"), 1, &[1], &dir);
    let f = dir.join("shard-1-of-1.shard");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, &text[..text.len() / 2]).unwrap();
    let e = fails(&["merge", s(&dir)]);
    assert!(e.contains("shard-1-of-1.shard"), "{e}");
    let e = kairos(&["experiment", s(&other), "--shard", "5/4"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("K must be between 1 and N"));
}

#[test]
fn shard_knapsack_merge_is_byte_identical_and_names_missing_points() {
    let tmp = tempfile::tempdir().unwrap();
    let base = [
        "sweep-knapsack",
        "--synthetic",
        "--jobs",
        "12",
        "--step",
        "1",
        "--threads",
        "1",
        "--out",
    ];
    let one = tmp.path().join("one");
    let mut args = base.to_vec();
    args.push(s(&one));
    ok(&args);
    let dir = tmp.path().join("shards");
    for k in 1..=3 {
        let mut args = base.to_vec();
        let shard = format!("{k}/3");
        args.extend([s(&dir), "--shard", &shard]);
        let out = ok(&args);
        assert!(out.contains(&format!("shard {k}/3")), "{out}");
    }
    let merged = tmp.path().join("merged");
    let out = ok(&["merge", s(&dir), "--out", s(&merged)]);
    assert_eq!(files(&one), files(&merged));
    assert!(out.contains("\"points\": 125"), "{out}");

    std::fs::remove_file(dir.join("shard-3-of-3.shard")).unwrap();
    let e = fails(&["merge", s(&dir), "--out", s(&merged)]);
    assert!(
        e.contains(
            "42 of the 125 points are missing (points 83-124); they belong to shard(s) 3 of 3"
        ),
        "{e}"
    );
    // A knapsack shard beside an experiment shard.
    shards(&data("experiment_small.toml"), 3, &[3], &dir);
    let e = fails(&["merge", s(&dir)]);
    assert!(
        e.contains("not a knapsack shard") || e.contains("not an experiment shard"),
        "{e}"
    );
}

/// A trace experiment (seed 001 on the Curie sample, two oversubscription levels) run in 3
/// slices gives the rows of the whole run: each slice builds only the levels its
/// configurations use, and the rows do not depend on it.
#[test]
fn shard_slices_of_a_trace_experiment_give_the_whole_run() {
    use kairos_host::experiment::runner::{self, Quiet};
    use kairos_host::experiment::Experiment;
    use kairos_host::report;
    use kairos_host::shard::Slice;
    let body = "name = \"t\"\ntrials = 2\n\
        [trace]\nswf = \"../../shared/traces/CEA-Curie-2011-2.1-sample.swf\"\nseed = 1\n\
        [[runs]]\nheuristic = \"easy\"\n\
        [[runs]]\nlabel = \"Max VPR PH 15%\"\nheuristic = \"max-upr\"\nreservations = \"place-holder\"\ncores_fraction = 0.15\n\
        [[runs]]\nlabel = \"Max VPR PH\"\nheuristic = \"max-upr\"\nreservations = \"place-holder\"\n";
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let e = Experiment::parse(body, &root.join("experiments/test.toml")).unwrap();
    let whole = runner::run(&e, Some(2), &Quiet).unwrap();
    assert_eq!(whole.rows.len(), 6);
    let mut parts = whole.clone();
    parts.rows.clear();
    for k in 1..=3 {
        let runs = Slice { k, n: 3 }.range(runner::run_count(&e));
        let o = runner::run_slice(&e, runs.clone(), Some(2), &Quiet).unwrap();
        assert_eq!(o.rows.len() as u64, runs.end - runs.start);
        parts.rows.extend(o.rows);
    }
    parts.rows.sort_by_key(|r| (r.config, r.summary.trial));
    assert_eq!(
        report::trials_csv(&e, &whole),
        report::trials_csv(&e, &parts)
    );
}

/// A seed 002 serial file: shards of its (configuration, trial) units merge to the bytes of
/// the unsharded run; so do the shards `kairos slurm`'s array script runs (run here with the
/// environment Slurm gives a task, scripts/test-slurm.sh submits them to a real Slurm); a
/// seed 000 shard does not take `--resume`; a bad slice is a usage error.
#[test]
fn shard_seed002_merge_is_byte_identical_and_slurm_scripts_run_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = data("s002_serial_small.toml");
    let one = tmp.path().join("one");
    ok(&["experiment", s(&file), "--out", s(&one), "--threads", "1"]);
    let dir = tmp.path().join("shards");
    // 12 units (4 configurations x 3 trials) in 5 shards: slices that cut trials apart.
    shards(&file, 5, &[1, 2, 3, 4, 5], &dir);
    let merged = tmp.path().join("merged");
    let out = ok(&["merge", s(&dir), "--out", s(&merged)]);
    assert!(out.contains("merged 5 shard files"), "{out}");
    let (a, b) = (files(&one), files(&merged));
    assert_eq!(
        a.len(),
        5,
        "{:?}",
        a.iter().map(|x| &x.0).collect::<Vec<_>>()
    );
    assert_eq!(a, b);
    // The Slurm scripts, run as Slurm runs them: each task with its SLURM_ARRAY_TASK_ID,
    // then the merge.
    let slurm = tmp.path().join("slurm");
    let via = tmp.path().join("via-slurm");
    ok(&[
        "slurm",
        s(&file),
        "--shards",
        "3",
        "--dir",
        s(&slurm),
        "--out",
        s(&via),
    ]);
    let array = std::fs::read_to_string(slurm.join("shards.sbatch")).unwrap();
    assert!(array.contains("--resume\n"), "{array}");
    let bash = |script: &str, task: Option<u32>| {
        let mut c = std::process::Command::new("bash");
        c.arg(slurm.join(script));
        if let Some(k) = task {
            c.env("SLURM_ARRAY_TASK_ID", k.to_string());
        }
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "{script} {task:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    for k in 1..=3 {
        bash("shards.sbatch", Some(k));
    }
    // A task run again (a requeued job) finds its shard complete and does nothing.
    bash("shards.sbatch", Some(2));
    bash("merge.sbatch", None);
    assert_eq!(files(&one), files(&via));
    // A bad slice names itself; --resume of a seed 000 shard is refused.
    let out = kairos(&["experiment", s(&file), "--shard", "4/3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("K must be between 1 and N"));
    let out = kairos(&[
        "experiment",
        s(&data("experiment_small.toml")),
        "--shard",
        "1/2",
        "--resume",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume with --shard"));
}
