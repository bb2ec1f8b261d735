//! The saved steps of a resumable run other than a seed 000 experiment's ([`super::resume`]):
//! seed 002's serial and energy experiments save a trial per step, seed 003's a workload
//! (a trial at one (s_w, s_d, static power)), `sweep-knapsack` a slice of its grid.
//!
//! Each finished step is a shard file (the format of [`crate::shard`], written whole under a
//! temporary name then renamed) in the results folder's `runs/`, named `shard-K-of-N.shard`
//! for step K-1 of N. Its header records the run's kind and identity (a hash of its input
//! files and settings) and the step count, so a `--resume` refuses saved steps of another
//! run before it runs anything, and never deletes them. The reports are computed from the
//! steps as read back (floats round-trip exactly, `{:?}` then `parse`), so a resumed run
//! writes the bytes an uninterrupted one writes. [`Flags::prepare`] is the one place the
//! commands decide what `--resume` and `--force` do with a `runs/` folder.

use crate::shard::{Text, Writer};
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// The folder of the saved steps inside a results folder (as [`super::resume::RUNS_DIR`]).
pub const RUNS_DIR: &str = super::resume::RUNS_DIR;

/// A run's saved steps: where, what kind, whose.
#[derive(Clone, Debug)]
pub struct Steps {
    /// The `runs/` folder.
    pub dir: PathBuf,
    /// The shard kind (`seed002-serial`, `seed002-energy`, `seed003`, `knapsack`).
    pub kind: &'static str,
    /// The run's identity ([`crate::shard::Identity::text`]).
    pub hash: String,
    /// How many steps the run has.
    pub steps: u32,
}

impl Steps {
    /// The file of step `step` (0-based).
    pub fn file(&self, step: u32) -> PathBuf {
        self.dir.join(
            crate::shard::Slice {
                k: step + 1,
                n: self.steps,
            }
            .file_name(),
        )
    }

    /// Which steps are saved, by step. Checks every shard file of the folder first: one of
    /// another run (kind, identity or step count) is an error naming it, and nothing is run
    /// or deleted.
    pub fn saved(&self) -> anyhow::Result<Vec<bool>> {
        let mut done = vec![false; self.steps as usize];
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(done);
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == crate::shard::EXTENSION))
            .collect();
        files.sort();
        for f in &files {
            let t = Text::read(f)?;
            let kind = t.get("kind")?;
            if kind != self.kind {
                bail!(
                    "{}: a saved step of a {kind} run, not of this {} run; pass --force to \
                     start again (which deletes it), or choose another --out",
                    f.display(),
                    self.kind
                );
            }
            let slice = t.slice()?;
            if slice.n != self.steps {
                bail!(
                    "{}: a step of a run of {} steps, not {}: the run's settings changed \
                     (--trials?); resume it with the settings it ran with, or pass --force \
                     to start again (which deletes the saved steps)",
                    f.display(),
                    slice.n,
                    self.steps
                );
            }
            let hash = t.get("hash")?;
            if hash != self.hash {
                bail!(
                    "{}: the run's inputs or settings changed since this step was saved (hash \
                     {hash} then, {} now); restore them to resume, or pass --force to start \
                     again (which deletes the saved steps)",
                    f.display(),
                    self.hash
                );
            }
            if f != &self.file(slice.k - 1) {
                bail!(
                    "{}: holds step {} of {}, not the step its name says",
                    f.display(),
                    slice.k,
                    slice.n
                );
            }
            done[(slice.k - 1) as usize] = true;
        }
        Ok(done)
    }

    /// Saves step `step`: its `columns` and one `row` line per row (fields already text; no
    /// field may hold a tab or a newline).
    pub fn write(&self, step: u32, columns: &[&str], rows: &[Vec<String>]) -> anyhow::Result<()> {
        let mut w = Writer::new(self.kind);
        w.header("hash", &self.hash);
        w.header(
            "shard",
            crate::shard::Slice {
                k: step + 1,
                n: self.steps,
            },
        );
        w.header("columns", columns.join("\t"));
        for r in rows {
            w.row("row", r);
        }
        w.finish(&self.file(step))
    }

    /// Reads step `step` back: its rows, each checked to have `columns.len()` fields.
    pub fn read(&self, step: u32, columns: &[&str]) -> anyhow::Result<Rows> {
        Rows::of(Text::read(&self.file(step))?, columns)
    }

    /// Deletes the folder once the reports are written: the steps have served.
    pub fn remove(&self) -> anyhow::Result<()> {
        std::fs::remove_dir_all(&self.dir)
            .with_context(|| format!("{}: cannot remove the saved steps", self.dir.display()))
    }
}

/// A saved step's rows as read, with field access that names the file, line and column.
pub struct Rows {
    text: Text,
    columns: Vec<String>,
}

impl Rows {
    /// The row lines of a shard file as read, each checked to be a `row` line of
    /// `columns.len()` fields.
    pub(crate) fn of(text: Text, columns: &[&str]) -> anyhow::Result<Rows> {
        for l in &text.rows {
            if l.tag != "row" {
                bail!(
                    "{}:{}: {}: expected a row line",
                    text.path.display(),
                    l.number,
                    l.tag
                );
            }
            text.check_width(l, columns.len())?;
        }
        Ok(Rows {
            text,
            columns: columns.iter().map(|c| c.to_string()).collect(),
        })
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.text.rows.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.text.rows.is_empty()
    }

    /// Field `col` of row `row`, parsed.
    pub fn get<T: std::str::FromStr>(&self, row: usize, col: usize) -> anyhow::Result<T> {
        let l = &self.text.rows[row];
        self.text.parse(l, &self.columns[col], &l.fields[col])
    }

    /// Field `col` of row `row` as a finite float.
    pub fn finite(&self, row: usize, col: usize) -> anyhow::Result<f64> {
        let l = &self.text.rows[row];
        self.text
            .parse_finite(l, &self.columns[col], &l.fields[col])
    }

    /// Field `col` of row `row` as text.
    pub fn text(&self, row: usize, col: usize) -> &str {
        &self.text.rows[row].fields[col]
    }

    /// An error about row `row`, naming the file and the line.
    pub fn error(&self, row: usize, what: impl std::fmt::Display) -> anyhow::Error {
        anyhow::anyhow!(
            "{}:{}: {what}",
            self.text.path.display(),
            self.text.rows[row].number
        )
    }
}

/// `--resume` and `--force` as a resumable command takes them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    /// `--resume`: keep the saved steps and run the others.
    pub resume: bool,
    /// `--force`: delete an earlier run's saved steps and reports.
    pub force: bool,
}

impl Flags {
    /// Decides what happens to `steps` before any work, in the results folder `out` whose
    /// complete reports hold `marker`: without `--resume` or `--force`, a folder holding an
    /// interrupted run is refused (saying how to resume it); `--force` deletes the saved
    /// steps; `--resume` checks them ([`Steps::saved`]). Returns which steps are saved (none
    /// unless `--resume`).
    pub fn prepare(&self, out: &Path, marker: &str, steps: &Steps) -> anyhow::Result<Vec<bool>> {
        if !self.resume && !self.force && steps.dir.is_dir() && !out.join(marker).exists() {
            bail!(
                "{}: holds an interrupted run (its finished steps are saved in {}); pass \
                 --resume to continue it, or --force to start again",
                out.display(),
                steps.dir.display()
            );
        }
        if self.force && steps.dir.exists() {
            std::fs::remove_dir_all(&steps.dir).with_context(|| {
                format!("{}: cannot remove the earlier runs", steps.dir.display())
            })?;
        }
        if self.resume {
            steps.saved()
        } else {
            Ok(vec![false; steps.steps as usize])
        }
    }
}

/// The error of a run stopped by Ctrl-C: how many steps are saved, and the command that
/// resumes it.
pub fn stopped(saved: usize, steps: &Steps, what: &str, resume_with: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "interrupted: {saved} of {} {what} saved in {}; resume with `{resume_with} --resume`",
        steps.steps,
        steps.dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(dir: &Path, hash: &str, n: u32) -> Steps {
        Steps {
            dir: dir.join(RUNS_DIR),
            kind: "test",
            hash: hash.into(),
            steps: n,
        }
    }

    #[test]
    fn a_step_round_trips_and_another_runs_steps_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let s = steps(d.path(), "fnv1a64:1", 3);
        assert_eq!(s.saved().unwrap(), vec![false; 3]);
        let x = 0.1f64 + 0.2;
        s.write(1, &["a", "b"], &[vec!["7".into(), format!("{x:?}")]])
            .unwrap();
        assert_eq!(s.saved().unwrap(), vec![false, true, false]);
        let r = s.read(1, &["a", "b"]).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r.get::<u32>(0, 0).unwrap(), 7);
        assert_eq!(r.finite(0, 1).unwrap().to_bits(), x.to_bits());
        let e = steps(d.path(), "fnv1a64:2", 3).saved().unwrap_err();
        assert!(e.to_string().contains("changed since"), "{e}");
        let e = steps(d.path(), "fnv1a64:1", 4).saved().unwrap_err();
        assert!(e.to_string().contains("a run of 3 steps, not 4"), "{e}");
        // Nothing was deleted.
        assert_eq!(s.saved().unwrap(), vec![false, true, false]);
    }

    #[test]
    fn the_flags_decide_what_happens_to_an_interrupted_run() {
        let d = tempfile::tempdir().unwrap();
        let s = steps(d.path(), "fnv1a64:1", 2);
        s.write(0, &["a"], &[vec!["1".into()]]).unwrap();
        let none = Flags::default();
        let e = none.prepare(d.path(), "summary.csv", &s).unwrap_err();
        assert!(e.to_string().contains("pass --resume"), "{e}");
        let resume = Flags {
            resume: true,
            force: false,
        };
        assert_eq!(
            resume.prepare(d.path(), "summary.csv", &s).unwrap(),
            vec![true, false]
        );
        let force = Flags {
            resume: false,
            force: true,
        };
        assert_eq!(
            force.prepare(d.path(), "summary.csv", &s).unwrap(),
            vec![false, false]
        );
        assert!(!s.dir.exists());
    }

    #[test]
    fn a_nan_in_a_saved_step_is_an_error_naming_the_line() {
        let d = tempfile::tempdir().unwrap();
        let s = steps(d.path(), "fnv1a64:1", 1);
        s.write(0, &["x"], &[vec!["NaN".into()]]).unwrap();
        let r = s.read(0, &["x"]).unwrap();
        let e = r.finite(0, 0).unwrap_err().to_string();
        assert!(e.contains(":6: x = \"NaN\""), "{e}");
    }
}
