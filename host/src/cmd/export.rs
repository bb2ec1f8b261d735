//! `kairos export`: writes a scenario's generated trial, an SWF log or a Batsim workload as
//! SWF or as a Batsim workload (the library is [`crate::export`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::export::{self, Format};
use crate::trace::LoadOptions;

/// Flags of `kairos export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The input, told apart by content: a scenario (TOML), an SWF log or a Batsim workload
    /// (JSON).
    pub input: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    pub format: Format,
    /// The file to write (default: `out/<input stem>/<input stem>.swf` or `.json`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
    /// Print what was written as JSON on stdout (output, jobs, machines, source).
    #[arg(long)]
    pub json: bool,
    /// Which trial of a scenario to generate.
    #[arg(long, default_value_t = 0)]
    pub trial: u32,
    /// SWF input: machine size (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Option<u32>,
    /// SWF input: clean the log first, as `kairos replay --clean strong` does.
    #[arg(long, value_enum)]
    pub clean: Option<super::replay::CleanPreset>,
    /// The old spelling of `--clean strong`, still accepted.
    #[arg(long, hide = true)]
    pub clean_strong: bool,
}

/// The default output of `input` in `format`: `out/<stem>/<stem>.swf` or `.json`.
fn default_output(input: &std::path::Path, format: Format) -> PathBuf {
    let name = input.file_name().map_or("export".into(), |n| {
        let n = n.to_string_lossy();
        let n = n.strip_suffix(".gz").unwrap_or(&n).to_string();
        std::path::Path::new(&n)
            .file_stem()
            .map_or(n.clone(), |s| s.to_string_lossy().into_owned())
    });
    let ext = match format {
        Format::Swf => "swf",
        Format::Batsim => "json",
    };
    std::path::Path::new("out")
        .join(&name)
        .join(format!("{name}.{ext}"))
}

/// Runs `kairos export`.
pub fn main(args: Args) -> anyhow::Result<()> {
    {
        use crate::batsim::FileKind;
        crate::batsim::check_kind(
            &args.input,
            "export",
            &[FileKind::Swf, FileKind::Json, FileKind::Scenario],
        )?;
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.input, args.format));
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    }
    // Checked before any work, written whole or not at all, as every output.
    crate::output::check_file("--output", &output, args.force, &[&args.input])?;
    let options = LoadOptions {
        procs: args.procs,
        clean_strong: args.clean_strong || args.clean == Some(super::replay::CleanPreset::Strong),
        skip_bad_lines: false,
        strict: false,
    };
    let jobs = export::read_jobs(&args.input, args.trial, &options)?;
    let mut out = Vec::new();
    export::write(&mut out, &jobs, args.format)?;
    crate::output::write_atomic(&output, out)?;
    crate::diag!(
        "{}: {} jobs on {} machines ({})",
        output.display(),
        jobs.jobs.len(),
        jobs.machine,
        jobs.source
    );
    if args.json {
        let v = serde_json::json!({
            "output": output.display().to_string(),
            "jobs": jobs.jobs.len(),
            "machines": jobs.machine,
            "source": jobs.source.to_string(),
        });
        writeln!(
            super::pipe::stdout(),
            "{}",
            serde_json::to_string_pretty(&v)?
        )?;
    }
    Ok(())
}
