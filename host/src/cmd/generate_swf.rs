//! `kairos generate-swf`: writes a synthetic SWF log from a workload model (the library is
//! [`crate::lublin99`]). A path ending in `.gz` is written gzip-compressed.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::lublin99::{self, Lublin99Options};

/// The workload models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Model {
    /// Lublin and Feitelson's model of rigid parallel jobs (1999 report, JPDC 2003).
    Lublin99,
}

/// Flags of `kairos generate-swf`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The model.
    #[arg(long, value_enum)]
    pub model: Model,
    /// Machine size, processors.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: u32,
    /// Jobs to generate, 1 to 100,000,000 (about 9 GB of text; a larger log is a typo, and
    /// would fill a disk before it was noticed).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub jobs: u64,
    /// Offered load to scale the arrivals to, in (0, 10] (default: the model's own rate).
    #[arg(long, value_parser = load)]
    pub load: Option<f64>,
    /// The seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The SWF file to write (`.gz`: gzip-compressed) (default:
    /// `out/lublin99/lublin99-<procs>p-<jobs>j-s<seed>.swf`).
    #[arg(short, long, value_name = "FILE.swf")]
    pub output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
    /// Print what was written as JSON on stdout (output, jobs, procs, loads).
    #[arg(long)]
    pub json: bool,
}

/// A load in (0, 10].
fn load(s: &str) -> Result<f64, String> {
    let x = super::finite(s)?;
    if x > 0.0 && x <= 10.0 {
        Ok(x)
    } else {
        Err(format!("{s:?} is not a load in (0, 10]"))
    }
}

/// Runs `kairos generate-swf`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let Model::Lublin99 = args.model;
    let options = Lublin99Options {
        procs: args.procs,
        jobs: args.jobs,
        load: args.load,
        seed: args.seed,
    };
    let path = &args.output.clone().unwrap_or_else(|| {
        std::path::Path::new("out").join("lublin99").join(format!(
            "lublin99-{}p-{}j-s{}.swf",
            args.procs, args.jobs, args.seed
        ))
    });
    if args.output.is_none() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
        }
    }
    crate::output::check_file("--output", path, args.force, &[])?;
    // Written whole or not at all: an interrupted million-job log leaves no file cut mid-line,
    // and Ctrl-C stops the writer, which removes its temporary file (`AtomicFile`).
    crate::interrupt::catch();
    // Both passes over the jobs (the load, then the lines), for a long log.
    let progress = crate::progress::show(
        crate::progress::Steps::new(
            "generate-swf",
            "jobs (two passes)",
            args.jobs.saturating_mul(2),
            0,
        )
        .quiet_for(crate::progress::QUIET),
    );
    let file = crate::output::AtomicFile::create(path)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let written = if gz {
        let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        let g = lublin99::write_swf(&mut enc, &options)
            .and_then(|g| enc.finish().map(|f| (g, f)))
            .with_context(|| format!("{}: cannot write", path.display()))?;
        g.1.finish()?;
        g.0
    } else {
        let mut f = file;
        let g = lublin99::write_swf(&mut f, &options)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        f.finish()?;
        g
    };
    drop(progress);
    crate::diag!(
        "{}: {} jobs on {} processors, model load {:.4}, arrivals scaled by {:.6}, load {:.4}",
        path.display(),
        written.jobs,
        args.procs,
        written.model_load,
        written.scale,
        written.load
    );
    if args.json {
        let v = serde_json::json!({
            "output": path.display().to_string(),
            "jobs": written.jobs,
            "procs": args.procs,
            "model_load": written.model_load,
            "scale": written.scale,
            "load": written.load,
        });
        writeln!(
            super::pipe::stdout(),
            "{}",
            serde_json::to_string_pretty(&v)?
        )?;
    }
    Ok(())
}
