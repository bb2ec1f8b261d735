//! Utilisation and queue length over a replay's time, as SVG: a step function of the
//! processors in use (and of the jobs waiting) averaged over at most [`BUCKETS`] equal spans
//! of time, so a log of a million jobs draws as few points as one of a thousand. Numbers are
//! written with fixed decimals: the same schedule gives the same bytes.

use std::fmt::Write as _;

use crate::trace::JobRecord;

/// Spans of time a plot averages over (points of its line).
pub const BUCKETS: usize = 600;

const W: f64 = 760.0;
const H: f64 = 320.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 44.0;
const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";

/// The time-weighted mean of a step function over each of `n` equal spans of `[t0, t1)`;
/// `events` are `(time, change)`, in any order.
pub fn step_means(mut events: Vec<(u64, i64)>, t0: u64, t1: u64, n: usize) -> Vec<f64> {
    let n = n.max(1);
    if t1 <= t0 {
        return vec![0.0; n];
    }
    events.sort_unstable();
    let span = (t1 - t0) as f64;
    let width = span / n as f64;
    let mut area = vec![0.0f64; n];
    let (mut level, mut at) = (0i64, t0);
    let mut add = |from: u64, to: u64, level: i64| {
        if to <= from || level == 0 {
            return;
        }
        let (a, b) = ((from - t0) as f64, (to - t0) as f64);
        let (first, last) = ((a / width) as usize, (((b / width) as usize).min(n - 1)));
        for (k, slot) in area.iter_mut().enumerate().take(last + 1).skip(first) {
            let (lo, hi) = (k as f64 * width, (k + 1) as f64 * width);
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                *slot += overlap * level as f64;
            }
        }
    };
    for (t, d) in events {
        let t = t.clamp(t0, t1);
        add(at, t, level);
        at = t;
        level += d;
    }
    add(at, t1, level);
    area.iter().map(|a| a / width).collect()
}

/// The span of a schedule: first submit to last end.
fn span(jobs: &[JobRecord]) -> (u64, u64) {
    let t0 = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let t1 = jobs.iter().map(|j| j.end).max().unwrap_or(t0);
    (t0, t1.max(t0 + 1))
}

/// What a plot says besides its line: a title (the log's name and the policy), a subtitle,
/// and the measured window, whose outside (the warm-up, the cool-down) is shaded.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// The title.
    pub title: String,
    /// The line under it (what the line is a mean of is added).
    pub subtitle: String,
    /// Submit times (microseconds of the log) of the jobs the metrics measure, `[from, to]`.
    pub measured: Option<(u64, u64)>,
}

impl Labels {
    /// Just a title.
    pub fn titled(title: &str) -> Labels {
        Labels {
            title: title.to_string(),
            ..Labels::default()
        }
    }
}

/// Utilisation over time: processors in use over `procs`, in percent.
pub fn utilisation_svg(jobs: &[JobRecord], procs: u32, labels: &Labels) -> String {
    let (t0, t1) = span(jobs);
    let mut ev = Vec::with_capacity(2 * jobs.len());
    for j in jobs {
        ev.push((j.start, i64::from(j.procs)));
        ev.push((j.end, -i64::from(j.procs)));
    }
    let pct: Vec<f64> = step_means(ev, t0, t1, BUCKETS)
        .into_iter()
        .map(|x| 100.0 * x / f64::from(procs.max(1)))
        .collect();
    line_plot(labels, "processors in use (%)", &pct, 100.0, t0, t1)
}

/// Queue length over time: jobs submitted and not yet started.
pub fn queue_svg(jobs: &[JobRecord], labels: &Labels) -> String {
    let (t0, t1) = span(jobs);
    let mut ev = Vec::with_capacity(2 * jobs.len());
    for j in jobs {
        ev.push((j.submit, 1));
        ev.push((j.start, -1));
    }
    let q = step_means(ev, t0, t1, BUCKETS);
    let top = nice_ceiling(q.iter().copied().fold(0.0, f64::max));
    line_plot(labels, "jobs waiting (mean)", &q, top, t0, t1)
}

/// The smallest of 1, 2, 5 x 10^k at or above `x` (at least 1).
fn nice_ceiling(x: f64) -> f64 {
    let mut m = 1.0;
    loop {
        for f in [1.0, 2.0, 5.0] {
            if f * m >= x {
                return f * m;
            }
        }
        m *= 10.0;
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A span of time as text: `3 h`, `42 min`, `15 s`, whichever unit gives a whole number or
/// one decimal.
fn duration_text(us: f64) -> String {
    let s = us / 1e6;
    if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else if s >= 3_600.0 {
        format!("{:.1} h", s / 3_600.0)
    } else if s >= 60.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{s:.1} s")
    }
}

/// One line over `[t0, t1)` (microseconds), y from 0 to `top`.
fn line_plot(labels: &Labels, ylabel: &str, values: &[f64], top: f64, t0: u64, t1: u64) -> String {
    let title = labels.title.as_str();
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         viewBox=\"0 0 {W} {H}\">"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" {FONT}>{}</text>",
        W / 2.0,
        esc(title)
    );
    let mean_of = format!(
        "each point a mean over {}",
        duration_text((t1 - t0) as f64 / values.len().max(1) as f64),
    );
    let subtitle = if labels.subtitle.is_empty() {
        mean_of
    } else {
        format!("{}; {mean_of}", labels.subtitle)
    };
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"40\" text-anchor=\"middle\" font-size=\"{:.1}\" \
         fill=\"#444\" {FONT}>{}</text>",
        W / 2.0,
        // ~0.6 em a character: shrink a long subtitle to the width.
        11.0_f64.min((W - 20.0) / (0.6 * subtitle.chars().count().max(1) as f64)),
        esc(&subtitle)
    );
    // The time outside the measured window, shaded and named.
    if let Some((from, to)) = labels.measured {
        let px = |t: u64| LEFT + pw * (t.clamp(t0, t1) - t0) as f64 / (t1 - t0).max(1) as f64;
        for (a, b, name) in [(t0, from, "warm-up"), (to, t1, "cool-down")] {
            let (xa, xb) = (px(a), px(b));
            if xb - xa < 0.5 {
                continue;
            }
            let _ = writeln!(
                s,
                "<rect x=\"{xa:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{ph:.1}\" \
                 fill=\"#d9d9d9\" fill-opacity=\"0.6\"/>",
                xb - xa
            );
            if xb - xa > 60.0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" \
                     fill=\"#555\" {FONT}>{name}</text>",
                    (xa + xb) / 2.0,
                    TOP + 12.0
                );
            }
        }
    }
    // Y axis: 5 ticks.
    for k in 0..=5 {
        let v = top * k as f64 / 5.0;
        let y = TOP + ph - ph * k as f64 / 5.0;
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e0e0e0\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\" {FONT}>{}</text>",
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0,
            if top >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        );
    }
    // X axis: days when the span is over two days, else hours.
    let span_s = (t1 - t0) as f64 / 1e6;
    let (unit, name) = if span_s > 2.0 * 86_400.0 {
        (86_400.0, "days")
    } else {
        (3_600.0, "hours")
    };
    let total = span_s / unit;
    let step = nice_ceiling(total / 6.0);
    let mut k = 0.0;
    while k <= total + 1e-9 {
        let x = LEFT + pw * k / total.max(1e-9);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\" {FONT}>{k}</text>",
            TOP + ph,
            TOP + ph + 4.0,
            TOP + ph + 16.0
        );
        k += step;
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\" {FONT}>{name} \
         since the first submission</text>",
        LEFT + pw / 2.0,
        H - 8.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(14,{:.1}) rotate(-90)\" text-anchor=\"middle\" \
         font-size=\"12\" {FONT}>{}</text>",
        TOP + ph / 2.0,
        esc(ylabel)
    );
    let mut pts = String::new();
    let n = values.len().max(1) as f64;
    for (i, v) in values.iter().enumerate() {
        let x = LEFT + pw * (i as f64 + 0.5) / n;
        let y = TOP + ph - ph * (v / top.max(1e-12)).clamp(0.0, 1.0);
        let _ = write!(pts, "{x:.1},{y:.1} ");
    }
    let _ = writeln!(
        s,
        "<polyline fill=\"none\" stroke=\"#3b6ea5\" stroke-width=\"1.2\" points=\"{}\"/>",
        pts.trim_end()
    );
    let _ = writeln!(
        s,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw:.1}\" height=\"{ph:.1}\" fill=\"none\" \
         stroke=\"#333\"/>"
    );
    s.push_str("</svg>\n");
    s
}
