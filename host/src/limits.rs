//! The host's limits on sizes that come from input (flags and files), in one place, with the
//! checks that apply them: every size is checked here before anything is allocated from it,
//! so a bad value is an error naming the flag or field, the value and the limit, never an
//! abort in the allocator or a panic. `docs/reliability.md` lists them.

use anyhow::bail;

/// The most worker threads a command starts (`--threads`, `--jobs` of `kairos experiment`).
/// Far above any machine's cores; a larger count is a typo, and rayon would try to start
/// every thread.
pub const MAX_THREADS: usize = 1024;

/// The most generations a pareto run evolves (`checkpoints`, `--checkpoints`): a billion
/// takes weeks even for a small population; a larger count is a typo (2^63 - 1 was taken).
pub const MAX_GENERATIONS: u64 = 1_000_000_000;

/// The most jobs `kairos sweep-knapsack` schedules (`--jobs`). Every grid point schedules
/// all of them, so even this many takes hours; the estimate printed first says how long.
pub const MAX_SWEEP_JOBS: usize = 1_000_000;

/// The longest run label of an experiment file, in characters. Labels head the table
/// columns and the plots' legends; the text table pads to the longest one, and Rust's
/// formatter refuses widths from 65,536 up.
pub const MAX_LABEL_CHARS: usize = 200;

/// The most memory the scheduler's storage for one run may take ([`crate::storage`]), bytes
/// (4 GiB). An experiment runs one such storage per thread.
pub const MAX_STORAGE_BYTES: u128 = 4 << 30;

/// The most memory the scheduler's storage for one trace replay may take (16 GiB): a replay
/// is one run, not one per thread, and reserves a booking pool of 48 kB a processor (zeroed:
/// pages are mapped as they are used), so a machine of 163,840 processors (8 GB) fits, and `MaxProcs: 4294967295` (105 TB) is an
/// error before anything is allocated.
pub const MAX_REPLAY_STORAGE_BYTES: u128 = 16 << 30;

/// Checks a worker-thread count given by `flag`: between 1 and [`MAX_THREADS`]; and caps
/// one far above the machine's cores (more than [`OVERSUBSCRIBED`] times) at the cores,
/// with a warning: a thousand threads on two cores only wait for each other (a 0.17 s run
/// took 3.5 s), and the results do not depend on the count. Returns the count to use.
pub fn threads(flag: &str, n: Option<usize>) -> anyhow::Result<Option<usize>> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    capped_threads(flag, n, cores)
}

/// How many times the cores a thread count may be before it is capped ([`threads`]).
pub const OVERSUBSCRIBED: usize = 4;

/// [`threads`] on a machine of `cores` cores.
fn capped_threads(flag: &str, n: Option<usize>, cores: usize) -> anyhow::Result<Option<usize>> {
    match n {
        Some(n) if n == 0 || n > MAX_THREADS => {
            bail!("{flag} {n}: the thread count must be between 1 and {MAX_THREADS}")
        }
        Some(n) if n > OVERSUBSCRIBED * cores.max(1) => {
            crate::diag!(
                "warning: {flag} {n}: far above the {cores} cores of this machine; using {cores}"
            );
            Ok(Some(cores.max(1)))
        }
        n => Ok(n),
    }
}

/// `bytes` as a short text: `24.6 GB`, `310.2 MB`, `12.0 kB`.
pub fn bytes_text(bytes: u128) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} kB", b / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_threads_far_above_the_cores_are_capped() {
        assert_eq!(capped_threads("--threads", Some(1024), 2).unwrap(), Some(2));
        assert_eq!(capped_threads("--threads", Some(8), 2).unwrap(), Some(8));
        assert_eq!(capped_threads("--threads", None, 2).unwrap(), None);
        assert!(capped_threads("--threads", Some(0), 2).is_err());
        assert!(capped_threads("--threads", Some(1025), 2).is_err());
    }

    #[test]
    fn limits_threads() {
        assert!(threads("--threads", None).is_ok());
        assert!(threads("--threads", Some(1)).is_ok());
        assert!(threads("--threads", Some(MAX_THREADS)).is_ok());
        let e = threads("--threads", Some(4_294_967_295)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--threads 4294967295: the thread count must be between 1 and 1024"
        );
        assert!(threads("--jobs", Some(0)).is_err());
    }

    #[test]
    fn limits_bytes_text() {
        assert_eq!(bytes_text(24_643_917_760), "24.6 GB");
        assert_eq!(bytes_text(12_000), "12.0 kB");
    }
}
