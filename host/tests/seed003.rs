//! Seed 003 end to end: golden digests of one trial under each approach, the same rows for any
//! thread count, and clear errors for bad scenario and experiment files.
//!
//! The golden trial uses the model's documented defaults (docs/model.md, seed 003: the Pentium M
//! table, seed 001's value curves, s_w = s_d = 1) at 300 jobs and a shorter GA, not
//! `scenarios/seed003.toml`, so that editing the scenario does not move it. A change here is a
//! change in some decision: if it is intended, update the table and say why (last: the value
//! curves became seed 001's).

use kairos_core::units::Micros;
use kairos_host::seed003::experiment::{self, Seed003Experiment};
use kairos_host::seed003::generate::{self, Rate};
use kairos_host::seed003::model::{Ga, Model};
use kairos_host::seed003::profile;
use kairos_host::seed003::sim::{self, Approach, Setup};
use std::path::{Path, PathBuf};

const GOLDEN: [(Approach, u64); 4] = [
    (Approach::ValOpt, 0xc396603f4b20751c),
    (Approach::NbaFcps, 0xac78514870656b6f),
    (Approach::NbaFtps, 0xc75f19ae98bd48ab),
    (Approach::Pba, 0x46772a3fc0742946),
];

fn golden_model() -> Model {
    let mut m = Model::default();
    m.workload.jobs = 300;
    m.ga = Ga {
        generations: 20,
        ..Ga::default()
    };
    m
}

#[test]
fn golden_digests_of_trial_0() {
    let m = golden_model();
    let jobs = generate::workload(m.seed, 0, &m.workload).unwrap();
    let table = m.platform.dvfs().unwrap();
    let profiles = profile::profile_all(m.seed, 0, &jobs, &table, &m.ga).unwrap();
    let setup = Setup {
        rate: Rate::High,
        nodes: 3,
        cores: 8,
        overhead: Micros(10),
    };
    let mut got = Vec::new();
    for (a, _) in GOLDEN {
        let r = sim::run(&jobs, Some(&profiles), &table, a, &setup).unwrap();
        // Every job is accounted for: it ran or was dropped.
        assert_eq!(r.executed + r.dropped, r.jobs, "{a:?}");
        let again = sim::run(&jobs, Some(&profiles), &table, a, &setup).unwrap();
        assert_eq!(r, again, "{a:?} is not deterministic");
        got.push((a, r.digest));
    }
    let want: Vec<(Approach, u64)> = GOLDEN.to_vec();
    assert_eq!(
        got.iter()
            .map(|(a, d)| format!("{a:?} {d:016x}"))
            .collect::<Vec<_>>(),
        want.iter()
            .map(|(a, d)| format!("{a:?} {d:016x}"))
            .collect::<Vec<_>>()
    );
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn rows_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "s.toml",
        "[workload]\njobs = 60\n[ga]\ngenerations = 5\npopulation = 10\n",
    );
    let e = write(
        dir.path(),
        "e.toml",
        "name = \"t\"\nscenario = \"s.toml\"\ntrials = 3\n[seed003]\naxis = \"rate\"\n\
         rates = [\"high\", \"low\"]\n",
    );
    let exp = Seed003Experiment::load(&e).unwrap();
    let one = experiment::run(&exp, Some(1), &|_, _| {}).unwrap();
    let two = experiment::run(&exp, Some(2), &|_, _| {}).unwrap();
    let digests = |o: &experiment::Outcome| {
        o.rows
            .iter()
            .map(|r| (r.point, r.approach, r.trial, r.result))
            .collect::<Vec<_>>()
    };
    assert_eq!(digests(&one), digests(&two));
    assert_eq!(one.rows.len(), 2 * 4 * 3);
}

#[test]
fn bad_files_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = write(dir.path(), "s.toml", "[workload]\njobs = 10\ns_w = -1\n");
    let err = Model::load(&s).unwrap_err().to_string();
    assert!(err.contains("s.toml:3: workload.s_w = -1"), "{err}");
    write(dir.path(), "ok.toml", "");
    let e = write(
        dir.path(),
        "e.toml",
        "name = \"t\"\nscenario = \"ok.toml\"\n[seed003]\naxis = \"rate\"\n\
         rates = [\"fast\"]\napproaches = [\"pba\", \"magic\"]\n",
    );
    let err = format!("{:#}", Seed003Experiment::load(&e).unwrap_err());
    assert!(
        err.contains("e.toml:5: seed003.rates[0] = \"fast\""),
        "{err}"
    );
    assert!(err.contains("seed003.approaches[1] = \"magic\""), "{err}");
    let e = write(
        dir.path(),
        "e2.toml",
        "name = \"t\"\nscenario = \"missing.toml\"\n[seed003]\naxis = \"rate\"\n",
    );
    let err = format!("{:#}", Seed003Experiment::load(&e).unwrap_err());
    assert!(
        err.contains("e2.toml:2: scenario = \"missing.toml\""),
        "{err}"
    );
    assert!(experiment::is_seed003(&e));
}

#[test]
fn cached_profiles_give_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "s.toml",
        "[workload]\njobs = 40\n[ga]\ngenerations = 5\npopulation = 10\n",
    );
    let e = write(
        dir.path(),
        "e.toml",
        "name = \"t\"\nscenario = \"s.toml\"\ntrials = 2\n[seed003]\n\
         profile_cache = \"cache\"\naxis = \"rate\"\napproaches = [\"pba\"]\n",
    );
    let mut exp = Seed003Experiment::load(&e).unwrap();
    assert_eq!(
        exp.profile_cache, None,
        "a loaded file caches nothing until told where"
    );
    let out = dir.path().join("out");
    exp.cache_profiles_under(&out);
    assert_eq!(
        exp.profile_cache.as_deref(),
        Some(out.join("cache").as_path())
    );
    let first = experiment::run(&exp, Some(1), &|_, _| {}).unwrap();
    assert_eq!(first.profiled_jobs, 80);
    let second = experiment::run(&exp, Some(1), &|_, _| {}).unwrap();
    assert_eq!(second.profiled_jobs, 0, "the cache was not used");
    let rows = |o: &experiment::Outcome| o.rows.iter().map(|r| r.result).collect::<Vec<_>>();
    assert_eq!(rows(&first), rows(&second));
    // A damaged file is recomputed, not trusted.
    let m = exp.model.clone();
    let f = profile::cache_file(exp.profile_cache.as_ref().unwrap(), &m, 0);
    let mut b = std::fs::read(&f).unwrap();
    let last = b.len() - 5;
    b[last] ^= 0xff;
    std::fs::write(&f, b).unwrap();
    let third = experiment::run(&exp, Some(1), &|_, _| {}).unwrap();
    assert_eq!(third.profiled_jobs, 40);
    assert_eq!(rows(&first), rows(&third));
}

/// The `.bin` files of `dir` and its subfolders.
fn bin_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(bin_files(&p));
        } else if p.extension().is_some_and(|x| x == "bin") {
            found.push(p);
        }
    }
    found
}

#[test]
fn kairos_experiment_keeps_pba_profiles_under_out() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs");
    let cwd = dir.path().join("checkout");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    write(
        &inputs,
        "s.toml",
        "[workload]\njobs = 20\n[ga]\ngenerations = 3\npopulation = 6\n",
    );
    let e = write(
        &inputs,
        "e.toml",
        "name = \"t\"\nscenario = \"s.toml\"\ntrials = 2\n[seed003]\naxis = \"rate\"\n\
         approaches = [\"valopt\", \"pba\"]\n",
    );
    let out = dir.path().join("elsewhere").join("run");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "experiment",
            e.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(&args)
            .current_dir(&cwd)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let first = run(&[]);
    assert!(first.contains("PBA profiling: 40 jobs"), "{first}");
    let summary = || std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let profiled = summary();
    // One file a trial, in --out's profiles/ folder; none in the working directory or beside
    // the inputs.
    let cached = bin_files(&out.join("profiles"));
    assert_eq!(cached.len(), 2, "{cached:?}");
    assert_eq!(bin_files(&cwd), Vec::<PathBuf>::new());
    assert_eq!(bin_files(&inputs), Vec::<PathBuf>::new());
    // A second run into the same folder reads them instead of profiling again.
    let second = run(&["--force"]);
    assert!(!second.contains("PBA profiling"), "{second}");
    assert_eq!(
        profiled,
        summary(),
        "the cached profiles gave other results"
    );
}

#[test]
fn kairos_experiment_runs_a_seed003_file_and_rejects_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "s.toml",
        "[workload]\njobs = 30\n[ga]\ngenerations = 3\npopulation = 6\n",
    );
    let e = write(
        dir.path(),
        "e.toml",
        "name = \"t\"\nscenario = \"s.toml\"\ntrials = 2\n[seed003]\naxis = \"rate\"\n\
         rates = [\"high\", \"low\"]\n",
    );
    let out = dir.path().join("out");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "experiment",
            e.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("on average over the 2 points, versus ValOpt"),
        "{stdout}"
    );
    for f in [
        "summary.csv",
        "trials.csv",
        "value.svg",
        "energy.svg",
        "rejected.svg",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let bad = write(
        dir.path(),
        "bad.toml",
        "name = \"t\"\nscenario = \"s.toml\"\n[seed003]\naxis = \"speed\"\n",
    );
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["experiment", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("bad.toml:4: seed003.axis = \"speed\""),
        "{err}"
    );
}

#[test]
fn a_grid_experiment_maps_the_rates_claims_over_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "s.toml",
        "[workload]\njobs = 30\n[ga]\ngenerations = 3\npopulation = 6\n",
    );
    let row = |rate: &str| {
        format!("{{ file = \"summary.csv\", where = {{ rate = \"{rate}\", approach = \"valopt\" }}, column = \"value\" }}")
    };
    write(
        dir.path(),
        "c.toml",
        &format!(
            "seed = \"003\"\ntitle = \"t\"\n\
             [[claim]]\nid = \"003-a\"\nsource = \"s\"\nstatement = \"more value when slower\"\n\
             paper = \"low > high\"\nexperiment = \"e\"\nresults = \"seed003/rates\"\n\
             ours = \"vl / vh\"\nunit = \"x\"\ntest = \"vl > vh\"\nvalues.vh = {}\nvalues.vl = {}\n\
             values.n = {{ file = \"trials.csv\", where = {{ point = \"high\", approach = \"valopt\" }}, column = \"value\", stat = \"count\" }}\n\
             [[claim]]\nid = \"003-b\"\nsource = \"s\"\nstatement = \"nodes\"\npaper = \"-\"\n\
             experiment = \"e\"\nresults = \"seed003/nodes\"\nours = \"v\"\ntest = \"v > 0\"\n\
             values.v = {}\n\
             [[claim]]\nid = \"003-c\"\nsource = \"s\"\nstatement = \"by nodes\"\npaper = \"-\"\n\
             experiment = \"e\"\nresults = \"seed003/rates\"\nours = \"v\"\ntest = \"v > 0\"\n\
             values.v = {{ file = \"summary.csv\", where = {{ nodes = 3, approach = \"valopt\" }}, column = \"value\" }}\n",
            row("high"),
            row("low"),
            row("high")
        ),
    );
    let e = write(
        dir.path(),
        "e.toml",
        "name = \"t\"\nscenario = \"s.toml\"\ntrials = 2\n[seed003]\naxis = \"s_d\"\n\
         claims = \"c.toml\"\nrates = [\"high\", \"low\"]\ns_d = [1, 4]\n\
         p_static_w = [2.45, 6.125]\napproaches = [\"valopt\", \"nba-ftps\"]\n",
    );
    let out = dir.path().join("out");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "experiment",
            e.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let grid = std::fs::read_to_string(out.join("claims_grid.csv")).unwrap();
    let rows: Vec<Vec<&str>> = grid
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // 003-a and 003-c at the four cells; 003-b reads another experiment and is not mapped.
    assert_eq!(rows.len(), 8, "{grid}");
    assert!(rows.iter().all(|r| r[0] != "003-b"));
    // 003-a's status in each cell is the comparison of the summary's two rows there.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let head: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let col = |k: &str| head.iter().position(|h| *h == k).unwrap();
    let value = |rate: &str, sd: &str, p: &str| -> f64 {
        summary
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|r| {
                r[col("rate")] == rate
                    && r[col("s_d")] == sd
                    && r[col("p_static_w")] == p
                    && r[col("approach")] == "valopt"
            })
            .unwrap()[col("value")]
        .parse()
        .unwrap()
    };
    let mut checked = 0;
    for r in rows.iter().filter(|r| r[0] == "003-a") {
        let (sd, p) = (r[1], r[2]);
        let holds = value("low", sd, p) > value("high", sd, p);
        assert_eq!(r[3], if holds { "holds" } else { "fails" }, "{r:?}");
        let ours: f64 = r[4].parse().unwrap();
        assert!((ours - value("low", sd, p) / value("high", sd, p)).abs() < 1e-6);
        checked += 1;
    }
    assert_eq!(checked, 4);
    // A claim that chooses rows by a column the grid does not vary is undefined, with why.
    for r in rows.iter().filter(|r| r[0] == "003-c") {
        assert_eq!(r[3], "undefined", "{r:?}");
        assert!(r[6].contains("nodes"), "{r:?}");
    }
    let svg = std::fs::read_to_string(out.join("claims").join("003-a.svg")).unwrap();
    assert!(svg.contains("003-a: more value when slower"), "{svg}");
    assert!(svg.contains("2 paired trials a cell"));
    assert!(svg.contains(">2.45 W</text>") && svg.contains(">4</text>"));
    assert!(out.join("claims").join("003-c.svg").is_file());
    assert!(!out.join("claims").join("003-b.svg").exists());
}
