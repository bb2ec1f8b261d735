//! Slurm job scripts for a sharded experiment (`kairos slurm`): a job array of N tasks, each
//! running one shard (`kairos experiment FILE --shard K/N`), and a merge job that runs
//! `kairos merge` once every task has succeeded (`--dependency=afterok`).
//!
//! Layout, under the plan's directory (default `out/<name>/slurm/`):
//! - `shards.sbatch`: the array job (`#SBATCH --array=1-N`; task K writes
//!   `shards/shard-K-of-N.shard`, its log `logs/shard-K.out`);
//! - `merge.sbatch`: the merge job (log `logs/merge.out`), writing the reports into the
//!   output directory (default `out/<name>/`);
//! - `shards/`, `logs/`.
//!
//! Choices:
//! - Every path in the scripts is absolute (the experiment, the kairos binary that wrote
//!   them, the directories), and the scripts `--chdir` to the directory they were written
//!   from: a cluster's compute nodes share the file system, not the working directory.
//! - A shard that failed is resubmitted alone by submitting the same array script for that
//!   task only (`sbatch --array=K`, which `--only K` does) and a new merge job depending on
//!   it; the shards that succeeded keep their files.
//! - Array task K runs slice K of N, so `--array=1-N` (not `0-(N-1)`): `--shard` counts
//!   from 1.
//! - Each task runs `kairos experiment --jobs $SLURM_CPUS_PER_TASK`: as many threads as
//!   Slurm gave it cores (`--cpus-per-task`, default 1).

use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `kairos slurm` writes and submits.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The experiment's name (the jobs are named `kairos-<name>`).
    pub name: String,
    /// The experiment file (absolute).
    pub experiment: PathBuf,
    /// Shards (array tasks).
    pub shards: u32,
    /// `--trials` for every shard, if given.
    pub trials: Option<u32>,
    /// `#SBATCH --partition`, if given.
    pub partition: Option<String>,
    /// `#SBATCH --time`, if given.
    pub time: Option<String>,
    /// Cores per array task (`#SBATCH --cpus-per-task`).
    pub cpus_per_task: u32,
    /// The kairos binary the jobs run (absolute).
    pub kairos: PathBuf,
    /// The working directory of the jobs (absolute).
    pub workdir: PathBuf,
    /// Where the scripts, logs and shard files go (absolute).
    pub dir: PathBuf,
    /// Where the merge writes the reports (absolute).
    pub out: PathBuf,
    /// Whether each task runs its shard with `--resume` (seed 002's shards save each
    /// trial as it finishes: a task cut short and run again continues, and one whose
    /// shard file is complete does nothing).
    pub resume: bool,
}

/// A path or word quoted for a POSIX shell (single quotes).
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn quote_path(p: &Path) -> String {
    quote(&p.display().to_string())
}

/// The checks of [`check`] on values given on the command line (the shard and core counts,
/// the partition and the time limit): a failure is a bad command line.
pub fn check_flags(plan: &Plan) -> anyhow::Result<()> {
    if plan.shards == 0 {
        bail!("--shards 0: must be at least 1");
    }
    if plan.cpus_per_task == 0 {
        bail!("--cpus-per-task 0: must be at least 1");
    }
    if let Some(p) = &plan.partition {
        if p.is_empty()
            || !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.,-".contains(c))
        {
            bail!("--partition {p:?}: a partition name is letters, digits, '_', '.', '-' (a list with ',')");
        }
    }
    if let Some(t) = &plan.time {
        if t.is_empty()
            || !t
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
        {
            bail!(
                "--time {t:?}: expected a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, \
                 D-HH:MM or D-HH:MM:SS"
            );
        }
    }
    Ok(())
}

/// Checks the values that go into `#SBATCH` lines, which sbatch reads without a shell.
pub fn check(plan: &Plan) -> anyhow::Result<()> {
    check_flags(plan)?;
    for (what, p) in [
        ("directory", &plan.dir),
        ("working directory", &plan.workdir),
    ] {
        let s = p.display().to_string();
        if s.chars().any(|c| c.is_whitespace() || c == '%') {
            bail!(
                "{}: the {what} of the Slurm jobs must have no spaces or '%' (they go into \
                 #SBATCH lines)",
                p.display()
            );
        }
    }
    Ok(())
}

impl Plan {
    /// The directory of the shard files.
    pub fn shard_dir(&self) -> PathBuf {
        self.dir.join("shards")
    }

    /// The directory of the jobs' logs.
    pub fn log_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }

    /// The array job's script.
    pub fn array_script(&self) -> String {
        let mut s = format!(
            "#!/bin/bash\n\
             # kairos: experiment {name}, {n} shards as a Slurm job array (written by \
             `kairos slurm`).\n\
             # Task K runs shard K/{n}. Resubmit a failed shard alone with\n\
             #   sbatch --array=K {script}\n\
             # and a merge after it (or `kairos slurm ... --only K --submit`).\n\
             #SBATCH --job-name=kairos-{name}\n\
             #SBATCH --array=1-{n}\n\
             #SBATCH --output={logs}/shard-%a.out\n\
             #SBATCH --cpus-per-task={cpus}\n\
             #SBATCH --chdir={workdir}\n",
            name = self.name,
            n = self.shards,
            script = self.dir.join("shards.sbatch").display(),
            logs = self.log_dir().display(),
            cpus = self.cpus_per_task,
            workdir = self.workdir.display(),
        );
        self.limits(&mut s);
        s.push_str(&format!(
            "set -euo pipefail\n\
             exec {kairos} experiment {file} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" \
             --out {shards} --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\"{trials}{resume}\n",
            kairos = quote_path(&self.kairos),
            file = quote_path(&self.experiment),
            n = self.shards,
            shards = quote_path(&self.shard_dir()),
            trials = self
                .trials
                .map_or(String::new(), |t| format!(" --trials {t}")),
            resume = if self.resume { " --resume" } else { "" },
        ));
        s
    }

    /// The merge job's script.
    pub fn merge_script(&self) -> String {
        let mut s = format!(
            "#!/bin/bash\n\
             # kairos: merges the {n} shards of experiment {name} (written by `kairos slurm`;\n\
             # submitted with --dependency=afterok on the array job).\n\
             #SBATCH --job-name=kairos-{name}-merge\n\
             #SBATCH --output={logs}/merge.out\n\
             #SBATCH --cpus-per-task=1\n\
             #SBATCH --chdir={workdir}\n",
            name = self.name,
            n = self.shards,
            logs = self.log_dir().display(),
            workdir = self.workdir.display(),
        );
        self.limits(&mut s);
        s.push_str(&format!(
            // --force: the merge job is the writer of this folder; a resubmission (the shard
            // files of the earlier one removed) merges again over its own earlier reports.
            "set -euo pipefail\nexec {kairos} merge {shards} --out {out} --force\n",
            kairos = quote_path(&self.kairos),
            shards = quote_path(&self.shard_dir()),
            out = quote_path(&self.out),
        ));
        s
    }

    fn limits(&self, s: &mut String) {
        if let Some(p) = &self.partition {
            s.push_str(&format!("#SBATCH --partition={p}\n"));
        }
        if let Some(t) = &self.time {
            s.push_str(&format!("#SBATCH --time={t}\n"));
        }
    }

    /// Writes both scripts (and creates the shard and log directories); returns their paths
    /// (array, merge).
    pub fn write(&self) -> anyhow::Result<(PathBuf, PathBuf)> {
        check(self)?;
        for d in [self.shard_dir(), self.log_dir()] {
            std::fs::create_dir_all(&d)
                .with_context(|| format!("{}: cannot create", d.display()))?;
        }
        let array = self.dir.join("shards.sbatch");
        let merge = self.dir.join("merge.sbatch");
        for (p, text) in [(&array, self.array_script()), (&merge, self.merge_script())] {
            crate::output::write_atomic(p, text)?;
        }
        Ok((array, merge))
    }

    /// Removes the shard files of an earlier submission (so a merge never mixes two), and
    /// returns how many.
    pub fn clear_shards(&self) -> anyhow::Result<usize> {
        let dir = self.shard_dir();
        let mut n = 0;
        for e in
            std::fs::read_dir(&dir).with_context(|| format!("{}: cannot list", dir.display()))?
        {
            let p = e?.path();
            if p.extension().is_some_and(|x| x == crate::shard::EXTENSION) {
                std::fs::remove_file(&p)
                    .with_context(|| format!("{}: cannot remove", p.display()))?;
                n += 1;
            }
        }
        Ok(n)
    }
}

/// The job ids of a submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// The array job.
    pub array: String,
    /// The tasks submitted (`1-N`, or the `--only` list).
    pub tasks: String,
    /// The merge job.
    pub merge: String,
}

/// `3`, `1,4` or `2-3`: checks an `--only` list of shards against `1..=n`.
pub fn check_only(list: &[u32], n: u32) -> anyhow::Result<String> {
    if list.is_empty() {
        bail!("--only: give at least one shard");
    }
    if let Some(k) = list.iter().find(|&&k| k == 0 || k > n) {
        bail!("--only {k}: shards count from 1 to {n}");
    }
    let mut v = list.to_vec();
    v.sort_unstable();
    v.dedup();
    Ok(v.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
}

/// Runs `sbatch --parsable ARGS` and returns the job id it prints.
fn sbatch(args: &[String]) -> anyhow::Result<String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .context("running sbatch (is Slurm installed and on PATH?)")?;
    if !out.status.success() {
        bail!(
            "sbatch {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `jobid` or `jobid;cluster`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch printed {:?}, not a job id", text.trim());
    }
    Ok(id)
}

/// Submits the array job (every task, or the tasks `only`, as [`check_only`] formats them)
/// and the merge job after it.
pub fn submit(
    plan: &Plan,
    array: &Path,
    merge: &Path,
    only: Option<&str>,
) -> anyhow::Result<Submitted> {
    let tasks = only.map_or(format!("1-{}", plan.shards), str::to_string);
    let mut a = Vec::new();
    if only.is_some() {
        a.push(format!("--array={tasks}"));
    }
    a.push(array.display().to_string());
    let array_id = sbatch(&a)?;
    let merge_id = sbatch(&[
        format!("--dependency=afterok:{array_id}"),
        merge.display().to_string(),
    ])?;
    Ok(Submitted {
        array: array_id,
        tasks,
        merge: merge_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            name: "small".into(),
            experiment: "/data/exp's.toml".into(),
            shards: 4,
            trials: Some(4),
            partition: Some("debug".into()),
            time: Some("0:30:00".into()),
            cpus_per_task: 1,
            kairos: "/opt/kairos".into(),
            workdir: "/work".into(),
            dir: "/work/out/small/slurm".into(),
            out: "/work/out/small".into(),
            resume: false,
        }
    }

    #[test]
    fn slurm_seed002_shards_resume() {
        let mut p = plan();
        assert!(!p.array_script().contains("--resume"));
        p.resume = true;
        assert!(
            p.array_script()
                .contains("--jobs \"${SLURM_CPUS_PER_TASK:-1}\" --trials 4 --resume\n"),
            "{}",
            p.array_script()
        );
    }

    #[test]
    fn slurm_array_script_runs_each_shard_and_quotes_paths() {
        let s = plan().array_script();
        assert!(s.starts_with("#!/bin/bash\n"));
        for want in [
            "#SBATCH --array=1-4\n",
            "#SBATCH --partition=debug\n",
            "#SBATCH --time=0:30:00\n",
            "#SBATCH --output=/work/out/small/slurm/logs/shard-%a.out\n",
            "exec /opt/kairos experiment '/data/exp'\\''s.toml' --shard \
             \"${SLURM_ARRAY_TASK_ID}/4\" --out /work/out/small/slurm/shards --jobs \
             \"${SLURM_CPUS_PER_TASK:-1}\" --trials 4\n",
        ] {
            assert!(s.contains(want), "{want:?} not in\n{s}");
        }
        // sbatch stops reading #SBATCH lines at the first command.
        let first_cmd = s.find("set -euo").unwrap();
        assert!(s[first_cmd..].find("#SBATCH").is_none());
        let m = plan().merge_script();
        assert!(m.contains(
            "exec /opt/kairos merge /work/out/small/slurm/shards --out /work/out/small --force\n"
        ));
        assert!(!m.contains("--array"));
    }

    #[test]
    fn slurm_bad_values_are_refused() {
        let mut p = plan();
        p.partition = Some("a b".into());
        assert!(check(&p).unwrap_err().to_string().contains("--partition"));
        let mut p = plan();
        p.time = Some("1h".into());
        assert!(check(&p).unwrap_err().to_string().contains("--time"));
        let mut p = plan();
        p.shards = 0;
        assert!(check(&p).is_err());
        assert_eq!(check_only(&[3, 1, 3], 4).unwrap(), "1,3");
        assert!(check_only(&[5], 4)
            .unwrap_err()
            .to_string()
            .contains("1 to 4"));
        assert!(check_only(&[0], 4).is_err());
    }
}
