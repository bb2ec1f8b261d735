//! The fuzz targets that read a path leave no scratch behind: an input's file is removed
//! once its check returns, and the folders of processes that are gone (a crash's, a
//! Ctrl-C's) are removed by the next process. A file of its own, so no other test's input
//! shares the scratch folder while this one looks at it.

use std::path::Path;

#[test]
fn an_inputs_scratch_file_lives_no_longer_than_its_check() {
    kairos_fuzz::seed002_toml(b"name = \"x\"\nsystem = \"serial\"\n");
    kairos_fuzz::pareto_toml(b"system = \"pareto\"\n");
    kairos_fuzz::shard_rows(b"# kairos shard\n");
    let dir = kairos_fuzz::scratch_dir();
    assert!(dir.is_dir(), "{}", dir.display());
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "{}: {left:?}", dir.display());
}

#[test]
fn the_folders_of_processes_gone_are_removed() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let base = std::env::temp_dir().join(format!("kairos-fuzz-test-{}", std::process::id()));
    std::fs::create_dir_all(&base).unwrap();
    // A process that has exited: its id is free.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let stale = base.join(format!("kairos-fuzz-{gone}"));
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("seed002.toml"), "x").unwrap();
    let alive = base.join(format!("kairos-fuzz-{}", std::process::id()));
    std::fs::create_dir(&alive).unwrap();
    let other = base.join("kairos-fuzz-notapid");
    std::fs::create_dir(&other).unwrap();
    kairos_fuzz::remove_stale(&base);
    assert!(!stale.exists(), "the folder of a process gone is removed");
    assert!(alive.exists() && other.exists(), "the others are kept");
    std::fs::remove_dir_all(&base).unwrap();
}
