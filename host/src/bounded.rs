//! Reading a whole file with a bound that fits its kind: a file that is read whole (an
//! experiment or scenario file, a shard, a Batsim workload, a profile cache) is refused as
//! soon as it passes its kind's most ([`read`], [`read_to_string`]), so a wrong path
//! (`/dev/zero`, a log named as a scenario) is an error naming the file and the limit, not
//! memory filled until the system kills the process. The SWF reader bounds its logs by the
//! memory their jobs take (`swf::check_size`); these are the bounds of every other reader.

use std::io::Read;
use std::path::Path;

/// The most a TOML or JSON file written by hand or by `kairos` may hold (experiment files,
/// scenarios, pareto files, summaries): 256 MiB, far above the largest (a pareto file of
/// 100,000 tasks is a few MB).
pub const TEXT_FILE_BYTES: u64 = 256 << 20;

/// The most a shard file may hold (4 GiB: a row is a few hundred bytes, so millions of runs).
pub const SHARD_BYTES: u64 = 4 << 30;

/// The most a Batsim workload may hold (4 GiB: a 200,000-job workload is about 30 MB).
pub const WORKLOAD_BYTES: u64 = 4 << 30;

/// The most a packed scenario (`kairos digest`, firmware) or a profile cache may hold (1 GiB).
pub const BINARY_FILE_BYTES: u64 = 1 << 30;

/// The bytes of the file at `path`, or an error (`InvalidData`) as soon as they pass `most`:
/// a `kind` (as "experiment file") names what was expected in the message.
pub fn read(path: &Path, most: u64, kind: &str) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    // A regular file's size sizes the buffer; a device or pipe says 0 and grows it as read.
    let hint = file.metadata().map(|m| m.len()).unwrap_or(0).min(most);
    let mut out = Vec::new();
    out.try_reserve_exact(hint as usize)
        .map_err(|_| std::io::Error::other(format!("cannot allocate {hint} bytes to read it")))?;
    file.take(most.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > most {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {}, the limit for {kind}s; is it the right file?",
                crate::limits::bytes_text(most as u128)
            ),
        ));
    }
    Ok(out)
}

/// As [`read`], as UTF-8 text (`InvalidData` if it is not).
pub fn read_to_string(path: &Path, most: u64, kind: &str) -> std::io::Result<String> {
    String::from_utf8(read(path, most, kind)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_read_stops_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.toml");
        std::fs::write(&p, "x = 1\n").unwrap();
        assert_eq!(read_to_string(&p, 6, "experiment file").unwrap(), "x = 1\n");
        let e = read_to_string(&p, 5, "experiment file").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(
            e.to_string().contains("the limit for experiment files"),
            "{e}"
        );
        // An endless device: refused at the limit, not read forever.
        if Path::new("/dev/zero").exists() {
            let e = read(Path::new("/dev/zero"), 1 << 20, "scenario").unwrap_err();
            assert!(e.to_string().contains("larger than"), "{e}");
        }
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_to_string(&p, 6, "experiment file").is_err());
    }
}
