//! Seed 002 shards: merged, the bytes of an unsharded run; a stopped shard resumes; the
//! merge refuses shards it cannot join, naming what is wrong.

use super::{merge_files, run_shard_file, MergeTo, ShardRun, ENERGY_KIND, SERIAL_KIND};
use crate::seed002::{ReportsDir, Resume};
use crate::shard::Slice;
use std::path::{Path, PathBuf};

const SERIAL: &str = r#"
name = "s002-shard-small"
system = "serial"
seed = 7
tasks_per_day = 1500
trials = 3
heuristics = ["max-util", "min-min-comp", "sufferage", "max-max-upt"]
thetas = [0, 0.5]
"#;

const ENERGY: &str = r#"
name = "s002-shard-energy"
system = "serial-energy"
chapter = 4
seed = 7
tasks_per_day = 800
trials = 2
budget_gj = 0.03
machines = ["queued", "polled"]
filters = ["adaptive"]
heuristics = ["max-upe", "prio-lcfs-all", "weighted-util"]
weights = [0.5]
trace_minutes = 120
"#;

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Every file of `dir` (not its folders), by name.
fn reports(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

fn shard(path: &Path, k: u32, n: u32, out: &Path, trials: Option<u32>) -> anyhow::Result<String> {
    run_shard_file(
        path,
        &ShardRun {
            slice: Slice { k, n },
            dir: Some(out.to_path_buf()),
            trials,
            force: false,
            resume: &Resume::WHOLE,
            jobs: Some(2),
        },
    )
}

fn merge(kind: &str, shards: &Path, out: &Path) -> anyhow::Result<(String, PathBuf)> {
    let files = crate::shard::find(&[shards.to_path_buf()])?;
    merge_files(
        kind,
        &files,
        &MergeTo {
            out: Some(out.to_path_buf()),
            experiment: None,
            force: false,
        },
    )
}

fn whole(path: &Path, out: &Path) {
    let dir = || ReportsDir {
        dir: Some(out.to_path_buf()),
        force: false,
    };
    if crate::seed002::energy::experiment::is_energy(path) {
        crate::seed002::run_energy_file(path, None, dir(), Some(1), &Resume::WHOLE).unwrap();
    } else {
        crate::seed002::run_file(path, None, dir(), Some(1), &Resume::WHOLE).unwrap();
    }
}

/// 2, 3 and 7 shards of a serial file (3 trials x 8 configurations: slices that split
/// trials, and 7 that do not divide 24), and 4 of an energy file, merge to the bytes of
/// the unsharded run, every report compared.
#[test]
fn merged_shards_are_the_bytes_of_an_unsharded_run() {
    let d = tempfile::tempdir().unwrap();
    for (name, text, kind, counts) in [
        ("serial.toml", SERIAL, SERIAL_KIND, &[2u32, 3, 7][..]),
        ("energy.toml", ENERGY, ENERGY_KIND, &[4u32][..]),
    ] {
        let p = file(d.path(), name, text);
        let one = d.path().join(format!("{name}-whole"));
        whole(&p, &one);
        let want = reports(&one);
        assert!(want.len() >= 5, "{want:?}");
        for &n in counts {
            let shards = d.path().join(format!("{name}-shards-{n}"));
            for k in 1..=n {
                shard(&p, k, n, &shards, None).unwrap();
            }
            // No saved trials are left once the shard files are written.
            assert_eq!(std::fs::read_dir(&shards).unwrap().count(), n as usize);
            let out = d.path().join(format!("{name}-merged-{n}"));
            merge(kind, &shards, &out).unwrap();
            let got = reports(&out);
            assert_eq!(
                got.iter().map(|g| &g.0).collect::<Vec<_>>(),
                want.iter().map(|w| &w.0).collect::<Vec<_>>()
            );
            for (g, w) in got.iter().zip(&want) {
                assert!(g.1 == w.1, "{name}, {n} shards: {} differs", g.0);
            }
        }
    }
}

/// A shard stopped after its first trial keeps it, refuses a rerun without `--resume`,
/// and `--resume` runs the rest, to a shard that merges to the unsharded bytes.
#[test]
fn a_stopped_shard_resumes() {
    let d = tempfile::tempdir().unwrap();
    let p = file(d.path(), "serial.toml", SERIAL);
    let one = d.path().join("whole");
    whole(&p, &one);
    let shards = d.path().join("shards");
    // Shard 1 of 2 holds units 0..12: trial 0 whole and half of trial 1.
    shard(&p, 2, 2, &shards, None).unwrap();
    let asked = std::sync::atomic::AtomicU32::new(0);
    let stop_after_one = || asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 1;
    let run = |resume: bool, stop: &(dyn Fn() -> bool + Sync)| {
        run_shard_file(
            &p,
            &ShardRun {
                slice: Slice { k: 1, n: 2 },
                dir: Some(shards.clone()),
                trials: None,
                force: false,
                resume: &Resume { resume, stop },
                jobs: Some(1),
            },
        )
    };
    let e = run(false, &stop_after_one).unwrap_err().to_string();
    assert!(e.contains("interrupted: 1 of 3 trials saved"), "{e}");
    assert!(e.contains("--shard 1/2"), "{e}");
    assert!(shards.join("shard-1-of-2.runs").is_dir());
    assert!(!shards.join("shard-1-of-2.shard").exists());
    let e = run(false, &|| false).unwrap_err().to_string();
    assert!(e.contains("pass --resume"), "{e}");
    let ran = std::sync::atomic::AtomicU32::new(0);
    let count = || {
        ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        false
    };
    run(true, &count).unwrap();
    // Only the trial not saved ran.
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(!shards.join("shard-1-of-2.runs").exists());
    // A complete shard: --resume does nothing, a plain rerun is refused.
    let said = run(true, &|| panic!("ran a trial")).unwrap();
    assert!(said.contains("already complete"), "{said}");
    let e = run(false, &|| false).unwrap_err().to_string();
    assert!(e.contains("pass --force"), "{e}");
    let out = d.path().join("merged");
    merge(SERIAL_KIND, &shards, &out).unwrap();
    assert!(reports(&out) == reports(&one));
}

/// The merge refuses shards of different trial counts, of different experiments, of a file
/// changed since, missing or duplicated units, each error naming what is wrong.
#[test]
fn the_merge_names_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    let p = file(d.path(), "serial.toml", SERIAL);
    let at = |name: &str| d.path().join(name);
    let out = at("out");
    // Different trial counts.
    shard(&p, 1, 2, &at("trials"), None).unwrap();
    shard(&p, 2, 2, &at("trials"), Some(2)).unwrap();
    let e = merge(SERIAL_KIND, &at("trials"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("different trial counts"), "{e}");
    assert!(e.contains("3 trials") && e.contains("2 trials"), "{e}");
    // Different experiments: another file, and another system.
    let q = file(
        d.path(),
        "other.toml",
        &SERIAL.replace("shard-small", "other"),
    );
    shard(&p, 1, 2, &at("two"), None).unwrap();
    shard(&q, 2, 2, &at("two"), None).unwrap();
    let e = merge(SERIAL_KIND, &at("two"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("different experiments"), "{e}");
    assert!(
        e.contains("s002-other") && e.contains("s002-shard-small"),
        "{e}"
    );
    let en = file(d.path(), "energy.toml", ENERGY);
    shard(&p, 1, 2, &at("kinds"), None).unwrap();
    shard(&en, 2, 2, &at("kinds"), None).unwrap();
    let e = merge(SERIAL_KIND, &at("kinds"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("different experiments"), "{e}");
    assert!(e.contains(ENERGY_KIND), "{e}");
    // A missing shard: its units and the shard to run.
    shard(&p, 1, 3, &at("missing"), None).unwrap();
    shard(&p, 3, 3, &at("missing"), None).unwrap();
    let e = merge(SERIAL_KIND, &at("missing"), &out)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("8 of the 24 units are missing (units 8-15)"),
        "{e}"
    );
    assert!(e.contains("\"Max Util theta=0\", trial 1"), "{e}");
    assert!(e.contains("shard 2 of 3"), "{e}");
    // Units in two shards (two slicings).
    shard(&p, 1, 2, &at("twice"), None).unwrap();
    shard(&p, 2, 3, &at("twice"), None).unwrap();
    shard(&p, 3, 3, &at("twice"), None).unwrap();
    let e = merge(SERIAL_KIND, &at("twice"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("units are in two shards"), "{e}");
    // The file changed since the shards ran.
    shard(&p, 1, 1, &at("changed"), None).unwrap();
    std::fs::write(&p, SERIAL.replace("seed = 7", "seed = 8")).unwrap();
    let e = merge(SERIAL_KIND, &at("changed"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("changed since the shards ran"), "{e}");
    // A shard cut short (no end line) is an error naming it.
    std::fs::write(&p, SERIAL).unwrap();
    let f = at("changed").join("shard-1-of-1.shard");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, &text[..text.rfind("end\t").unwrap()]).unwrap();
    let e = merge(SERIAL_KIND, &at("changed"), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no end line"), "{e}");
    assert!(!out.exists());
}

/// A hand-edited shard: a row out of its place or a count past the units is an error naming
/// the file and line, never a panic.
#[test]
fn a_bad_shard_file_names_its_line() {
    let d = tempfile::tempdir().unwrap();
    let p = file(d.path(), "serial.toml", SERIAL);
    shard(&p, 1, 2, &d.path().join("s"), None).unwrap();
    let f = d.path().join("s").join("shard-1-of-2.shard");
    assert_eq!(super::read_any(&f).unwrap(), 12);
    let text = std::fs::read_to_string(&f).unwrap();
    // Two rows swapped.
    let mut lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| l.starts_with("row\t")).unwrap();
    lines.swap(first, first + 1);
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let e = super::read_any(&f).unwrap_err().to_string();
    assert!(e.contains(&format!(":{}: ", first + 1)), "{e}");
    assert!(e.contains("expected unit 0"), "{e}");
    // A huge configuration count.
    let forged = text.replace("configs\t8", &format!("configs\t{}", usize::MAX));
    std::fs::write(&f, forged).unwrap();
    assert!(super::read_any(&f).is_err());
}
