//! Writing outputs safely: the one way every report file is written ([`write_atomic`]: a
//! temporary name beside it, then a rename, so a reader never sees half a file and an
//! interruption leaves the old file whole), the check of a results folder before any work
//! ([`prepare_dir`]: created, writable, and not holding an earlier run's results unless
//! `--force`), and the refusal of an output path that is one of the inputs
//! ([`refuse_input`]). A single output file given by a flag (`replay --jobs-out`, `run
//! --trace-out`, `generate-swf -o`) is checked before any work ([`check_file`]: not an input,
//! not an existing file unless `--force`, in a folder that exists) and written through an
//! [`AtomicFile`] (streamed to a temporary name, renamed into place only when complete).
//! A command writing several files lists them all first in an [`Outputs`], which also
//! refuses two outputs that are one file; a command writing reports into a folder refuses a
//! report name that is one of its inputs ([`refuse_input_reports`]).

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
    let tmp = temporary(path, name);
    std::fs::write(&tmp, bytes.as_ref())
        .with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot rename into place", path.display())
    })
}

/// The temporary name beside `path` (whose file name is `name`) that a complete file is
/// renamed from: hidden, and unique to this process.
fn temporary(path: &Path, name: &std::ffi::OsStr) -> PathBuf {
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(tmp_name)
}

/// Checks an output file given by `flag` before any work: not one of `inputs` (writing it
/// would destroy that input), not an existing file unless `force` (the error says to pass
/// `--force`), and in a folder that exists: the folders it names are made now, as for every
/// output (`--batsim-out out/run` and `--summary-out out/s.json` alike), so a bad path fails
/// before the work.
pub fn check_file(flag: &str, path: &Path, force: bool, inputs: &[&Path]) -> anyhow::Result<()> {
    refuse_input(flag, path, inputs)?;
    if path.is_dir() {
        bail!("{flag} {}: is a directory", path.display());
    }
    if !force && path.exists() {
        bail!(
            "{flag} {}: exists; pass --force to overwrite it, or choose another path",
            path.display()
        );
    }
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() && !d.is_dir() => {
            std::fs::create_dir_all(d).with_context(|| {
                format!(
                    "{flag} {}: cannot create the folder {}",
                    path.display(),
                    d.display()
                )
            })?;
            // A name under an input file (`--jobs-out log.swf/x.csv`) fails above.
            refuse_input(flag, path, inputs)
        }
        _ => Ok(()),
    }
}

/// Every file a command will write, known before the work starts: each is checked as
/// [`check_file`] checks it, and against the others, so that two flags naming one file
/// (`--jobs-out X_jobs.csv --batsim-out X`) fail at once instead of one output silently
/// replacing the other.
pub struct Outputs<'i> {
    force: bool,
    inputs: Vec<&'i Path>,
    planned: Vec<(String, PathBuf)>,
}

impl<'i> Outputs<'i> {
    /// No output yet, for a command reading `inputs`; `force` allows replacing existing
    /// files (never an input, never another output).
    pub fn new(force: bool, inputs: &[&'i Path]) -> Outputs<'i> {
        Outputs {
            force,
            inputs: inputs.to_vec(),
            planned: Vec::new(),
        }
    }

    /// Adds the file `path` that `flag` will write, checked now.
    pub fn file(&mut self, flag: &str, path: &Path) -> anyhow::Result<()> {
        check_file(flag, path, self.force, &self.inputs)?;
        let here = resolved(path).unwrap_or_else(|| path.to_owned());
        for (other, p) in &self.planned {
            if resolved(p).unwrap_or_else(|| p.clone()) == here {
                bail!(
                    "{flag} {}: is also the file {other} writes ({}); give each output its own \
                     path",
                    path.display(),
                    p.display()
                );
            }
        }
        self.planned.push((flag.to_string(), path.to_owned()));
        Ok(())
    }
}

/// Refuses, before any work, a results folder `dir` (given by `flag`) in which a report
/// named in `reports` would be one of `inputs` (an experiment file kept in its `--out`
/// folder as `trials.csv`): the run would overwrite its own input.
pub fn refuse_input_reports(
    flag: &str,
    dir: &Path,
    reports: &[&str],
    inputs: &[&Path],
) -> anyhow::Result<()> {
    for name in reports {
        refuse_input(flag, &dir.join(name), inputs)?;
    }
    Ok(())
}

/// A file written as a stream and renamed into place only by [`AtomicFile::finish`]: until
/// then the data goes to a temporary name beside it, which is removed if the writer is
/// dropped unfinished (an error, a panic), so `path` holds its old contents or all of the
/// new ones, never a file cut mid-row.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// Opens the temporary file for `path`.
    pub fn create(path: &Path) -> anyhow::Result<AtomicFile> {
        let name = path
            .file_name()
            .with_context(|| format!("{}: not a file name", path.display()))?;
        let tmp = temporary(path, name);
        let file = std::fs::File::create(&tmp)
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        Ok(AtomicFile {
            path: path.to_owned(),
            tmp,
            out: Some(std::io::BufWriter::new(file)),
        })
    }

    /// Flushes the data and renames the file into place.
    pub fn finish(mut self) -> anyhow::Result<()> {
        use std::io::Write;
        let mut out = self.out.take().expect("an AtomicFile is finished once");
        out.flush()
            .with_context(|| format!("{}: cannot write", self.tmp.display()))?;
        drop(out);
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("{}: cannot rename into place", self.path.display()))
    }
}

impl std::io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Ctrl-C (where the command catches it, `crate::interrupt`) stops the stream: the
        // writer fails, is dropped, and its temporary file goes with it, instead of the
        // process dying with a hidden half-written file beside the output.
        if crate::interrupt::requested() {
            return Err(std::io::Error::other(
                "interrupted (Ctrl-C): the unfinished file was removed",
            ));
        }
        match &mut self.out {
            Some(o) => o.write(buf),
            None => Err(std::io::Error::other("finished")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Some(o) => o.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Creates the results folder `dir` and checks that it is writable, before any work: a bad
/// `--out` fails at once, not after hours. A folder that already holds results (a
/// [`RESULTS_MARKER`]) is refused unless `force`.
pub fn prepare_dir(dir: &Path, force: bool) -> anyhow::Result<()> {
    prepare_dir_marked(dir, force, RESULTS_MARKER)
}

/// As [`prepare_dir`], for a command whose complete results folder holds `marker` (a seed
/// 003 experiment's `summary.csv`).
pub fn prepare_dir_marked(dir: &Path, force: bool, marker: &str) -> anyhow::Result<()> {
    prepare_reports_dir(dir, force, marker, &[], &[])
}

/// The extensions of the files a results folder receives (reports, plots, summaries, shard
/// files): an input of one of these kinds kept in the folder could be overwritten by one.
const REPORT_EXTENSIONS: [&str; 4] = ["csv", "svg", "json", "shard"];

/// As [`prepare_dir_marked`], for a command reading `inputs`, whose earlier run may also
/// have left files named `earlier*` before it was stopped (a pareto run's checkpoint fronts,
/// `fronts-gen*`): these mark the folder as taken too. An input that sits in the folder
/// with a report's kind of name (`.csv`, `.svg`, `.json`, `.shard`) is refused before any
/// work, whether or not `force`: a report could overwrite it.
pub fn prepare_reports_dir(
    dir: &Path,
    force: bool,
    marker: &str,
    inputs: &[&Path],
    earlier: &[&str],
) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{}: exists and is not a directory", dir.display());
    }
    if let Ok(d) = std::fs::canonicalize(dir) {
        for input in inputs {
            let Some(r) = resolved(input) else { continue };
            let kind = r.extension().and_then(|e| e.to_str()).unwrap_or("");
            if r.parent() == Some(d.as_path()) && REPORT_EXTENSIONS.contains(&kind) {
                bail!(
                    "{}: holds the input {}, which a report of this run could overwrite \
                     (its reports are .csv, .svg, .json files); move the input, or choose \
                     another --out",
                    dir.display(),
                    input.display()
                );
            }
        }
    }
    if !force && dir.join(marker).exists() {
        bail!(
            "{}: holds the results of an earlier run ({marker}); pass --force to \
             overwrite them, or choose another --out",
            dir.display()
        );
    }
    if !force && !earlier.is_empty() && dir.is_dir() {
        let names =
            std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?;
        for e in names.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if earlier.iter().any(|p| name.starts_with(p)) {
                bail!(
                    "{}: holds files of an earlier run ({name}); pass --force to replace \
                     them, or choose another --out",
                    dir.display()
                );
            }
        }
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
    fn output_check_file_and_atomic_file() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.swf");
        std::fs::write(&input, "log").unwrap();
        let out = dir.path().join("jobs.csv");
        check_file("--jobs-out", &out, false, &[&input]).unwrap();
        let e = check_file("--jobs-out", &input, true, &[&input]).unwrap_err();
        assert!(e.to_string().contains("would destroy the input"), "{e}");
        // The folders an output names are made (`out/s.json` as `--batsim-out out/run`).
        check_file("--jobs-out", &dir.path().join("no/x.csv"), false, &[]).unwrap();
        assert!(dir.path().join("no").is_dir());
        std::fs::remove_dir(dir.path().join("no")).unwrap();
        let e = check_file("--jobs-out", &input.join("x.csv"), false, &[]).unwrap_err();
        assert!(e.to_string().contains("cannot create the folder"), "{e}");
        // Unfinished: nothing appears, and no temporary is left.
        let mut f = AtomicFile::create(&out).unwrap();
        f.write_all(b"half a ro").unwrap();
        drop(f);
        assert!(!out.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = AtomicFile::create(&out).unwrap();
        f.write_all(b"whole\n").unwrap();
        f.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "whole\n");
        let e = check_file("--jobs-out", &out, false, &[&input]).unwrap_err();
        assert!(e.to_string().contains("pass --force"), "{e}");
        check_file("--jobs-out", &out, true, &[&input]).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn output_outputs_refuse_one_file_named_twice() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("log.swf");
        std::fs::write(&input, "log").unwrap();
        let mut o = Outputs::new(true, &[&input]);
        o.file("--jobs-out", &dir.path().join("X_jobs.csv"))
            .unwrap();
        let e = o
            .file("--batsim-out", &dir.path().join(".").join("X_jobs.csv"))
            .unwrap_err();
        assert!(
            e.to_string().contains("is also the file --jobs-out writes"),
            "{e}"
        );
        assert!(o.file("--summary-out", &input).is_err());
        o.file("--summary-out", &dir.path().join("sub/s.json"))
            .unwrap();
        let e = refuse_input_reports("--out", dir.path(), &["trials.csv", "log.swf"], &[&input]);
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("would destroy the input"));
        refuse_input_reports("--out", dir.path(), &["trials.csv"], &[&input]).unwrap();
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
