//! Progress of a long command counted in steps (trials, workloads, grid points), as
//! `kairos experiment` shows its runs: on a terminal (stderr) an indicatif bar with the
//! elapsed time and the ETA; otherwise plain lines on stderr (steps done of the total,
//! elapsed, ETA), at most one every [`LINE_EVERY`] and always the last, so a log is not
//! flooded and a user never waits long in silence.
//!
//! Steps saved before a resumed run count as done from the start and stay out of the rate,
//! so the ETA is that of the steps left at this session's pace.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The least time between two progress lines (not on a terminal).
pub const LINE_EVERY: Duration = Duration::from_secs(2);

/// `1h02m03s`, `4m05s` or `6.7s`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A count of steps shown as it goes; shared by worker threads.
pub struct Steps {
    label: String,
    unit: &'static str,
    total: u64,
    before: u64,
    done: AtomicU64,
    start: Instant,
    bar: Option<ProgressBar>,
    /// When the last line was printed (None: never).
    last_line: Mutex<Option<Instant>>,
}

impl Steps {
    /// Progress of `total` steps called `unit` (plural, e.g. "trials") of the command
    /// `label`, `before` of them done before this session. A bar when stderr is a
    /// terminal, lines otherwise.
    pub fn new(label: &str, unit: &'static str, total: u64, before: u64) -> Steps {
        Steps::with_bar(label, unit, total, before, std::io::stderr().is_terminal())
    }

    /// [`Steps::new`], with the bar or the lines chosen by `bar`.
    pub fn with_bar(label: &str, unit: &'static str, total: u64, before: u64, bar: bool) -> Steps {
        let bar = bar.then(|| {
            let b = ProgressBar::new(total);
            b.set_position(before);
            b.reset_eta();
            b.set_style(
                ProgressStyle::with_template(&format!(
                    "[{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit}, eta {{eta}}"
                ))
                .expect("a valid template"),
            );
            b.enable_steady_tick(Duration::from_millis(500));
            b
        });
        Steps {
            label: label.to_string(),
            unit,
            total,
            before,
            done: AtomicU64::new(before),
            start: Instant::now(),
            bar,
            last_line: Mutex::new(None),
        }
    }

    /// `n` more steps are done.
    pub fn add(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(b) = &self.bar {
            b.inc(n);
            return;
        }
        let now = Instant::now();
        let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|t| now.duration_since(t) >= LINE_EVERY);
        if due || done >= self.total {
            *last = Some(now);
            crate::diag!("{}", self.line(done, self.start.elapsed()));
        }
    }

    /// The progress line after `done` steps and `elapsed` of this session.
    pub fn line(&self, done: u64, elapsed: Duration) -> String {
        let here = done.saturating_sub(self.before);
        let eta = if here > 0 {
            let left = self.total.saturating_sub(done) as f64;
            format!(
                ", eta {}",
                duration_text(elapsed.mul_f64(left / here as f64))
            )
        } else {
            String::new()
        };
        format!(
            "{}: {done}/{} {} ({}%), {} elapsed{eta}",
            self.label,
            self.total,
            self.unit,
            (done * 100).checked_div(self.total).unwrap_or(100),
            duration_text(elapsed)
        )
    }

    /// Steps done so far, those saved before included.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Clears the bar (a no-op for lines).
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_counts_the_saved_steps_but_rates_this_sessions() {
        let p = Steps::with_bar("x", "trials", 10, 4, false);
        // 2 steps this session in 10 s: 4 left take 20 s.
        let l = p.line(6, Duration::from_secs(10));
        assert_eq!(l, "x: 6/10 trials (60%), 10.0s elapsed, eta 20.0s");
        // Nothing run yet: no estimate.
        assert_eq!(
            p.line(4, Duration::from_secs(1)),
            "x: 4/10 trials (40%), 1.0s elapsed"
        );
    }
}
