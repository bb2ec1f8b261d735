//! The real client reads kairos's Batsim jobs files: evalys (PyPI, 4.x), installed in a venv
//! by `scripts/setup-evalys.sh`, loads the jobs file of `kairos replay --batsim-out` and of
//! `kairos run --batsim-out` (`JobSet.from_csv`) and draws its Gantt chart
//! (`scripts/evalys_gantt.py`). Without Python or evalys the test says so and passes, except
//! under `CI=true`, where the setup script installs them and their absence is a failure.

mod common;
use common::{kairos, swf};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The venv's python, or why there is none.
fn python() -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let py = target.join("evalys-venv/bin/python3");
    if !py.exists() {
        return Err(format!(
            "{} is missing: run scripts/setup-evalys.sh (needs python3 with venv)",
            py.display()
        ));
    }
    let ok = Command::new(&py)
        .args(["-c", "import evalys.jobset, evalys.visu.gantt"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(format!(
            "{} cannot import evalys: run scripts/setup-evalys.sh",
            py.display()
        ));
    }
    Ok(py)
}

/// The python to use, or `None` (after saying why) when the test cannot run here.
fn python_or_skip() -> Option<PathBuf> {
    match python() {
        Ok(p) => Some(p),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("evalys test under CI=true: {why}")
        }
        Err(why) => {
            eprintln!("SKIPPED: evalys is not available, so kairos's jobs files were not checked with it: {why}");
            None
        }
    }
}

/// evalys loads `jobs` and draws its Gantt chart; returns the script's summary line.
fn gantt(py: &Path, jobs: &Path, dir: &Path) -> String {
    let png = dir.join("gantt.png");
    let out = Command::new(py)
        .arg(root().join("scripts/evalys_gantt.py"))
        .arg(jobs)
        .arg(&png)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "evalys could not read {}: {}",
        jobs.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "the Gantt chart {} is {size} bytes",
        png.display()
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-evalys-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn evalys_reads_the_replay_jobs_file_and_draws_its_gantt_chart() {
    let Some(py) = python_or_skip() else { return };
    let dir = tempdir("replay");
    let prefix = dir.join("out");
    let log = swf("conservative_vs_easy.swf");
    let out = kairos(&[
        "replay",
        log.to_str().unwrap(),
        "--policy",
        "conservative",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jobs = dir.join("out_jobs.csv");
    let rows = std::fs::read_to_string(&jobs).unwrap().lines().count() - 1;
    let line = gantt(&py, &jobs, &dir);
    assert!(
        line.starts_with(&format!("jobs={rows} ran={rows} resources=0-")),
        "{line}"
    );
}

#[test]
fn evalys_reads_the_essc_jobs_file_with_global_node_ids() {
    let Some(py) = python_or_skip() else { return };
    let dir = tempdir("essc");
    let prefix = dir.join("out");
    let scenario = root().join("host/tests/data/essc_small.toml");
    let out = kairos(&[
        "run",
        scenario.to_str().unwrap(),
        "--heuristic",
        "max-upe",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jobs = dir.join("out_jobs.csv");
    let text = std::fs::read_to_string(&jobs).unwrap();
    let rows = text.lines().count() - 1;
    let ran = text
        .lines()
        .filter(|l| l.contains("COMPLETED_") && !l.ends_with(",\"state=dropped\""))
        .count();
    let line = gantt(&py, &jobs, &dir);
    assert!(
        line.starts_with(&format!("jobs={rows} ran={ran} ")),
        "{line}"
    );
}
