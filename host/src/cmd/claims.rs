//! `kairos claims`: every claim of the seeds, evaluated on the outputs of the full-scale
//! runs (the library is [`crate::claims`]).

use crate::claims::{self, render, Status};
use anyhow::{bail, Context};
use std::io::Write;
use std::path::PathBuf;

/// Flags of `kairos claims`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results directories to read the outputs from, first match wins (default: `results`).
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The folder of claims files (`*.toml`).
    #[arg(long, value_name = "DIR", default_value = "claims")]
    pub claims: PathBuf,
    /// Only the claims of this seed (`000` ... `004`).
    #[arg(long, value_name = "SEED")]
    pub seed: Option<String>,
    /// Print `{"claims": [...]}` instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when a claim's status differs from the one the document prints, a failing
    /// claim has no explanation, or a generated table of the document is stale.
    #[arg(long)]
    pub check: bool,
    /// Rewrite the generated claims tables of this document from the outputs.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "docs/results.md")]
    pub update_docs: Option<PathBuf>,
    /// The document `--check` compares with.
    #[arg(long, value_name = "FILE", default_value = "docs/results.md")]
    pub docs: PathBuf,
}

/// Runs `kairos claims`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let mut files = claims::load_dir(&args.claims)?;
    if let Some(seed) = &args.seed {
        files.retain(|f| &f.seed == seed);
        if files.is_empty() {
            return Err(super::usage(format!(
                "--seed {seed}: no claims file of {} is of that seed",
                args.claims.display()
            )));
        }
    }
    let dirs = if args.dirs.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.dirs.clone()
    };
    for d in &dirs {
        if !d.is_dir() {
            bail!("{}: not a results folder", d.display());
        }
    }
    let evaluated = claims::evaluate(&files, &dirs)?;
    let mut out = super::pipe::stdout();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&render::json(&evaluated))?
        )?;
    } else {
        write!(out, "{}", render::text_table(&evaluated))?;
    }
    if let Some(doc_path) = &args.update_docs {
        let doc = std::fs::read_to_string(doc_path)
            .with_context(|| format!("{}: cannot read", doc_path.display()))?;
        let new = render::update_doc(&doc, &files, &evaluated);
        if new != doc {
            crate::output::write_atomic(doc_path, new)?;
            eprintln!("updated the claims tables of {}", doc_path.display());
        }
    }
    if args.check {
        let doc = std::fs::read_to_string(&args.docs)
            .with_context(|| format!("{}: cannot read", args.docs.display()))?;
        let mut problems = claims::check(&evaluated, &doc);
        if args.seed.is_some() {
            // Only this seed's claims were evaluated: the document's others are not missing.
            problems.retain(|p| !p.ends_with("in the document but in no claims file"));
        }
        for name in render::stale_blocks(&doc, &files, &evaluated) {
            problems.push(format!(
                "{}: the table of {name} is stale (kairos claims --update-docs {})",
                args.docs.display(),
                args.docs.display()
            ));
        }
        if !problems.is_empty() {
            for p in &problems {
                eprintln!("kairos claims --check: {p}");
            }
            bail!(
                "{} problem(s) between the claims and {}",
                problems.len(),
                args.docs.display()
            );
        }
        let n = evaluated
            .iter()
            .filter(|e| e.status != Status::NotRun)
            .count();
        eprintln!(
            "kairos claims --check: {} claims ({n} run) agree with {}",
            evaluated.len(),
            args.docs.display()
        );
    }
    Ok(())
}
