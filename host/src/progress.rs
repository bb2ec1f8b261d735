//! Progress of a long command counted in steps (trials, workloads, grid points), as
//! `kairos experiment` shows its runs: on a terminal (stderr) an indicatif bar with the
//! elapsed time and the ETA; otherwise plain lines on stderr (steps done of the total,
//! elapsed, ETA), at most one every [`LINE_EVERY`] and always the last, so a log is not
//! flooded and a user never waits long in silence.
//!
//! Steps saved before a resumed run count as done from the start and stay out of the rate,
//! so the ETA is that of the steps left at this session's pace.
//!
//! A command whose steps are counted deep in the library (jobs of a replay, tasks of a
//! simulated horizon, jobs of a knapsack point) [`show`]s its progress for the time it runs,
//! and the loops [`tick`] it: a no-op when no command shows one (an experiment's many
//! parallel runs, a test). Progress is stderr only: no output file or digest depends on it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// The least time between two progress lines (not on a terminal).
pub const LINE_EVERY: Duration = Duration::from_secs(2);

/// How long a command whose steps are ticked deep in the library ([`show`]) runs before its
/// first progress line: a short run prints none. `KAIROS_PROGRESS_QUIET_MS` overrides it
/// (tests set 0 to see the lines of a short run).
pub const QUIET: Duration = Duration::from_secs(2);

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
    /// When this session's steps began ([`begin`] may move it past a command's setup).
    start: Mutex<Instant>,
    bar: Option<ProgressBar>,
    /// When the last line was printed (None: never).
    last_line: Mutex<Option<Instant>>,
    /// Nothing shown before this much of the session has passed ([`Steps::quiet_for`]).
    quiet: Duration,
    /// Whether the bar is drawn yet (it starts hidden when `quiet` is not zero).
    shown: AtomicBool,
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
            start: Mutex::new(Instant::now()),
            bar,
            last_line: Mutex::new(None),
            quiet: Duration::ZERO,
            shown: AtomicBool::new(true),
        }
    }

    /// Shows nothing until `quiet` has passed: a run shorter than that prints no line (and
    /// no last line), so short commands stay as quiet as before while a long one speaks up
    /// within `quiet` plus [`LINE_EVERY`].
    pub fn quiet_for(mut self, quiet: Duration) -> Steps {
        let quiet = std::env::var("KAIROS_PROGRESS_QUIET_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(quiet, Duration::from_millis);
        self.quiet = quiet;
        if let Some(b) = &self.bar {
            if !quiet.is_zero() {
                b.set_draw_target(ProgressDrawTarget::hidden());
                self.shown.store(false, Ordering::Relaxed);
            }
        }
        self
    }

    /// `n` more steps are done.
    pub fn add(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let now = Instant::now();
        let start = *self.start.lock().unwrap_or_else(|e| e.into_inner());
        let quiet = now.duration_since(start) < self.quiet;
        if let Some(b) = &self.bar {
            b.inc(n);
            if !quiet && !self.shown.swap(true, Ordering::Relaxed) {
                b.set_draw_target(ProgressDrawTarget::stderr());
            }
            return;
        }
        if quiet {
            return;
        }
        let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|t| now.duration_since(t) >= LINE_EVERY);
        if due || done >= self.total {
            *last = Some(now);
            crate::diag!("{}", self.line(done, now.duration_since(start)));
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

/// Whether a command shows its progress through [`tick`] (the fast path of a tick when
/// none does).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The progress [`tick`] counts, while a command [`show`]s one.
static CURRENT: RwLock<Option<Arc<Steps>>> = RwLock::new(None);

/// The progress a command shows while it runs; dropping it stops the ticks and clears the
/// bar.
pub struct Shown(Arc<Steps>);

impl std::ops::Deref for Shown {
    type Target = Steps;
    fn deref(&self) -> &Steps {
        &self.0
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        ACTIVE.store(false, Ordering::Relaxed);
        *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = None;
        self.0.finish();
    }
}

/// Makes `steps` the progress that [`tick`] counts until the returned guard is dropped
/// (one command at a time: a later `show` replaces an earlier one).
pub fn show(steps: Steps) -> Shown {
    let steps = Arc::new(steps);
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = Some(steps.clone());
    ACTIVE.store(true, Ordering::Relaxed);
    Shown(steps)
}

/// The steps of the progress a command [`show`]s begin now: its elapsed time and rate are
/// counted from here, not from the setup before (a trial's generation before its
/// simulated hours).
pub fn begin() {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    if let Some(s) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        *s.start.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }
}

/// Takes back `n` steps [`tick`]ed by an attempt that goes again from its start (a replay
/// whose storage proved too small).
pub fn untick(n: u64) {
    if n == 0 || !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    if let Some(s) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        let _ = s
            .done
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                Some(d.saturating_sub(n))
            });
        if let Some(b) = &s.bar {
            b.set_position(s.done());
        }
    }
}

/// `n` more steps of the progress a command [`show`]s; nothing when none does.
pub fn tick(n: u64) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    if let Some(s) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        s.add(n);
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
