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

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// The least time between two progress lines (not on a terminal).
pub const LINE_EVERY: Duration = Duration::from_secs(2);

/// The least time of a session whose pace gives an estimate: a line at the first tick of
/// a run (one job of 200,000 done in a millisecond) gives none rather than a wild one.
pub const MIN_PACE: Duration = Duration::from_millis(500);

/// How far back the pace of a line's estimate is taken ([`Steps::line_at`]).
pub const RECENT: Duration = Duration::from_secs(30);

/// How long a command whose steps are ticked deep in the library ([`show`]) runs before its
/// first progress line: a short run prints none. `KAIROS_PROGRESS_QUIET_MS` overrides it
/// (tests set 0 to see the lines of a short run).
pub const QUIET: Duration = Duration::from_secs(2);

/// When the command started ([`command_started`]; else the first progress shown): the quiet
/// start of a command's progresses ([`Steps::quiet_for`]) is counted from it, so a command
/// that shows one progress after another (reading a file, then replaying it) is quiet once.
static COMMAND_START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Marks the command's start (the binary calls it first thing).
pub fn command_started() {
    COMMAND_START.get_or_init(Instant::now);
}

/// The bars drawn on the terminal, one above the other: a command may show two at once (an
/// experiment's trials, and the simulated hours of its runs), which would overwrite each
/// other drawn alone.
fn bars() -> &'static MultiProgress {
    static BARS: std::sync::OnceLock<MultiProgress> = std::sync::OnceLock::new();
    BARS.get_or_init(MultiProgress::new)
}

/// How many bars are drawn ([`line_between_bars`] has nothing to suspend when none is).
static DRAWN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Runs `write` (a line on stderr) with the bars drawn cleared first and drawn again after,
/// so a diagnostic never lands inside a bar.
pub fn line_between_bars(write: impl FnOnce()) {
    if DRAWN.load(Ordering::Relaxed) == 0 {
        write();
    } else {
        bars().suspend(write);
    }
}

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
    /// Steps in all ([`expect`] may set it once the work is known).
    total: AtomicU64,
    before: u64,
    done: AtomicU64,
    /// When this session's steps began ([`begin`] may move it past a command's setup).
    start: Mutex<Instant>,
    bar: Option<ProgressBar>,
    /// When the last line was printed (None: never).
    last_line: Mutex<Option<Instant>>,
    /// (when, steps done) at the lines printed within [`RECENT`], the pace of the estimate.
    recent: Mutex<std::collections::VecDeque<(Instant, u64)>>,
    /// Nothing shown before this instant ([`Steps::quiet_for`]).
    quiet_until: Instant,
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
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            b.set_position(before);
            b.reset_eta();
            b.set_style(
                ProgressStyle::with_template(&format!(
                    "[{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit}, eta {{eta}}"
                ))
                .expect("a valid template"),
            );
            b.enable_steady_tick(Duration::from_millis(500));
            DRAWN.fetch_add(1, Ordering::Relaxed);
            bars().add(b)
        });
        Steps {
            label: label.to_string(),
            unit,
            total: AtomicU64::new(total),
            before,
            done: AtomicU64::new(before),
            start: Mutex::new(Instant::now()),
            bar,
            last_line: Mutex::new(None),
            recent: Mutex::new(std::collections::VecDeque::new()),
            quiet_until: Instant::now(),
            shown: AtomicBool::new(true),
        }
    }

    /// Shows nothing until `quiet` has passed since the command started: a run shorter
    /// than that prints no line (and no last line), so short commands stay as quiet as
    /// before while a long one speaks up within `quiet` plus [`LINE_EVERY`].
    pub fn quiet_for(mut self, quiet: Duration) -> Steps {
        let quiet = std::env::var("KAIROS_PROGRESS_QUIET_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(quiet, Duration::from_millis);
        self.quiet_until = *COMMAND_START.get_or_init(Instant::now) + quiet;
        if let Some(b) = &self.bar {
            if Instant::now() < self.quiet_until && self.shown.swap(false, Ordering::Relaxed) {
                bars().remove(b);
                DRAWN.fetch_sub(1, Ordering::Relaxed);
            }
        }
        self
    }

    /// `n` more steps are done.
    pub fn add(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let now = Instant::now();
        let start = *self.start.lock().unwrap_or_else(|e| e.into_inner());
        let quiet = now < self.quiet_until;
        if let Some(b) = &self.bar {
            b.inc(n);
            if !quiet && !b.is_finished() && !self.shown.swap(true, Ordering::Relaxed) {
                DRAWN.fetch_add(1, Ordering::Relaxed);
                bars().add(b.clone());
            }
            return;
        }
        if quiet {
            return;
        }
        let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|t| now.duration_since(t) >= LINE_EVERY);
        if due || done >= self.total() {
            *last = Some(now);
            let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
            while recent.len() > 1 && recent[1].0 + RECENT <= now {
                recent.pop_front();
            }
            let pace = recent
                .front()
                .map(|(t, d)| (done.saturating_sub(*d), now.duration_since(*t)));
            recent.push_back((now, done));
            crate::diag!("{}", self.line_at(done, now.duration_since(start), pace));
        }
    }

    /// The progress line after `done` steps and `elapsed` of this session, the estimate at
    /// this session's pace.
    pub fn line(&self, done: u64, elapsed: Duration) -> String {
        self.line_at(done, elapsed, None)
    }

    /// [`Steps::line`], the estimate at the pace of `recent` (steps done in a time up to
    /// [`RECENT`] before) where that time is at least [`LINE_EVERY`] and some steps were done
    /// in it: work whose steps grow slower (a simulated day whose queues fill up) is not
    /// estimated at the pace of its fast start.
    pub fn line_at(&self, done: u64, elapsed: Duration, recent: Option<(u64, Duration)>) -> String {
        let here = done.saturating_sub(self.before);
        let total = self.total();
        let left = total.saturating_sub(done) as f64;
        let eta = match recent {
            Some((steps, time)) if steps > 0 && time >= LINE_EVERY => {
                format!(", eta {}", duration_text(time.mul_f64(left / steps as f64)))
            }
            _ if here > 0 && elapsed >= MIN_PACE => format!(
                ", eta {}",
                duration_text(elapsed.mul_f64(left / here as f64))
            ),
            _ => String::new(),
        };
        format!(
            "{}: {done}/{} {} ({}%), {} elapsed{eta}",
            self.label,
            total,
            self.unit,
            (done * 100).checked_div(total).unwrap_or(100),
            duration_text(elapsed)
        )
    }

    /// Steps in all.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Steps done so far, those saved before included.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Clears the bar (a no-op for lines).
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
            if self.shown.swap(false, Ordering::Relaxed) {
                bars().remove(b);
                DRAWN.fetch_sub(1, Ordering::Relaxed);
            }
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

/// The progress a command [`show`]s has `total` steps in all: for work counted only once
/// it begins (a Batsim workload's jobs, known once its JSON is parsed). Nothing when no
/// command shows one.
pub fn expect(total: u64) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    if let Some(s) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        s.total.store(total, Ordering::Relaxed);
        if let Some(b) = &s.bar {
            b.set_length(total);
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

/// Microseconds in a simulated hour.
const US_PER_HOUR: u64 = 3_600_000_000;

/// The simulated hours a run told through [`SimHours`] counts when its clock ends at
/// `end_us` microseconds: every hour it enters, the last one begun included.
pub fn hours_of(end_us: u64) -> u64 {
    end_us.div_ceil(US_PER_HOUR)
}

/// A simulated run's clock told to the shown progress ([`tick`]) in whole hours as it
/// passes them, [`hours_of`] its end in all: so the long run of a single trial speaks
/// within seconds. Nothing when no command shows a progress.
pub struct SimHours {
    told: u64,
    all: u64,
}

impl SimHours {
    /// The clock of a run that ends at `end_us`.
    pub fn new(end_us: u64) -> SimHours {
        SimHours {
            told: 0,
            all: hours_of(end_us),
        }
    }

    /// The run's clock is at `t_us`.
    pub fn at(&mut self, t_us: u64) {
        let h = (t_us / US_PER_HOUR).min(self.all);
        if h > self.told {
            tick(h - self.told);
            self.told = h;
        }
    }

    /// The run is over: its hours not told yet are.
    pub fn end(self) {
        tick(self.all - self.told);
    }
}

/// A reader that tells the shown progress ([`tick`]) the bytes read through it, in KiB
/// (the unit of [`kib_of`]): a streamed log's replay, whose job count is known only at its
/// end, counted by the file read. Nothing when no command shows a progress.
pub struct Reading<R> {
    inner: R,
    /// Bytes read and not yet told (under a KiB).
    untold: u64,
}

impl<R> Reading<R> {
    /// Counts what is read from `inner`.
    pub fn new(inner: R) -> Reading<R> {
        Reading { inner, untold: 0 }
    }
}

impl<R: std::io::Read> std::io::Read for Reading<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.untold += n as u64;
        if self.untold >= 1024 {
            tick(self.untold / 1024);
            self.untold %= 1024;
        }
        Ok(n)
    }
}

/// The KiB a [`Reading`] of a file of `bytes` tells in all (its last part KiB uncounted).
pub fn kib_of(bytes: u64) -> u64 {
    bytes / 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test at a time shows a progress (it is the process's).
    static SHOWN: Mutex<()> = Mutex::new(());

    #[test]
    fn a_line_counts_the_saved_steps_but_rates_this_sessions() {
        let p = Steps::with_bar("x", "trials", 10, 4, false);
        // 2 steps this session in 10 s: 4 left take 20 s.
        let l = p.line(6, Duration::from_secs(10));
        assert_eq!(l, "x: 6/10 trials (60%), 10.0s elapsed, eta 20.0s");
        // Nothing run yet, or for too short a time: no estimate.
        assert_eq!(
            p.line(4, Duration::from_secs(1)),
            "x: 4/10 trials (40%), 1.0s elapsed"
        );
        assert_eq!(
            p.line(5, Duration::from_millis(10)),
            "x: 5/10 trials (50%), 0.0s elapsed"
        );
        // At the recent pace, 1 step in the last 4 s: 4 left take 16 s.
        assert_eq!(
            p.line_at(
                6,
                Duration::from_secs(10),
                Some((1, Duration::from_secs(4)))
            ),
            "x: 6/10 trials (60%), 10.0s elapsed, eta 16.0s"
        );
        // A recent time too short, or no step in it: the session's pace.
        for recent in [(1, Duration::from_secs(1)), (0, Duration::from_secs(4))] {
            assert_eq!(
                p.line_at(6, Duration::from_secs(10), Some(recent)),
                "x: 6/10 trials (60%), 10.0s elapsed, eta 20.0s"
            );
        }
    }

    #[test]
    fn a_reading_tells_each_whole_kib_once() {
        use std::io::Read;
        let _one = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
        let data = vec![7u8; 5000];
        let shown = show(Steps::with_bar("x", "KiB read", kib_of(5000), 0, false));
        let mut r = Reading::new(&data[..]);
        let mut buf = [0u8; 700];
        let mut all = Vec::new();
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        assert_eq!(all, data, "the bytes pass unchanged");
        assert_eq!(shown.done(), 4);
    }

    #[test]
    fn a_runs_hours_are_told_once_each_as_its_clock_passes_them() {
        let _one = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
        assert_eq!(hours_of(0), 0);
        assert_eq!(hours_of(US_PER_HOUR), 1);
        assert_eq!(hours_of(US_PER_HOUR + 1), 2);
        let shown = show(Steps::with_bar("x", "simulated hours", 5, 0, false));
        let mut c = SimHours::new(2 * US_PER_HOUR + 5);
        c.at(10);
        assert_eq!(shown.done(), 0);
        c.at(US_PER_HOUR + 1);
        assert_eq!(shown.done(), 1);
        c.at(US_PER_HOUR + 2);
        assert_eq!(shown.done(), 1);
        // A clock past its end tells no more than the run's hours.
        c.at(10 * US_PER_HOUR);
        assert_eq!(shown.done(), 3);
        c.end();
        assert_eq!(shown.done(), 3);
        let mut c = SimHours::new(2 * US_PER_HOUR);
        c.at(US_PER_HOUR / 2);
        c.end();
        assert_eq!(shown.done(), 5);
    }
}
