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
