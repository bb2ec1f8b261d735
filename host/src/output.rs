//! Writing outputs safely: the one way every report file is written ([`write_atomic`]: a
//! temporary name beside it, then a rename, so a reader never sees half a file and an
//! interruption leaves the old file whole), the check of a results folder before any work
//! ([`prepare_dir`]: created, writable, and not holding an earlier run's results unless
//! `--force`), and the refusal of an output path that is one of the inputs
//! ([`refuse_input`]).

use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// The file every results folder of `kairos experiment` and `kairos sweep-knapsack` holds
/// once complete: its presence marks a folder as holding an earlier run's results.
pub const RESULTS_MARKER: &str = "summary.json";

/// Writes `bytes` at `path` through a temporary file in the same directory, renamed into
/// place once complete: `path` holds either its old contents or all of the new ones.
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    std::fs::write(&tmp, bytes.as_ref())
        .with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot rename into place", path.display())
    })
}

/// Creates the results folder `dir` and checks that it is writable, before any work: a bad
/// `--out` fails at once, not after hours. A folder that already holds results (a
/// [`RESULTS_MARKER`]) is refused unless `force`.
pub fn prepare_dir(dir: &Path, force: bool) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{}: exists and is not a directory", dir.display());
    }
    if !force && dir.join(RESULTS_MARKER).exists() {
        bail!(
            "{}: holds the results of an earlier run ({RESULTS_MARKER}); pass --force to \
             overwrite them, or choose another --out",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the output directory", dir.display()))?;
    let probe = dir.join(format!(".kairos-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| format!("{}: cannot write in the output directory", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// `path` made absolute with its symbolic links resolved, for comparison; a file not yet
/// there is resolved through its directory.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// Refuses an output `output` (given by `flag`) that is the same file as one of `inputs`:
/// writing it would destroy that input.
pub fn refuse_input(flag: &str, output: &Path, inputs: &[&Path]) -> anyhow::Result<()> {
    let Some(out) = resolved(output) else {
        return Ok(());
    };
    for input in inputs {
        if resolved(input).as_deref() == Some(out.as_path()) {
            bail!(
                "{flag} {}: is the input {}; writing it would destroy the input",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_write_atomic_replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        write_atomic(&p, "old").unwrap();
        write_atomic(&p, "new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        assert!(write_atomic(&dir.path().join("no/such/dir/x"), "x").is_err());
    }

    #[test]
    fn output_prepare_dir_refuses_earlier_results_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("r");
        prepare_dir(&d, false).unwrap();
        prepare_dir(&d, false).unwrap();
        std::fs::write(d.join(RESULTS_MARKER), "{}").unwrap();
        let e = prepare_dir(&d, false).unwrap_err().to_string();
        assert!(e.contains("pass --force"), "{e}");
        prepare_dir(&d, true).unwrap();
        let f = dir.path().join("file");
        std::fs::write(&f, "").unwrap();
        assert!(prepare_dir(&f, true).is_err());
        assert!(prepare_dir(&f.join("sub"), true).is_err());
    }

    #[test]
    fn output_refuse_input() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.toml");
        std::fs::write(&a, "").unwrap();
        let same = dir.path().join(".").join("a.toml");
        let e = refuse_input("--trace-out", &same, &[&a]).unwrap_err();
        assert!(e.to_string().contains("would destroy the input"), "{e}");
        refuse_input("--trace-out", &dir.path().join("b.json"), &[&a]).unwrap();
    }
}
