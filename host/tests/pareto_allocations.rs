//! A front a user can act on: `kairos pareto` on small Chapter 5, 6 and 7 files, then
//! `--export-instance`; every point of the last checkpoint's fronts is recomputed from the
//! exported instance and its `allocations.csv` rows, in Rust from the file alone
//! (`instance_file::evaluate`) and by `scripts/pareto_evaluate.py` (Python, standard library),
//! and must equal its `fronts.csv` row as written (six decimals of utility or makespan,
//! three of energy: both integer ledgers, so exactly; the Python's utility to one micro-unit
//! per task, its stated tolerance, though it agrees exactly here). A perturbed allocation
//! must not: moving one task to another machine type changes its energy, and both evaluators
//! must see it. CI has python3 (scripts/test sets it up), so nothing here is skipped.

mod common;

use common::kairos;
use kairos_host::seed002::pareto::allocation::{read_allocations, Placement, PointAllocation};
use kairos_host::seed002::pareto::instance_file::{evaluate, InstanceFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `fronts.csv`'s rows by (label, generation, point): the two objectives as written.
fn fronts(dir: &Path) -> BTreeMap<(String, u64, usize), (String, String)> {
    let text = std::fs::read_to_string(dir.join("fronts.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            // The test's population names hold no comma, so a plain split reads them.
            let f: Vec<&str> = l.split(',').collect();
            (
                (
                    f[0].to_string(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                ),
                (f[3].to_string(), f[4].to_string()),
            )
        })
        .collect()
}

/// Runs `kairos pareto` on `toml` (written to `dir`) and exports its instance; returns the
/// reports folder and the instance's path.
fn run(dir: &Path, name: &str, toml: &str) -> (PathBuf, PathBuf) {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, toml).unwrap();
    let out = dir.join(name);
    let o = kairos(&[
        "pareto",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let inst = dir.join(format!("{name}-instance.json"));
    let o = kairos(&[
        "pareto",
        file.to_str().unwrap(),
        "--export-instance",
        inst.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (out, inst)
}

fn python(inst: &Path, allocations: &Path, fronts: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(root().join("scripts/pareto_evaluate.py"))
        .args([inst, allocations])
        .arg("--fronts")
        .arg(fronts)
        .output()
        .expect("python3 runs")
}

/// A copy of `p` with one task moved to a machine of another type (one that can run it and
/// costs a different energy there), or None if no task has such a machine.
fn perturbed(file: &InstanceFile, p: &PointAllocation) -> Option<Vec<Placement>> {
    let cost = |t: usize, m: usize, k: usize| -> Option<u64> {
        let (i, j) = (file.tasks[t].ty, file.machines[m]);
        match &file.stochastic {
            None => file.eec_mj.as_ref().unwrap()[i][j],
            Some(s) => s.mean_mj[i][j][k],
        }
    };
    for (t, pl) in p.placements.iter().enumerate() {
        let now = cost(t, pl.machine, pl.pstate);
        for m in 0..file.machines.len() {
            if cost(t, m, pl.pstate).is_some_and(|e| Some(e) != now) {
                let mut v = p.placements.clone();
                // Last on its new machine: an order no other task there has.
                let last = v
                    .iter()
                    .filter(|q| q.machine == m)
                    .map(|q| q.order + 1)
                    .max();
                v[t] = Placement {
                    machine: m,
                    pstate: pl.pstate,
                    order: last.unwrap_or(0),
                };
                return Some(v);
            }
        }
    }
    None
}

/// Writes `allocations.csv` of `points` (the form of `stochastic`'s) to `path`.
fn write_allocations(path: &Path, points: &[(&PointAllocation, &[Placement])], stochastic: bool) {
    let mut s = String::from(if stochastic {
        "score,generation,point,task,machine,pstate,order\n"
    } else {
        "population,generation,point,task,machine,order\n"
    });
    for (p, placements) in points {
        for (t, q) in placements.iter().enumerate() {
            let pstate = if stochastic {
                format!("{},", q.pstate)
            } else {
                String::new()
            };
            s += &format!(
                "{},{},{},{t},{},{pstate}{}\n",
                p.label, p.generation, p.point, q.machine, q.order
            );
        }
    }
    std::fs::write(path, s).unwrap();
}

/// docs/formats.md's section under `heading`, up to the next `## ` heading.
fn doc_section(heading: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/formats.md")).unwrap();
    let start = doc.find(heading).expect(heading);
    let rest = &doc[start..];
    rest[..rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3)].to_string()
}

/// Every key of the exported instance (the stochastic object's as `stochastic.KEY`) and every
/// column of allocations.csv is named in docs/formats.md.
fn check_doc(inst: &Path, allocations: &Path) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(inst).unwrap()).unwrap();
    let doc = doc_section("## Pareto instances");
    let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    keys.extend(v["tasks"][0].as_object().unwrap().keys().cloned());
    keys.extend(
        v["utility_classes"][0][0]
            .as_object()
            .unwrap()
            .keys()
            .cloned(),
    );
    if let Some(s) = v["stochastic"].as_object() {
        keys.extend(s.keys().map(|k| format!("stochastic.{k}")));
    }
    for k in keys {
        assert!(
            doc.contains(&format!("`{k}`")),
            "docs/formats.md does not name {k}"
        );
    }
    let doc = doc_section("## Pareto allocations");
    let header = std::fs::read_to_string(allocations).unwrap();
    for c in header.lines().next().unwrap().split(',') {
        assert!(
            doc.contains(&format!("`{c}`")),
            "docs/formats.md does not name {c}"
        );
    }
}

fn check(dir: &Path, name: &str, toml: &str, last: u64) {
    let (out, inst_path) = run(dir, name, toml);
    check_doc(&inst_path, &out.join("allocations.csv"));
    let file = InstanceFile::read(&inst_path).unwrap();
    let stochastic = file.stochastic.is_some();
    let fronts = fronts(&out);
    let allocs = read_allocations(&out.join("allocations.csv")).unwrap();
    // Every point of the last checkpoint has its allocation, and only those.
    let want: Vec<_> = fronts.keys().filter(|k| k.1 == last).cloned().collect();
    let mut have: Vec<_> = allocs
        .iter()
        .map(|a| (a.label.clone(), a.generation, a.point))
        .collect();
    have.sort();
    assert_eq!(have, want, "{name}: allocations.csv's points");
    assert!(!want.is_empty());
    for a in &allocs {
        let score = if stochastic {
            a.label.as_str()
        } else {
            "expected"
        };
        let o = evaluate(&file, &a.placements, score).unwrap();
        let got = (format!("{:.6}", o.first), format!("{:.3}", o.energy_j));
        let row = &fronts[&(a.label.clone(), a.generation, a.point)];
        assert_eq!(&got, row, "{name}: point {:?}", (&a.label, a.point));
    }
    // Python, from the files alone.
    let py = python(
        &inst_path,
        &out.join("allocations.csv"),
        &out.join("fronts.csv"),
    );
    assert!(
        py.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&py.stderr)
    );
    let printed = String::from_utf8(py.stdout).unwrap();
    assert_eq!(
        printed.lines().count(),
        allocs.len() + 1,
        "{name}: {printed}"
    );
    // One task moved: neither evaluator may still find the fronts.csv row.
    let a = &allocs[0];
    let moved = perturbed(&file, a).expect("some task can move to a machine of another cost");
    let o = evaluate(
        &file,
        &moved,
        if stochastic { &a.label } else { "expected" },
    )
    .unwrap();
    let row = &fronts[&(a.label.clone(), a.generation, a.point)];
    assert_ne!(
        (format!("{:.6}", o.first), format!("{:.3}", o.energy_j)),
        *row,
        "{name}: a moved task leaves the objectives as they were"
    );
    let bad = dir.join(format!("{name}-moved.csv"));
    write_allocations(&bad, &[(a, &moved)], stochastic);
    let py = python(&inst_path, &bad, &out.join("fronts.csv"));
    assert_eq!(
        py.status.code(),
        Some(1),
        "{name}: the Python evaluator accepts a moved task: {}",
        String::from_utf8_lossy(&py.stderr)
    );
    // The allocations are the same bytes on a second run.
    let again = dir.join(format!("{name}-again"));
    let o = kairos(&[
        "pareto",
        dir.join(format!("{name}.toml")).to_str().unwrap(),
        "--threads",
        "2",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read(out.join("allocations.csv")).unwrap(),
        std::fs::read(again.join("allocations.csv")).unwrap(),
        "{name}: allocations.csv differs between runs"
    );
}

#[test]
fn every_front_point_is_recomputed_from_the_exported_instance() {
    let dir = tempfile::tempdir().unwrap();
    let bench = root().join("data/s002-benchmarks-synthetic.toml");
    check(
        dir.path(),
        "c5",
        &format!(
            "system = \"pareto\"\nname = \"c5\"\ndata = \"set2\"\nbenchmarks = {:?}\nseed = 2\n\
             tasks = 60\npopulation = 12\ncheckpoints = [0, 8]\n\
             populations = [{{ name = \"min energy\", seeds = [\"min-energy\"] }}, {{ name = \"random\" }}]\n",
            bench.display().to_string()
        ),
        8,
    );
    check(
        dir.path(),
        "c6",
        "system = \"pareto\"\nname = \"c6\"\ndata = \"investigation1\"\nseed = 3\ntasks = 50\n\
         population = 10\ncheckpoints = [0, 5]\n\
         populations = [{ name = \"min energy\", seeds = [\"min-energy\"] }, { name = \"random\" }]\n",
        5,
    );
    check(
        dir.path(),
        "c7",
        "system = \"pareto-stochastic\"\nname = \"c7\"\nseed = 2\ntasks = 40\nwindow_min = 2\narrivals = \"uniform\"\n\
         samples = 8\nscores = [\"expected\", \"p4\"]\npopulation = 8\ncheckpoints = [0, 3]\n\
         fuzzy = 5\n",
        3,
    );
}

#[test]
fn a_bad_instance_or_allocation_file_is_an_error_naming_where() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("i.json");
    std::fs::write(
        &inst,
        "{\"format\": \"kairos-pareto-instance\",\n \"version\": 99}",
    )
    .unwrap();
    let e = InstanceFile::read(&inst).unwrap_err().to_string();
    assert!(e.contains("i.json") && e.contains("line 2"), "{e}");
    let a = dir.path().join("a.csv");
    std::fs::write(
        &a,
        "population,generation,point,task,machine,order\nx,1,0,0,3,0\nx,1,0,1,two,0\n",
    )
    .unwrap();
    let e = read_allocations(&a).unwrap_err().to_string();
    assert!(
        e.contains("line 3, machine") && e.contains("\"two\""),
        "{e}"
    );
    std::fs::write(
        &a,
        "population,generation,point,task,machine,order\nx,1,0,1,3,0\n",
    )
    .unwrap();
    let e = read_allocations(&a).unwrap_err().to_string();
    assert!(e.contains("line 2, task"), "{e}");
    // The command: a missing experiment file is an error and exit code 1, not a panic.
    let o = kairos(&[
        "pareto",
        dir.path().join("none.toml").to_str().unwrap(),
        "--export-instance",
        inst.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("none.toml"));
}
