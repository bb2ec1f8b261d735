//! The `;` header lines of an SWF file: `; Key: value` entries, continued lines, free text.
//!
//! A header line is `;` followed by text (leading blanks on the line and after the `;` are
//! ignored, so indented lines like Gaia's `;       Version: 2.2` are ordinary entries). The
//! text is an entry when it starts with `Key:` (a letter, then letters, digits, `_` or `-`,
//! then a colon followed by a blank or the end of the line: so `http://...` is not a key).
//! A line that is not an entry continues the previous entry's value (joined with one space)
//! when it directly follows that entry or one of its continuations, as KTH's second
//! `Information` URL does; an empty `;` line or a job line ends the entry. Any other line is
//! free text (Gaia's banner and its column diagram) and is kept in
//! [`SwfHeader::comments`].
//!
//! The typed fields take the first occurrence of their key (compared ignoring ASCII case)
//! and read the first word of its value as a number; every entry, repeated keys included,
//! stays in [`SwfHeader::entries`] in file order.

use super::{number, FieldProblem};

/// One `; Key: value` header entry, with any continued lines joined to its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderEntry {
    /// 1-based line number of the `Key:` line.
    pub line: usize,
    /// The key as written (e.g. `MaxProcs`).
    pub key: String,
    /// The value, trimmed; continued lines are appended after one space.
    pub value: String,
}

/// A header line that is neither an entry nor a continuation (banners, column diagrams).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderComment {
    /// 1-based line number.
    pub line: usize,
    /// The text after the `;`, trimmed.
    pub text: String,
}

/// The parsed SWF header: the standard keys typed, and every entry in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfHeader {
    /// `Version`: the SWF version of the file (e.g. `2.2`).
    pub version: Option<String>,
    /// `Computer`: the machine's make and model.
    pub computer: Option<String>,
    /// `Installation`: where the machine was.
    pub installation: Option<String>,
    /// `MaxJobs`: the number of jobs the header claims (not checked against the file).
    pub max_jobs: Option<u64>,
    /// `MaxRecords`: the number of records the header claims (not checked against the file).
    pub max_records: Option<u64>,
    /// `MaxProcs`: processors in the machine.
    pub max_procs: Option<u32>,
    /// `MaxNodes`: nodes in the machine.
    pub max_nodes: Option<u32>,
    /// `UnixStartTime`: the Unix time (seconds) that submit time 0 stands for.
    pub unix_start_time: Option<u64>,
    /// `TimeZoneString`: the site's time zone (e.g. `Europe/Stockholm`).
    pub time_zone_string: Option<String>,
    /// `StartTime`: the log's start as written (a date string, not parsed).
    pub start_time: Option<String>,
    /// `EndTime`: the log's end as written (a date string, not parsed).
    pub end_time: Option<String>,
    /// Every `Key: value` entry, repeated keys included, in file order.
    pub entries: Vec<HeaderEntry>,
    /// Header lines that are neither entries nor continuations, in file order.
    pub comments: Vec<HeaderComment>,
}

impl SwfHeader {
    /// The value of the first entry named `key` (ignoring ASCII case).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entry(key).map(|e| e.value.as_str())
    }

    /// The first entry named `key` (ignoring ASCII case).
    pub fn entry(&self, key: &str) -> Option<&HeaderEntry> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }

    /// The machine's size in processors: `MaxProcs`, else `MaxNodes`, else `None` (0 counts
    /// as absent).
    pub fn machine_procs(&self) -> Option<u32> {
        self.max_procs
            .filter(|&p| p > 0)
            .or(self.max_nodes.filter(|&n| n > 0))
    }
}

/// A typed header value that did not parse: the entry's line and key, and the problem.
#[derive(Debug)]
pub(super) struct HeaderValueError {
    pub line: usize,
    pub key: String,
    pub text: String,
    pub problem: FieldProblem,
}

/// Collects header lines as they come, then types the standard keys.
#[derive(Default)]
pub(super) struct HeaderBuilder {
    header: SwfHeader,
    /// Whether the last line was an entry or a continuation (so the next can continue it).
    open: bool,
}

impl HeaderBuilder {
    /// Takes the text after the `;` of header line `line`.
    pub fn line(&mut self, line: usize, text: &[u8]) {
        let text = String::from_utf8_lossy(text);
        let text = text.trim();
        if text.is_empty() {
            self.open = false;
        } else if let Some((key, value)) = split_key(text) {
            self.header.entries.push(HeaderEntry {
                line,
                key: key.to_owned(),
                value: value.to_owned(),
            });
            self.open = true;
        } else if let (true, Some(last)) = (self.open, self.header.entries.last_mut()) {
            if !last.value.is_empty() {
                last.value.push(' ');
            }
            last.value.push_str(text);
        } else {
            self.header.comments.push(HeaderComment {
                line,
                text: text.to_owned(),
            });
        }
    }

    /// Ends the current entry (a job line or a blank line came).
    pub fn close(&mut self) {
        self.open = false;
    }

    /// Types the standard keys; values that do not parse are returned beside the header
    /// (their typed field stays `None`).
    pub fn finish(self) -> (SwfHeader, Vec<HeaderValueError>) {
        let mut h = self.header;
        let mut errors = Vec::new();
        let text = |h: &SwfHeader, key: &str| h.get(key).map(str::to_owned);
        h.version = text(&h, "Version");
        h.computer = text(&h, "Computer");
        h.installation = text(&h, "Installation");
        h.time_zone_string = text(&h, "TimeZoneString");
        h.start_time = text(&h, "StartTime");
        h.end_time = text(&h, "EndTime");
        h.max_jobs = typed(&h, "MaxJobs", &mut errors);
        h.max_records = typed(&h, "MaxRecords", &mut errors);
        h.max_procs = typed(&h, "MaxProcs", &mut errors);
        h.max_nodes = typed(&h, "MaxNodes", &mut errors);
        h.unix_start_time = typed(&h, "UnixStartTime", &mut errors);
        (h, errors)
    }
}

/// The first word of `key`'s value as a whole number (`-1` is unknown), or the error.
fn typed<T: TryFrom<u64>>(
    h: &SwfHeader,
    key: &str,
    errors: &mut Vec<HeaderValueError>,
) -> Option<T> {
    let entry = h.entry(key)?;
    let word = entry.value.split_ascii_whitespace().next().unwrap_or("");
    number::whole(word.as_bytes()).unwrap_or_else(|problem| {
        errors.push(HeaderValueError {
            line: entry.line,
            key: entry.key.clone(),
            text: entry.value.clone(),
            problem,
        });
        None
    })
}

/// Splits `Key: value` (see the module doc for what a key is).
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let (key, rest) = (&text[..colon], &text[colon + 1..]);
    let mut chars = key.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let word = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let then_blank = rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_whitespace());
    (starts_with_letter && word && then_blank).then(|| (key, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_need_a_word_then_a_colon_then_a_blank() {
        assert_eq!(split_key("MaxProcs: 100"), Some(("MaxProcs", "100")));
        assert_eq!(split_key("Note:"), Some(("Note", "")));
        assert_eq!(
            split_key("EndTime:   Fri Aug 29 10:55:01 CEST 1997"),
            Some(("EndTime", "Fri Aug 29 10:55:01 CEST 1997"))
        );
        assert_eq!(split_key("http://www.cs.huji.ac.il/"), None);
        assert_eq!(split_key("1|         2|"), None);
        assert_eq!(split_key("--- SWF file converted ---"), None);
        assert_eq!(split_key("Max Procs: 5"), None);
    }
}
