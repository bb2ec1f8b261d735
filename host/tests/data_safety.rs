//! Nothing lost, nothing silent, through the binary: a result that cannot be one (NaN or an
//! infinity in a shard row) is an error naming the shard file, row and column; a machine of
//! 93,312 processors replays under a 5 GB limit on address space; every output a command
//! writes is checked against its inputs and against its other outputs before any work.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::kairos;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
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
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?} should fail: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// Replaces field `column` (0-based, after the `row` tag) of the first `row` line of
/// `shard` by `value`, and returns that line's number.
fn corrupt_first_row(shard: &Path, column: usize, value: &str) -> usize {
    let text = std::fs::read_to_string(shard).unwrap();
    let mut number = 0;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if number == 0 && l.starts_with("row\t") {
                number = i + 1;
                let mut f: Vec<&str> = l.split('\t').collect();
                f[column + 1] = value;
                f.join("\t")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(shard, lines.join("\n") + "\n").unwrap();
    number
}

#[test]
fn merge_refuses_nan_and_inf_in_knapsack_shard_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    for k in ["1/2", "2/2"] {
        ok(&[
            "sweep-knapsack",
            "--synthetic",
            "--jobs",
            "12",
            "--step",
            "1",
            "--threads",
            "1",
            "--out",
            s(&dir),
            "--shard",
            k,
        ]);
    }
    let shard = dir.join("shard-1-of-2.shard");
    let clean = std::fs::read(&shard).unwrap();
    for (column, name, value) in [(2, "ef_a", "NaN"), (5, "ef_d", "inf"), (3, "ef_b", "-inf")] {
        std::fs::write(&shard, &clean).unwrap();
        let line = corrupt_first_row(&shard, column, value);
        let e = fails(&["merge", s(&dir), "--out", s(&tmp.path().join("m"))]);
        assert!(
            e.contains(&format!(
                "shard-1-of-2.shard:{line}: {name} = \"{value}\": not a finite number"
            )),
            "{e}"
        );
        assert!(!tmp.path().join("m").join("summary.json").exists());
    }
}

#[test]
fn merge_refuses_nan_and_inf_in_experiment_shard_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    let file = data("experiment_small.toml");
    for k in ["1/2", "2/2"] {
        ok(&[
            "experiment",
            s(&file),
            "--shard",
            k,
            "--out",
            s(&dir),
            "--jobs",
            "1",
        ]);
    }
    let shard = dir.join("shard-1-of-2.shard");
    let clean = std::fs::read(&shard).unwrap();
    // utility_percent and energy_joules (columns 8 and 11): the bars of the reports.
    for (column, name, value) in [(8, "utility_percent", "NaN"), (11, "energy_joules", "inf")] {
        std::fs::write(&shard, &clean).unwrap();
        let line = corrupt_first_row(&shard, column, value);
        let e = fails(&["merge", s(&dir), "--out", s(&tmp.path().join("m"))]);
        assert!(
            e.contains(&format!(
                "shard-1-of-2.shard:{line}: {name} = \"{value}\": not a finite number"
            )),
            "{e}"
        );
    }
}

/// A log for a machine of 93,312 processors (the Curie log's size) whose worst-case
/// scheduler storage is over 5 GB of address space, where its jobs need a few MB.
fn curie_sized_log(dir: &Path) -> PathBuf {
    let mut text = String::from("; MaxProcs: 93312\n");
    for i in 0..300u64 {
        let procs = 1 + (i * 7919) % 4096;
        let run = 60 + (i * 31) % 3600;
        text.push_str(&format!(
            "{} {} -1 {run} {procs} -1 -1 {procs} {} -1 1 1 1 -1 -1 1 -1 -1\n",
            i + 1,
            i * 20,
            run + 600
        ));
    }
    let p = dir.join("curie-sized.swf");
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `kairos args` under `ulimit -v` of `kb` KiB.
fn under_address_limit(kb: u64, args: &[&str]) -> Output {
    let mut script = format!("ulimit -v {kb} && exec \"$0\"");
    for k in 0..args.len() {
        script.push_str(&format!(" \"${}\"", k + 1));
    }
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_machine_of_93312_processors_replays_under_5_gb_of_address_space() {
    let tmp = tempfile::tempdir().unwrap();
    let log = curie_sized_log(tmp.path());
    let free = ok(&["replay", "--policy", "easy", s(&log)]);
    for extra in [&[][..], &["--stream"][..]] {
        let mut args = vec!["replay", "--policy", "easy", s(&log)];
        args.extend_from_slice(extra);
        let out = under_address_limit(5_000_000, &args);
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let limited = String::from_utf8(out.stdout).unwrap();
        let jobs = |t: &str| {
            t.lines()
                .find(|l| l.contains("\"completed\""))
                .map(str::to_string)
        };
        assert_eq!(jobs(&limited), jobs(&free), "{extra:?}");
    }
    // Too little address space for even a first attempt: an error, not an abort.
    let out = under_address_limit(200_000, &["replay", "--policy", "easy", s(&log)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("cannot allocate"), "{e}");
}

#[test]
fn a_file_read_whole_is_bounded_by_its_kind() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("e.toml");
    std::fs::write(
        &exp,
        "name = \"t\"\nscenario = \"/dev/zero\"\ntrials = 1\n[seed003]\naxis = \"rate\"\n",
    )
    .unwrap();
    let e = fails(&["experiment", s(&exp), "--out", s(&tmp.path().join("o"))]);
    assert!(e.contains("/dev/zero") && e.contains("larger than"), "{e}");
    // The experiment file itself, a Batsim workload, an SWF log, a shard.
    let e = fails(&["experiment", "/dev/zero", "--out", s(&tmp.path().join("o"))]);
    assert!(e.contains("/dev/zero"), "{e}");
    for extra in [&[][..], &["--stream"][..], &["--allocation", "pool"][..]] {
        let mut args = vec!["replay", "--policy", "easy", "/dev/zero"];
        args.extend_from_slice(extra);
        let e = fails(&args);
        assert!(e.contains("/dev/zero"), "{extra:?}: {e}");
    }
}

/// Copies `from` to `dir/name` and returns the copy.
fn copy_as(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(from, &p).unwrap();
    p
}

/// Every command that writes files, with each output colliding with an input and with
/// another output: refused before any work, the input unchanged, nothing written.
#[test]
fn every_output_colliding_with_an_input_or_another_output_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let log = common::swf("easy_backfills.swf");
    let scenario = data("essc_small.toml");
    let unchanged = |p: &Path, from: &Path| {
        assert_eq!(
            std::fs::read(p).unwrap(),
            std::fs::read(from).unwrap(),
            "{}",
            p.display()
        );
    };
    let replay = |extra: &[&str], input: &Path| {
        let mut args = vec!["replay", "--policy", "easy", s(input)];
        args.extend_from_slice(extra);
        fails(&args)
    };

    // replay: each output is the log.
    let l = copy_as(&log, t, "a/log.swf");
    for flag in ["--jobs-out", "--summary-out"] {
        let e = replay(&[flag, s(&l)], &l);
        assert!(e.contains("would destroy the input"), "{flag}: {e}");
    }
    let l = copy_as(&log, t, "b/X_jobs.csv");
    let e = replay(&["--batsim-out", s(&t.join("b/X"))], &l);
    assert!(e.contains("would destroy the input"), "{e}");
    // The plots --summary-out writes beside the summary: the log, and existing files.
    let l = copy_as(&log, t, "c/s-queue.svg");
    let e = replay(&["--summary-out", s(&t.join("c/s.json"))], &l);
    assert!(
        e.contains("s-queue.svg") && e.contains("would destroy the input"),
        "{e}"
    );
    unchanged(&l, &log);
    let l = copy_as(&log, t, "d/log.swf");
    std::fs::write(t.join("d/s-utilisation.svg"), "mine").unwrap();
    let e = replay(&["--summary-out", s(&t.join("d/s.json"))], &l);
    assert!(e.contains("s-utilisation.svg: exists; pass --force"), "{e}");
    assert_eq!(
        std::fs::read_to_string(t.join("d/s-utilisation.svg")).unwrap(),
        "mine"
    );
    assert!(!t.join("d/s.json").exists());
    // Two outputs, one file.
    let x = t.join("d/X");
    let jobs = t.join("d/X_jobs.csv");
    let e = replay(&["--jobs-out", s(&jobs), "--batsim-out", s(&x)], &l);
    assert!(e.contains("is also the file --jobs-out writes"), "{e}");
    let e = replay(&["--jobs-out", s(&jobs), "--summary-out", s(&jobs)], &l);
    assert!(e.contains("is also the file"), "{e}");
    let e = replay(
        &[
            "--summary-out",
            s(&t.join("d/q.json")),
            "--jobs-out",
            s(&t.join("d/q-queue.svg")),
        ],
        &l,
    );
    assert!(e.contains("is also the file"), "{e}");
    assert!(!jobs.exists() && !t.join("d/q.json").exists());
    // Parent folders are made for every output flag.
    ok(&[
        "replay",
        "--policy",
        "easy",
        s(&l),
        "--summary-out",
        s(&t.join("d/new/s.json")),
    ]);
    assert!(t.join("d/new/s-queue.svg").is_file());
    ok(&[
        "replay",
        "--policy",
        "easy",
        s(&l),
        "--jobs-out",
        s(&t.join("d/new2/j.csv")),
    ]);
    assert!(t.join("d/new2/j.csv").is_file());

    // run: the scenario, and --trace-out p_jobs.csv with --batsim-out p.
    let sc = copy_as(&scenario, t, "e/sc.toml");
    let e = fails(&[
        "run",
        s(&sc),
        "--heuristic",
        "max-upe",
        "--trace-out",
        s(&sc),
    ]);
    assert!(e.contains("would destroy the input"), "{e}");
    let e = fails(&[
        "run",
        s(&sc),
        "--heuristic",
        "max-upe",
        "--trace-out",
        s(&t.join("e/p_jobs.csv")),
        "--batsim-out",
        s(&t.join("e/p")),
    ]);
    assert!(e.contains("is also the file --trace-out writes"), "{e}");
    unchanged(&sc, &scenario);

    // export: the input.
    let l = copy_as(&log, t, "f/log.swf");
    let e = fails(&["export", s(&l), "--format", "batsim", "-o", s(&l)]);
    assert!(e.contains("would destroy the input"), "{e}");
    unchanged(&l, &log);

    // Reports into a folder that holds an input under a report's kind of name.
    let exp = copy_as(&data("experiment_small.toml"), t, "g/trials.csv");
    copy_as(
        &data("experiment_scenario.toml"),
        t,
        "g/experiment_scenario.toml",
    );
    let e = fails(&["experiment", s(&exp), "--out", s(&t.join("g"))]);
    assert!(
        e.contains("which a report of this run could overwrite"),
        "{e}"
    );
    unchanged(&exp, &data("experiment_small.toml"));
    let l = copy_as(&log, t, "h/points.csv");
    let e = fails(&[
        "sweep-knapsack",
        s(&l),
        "--jobs",
        "4",
        "--step",
        "1",
        "--out",
        s(&t.join("h")),
    ]);
    assert!(
        e.contains("which a report of this run could overwrite"),
        "{e}"
    );
    unchanged(&l, &log);
}

/// `--resume` checks the saved trials' identity first (the trial count, the experiment and
/// scenario files) and never deletes them.
#[test]
fn resume_checks_the_saved_trials_identity_and_keeps_them() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let exp = copy_as(&data("experiment_small.toml"), t, "e.toml");
    copy_as(
        &data("experiment_scenario.toml"),
        t,
        "experiment_scenario.toml",
    );
    let out = t.join("o");
    // Trial 0 of 2 saved, as an interrupted run leaves it (its runs are shard 1 of 2).
    ok(&[
        "experiment",
        s(&exp),
        "--shard",
        "1/2",
        "--out",
        s(&out.join("runs")),
        "--jobs",
        "1",
    ]);
    let saved = out.join("runs/shard-1-of-2.shard");
    let before = std::fs::read(&saved).unwrap();
    let e = fails(&[
        "experiment",
        s(&exp),
        "--out",
        s(&out),
        "--resume",
        "--trials",
        "3",
    ]);
    assert!(e.contains("of a run of 2 trials, not 3"), "{e}");
    assert_eq!(std::fs::read(&saved).unwrap(), before);
    // The experiment file changed since.
    let text = std::fs::read_to_string(&exp).unwrap();
    std::fs::write(&exp, text.replace("trials = 2", "trials = 2\n# edited")).unwrap();
    let e = fails(&["experiment", s(&exp), "--out", s(&out), "--resume"]);
    assert!(e.contains("changed since this trial was saved"), "{e}");
    assert_eq!(std::fs::read(&saved).unwrap(), before);
    assert!(!out.join("runs/shard-2-of-2.shard").exists(), "nothing ran");
    // Restored: the resume runs trial 1 only and reports.
    std::fs::write(&exp, text).unwrap();
    let o = kairos(&[
        "experiment",
        s(&exp),
        "--out",
        s(&out),
        "--resume",
        "--jobs",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("1 trials saved"), "{e}");
    assert!(out.join("summary.json").is_file());
}

/// `generate-swf` stopped by Ctrl-C leaves neither its output nor its hidden temporary file.
#[cfg(unix)]
#[test]
fn generate_swf_interrupted_leaves_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("big.swf");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "generate-swf",
            "--model",
            "lublin99",
            "--procs",
            "128",
            "--jobs",
            "100000000",
            "-o",
            s(&out),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Until the temporary file is there (made before the model's first pass).
    let start = std::time::Instant::now();
    while std::fs::read_dir(tmp.path()).unwrap().count() == 0 && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out_status = child.wait().unwrap();
    assert!(!out_status.success());
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn bench() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/s002-benchmarks-synthetic.toml")
        .display()
        .to_string()
}

/// Values that cannot mean what was asked are refused, naming the file, line and key.
#[test]
fn nonsense_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // Seed 003 calibration targets that are not percentages.
    std::fs::write(t.join("ok.toml"), "").unwrap();
    for (value, shown) in [("nan", "NaN"), ("4294967295", "4294967295")] {
        let e = t.join("cal.toml");
        std::fs::write(
            &e,
            format!(
                "name = \"t\"\nscenario = \"ok.toml\"\n[seed003]\naxis = \"rate\"\n\
                 rates = [\"high\", \"low\"]\napproaches = [\"valopt\"]\n\
                 [seed003.calibrate]\nhigh = {value}\nlow = 13.0\n"
            ),
        )
        .unwrap();
        let err = fails(&["experiment", s(&e), "--out", s(&t.join("o"))]);
        assert!(
            err.contains(&format!(
                "cal.toml:8: seed003.calibrate.high = {shown}: must be between 0 and 100"
            )),
            "{err}"
        );
    }
    // Two pareto populations with one name; --checkpoints past any run's length.
    let f = t.join("p.toml");
    std::fs::write(
        &f,
        format!(
            "system = \"pareto\"\nname = \"p\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 20\npopulation = 6\ncheckpoints = [0, 2]\n\
             populations = [{{ name = \"a\", seeds = [\"min-energy\"] }}, {{ name = \"a\" }}]\n",
            bench()
        ),
    )
    .unwrap();
    let err = fails(&["pareto", s(&f), "--out", s(&t.join("po"))]);
    assert!(
        err.contains("populations[1].name = a: another population has this name"),
        "{err}"
    );
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("{ name = \"a\" }", "{ name = \"b\" }");
    std::fs::write(&f, text).unwrap();
    let err = fails(&["pareto", s(&f), "--checkpoints", "0,9223372036854775807"]);
    assert!(
        err.contains("--checkpoints 9223372036854775807: at most 1000000000"),
        "{err}"
    );
    // A folder holding an earlier run's checkpoint fronts needs --force.
    let po = t.join("po");
    std::fs::create_dir_all(&po).unwrap();
    std::fs::write(po.join("fronts-gen7.svg"), "<svg/>").unwrap();
    let err = fails(&["pareto", s(&f), "--out", s(&po)]);
    assert!(
        err.contains("holds files of an earlier run (fronts-gen7.svg)"),
        "{err}"
    );
    // generate-swf: a load that puts the submit times past any clock.
    let err = fails(&[
        "generate-swf",
        "--model",
        "lublin99",
        "--procs",
        "16",
        "--jobs",
        "100",
        "--load",
        "1e-308",
        "-o",
        s(&t.join("g.swf")),
    ]);
    assert!(
        err.contains("--load 1e-308") && err.contains("give a higher load"),
        "{err}"
    );
    assert!(!t.join("g.swf").exists());
}

/// One command of the table of [`every_writing_command_refuses_each_collision`]: the files
/// it starts from (path under the test's folder, content), commands run first (shards to
/// merge), the command, the file that must come out unchanged, and the refusal's words.
struct Collision {
    what: &'static str,
    files: Vec<(&'static str, String)>,
    before: Vec<Vec<&'static str>>,
    args: Vec<&'static str>,
    kept: &'static str,
    says: &'static str,
}

/// Every command that writes files, each output in turn colliding with an input (the
/// input named as the output, or sitting in the output folder under a report's name) and,
/// where a command writes several, with another output: refused with exit 1 before any
/// work, the input unchanged, no report written.
#[test]
fn every_writing_command_refuses_each_collision() {
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    let log = read(common::swf("easy_backfills.swf"));
    let scenario = read(data("essc_small.toml"));
    let exp = read(data("experiment_small.toml"));
    let exp_scenario = read(data("experiment_scenario.toml"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let serial = "name = \"s\"\nsystem = \"serial\"\nseed = 7\ntasks_per_day = 100\n\
                  heuristics = [\"max-util\"]\nthetas = [0]\ntrials = 1\n"
        .to_string();
    let energy = "name = \"e\"\nsystem = \"serial-energy\"\nchapter = 4\nseed = 7\n\
                  tasks_per_day = 100\nbudget_gj = 0.03\nheuristics = [\"max-upe\"]\n\
                  trace_minutes = 120\ntrials = 1\n"
        .to_string();
    let seed003 = format!(
        "name = \"s3\"\nscenario = {:?}\ntrials = 1\n[seed003]\naxis = \"nodes\"\n\
         nodes = [2]\napproaches = [\"valopt\"]\n",
        s(&root.join("scenarios/seed003.toml"))
    );
    let pareto = format!(
        "system = \"pareto\"\nname = \"p\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
         tasks = 20\npopulation = 6\ncheckpoints = [0, 2]\n\
         populations = [{{ name = \"a\", seeds = [\"min-energy\"] }}]\n",
        s(&root.join("data/s002-benchmarks-synthetic.toml"))
    );
    let destroy = "writing it would destroy the input";
    let held = "which a report of this run could overwrite";
    let both = "is also the file";
    // The experiment file `name` with its scenario beside it, at `scenario`.
    let with_scenario = |name: &'static str, scenario: &'static str, text: &str| {
        vec![(name, text.to_string()), (scenario, exp_scenario.clone())]
    };
    let table = vec![
        // One file given as both an input and an output.
        Collision {
            what: "replay --jobs-out the log",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "log.swf",
                "--jobs-out",
                "log.swf",
            ],
            kept: "log.swf",
            says: destroy,
        },
        Collision {
            what: "replay --summary-out the log",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "log.swf",
                "--summary-out",
                "log.swf",
            ],
            kept: "log.swf",
            says: destroy,
        },
        Collision {
            what: "replay --batsim-out's jobs file the log",
            files: vec![("X_jobs.csv", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "X_jobs.csv",
                "--batsim-out",
                "X",
            ],
            kept: "X_jobs.csv",
            says: destroy,
        },
        Collision {
            what: "replay --summary-out's plot the log",
            files: vec![("s-queue.svg", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "s-queue.svg",
                "--summary-out",
                "s.json",
            ],
            kept: "s-queue.svg",
            says: destroy,
        },
        Collision {
            what: "run --trace-out the scenario",
            files: vec![("sc.toml", scenario.clone())],
            before: vec![],
            args: vec![
                "run",
                "sc.toml",
                "--heuristic",
                "max-upe",
                "--trace-out",
                "sc.toml",
            ],
            kept: "sc.toml",
            says: destroy,
        },
        Collision {
            what: "export -o the input",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec!["export", "log.swf", "--format", "batsim", "-o", "log.swf"],
            kept: "log.swf",
            says: destroy,
        },
        Collision {
            what: "generate-swf -o an existing file",
            files: vec![("g.swf", log.clone())],
            before: vec![],
            args: vec![
                "generate-swf",
                "--model",
                "lublin99",
                "--procs",
                "8",
                "--jobs",
                "5",
                "-o",
                "g.swf",
            ],
            kept: "g.swf",
            says: "exists; pass --force",
        },
        Collision {
            what: "slurm's array script the experiment file",
            files: with_scenario("d/shards.sbatch", "d/experiment_scenario.toml", &exp),
            before: vec![],
            args: vec!["slurm", "d/shards.sbatch", "--shards", "2", "--dir", "d"],
            kept: "d/shards.sbatch",
            says: destroy,
        },
        Collision {
            what: "slurm's merge script the experiment file",
            files: with_scenario("d/merge.sbatch", "d/experiment_scenario.toml", &exp),
            before: vec![],
            args: vec!["slurm", "d/merge.sbatch", "--shards", "2", "--dir", "d"],
            kept: "d/merge.sbatch",
            says: destroy,
        },
        // An input in the output folder under a report's kind of name.
        Collision {
            what: "experiment (seed 000) into the folder of its file",
            files: with_scenario("o/trials.csv", "o/experiment_scenario.toml", &exp),
            before: vec![],
            args: vec!["experiment", "o/trials.csv", "--out", "o"],
            kept: "o/trials.csv",
            says: held,
        },
        Collision {
            what: "experiment (seed 002 serial) into the folder of its file",
            files: vec![("o/trials.csv", serial)],
            before: vec![],
            args: vec!["experiment", "o/trials.csv", "--out", "o"],
            kept: "o/trials.csv",
            says: held,
        },
        Collision {
            what: "experiment (seed 002 energy) into the folder of its file",
            files: vec![("o/summary.json", energy)],
            before: vec![],
            args: vec!["experiment", "o/summary.json", "--out", "o"],
            kept: "o/summary.json",
            says: held,
        },
        Collision {
            what: "experiment (seed 003) into the folder of its file",
            files: vec![("o/summary.csv", seed003)],
            before: vec![],
            args: vec!["experiment", "o/summary.csv", "--out", "o"],
            kept: "o/summary.csv",
            says: held,
        },
        Collision {
            what: "pareto into the folder of its file",
            files: vec![("o/coverage.csv", pareto)],
            before: vec![],
            args: vec!["pareto", "o/coverage.csv", "--out", "o"],
            kept: "o/coverage.csv",
            says: held,
        },
        Collision {
            what: "sweep-knapsack into the folder of its log",
            files: vec![("o/points.csv", log.clone())],
            before: vec![],
            args: vec![
                "sweep-knapsack",
                "o/points.csv",
                "--jobs",
                "4",
                "--step",
                "1",
                "--out",
                "o",
            ],
            kept: "o/points.csv",
            says: held,
        },
        Collision {
            what: "merge (experiment) into the folder of the experiment file",
            files: with_scenario("e.toml", "experiment_scenario.toml", &exp),
            before: vec![
                vec![
                    "experiment",
                    "e.toml",
                    "--shard",
                    "1/1",
                    "--out",
                    "sh",
                    "--jobs",
                    "1",
                ],
                vec!["mkdir", "o"],
                vec!["cp", "e.toml", "o/summary.csv"],
                vec!["cp", "experiment_scenario.toml", "o/"],
            ],
            args: vec!["merge", "sh", "--out", "o", "--experiment", "o/summary.csv"],
            kept: "o/summary.csv",
            says: held,
        },
        Collision {
            what: "merge (knapsack) into the folder of the log",
            files: vec![("o/pareto.csv", log.clone())],
            before: vec![vec![
                "sweep-knapsack",
                "o/pareto.csv",
                "--jobs",
                "4",
                "--step",
                "1",
                "--shard",
                "1/1",
                "--out",
                "sh",
                "--threads",
                "1",
            ]],
            args: vec!["merge", "sh", "--out", "o"],
            kept: "o/pareto.csv",
            says: held,
        },
        // Two outputs of one command, one file.
        Collision {
            what: "replay --jobs-out the jobs file of --batsim-out",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "log.swf",
                "--jobs-out",
                "X_jobs.csv",
                "--batsim-out",
                "X",
            ],
            kept: "log.swf",
            says: both,
        },
        Collision {
            what: "replay --jobs-out and --summary-out one file",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "log.swf",
                "--jobs-out",
                "j",
                "--summary-out",
                "j",
            ],
            kept: "log.swf",
            says: both,
        },
        Collision {
            what: "replay --jobs-out a plot of --summary-out",
            files: vec![("log.swf", log.clone())],
            before: vec![],
            args: vec![
                "replay",
                "--policy",
                "easy",
                "log.swf",
                "--summary-out",
                "q.json",
                "--jobs-out",
                "q-queue.svg",
            ],
            kept: "log.swf",
            says: both,
        },
        Collision {
            what: "run --trace-out the jobs file of --batsim-out",
            files: vec![("sc.toml", scenario.clone())],
            before: vec![],
            args: vec![
                "run",
                "sc.toml",
                "--heuristic",
                "max-upe",
                "--trace-out",
                "p_jobs.csv",
                "--batsim-out",
                "p",
            ],
            kept: "sc.toml",
            says: both,
        },
    ];
    for case in table {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        for (name, text) in &case.files {
            let p = t.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        for cmd in &case.before {
            let program = if cmd[0] == "mkdir" || cmd[0] == "cp" {
                PathBuf::from(cmd[0])
            } else {
                PathBuf::from(env!("CARGO_BIN_EXE_kairos"))
            };
            let args = if program.ends_with("kairos") {
                &cmd[..]
            } else {
                &cmd[1..]
            };
            let out = std::process::Command::new(program)
                .args(args)
                .current_dir(t)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}: {cmd:?}: {out:?}", case.what);
        }
        let kept = std::fs::read(t.join(case.kept)).unwrap();
        let before: Vec<_> = walk(t);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(&case.args)
            .current_dir(t)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {e}", case.what);
        assert!(e.contains(case.says), "{}: {e}", case.what);
        assert_eq!(
            std::fs::read(t.join(case.kept)).unwrap(),
            kept,
            "{}: the input changed",
            case.what
        );
        assert_eq!(walk(t), before, "{}: wrote files: {e}", case.what);
    }
}

/// Every file under `dir`, by path, with its size.
fn walk(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                v.push((p, e.metadata().unwrap().len()));
            }
        }
    }
    v.sort();
    v
}
