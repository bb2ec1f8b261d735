//! Every checked-in corpus input (`corpus/<target>/*`), the inputs of issue 27 among them,
//! through its target's checks: the corpus as ordinary tests, on stable, without libFuzzer.

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{}: no corpus", dir.display());
    v
}

fn run(target: &str, f: fn(&[u8])) {
    for (path, bytes) in corpus(target) {
        eprintln!("{target}: {}", path.display());
        f(&bytes);
    }
}

#[test]
fn corpus_scenario_toml() {
    run("scenario_toml", kairos_fuzz::scenario_toml);
}

#[test]
fn corpus_experiment_toml() {
    run("experiment_toml", kairos_fuzz::experiment_toml);
}

#[test]
fn corpus_packed_scenario() {
    run("packed_scenario", kairos_fuzz::packed_scenario);
}

#[test]
fn corpus_swf() {
    run("swf", kairos_fuzz::swf);
}

#[test]
fn corpus_controller() {
    run("controller", kairos_fuzz::controller);
}

#[test]
fn corpus_wire() {
    run("wire", kairos_fuzz::wire);
}

#[test]
fn corpus_seed003_toml() {
    run("seed003_toml", kairos_fuzz::seed003_toml);
}

#[test]
fn corpus_seed003_profile_cache() {
    run("seed003_profile_cache", kairos_fuzz::seed003_profile_cache);
}

#[test]
fn corpus_batsim_json() {
    run("batsim_json", kairos_fuzz::batsim_json);
}

#[test]
fn corpus_seed002_toml() {
    run("seed002_toml", kairos_fuzz::seed002_toml);
}

#[test]
fn corpus_pareto_toml() {
    run("pareto_toml", kairos_fuzz::pareto_toml);
}

#[test]
fn corpus_shard_rows() {
    run("shard_rows", kairos_fuzz::shard_rows);
}
