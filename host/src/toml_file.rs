//! kairos's TOML files (scenarios, [`crate::scenario`]; experiments, [`crate::experiment`]):
//! reading one, parsing it into its format, and checking its values, with one error type and
//! one shape of message for both.
//!
//! A file goes through two stages. `parse` reads it into the format's types, which are all
//! `#[serde(deny_unknown_fields)]`: a syntax error, a misspelt key, a wrong type or a missing
//! key is the toml crate's message, with the line and a caret under the offending span
//! ([`TomlFileError::Syntax`]). Then the format checks every value through a `Checker`,
//! which collects one line per bad value, naming the file, the line where the key is written,
//! the dotted key, the value and the rule ([`TomlFileError::Invalid`]):
//!
//! ```text
//! scenarios/x.toml:14: simulation.mapping_interval_s = 0: must be between 1 and 86400
//! ```
//!
//! The line is that of the key; for a key the file leaves out (a default), that of the table
//! holding it; for a key whose table is absent too, there is none (`file: key = ..`).

use serde::de::DeserializeOwned;
use std::fmt;
use std::ops::Range;
use std::path::Path;

/// Why a TOML file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TomlFileError {
    /// The file could not be read.
    #[error("{file}: cannot read: {error}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Not TOML, or not this format (unknown key, wrong type, missing key); the message is the
    /// toml crate's, with the line and a caret under the offending span.
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The toml crate's message.
        message: String,
    },
    /// Values the format does not allow, one `file:line: key = value: rule` line each.
    #[error("{}", .0.join("\n"))]
    Invalid(Vec<String>),
}

/// The text of the file at `path`, and its name for messages.
pub(crate) fn read(path: &Path) -> Result<(String, String), TomlFileError> {
    let file = path.display().to_string();
    match crate::bounded::read_to_string(path, crate::bounded::TEXT_FILE_BYTES, "TOML file") {
        Ok(text) => Ok((text, file)),
        Err(error) => Err(TomlFileError::Io { file, error }),
    }
}

/// Whether the file at `path` is TOML with a top-level `system = "<system>"`: how `kairos
/// experiment` tells its formats apart before loading one. False when the file cannot be
/// read or parsed, so that the loader tried last reports why.
pub(crate) fn declares_system(path: &Path, system: &str) -> bool {
    crate::bounded::read_to_string(path, crate::bounded::TEXT_FILE_BYTES, "TOML file")
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.get("system").and_then(|s| s.as_str()) == Some(system))
}
/// `text` as the format `T`; `file` names it in the error.
pub(crate) fn parse<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, TomlFileError> {
    toml::from_str(text).map_err(|e| TomlFileError::Syntax {
        file: file.to_string(),
        message: e.to_string().trim_end().to_string(),
    })
}

/// Collects the values a format rejects, one `file:line: key = value: rule` line each.
pub(crate) struct Checker<'a> {
    file: &'a str,
    /// The parsed document, to find the line of a key (`None`: no text to look in).
    doc: Option<toml_edit::ImDocument<&'a str>>,
    text: &'a str,
    errors: Vec<String>,
}

impl<'a> Checker<'a> {
    /// A checker for the values parsed from `text` (`file` names it in the messages).
    pub(crate) fn new(file: &'a str, text: &'a str) -> Checker<'a> {
        Checker {
            file,
            doc: toml_edit::ImDocument::parse(text).ok(),
            text,
            errors: Vec::new(),
        }
    }

    /// A checker for values that come from no text: the messages name `file` and no line.
    pub(crate) fn without_text(file: &'a str) -> Checker<'a> {
        Checker {
            file,
            doc: None,
            text: "",
            errors: Vec::new(),
        }
    }

    /// `file:line` of dotted `key` (`runs[2].leniencies[0]`), or `file` when the file has
    /// neither the key nor any table holding it.
    pub(crate) fn at(&self, key: &str) -> String {
        match self.line_of(key) {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.to_string(),
        }
    }

    /// Whether the file sets dotted `key` (`a.b`, no indices) itself rather than leaving it
    /// to its default; `false` without the text.
    pub(crate) fn sets(&self, key: &str) -> bool {
        let Some(doc) = self.doc.as_ref() else {
            return false;
        };
        let mut item = doc.as_item();
        for k in key.split('.') {
            match item.get(k) {
                Some(next) => item = next,
                None => return false,
            }
        }
        true
    }

    /// Records that `key = value` breaks `rule`.
    pub(crate) fn fail(&mut self, key: &str, value: impl fmt::Display, rule: impl fmt::Display) {
        let at = self.at(key);
        self.errors.push(format!("{at}: {key} = {value}: {rule}"));
    }

    /// How many values have failed so far.
    pub(crate) fn failures(&self) -> usize {
        self.errors.len()
    }

    /// `Ok` if every value passed, else every failure.
    pub(crate) fn finish(self) -> Result<(), TomlFileError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(TomlFileError::Invalid(self.errors))
        }
    }

    /// `lo <= v <= hi`.
    pub(crate) fn int(&mut self, key: &str, v: u64, lo: u64, hi: u64) {
        if v < lo || v > hi {
            self.fail(key, v, format_args!("must be between {lo} and {hi}"));
        }
    }

    /// `lo <= v <= hi`, finite.
    pub(crate) fn float(&mut self, key: &str, v: f64, lo: f64, hi: f64) {
        if !(v >= lo && v <= hi) {
            self.fail(key, v, format_args!("must be between {lo} and {hi}"));
        }
    }

    /// `lo < v <= hi`, finite.
    pub(crate) fn float_above(&mut self, key: &str, v: f64, lo: f64, hi: f64) {
        if !(v > lo && v <= hi) {
            self.fail(
                key,
                v,
                format_args!("must be greater than {lo} and at most {hi}"),
            );
        }
    }

    /// A `[lo, hi]` pair with `lo <= hi`, each in `[min, max]`.
    pub(crate) fn float_range(&mut self, key: &str, v: [f64; 2], min: f64, max: f64) {
        let before = self.failures();
        self.float(&format!("{key}[0]"), v[0], min, max);
        self.float(&format!("{key}[1]"), v[1], min, max);
        if self.failures() == before && v[0] > v[1] {
            self.fail(
                key,
                format_args!("[{}, {}]", v[0], v[1]),
                "the first bound must not exceed the second",
            );
        }
    }

    /// A `[lo, hi]` pair with `lo <= hi`, each in `[min, max]`.
    pub(crate) fn int_range(&mut self, key: &str, v: [u32; 2], min: u64, max: u64) {
        let before = self.failures();
        self.int(&format!("{key}[0]"), v[0] as u64, min, max);
        self.int(&format!("{key}[1]"), v[1] as u64, min, max);
        if self.failures() == before && v[0] > v[1] {
            self.fail(
                key,
                format_args!("[{}, {}]", v[0], v[1]),
                "the first bound must not exceed the second",
            );
        }
    }

    /// The 1-based line where dotted `key` is written, or where the deepest table holding it
    /// is; `None` if the file has neither.
    fn line_of(&self, key: &str) -> Option<usize> {
        let doc = self.doc.as_ref()?;
        let mut item = doc.as_item();
        let mut found: Option<Range<usize>> = None;
        for part in path(key) {
            let (next, span) = match part {
                Part::Key(k) => {
                    let Some(next) = item.get(k) else { break };
                    let key_span = item
                        .as_table_like()
                        .and_then(|t| t.key(k))
                        .and_then(|k| k.span());
                    (next, key_span.or_else(|| next.span()))
                }
                Part::Index(i) => {
                    let Some(next) = item.get(i) else { break };
                    (next, next.span())
                }
            };
            item = next;
            found = span.or(found);
        }
        let start = found?.start.min(self.text.len());
        Some(self.text[..start].matches('\n').count() + 1)
    }
}

/// One step of a dotted key: a table's key or an array's index.
enum Part<'k> {
    Key(&'k str),
    Index(usize),
}

/// The steps of `a.b[2].c`: `a`, `b`, `2`, `c`. An index that is not a number (a checker's
/// own label) ends the path there.
fn path(key: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    for seg in key.split('.') {
        let mut pieces = seg.split('[');
        let name = pieces.next().unwrap_or("");
        if !name.is_empty() {
            out.push(Part::Key(name));
        }
        for index in pieces {
            match index.strip_suffix(']').and_then(|s| s.parse().ok()) {
                Some(i) => out.push(Part::Index(i)),
                None => return out,
            }
        }
    }
    out
}

/// Deserializes a two-element array (`[lo, hi]`), refusing a third element: serde's own
/// `[T; 2]` stops reading after two, so `[0.2, 2.0, -5, nan, "x"]` would pass as
/// `[0.2, 2.0]`. Use as `#[serde(deserialize_with = "crate::toml_file::pair")]`.
pub(crate) fn pair<'de, D, T>(d: D) -> Result<[T; 2], D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct Pair<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Pair<T> {
        type Value = [T; 2];
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array of exactly two elements")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<[T; 2], A::Error> {
            use serde::de::Error;
            let a = seq
                .next_element()?
                .ok_or_else(|| A::Error::invalid_length(0, &self))?;
            let b = seq
                .next_element()?
                .ok_or_else(|| A::Error::invalid_length(1, &self))?;
            let mut n = 2;
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                n += 1;
            }
            if n > 2 {
                return Err(A::Error::invalid_length(n, &self));
            }
            Ok([a, b])
        }
    }
    d.deserialize_seq(Pair(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::Checker;

    const TEXT: &str = "name = \"t\"\n\
                        [[runs]]\n\
                        heuristic = \"easy\"\n\
                        \n\
                        [[runs]]\n\
                        leniencies = [1.0,\n  -2.0]\n\
                        [calibrate]\n\
                        fraction = 0\n\
                        inline = { a = 1 }\n";

    fn line(key: &str) -> String {
        Checker::new("f.toml", TEXT).at(key)
    }

    #[test]
    fn a_system_is_declared_only_by_a_top_level_string() {
        let dir = std::env::temp_dir().join(format!("kairos-system-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            ("top.toml", "system = \"serial\"\nseed = 1\n", true),
            ("other.toml", "system = \"serial-energy\"\n", false),
            ("nested.toml", "[x]\nsystem = \"serial\"\n", false),
            ("number.toml", "system = 1\n", false),
            ("broken.toml", "system = \"serial\n", false),
        ];
        for (name, text, want) in cases {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            assert_eq!(super::declares_system(&path, "serial"), want, "{name}");
        }
        assert!(!super::declares_system(&dir.join("absent.toml"), "serial"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_key_is_found_on_its_line() {
        assert_eq!(line("name"), "f.toml:1");
        assert_eq!(line("runs[0].heuristic"), "f.toml:3");
        assert_eq!(line("runs[1].leniencies"), "f.toml:6");
        assert_eq!(line("runs[1].leniencies[1]"), "f.toml:7");
        assert_eq!(line("calibrate.fraction"), "f.toml:9");
        assert_eq!(line("calibrate.inline.a"), "f.toml:10");
    }

    #[test]
    fn an_absent_key_points_at_its_table_or_nowhere() {
        assert_eq!(line("runs[1].label"), "f.toml:5");
        assert_eq!(line("calibrate.reference"), "f.toml:8");
        assert_eq!(line("runs[7].label"), "f.toml:2");
        assert_eq!(line("scenario"), "f.toml");
        assert_eq!(Checker::without_text("f.toml").at("name"), "f.toml");
    }

    #[test]
    fn failures_are_one_line_each_in_order() {
        let mut c = Checker::new("f.toml", TEXT);
        c.int("calibrate.fraction", 0, 1, 10);
        c.float_range("runs[1].leniencies", [1.0, -2.0], 0.0, 10.0);
        let e = c.finish().unwrap_err().to_string();
        assert_eq!(
            e,
            "f.toml:9: calibrate.fraction = 0: must be between 1 and 10\n\
             f.toml:7: runs[1].leniencies[1] = -2: must be between 0 and 10"
        );
    }
}
