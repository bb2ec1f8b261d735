//! What kind of file a path holds, chosen by its content rather than its extension: the
//! replay reads SWF logs and Batsim workloads, and a file of another kind (a scenario or
//! experiment TOML) is reported as what it is.

use std::io::Read;
use std::path::Path;

use anyhow::Context;

/// The kinds of input file kairos tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A Standard Workload Format log (plain or gzip-compressed).
    Swf,
    /// A JSON document (a Batsim workload, for the replay).
    Json,
    /// A TOML document (a scenario or an experiment file).
    Toml,
}

impl InputKind {
    /// What the kind is called in messages.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Swf => "an SWF log",
            InputKind::Json => "a JSON file",
            InputKind::Toml => "a TOML file",
        }
    }
}

/// The kind of the file at `path`, from its first bytes: gzip's magic number is a
/// compressed SWF log; after a byte-order mark, blank lines and comments (`;` is SWF's
/// header, `#` TOML's), a `{` opens JSON, a `[table]` or `key = value` line is TOML, and
/// anything else is read as SWF (whose reader then names the line it cannot read).
pub fn sniff(path: &Path) -> anyhow::Result<InputKind> {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .with_context(|| format!("{}: cannot read", path.display()))?
        .take(4096)
        .read_to_end(&mut head)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(sniff_bytes(&head))
}

/// [`sniff`] on the first bytes of a file.
pub fn sniff_bytes(head: &[u8]) -> InputKind {
    if head.starts_with(&[0x1f, 0x8b]) {
        return InputKind::Swf;
    }
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if l.starts_with(';') {
            return InputKind::Swf;
        }
        if l.starts_with('{') {
            return InputKind::Json;
        }
        if l.starts_with('[') {
            return InputKind::Toml;
        }
        if let Some((key, _)) = l.split_once('=') {
            let key = key.trim();
            if !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"'))
            {
                return InputKind::Toml;
            }
        }
        return InputKind::Swf;
    }
    InputKind::Swf
}

/// The file at `path` as a TOML table, if it is one (by content, then by parsing).
pub fn toml_table(path: &Path) -> Option<toml::Table> {
    if sniff(path).ok()? != InputKind::Toml {
        return None;
    }
    let text =
        crate::bounded::read_to_string(path, crate::bounded::TEXT_FILE_BYTES, "TOML file").ok()?;
    text.trim_start_matches('\u{feff}')
        .parse::<toml::Table>()
        .ok()
}

/// Whether a TOML table is an experiment file rather than a scenario: it names its scenario
/// or log (`scenario`, `swf`), or lists runs.
pub fn is_experiment(t: &toml::Table) -> bool {
    ["scenario", "swf", "runs", "seed003", "configurations"]
        .iter()
        .any(|k| t.contains_key(*k))
        && !t.contains_key("platform")
}

/// What a file is, as far as choosing the command that reads it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// An SWF log.
    Swf,
    /// A JSON document (a Batsim workload).
    Json,
    /// An ESSC scenario (a TOML file with a `[platform]`).
    Scenario,
    /// A seed 003 scenario (a TOML file with a `[workload]`, named by a seed 003 experiment).
    Seed003Scenario,
    /// A seed 002 Pareto experiment (`system = "pareto"`).
    Pareto,
    /// An experiment file (it names its scenario or log, or declares a seed 002 system).
    Experiment,
    /// Another TOML document, or one that does not parse (its reader names the line).
    OtherToml,
}

impl FileKind {
    /// The kind of the file at `path`, by content.
    pub fn of(path: &Path) -> anyhow::Result<FileKind> {
        Ok(match sniff(path)? {
            InputKind::Swf => FileKind::Swf,
            InputKind::Json => FileKind::Json,
            InputKind::Toml => match toml_table(path) {
                None => FileKind::OtherToml,
                Some(t) if t.get("system").and_then(|v| v.as_str()) == Some("pareto") => {
                    FileKind::Pareto
                }
                Some(t) if t.contains_key("system") || is_experiment(&t) => FileKind::Experiment,
                Some(t) if t.contains_key("platform") => FileKind::Scenario,
                Some(t) if t.contains_key("workload") => FileKind::Seed003Scenario,
                Some(_) => FileKind::OtherToml,
            },
        })
    }

    /// What it is called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            FileKind::Swf => "an SWF log",
            FileKind::Json => "a Batsim workload (JSON)",
            FileKind::Scenario => "a scenario",
            FileKind::Seed003Scenario => "a seed 003 scenario",
            FileKind::Pareto => "a Pareto experiment file",
            FileKind::Experiment => "an experiment file",
            FileKind::OtherToml => "a TOML file",
        }
    }

    /// The command that takes a file of this kind at `path`.
    fn remedy(self, path: &Path) -> String {
        let p = path.display();
        match self {
            FileKind::Swf | FileKind::Json => {
                format!("replay it with `kairos replay {p} --policy easy`")
            }
            FileKind::Scenario => format!(
                "run one trial with `kairos run {p} --heuristic max-upe`, or name it as \
                 `scenario` in an experiment file for `kairos experiment`"
            ),
            FileKind::Seed003Scenario => "a seed 003 experiment file names it as `scenario` \
                 (e.g. experiments/seed003-rates.toml): run that with `kairos experiment`"
                .to_string(),
            FileKind::Pareto => format!("run it with `kairos pareto {p}`"),
            FileKind::Experiment => format!("run it with `kairos experiment {p}`"),
            FileKind::OtherToml => String::new(),
        }
    }
}

/// Refuses the file at `path` when it is of a kind `command` does not read (one of
/// `accepts`, [`FileKind::OtherToml`] always let through for the command's own reader to
/// name the line it cannot read): the error says what the file is and which command takes
/// it. Exit 1 (a file, not the command line, is wrong).
pub fn check_kind(path: &Path, command: &str, accepts: &[FileKind]) -> anyhow::Result<()> {
    let kind = FileKind::of(path)?;
    if kind == FileKind::OtherToml || accepts.contains(&kind) {
        return Ok(());
    }
    let wanted: Vec<&str> = accepts.iter().map(|k| k.noun()).collect();
    anyhow::bail!(
        "{}: this is {}, and `kairos {command}` reads {}: {}",
        path.display(),
        kind.noun(),
        wanted.join(" or "),
        kind.remedy(path)
    )
}
