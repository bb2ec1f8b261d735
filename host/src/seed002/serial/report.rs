//! A serial experiment's reports, as seed 000's (`crate::report`): `trials.csv` (one row per
//! configuration and trial), `summary.csv` and `summary.json` (mean and 95% CI over trials),
//! `utility.svg` (percentage of the bound, with CIs) and `events.svg` (mapping events, timer
//! vs delayed, Fig. 2.7). Nothing written depends on wall time or thread count, so a rerun
//! writes the same bytes.

use crate::report::stats::{mean_ci, MeanCi};
use crate::report::{f6, Json};
use crate::seed002::serial::experiment::{Row, SerialExperiment};
use std::fmt::Write as _;
use std::path::Path;

/// One configuration over its trials.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Its label.
    pub label: String,
    /// Percentage of the trial's bound earned.
    pub percent: MeanCi,
    /// Utility earned in the window.
    pub utility: MeanCi,
    /// The bound.
    pub bound: MeanCi,
    /// Share of the utility earned on special-purpose machines (%).
    pub special_percent: MeanCi,
    /// Tasks completed in the window.
    pub completed: MeanCi,
    /// Tasks dropped in the window.
    pub dropped: MeanCi,
    /// Mapping events in the window.
    pub events: MeanCi,
    /// Of which delayed by the previous event.
    pub delayed: MeanCi,
    /// Modelled mean event duration, ms.
    pub event_ms: MeanCi,
    /// Share of the utility earned by each priority level (%): critical, high, medium, low.
    pub priority_percent: [MeanCi; 4],
}

/// The priority levels' names, in [`Row::by_priority`]'s order.
pub const PRIORITY_LEVELS: [&str; 4] = ["critical", "high", "medium", "low"];

fn col(rows: &[&Row], f: impl Fn(&Row) -> f64) -> MeanCi {
    mean_ci(&rows.iter().map(|r| f(r)).collect::<Vec<_>>())
}

/// The summaries, in configuration order.
pub fn summarize(exp: &SerialExperiment, rows: &[Row]) -> Vec<Summary> {
    exp.configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let rs: Vec<&Row> = rows.iter().filter(|r| r.config == i).collect();
            Summary {
                label: c.label.clone(),
                percent: col(&rs, |r| 100.0 * r.report.utility.as_f64() / r.bound),
                utility: col(&rs, |r| r.report.utility.as_f64()),
                bound: col(&rs, |r| r.bound),
                special_percent: col(&rs, |r| {
                    let u = r.report.utility.as_f64();
                    if u > 0.0 {
                        100.0 * r.report.utility_special.as_f64() / u
                    } else {
                        0.0
                    }
                }),
                completed: col(&rs, |r| r.report.completed as f64),
                dropped: col(&rs, |r| r.report.dropped as f64),
                events: col(&rs, |r| r.report.events as f64),
                delayed: col(&rs, |r| r.report.delayed_events as f64),
                event_ms: col(&rs, |r| {
                    r.report.event_time.0 as f64 / 1000.0 / r.report.events.max(1) as f64
                }),
                priority_percent: core::array::from_fn(|l| {
                    col(&rs, |r| {
                        let u = r.report.utility.as_f64();
                        if u > 0.0 {
                            100.0 * r.by_priority[l].as_f64() / u
                        } else {
                            0.0
                        }
                    })
                }),
            }
        })
        .collect()
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn ci(c: &MeanCi) -> String {
    c.ci95.map_or(String::new(), f6)
}

/// `trials.csv`.
pub fn trials_csv(exp: &SerialExperiment, rows: &[Row]) -> String {
    let mut s = String::from(
        "config,trial,utility,bound,percent,utility_special,completed,dropped,events,\
         delayed_events,evaluations,event_time_ms,digest,utility_critical,utility_high,\
         utility_medium,utility_low\n",
    );
    for r in rows {
        let p = &r.report;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{:016x},{},{},{},{}",
            field(&exp.configs[r.config].label),
            r.trial,
            f6(p.utility.as_f64()),
            f6(r.bound),
            f6(100.0 * p.utility.as_f64() / r.bound),
            f6(p.utility_special.as_f64()),
            p.completed,
            p.dropped,
            p.events,
            p.delayed_events,
            p.evaluations,
            f6(p.event_time.0 as f64 / 1000.0),
            p.digest,
            f6(r.by_priority[0].as_f64()),
            f6(r.by_priority[1].as_f64()),
            f6(r.by_priority[2].as_f64()),
            f6(r.by_priority[3].as_f64()),
        );
    }
    s
}

/// `summary.csv`.
pub fn summary_csv(sums: &[Summary]) -> String {
    let mut s = String::from(
        "config,trials,percent_mean,percent_ci95,utility_mean,utility_ci95,bound_mean,\
         bound_ci95,special_percent_mean,completed_mean,dropped_mean,events_mean,\
         events_ci95,delayed_mean,event_ms_mean,critical_percent_mean,critical_percent_ci95,\
         high_percent_mean,medium_percent_mean,low_percent_mean\n",
    );
    for x in sums {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&x.label),
            x.percent.n,
            f6(x.percent.mean),
            ci(&x.percent),
            f6(x.utility.mean),
            ci(&x.utility),
            f6(x.bound.mean),
            ci(&x.bound),
            f6(x.special_percent.mean),
            f6(x.completed.mean),
            f6(x.dropped.mean),
            f6(x.events.mean),
            ci(&x.events),
            f6(x.delayed.mean),
            f6(x.event_ms.mean),
            f6(x.priority_percent[0].mean),
            ci(&x.priority_percent[0]),
            f6(x.priority_percent[1].mean),
            f6(x.priority_percent[2].mean),
            f6(x.priority_percent[3].mean),
        );
    }
    s
}

fn mc(c: &MeanCi) -> Json {
    Json::obj([("mean", Json::Num(c.mean)), ("ci95", Json::opt(c.ci95))])
}

/// `summary.json`.
pub fn summary_json(exp: &SerialExperiment, sums: &[Summary]) -> String {
    let w = &exp.workload;
    Json::obj([
        ("name", Json::str(&exp.name)),
        ("title", Json::str(&exp.title)),
        ("system", Json::str("serial")),
        ("seed", Json::Int(w.seed as i64)),
        ("tasks_per_day", Json::Num(w.tasks_per_day)),
        ("trials", Json::Int(exp.trials as i64)),
        (
            "priorities",
            Json::Arr(w.priorities.iter().map(|&p| Json::Num(p)).collect()),
        ),
        ("classes", Json::Int(w.classes as i64)),
        (
            "configs",
            Json::Arr(
                sums.iter()
                    .zip(&exp.configs)
                    .map(|(x, c)| {
                        Json::obj([
                            ("label", Json::str(&x.label)),
                            ("heuristic", Json::str(c.cfg.heuristic.name())),
                            ("theta", Json::Num(c.cfg.theta)),
                            (
                                "trigger",
                                c.trigger.as_deref().map_or(Json::Null, Json::str),
                            ),
                            ("permute", Json::Int(c.cfg.permute as i64)),
                            ("percent_of_bound", mc(&x.percent)),
                            ("utility", mc(&x.utility)),
                            ("bound", mc(&x.bound)),
                            ("special_percent", mc(&x.special_percent)),
                            ("completed", mc(&x.completed)),
                            ("dropped", mc(&x.dropped)),
                            ("events", mc(&x.events)),
                            ("delayed_events", mc(&x.delayed)),
                            ("event_ms", mc(&x.event_ms)),
                            (
                                "priority_percent",
                                Json::Obj(
                                    PRIORITY_LEVELS
                                        .iter()
                                        .zip(&x.priority_percent)
                                        .map(|(l, p)| (l.to_string(), mc(p)))
                                        .collect(),
                                ),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
    .render()
}

/// The text table `kairos experiment` prints.
pub fn text_table(exp: &SerialExperiment, rows: &[Row]) -> String {
    let sums = summarize(exp, rows);
    let mut s = format!(
        "{:<44} {:>16} {:>12} {:>10} {:>9} {:>9}\n",
        "configuration", "% of bound", "utility", "events", "delayed", "ms/event"
    );
    for x in &sums {
        let _ = writeln!(
            s,
            "{:<44} {:>7.2} +- {:<5.2} {:>12.1} {:>10.1} {:>9.1} {:>9.3}",
            x.label,
            x.percent.mean,
            x.percent.ci95.unwrap_or(0.0),
            x.utility.mean,
            x.events.mean,
            x.delayed.mean,
            x.event_ms.mean
        );
    }
    if let Some(b) = sums.first() {
        let _ = writeln!(
            s,
            "bound: {:.1} +- {:.1} over {} trials",
            b.bound.mean,
            b.bound.ci95.unwrap_or(0.0),
            b.bound.n
        );
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A bar chart: one bar (or two stacked parts) per label, optional CI whiskers.
fn bars(title: &str, ylabel: &str, items: &[(String, f64, f64, Option<f64>)]) -> String {
    let w = 60.0 + 34.0 * items.len().max(1) as f64 + 40.0;
    let (h, top, bottom, left) = (520.0, 50.0, 260.0, 60.0);
    let plot_h = h - top - bottom;
    let max = items
        .iter()
        .map(|i| i.1 + i.2 + i.3.unwrap_or(0.0))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let step = {
        let raw = max / 5.0;
        let p = libm::pow(10.0, libm::floor(libm::log10(raw)));
        [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * p)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * p)
    };
    let ymax = libm::ceil(max / step) * step;
    let y = |v: f64| top + plot_h * (1.0 - v / ymax);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"22\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        w / 2.0,
        esc(title)
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(16,{:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        top + plot_h / 2.0,
        esc(ylabel)
    );
    let mut v = 0.0;
    while v <= ymax + step / 2.0 {
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            w - 20.0,
            y(v),
            y(v),
            left - 4.0,
            y(v) + 4.0,
            f6(v).trim_end_matches('0').trim_end_matches('.')
        );
        v += step;
    }
    for (i, (label, a, b, whisker)) in items.iter().enumerate() {
        let x = left + 10.0 + 34.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"24\" height=\"{:.1}\" fill=\"#4477aa\"/>",
            y(*a),
            y(0.0) - y(*a)
        );
        if *b > 0.0 {
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"24\" height=\"{:.1}\" fill=\"#ee6677\"/>",
                y(a + b),
                y(*a) - y(a + b)
            );
        }
        if let Some(c) = whisker {
            let (t, cx) = (a + b, x + 12.0);
            let _ = writeln!(
                s,
                "<line x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>",
                y(t + c),
                y((t - c).max(0.0))
            );
        }
        let _ = writeln!(
            s,
            "<text transform=\"translate({:.1},{:.1}) rotate(-60)\" text-anchor=\"end\">{}</text>",
            x + 16.0,
            y(0.0) + 10.0,
            esc(label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// `utility.svg`: percentage of the bound per configuration, with 95% CIs.
pub fn utility_svg(exp: &SerialExperiment, sums: &[Summary]) -> String {
    let items: Vec<_> = sums
        .iter()
        .map(|x| (x.label.clone(), x.percent.mean, 0.0, x.percent.ci95))
        .collect();
    bars(&exp.title, "% of maximum utility bound", &items)
}

/// `events.svg`: mapping events per configuration, by the timer (blue) and delayed (red).
pub fn events_svg(exp: &SerialExperiment, sums: &[Summary]) -> String {
    let items: Vec<_> = sums
        .iter()
        .map(|x| {
            (
                x.label.clone(),
                x.events.mean - x.delayed.mean,
                x.delayed.mean,
                None,
            )
        })
        .collect();
    bars(
        &format!(
            "{}: mapping events (blue: on time, red: delayed)",
            exp.title
        ),
        "mapping events in the day",
        &items,
    )
}

/// Writes every report into `dir`.
pub fn write_all(dir: &Path, exp: &SerialExperiment, rows: &[Row]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let sums = summarize(exp, rows);
    let files = [
        ("trials.csv", trials_csv(exp, rows)),
        ("summary.csv", summary_csv(&sums)),
        ("utility.svg", utility_svg(exp, &sums)),
        ("events.svg", events_svg(exp, &sums)),
        // Last: its presence marks the folder as holding a whole run's reports.
        ("summary.json", summary_json(exp, &sums)),
    ];
    for (name, text) in files {
        crate::output::write_atomic(&dir.join(name), text)?;
    }
    Ok(())
}
