//! The common job line read in one pass: every field a whole number or the unknown marker.
//!
//! Most archive logs write each of the 18 fields as plain digits or `-1`. For such a line
//! the general reader (`fields`, then `number`'s decimal parse of each word) does the same
//! work twice: it splits the line into words, then reads each word again as a decimal with
//! an optional fraction. [`job`] reads the digits while it splits, and gives up (`None`) at
//! the first byte the common form does not have: a dot, a sign other than the `-1` marker,
//! a letter, a twentieth digit, a nineteenth field. It also gives up on every value the
//! general reader refuses (an unknown job number, a count over `u32`, a time over `u64`
//! microseconds), so its job, when it has one, is the general reader's, and every error
//! is still found and named by the general reader, which reads such a line from the start.

use super::{SwfJob, FIELDS, SPACE};

/// The unknown marker `-1` among the whole numbers: no number of at most 19 digits is this.
const UNKNOWN: u64 = u64::MAX;

/// The digits a field may have here: nineteen digits always fit a `u64` without a check.
const MOST_DIGITS: usize = 19;

/// The job of `text` (a trimmed job line) when each field is at most 19 digits or `-1`
/// and every value fits; `None` otherwise, for the general reader.
pub(super) fn job(line: usize, text: &[u8]) -> Option<SwfJob> {
    let f = whole_fields(text)?;
    let known = |v: u64| (v != UNKNOWN).then_some(v);
    // `Some(None)` is -1; an outer `None` (too large) goes back to the general reader.
    let time = |v: u64| match known(v) {
        None => Some(None),
        Some(s) => s.checked_mul(1_000_000).map(Some),
    };
    let count = |v: u64| match known(v) {
        None => Some(None),
        Some(c) => u32::try_from(c).ok().map(Some),
    };
    Some(SwfJob {
        line,
        id: known(f[0])?,
        submit_us: time(f[1])?,
        wait_us: time(f[2])?,
        run_us: time(f[3])?,
        allocated_procs: count(f[4])?,
        avg_cpu_us: time(f[5])?,
        used_memory_kb: known(f[6]),
        requested_procs: count(f[7])?,
        requested_us: time(f[8])?,
        requested_memory_kb: known(f[9]),
        status: count(f[10])?,
        user: count(f[11])?,
        group: count(f[12])?,
        executable: count(f[13])?,
        queue: count(f[14])?,
        partition: count(f[15])?,
        preceding_job: known(f[16]),
        think_time_us: time(f[17])?,
    })
}

/// The 18 fields of `text` as whole numbers ([`UNKNOWN`] for `-1`), in one pass over its
/// bytes, when it has exactly 18 whitespace-separated words each of at most 19 digits or
/// exactly `-1`; `None` otherwise.
fn whole_fields(text: &[u8]) -> Option<[u64; FIELDS]> {
    let mut f = [0; FIELDS];
    let len = text.len();
    let mut i = 0;
    for slot in &mut f {
        while i < len && SPACE[text[i] as usize] {
            i += 1;
        }
        let start = i;
        let value = if text.get(i) == Some(&b'-') {
            i += 1;
            if text.get(i) != Some(&b'1') {
                return None;
            }
            i += 1;
            UNKNOWN
        } else {
            let (v, end) = super::number::digits(text, i);
            i = end;
            if i == start || i - start > MOST_DIGITS {
                return None;
            }
            v
        };
        // The word ends here, at whitespace or at the end of the line.
        if i < len && !SPACE[text[i] as usize] {
            return None;
        }
        *slot = value;
    }
    // Nothing but whitespace after the 18th word.
    text[i..].iter().all(|&b| SPACE[b as usize]).then_some(f)
}
