//! The plots of an experiment, as plain SVG text in the form of seed 000's figures.
//!
//! - `utility.svg` (Figs. 9a, 10a): one bar per configuration, the mean percentage of the
//!   maximum utility, with its 95% confidence interval.
//! - `energy.svg` (Figs. 9b, 10b): the mean energy consumed in the day, with its 95% CI and a
//!   dashed line at the energy budget.
//! - `leniency.svg` (Figs. 7, 8): the mean percentage of the maximum utility against the
//!   filter's leniency, one line per sweep, with 95% CIs; `leniency-energy.svg` the energy.
//!
//! Bars are coloured by energy filter (grey for the comparison heuristics, gold for exec
//! controllers: a user's policy), lighter for permanent reservations; labels are rotated 45 degrees. Numbers are written with fixed
//! decimals, so the same summaries give the same bytes.

use super::ConfigSummary;
use crate::experiment::Experiment;
use kairos_core::energy::FilterKind;
use kairos_core::Reservations;
use std::fmt::Write as _;

const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";
const GREY: &str = "#8c8c8c";
const BUDGET: &str = "#c0392b";
/// The dash of a line whose colour an earlier line of the plot has ([`ci_lines`]).
const DASH: &str = "6 3";
/// An exec controller's bars (a policy of the user's, beside the built-ins).
const EXEC: &str = "#d4a017";
const PALETTE: [&str; 6] = [
    "#1f77b4", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The colour of a filter's bars and lines.
fn filter_color(f: FilterKind) -> &'static str {
    match f {
        FilterKind::None => "#3b6ea5",
        FilterKind::PerTask => "#e08a2c",
        FilterKind::PerResource => "#4c9a4c",
        FilterKind::Adaptive => "#8e5fb0",
    }
}

fn filter_name(f: FilterKind) -> &'static str {
    match f {
        FilterKind::None => "no energy filter",
        FilterKind::PerTask => "energy-per-task filter",
        FilterKind::PerResource => "energy-per-resource filter",
        FilterKind::Adaptive => "adaptive energy filter",
    }
}

/// Escapes text for SVG.
pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round step (1, 2, 2.5 or 5 x 10^k) giving about `target` intervals over `range`.
fn nice_step(range: f64, target: f64) -> f64 {
    if range.is_nan() || range <= 0.0 || !range.is_finite() {
        return 1.0;
    }
    let raw = range / target;
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Decimals that show every multiple of `step` exactly.
fn decimals(step: f64) -> usize {
    let mut d = 0;
    let mut s = step;
    while d < 6 && libm::fabs(s - libm::round(s)) > 1e-9 {
        s *= 10.0;
        d += 1;
    }
    d
}

/// An axis: [lo, hi] with ticks every `step`. Every constructor gives a usable axis whatever
/// it is given (NaN, infinities, a zero or a huge range): finite ends, `lo < hi`, a positive
/// step and at most [`MAX_TICKS`] ticks, so that no plot panics on its data.
#[derive(Clone, Copy, Debug)]
pub(super) struct Axis {
    pub(super) lo: f64,
    pub(super) hi: f64,
    step: f64,
}

/// The most ticks an axis draws (round steps give 5 to 11; the cap is for degenerate input).
const MAX_TICKS: usize = 50;

/// The largest magnitude an axis end takes: far enough inside `f64::MAX` that differences
/// and a padding stay finite.
const LIMIT: f64 = 1e300;

/// `lo` and `hi` made a finite, non-empty span: NaN as 0 (or as the other end), infinities
/// and huge values clamped to [`LIMIT`], an empty span widened around its value.
fn finite_span(lo: f64, hi: f64) -> (f64, f64) {
    let clamp = |v: f64| {
        if v.is_nan() {
            v
        } else {
            v.clamp(-LIMIT, LIMIT)
        }
    };
    let (lo, hi) = match (clamp(lo), clamp(hi)) {
        (a, b) if a.is_nan() && b.is_nan() => (0.0, 1.0),
        (a, b) if a.is_nan() => (b, b),
        (a, b) if b.is_nan() => (a, a),
        (a, b) => (a.min(b), a.max(b)),
    };
    // Wide enough that the ticks, a step apart, are distinct numbers.
    let min_width = (1e-9 * lo.abs().max(hi.abs())).max(1e-300);
    if hi - lo >= min_width {
        (lo, hi)
    } else {
        let mid = lo / 2.0 + hi / 2.0;
        let half = (0.05 * mid.abs()).max(1.0);
        (mid - half, mid + half)
    }
}

impl Axis {
    /// An axis from `lo` (kept if `from_zero`) to just above `hi`, on round ticks.
    pub(super) fn new(lo: f64, hi: f64, from_zero: bool) -> Axis {
        let (lo, hi) = finite_span(lo, hi);
        let pad = if from_zero { 0.0 } else { 0.05 * (hi - lo) };
        // From zero, the ticks span zero to `hi`: a step over the data's span alone could
        // need hundreds of ticks (fronts at 113 to 114 on an axis from 0).
        let span = if from_zero { hi - lo.min(0.0) } else { hi - lo };
        let step = nice_step(span + 2.0 * pad, 5.0);
        let lo = if from_zero {
            0.0_f64.min(libm::floor(lo / step) * step)
        } else {
            libm::floor((lo - pad) / step) * step
        };
        let top = libm::ceil((hi + if from_zero { 0.02 * hi.abs() } else { pad }) / step) * step;
        // A quotient that underflows (a subnormal `hi`) must not leave `hi` off the axis.
        let top = if top < hi { top + step } else { top };
        Axis { lo, hi: top, step }.checked()
    }

    /// Whole decades from `lo` to `hi` (base-10 logarithms), one a tick, at least one.
    fn decades(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = finite_span(lo, hi);
        let lo = libm::floor(lo);
        let hi = libm::ceil(hi).max(lo + 1.0);
        Axis { lo, hi, step: 1.0 }.checked()
    }

    /// This axis if it is usable; else one over the same span with a plain step (a span
    /// too wide or too narrow for round ticks to be distinct numbers).
    fn checked(self) -> Axis {
        let Axis { lo, hi, step } = self;
        let ok = lo.is_finite()
            && hi.is_finite()
            && (hi - lo).is_finite()
            && step.is_finite()
            && step > 0.0
            && lo < hi
            && (hi - lo) / step <= MAX_TICKS as f64
            && lo + step > lo
            && hi - step < hi;
        if ok {
            return self;
        }
        let (lo, hi) = finite_span(lo, hi);
        let (lo, hi) = if (hi - lo).is_finite() {
            (lo, hi)
        } else {
            (-LIMIT, LIMIT)
        };
        Axis {
            lo,
            hi,
            step: (hi - lo) / 4.0,
        }
    }

    fn ticks(&self) -> Vec<f64> {
        let n = libm::round((self.hi - self.lo) / self.step);
        // `checked` bounds n; this bound keeps a hand-made axis from allocating without end.
        let n = if n.is_finite() && n >= 0.0 {
            (n as usize).min(MAX_TICKS)
        } else {
            0
        };
        (0..=n).map(|i| self.lo + i as f64 * self.step).collect()
    }
}

/// A plot area in pixels and the value axes mapped onto it.
pub(super) struct Frame {
    pub(super) left: f64,
    pub(super) top: f64,
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) y: Axis,
}

impl Frame {
    pub(super) fn py(&self, v: f64) -> f64 {
        self.top + self.height * (1.0 - (v - self.y.lo) / (self.y.hi - self.y.lo))
    }
}

/// The opening of an SVG document with a white background, a title and a subtitle.
pub(super) fn open(svg: &mut String, width: f64, height: f64, title: &str, subtitle: &str) {
    // Bold 17 px text: ~10 px a character; shrink a long title to fit.
    let size = 17.0_f64.min((width - 20.0) / (0.6 * title.chars().count().max(1) as f64));
    // The subtitle too (12 px, ~0.55 em a character), so neither is cut at the edges.
    let sub_size = 12.0_f64.min((width - 20.0) / (0.55 * subtitle.chars().count().max(1) as f64));
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" {FONT}>"
    );
    let _ = writeln!(
        svg,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{:.1}\" y=\"24\" font-size=\"{size:.1}\" font-weight=\"bold\" \
         text-anchor=\"middle\">{}</text>\n\
         <text x=\"{:.1}\" y=\"44\" font-size=\"{sub_size:.1}\" fill=\"#444\" \
         text-anchor=\"middle\">{}</text>",
        width / 2.0,
        esc(title),
        width / 2.0,
        esc(subtitle)
    );
}

/// The y axis: grid lines, ticks, tick labels, the rotated axis label.
pub(super) fn y_axis(svg: &mut String, f: &Frame, label: &str) {
    let d = decimals(f.y.step);
    for t in f.y.ticks() {
        let y = f.py(t);
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e3e3e3\"/>\n\
             <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"black\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{t:.d$}</text>",
            f.left,
            f.left + f.width,
            f.left - 5.0,
            f.left,
            f.left - 8.0,
            y + 4.0,
        );
    }
    let (x, y) = (f.left - 52.0, f.top + f.height / 2.0);
    let _ = writeln!(
        svg,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"13\" text-anchor=\"middle\" \
         transform=\"rotate(-90 {x:.1} {y:.1})\">{}</text>",
        esc(label)
    );
}

/// A linear x axis under the frame: a grid line, a tick and its value at every tick of `x`,
/// and the axis label centred below.
fn x_axis(svg: &mut String, f: &Frame, x: &Axis, label: &str) {
    let dx = decimals(x.step);
    let (top, bottom) = (f.top, f.top + f.height);
    for t in x.ticks() {
        let xx = f.left + f.width * (t - x.lo) / (x.hi - x.lo);
        let _ = writeln!(
            svg,
            "<line x1=\"{xx:.1}\" y1=\"{top:.1}\" x2=\"{xx:.1}\" y2=\"{bottom:.1}\" \
             stroke=\"#e3e3e3\"/>\n\
             <line x1=\"{xx:.1}\" y1=\"{bottom:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" \
             stroke=\"black\"/>\n\
             <text x=\"{xx:.1}\" y=\"{:.1}\" font-size=\"11\" \
             text-anchor=\"middle\">{t:.dx$}</text>",
            bottom + 5.0,
            bottom + 18.0,
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
        f.left + f.width / 2.0,
        bottom + 40.0,
        esc(label)
    );
}

/// The frame's box (drawn last, over the grid).
pub(super) fn frame_box(svg: &mut String, f: &Frame) {
    let _ = writeln!(
        svg,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" \
         stroke=\"black\"/>",
        f.left, f.top, f.width, f.height
    );
}

/// A vertical error bar from `lo` to `hi` (values) at pixel `x`.
pub(super) fn error_bar(svg: &mut String, f: &Frame, x: f64, lo: f64, hi: f64, color: &str) {
    let (y0, y1) = (f.py(lo), f.py(hi));
    let _ = writeln!(
        svg,
        "<path d=\"M{:.1} {y0:.1}H{:.1}M{x:.1} {y0:.1}V{y1:.1}M{:.1} {y1:.1}H{:.1}\" \
         stroke=\"{color}\" stroke-width=\"1.2\" fill=\"none\"/>",
        x - 5.0,
        x + 5.0,
        x - 5.0,
        x + 5.0
    );
}

/// What a legend row shows before its text.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Key {
    /// A filled box of this colour and opacity (bars).
    Swatch(&'static str, f64),
    /// A line with a marker (a sweep).
    Line(&'static str),
    /// The dashed budget line.
    Dashed,
    /// A dashed line with a marker (a line past the palette's colours, [`ci_lines`]).
    DashedLine(&'static str),
}

/// A legend: one row per (key, text), from (x, y) down.
pub(super) fn legend(svg: &mut String, x: f64, y: f64, rows: &[(Key, String)]) {
    for (i, (key, text)) in rows.iter().enumerate() {
        let ry = y + 20.0 * i as f64;
        let _ = match key {
            Key::Swatch(color, opacity) => writeln!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{ry:.1}\" width=\"22\" height=\"12\" fill=\"{color}\" \
                 fill-opacity=\"{opacity:.2}\" stroke=\"#333\" stroke-width=\"0.5\"/>"
            ),
            Key::Line(color) => writeln!(
                svg,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{color}\" \
                 stroke-width=\"2\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" \
                 fill=\"{color}\"/>",
                ry + 6.0,
                x + 22.0,
                ry + 6.0,
                x + 11.0,
                ry + 6.0
            ),
            Key::Dashed => writeln!(
                svg,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{BUDGET}\" \
                 stroke-width=\"1.5\" stroke-dasharray=\"7 4\"/>",
                ry + 6.0,
                x + 22.0,
                ry + 6.0
            ),
            Key::DashedLine(color) => writeln!(
                svg,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{color}\" \
                 stroke-width=\"2\" stroke-dasharray=\"{DASH}\"/><circle cx=\"{:.1}\" \
                 cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\"/>",
                ry + 6.0,
                x + 22.0,
                ry + 6.0,
                x + 11.0,
                ry + 6.0
            ),
        };
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
            x + 28.0,
            ry + 10.0,
            esc(text)
        );
    }
}

/// The width a legend needs: its key, and ~6.3 px a character of 11 px text.
pub(super) fn legend_width(rows: &[(Key, String)]) -> f64 {
    let chars = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    40.0 + 6.3 * chars as f64
}

/// A horizontal dashed line at `v` (the budget; the legend names it).
fn ref_line(svg: &mut String, f: &Frame, v: f64) {
    let y = f.py(v);
    let _ = writeln!(
        svg,
        "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{BUDGET}\" \
         stroke-width=\"1.5\" stroke-dasharray=\"7 4\"/>",
        f.left,
        f.left + f.width,
    );
}

/// The plots' subtitle: the source, the trial count and what the marks are (`marks`:
/// "bars" or "points", the means).
fn subtitle(exp: &Experiment, summaries: &[ConfigSummary], marks: &str) -> String {
    let n = summaries
        .iter()
        .map(|s| s.utility_percent.n)
        .max()
        .unwrap_or(0);
    // With 2 trials Student's t has one degree of freedom (t = 12.7): the interval spans
    // far past what the metric can take, and says little.
    let source = match &exp.trace {
        Some(t) => format!(
            "log {}",
            std::path::Path::new(&t.key)
                .file_name()
                .map_or(t.key.clone(), |n| n.to_string_lossy().into_owned())
        ),
        None => format!("scenario {}", exp.scenario.name),
    };
    if n <= 1 {
        return format!("{source}, {n} trial: its values (no interval: it needs 2 trials or more)");
    }
    format!(
        "{source}, {n} trials: {marks} the mean, error bars its 95% confidence interval (Student t){}",
        if n == 2 {
            "; 2 trials: the intervals say little"
        } else {
            ""
        }
    )
}

/// One bar's data.
struct Bar<'a> {
    label: &'a str,
    mean: f64,
    ci: Option<f64>,
    color: &'static str,
    opacity: f64,
}

/// The ends of a bar's error bar, clipped to what the metric can take (`range`, widened to
/// the mean itself: a utility share can pass 100% by the warm-up's arrivals).
fn clipped_interval(b: &Bar<'_>, range: (f64, f64)) -> Option<(f64, f64)> {
    b.ci.map(|ci| {
        (
            (b.mean - ci).max(range.0.min(b.mean)),
            (b.mean + ci).min(range.1.max(b.mean)),
        )
    })
}

/// A bar chart with CI bars (clipped to `range`), rotated labels, a legend and an optional
/// reference line.
#[allow(clippy::too_many_arguments)]
fn bar_chart(
    title: &str,
    subtitle: &str,
    y_label: &str,
    value_decimals: usize,
    bars: &[Bar<'_>],
    mut legend_rows: Vec<(Key, String)>,
    reference: Option<f64>,
    range: (f64, f64),
) -> String {
    let slot = 36.0;
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0) as f64;
    // A 45-degree label of c characters at 11 px reaches ~4.6 c px down and left.
    let reach = 4.6 * longest + 10.0;
    let left = 80.0_f64.max(reach - slot / 2.0 + 10.0);
    let width_plot = (slot * bars.len() as f64).max(360.0);
    let legend_w = legend_width(&legend_rows);
    let top = 64.0;
    let height_plot = 380.0;
    let width = left + width_plot + 20.0 + legend_w;
    let height = top + height_plot + reach + 20.0;
    let ends = |b: &Bar<'_>| clipped_interval(b, range).unwrap_or((b.mean, b.mean));
    let hi = bars
        .iter()
        .map(|b| ends(b).1)
        .chain(reference)
        .fold(0.0, f64::max);
    let lo = bars.iter().map(|b| ends(b).0).fold(0.0, f64::min);
    let f = Frame {
        left,
        top,
        width: width_plot,
        height: height_plot,
        y: Axis::new(lo, hi, true),
    };
    let mut svg = String::new();
    open(&mut svg, width, height, title, subtitle);
    y_axis(&mut svg, &f, y_label);
    // The budget line goes under the bars and their value labels, which a white halo keeps
    // readable where the line passes behind them.
    if let Some(v) = reference {
        ref_line(&mut svg, &f, v);
        legend_rows.push((Key::Dashed, format!("energy budget {v:.2} GJ")));
    }
    let x0 = left + (width_plot - slot * bars.len() as f64) / 2.0;
    for (i, b) in bars.iter().enumerate() {
        let cx = x0 + slot * (i as f64 + 0.5);
        let (ya, yb) = (f.py(b.mean.max(0.0)), f.py(b.mean.min(0.0)));
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"{ya:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" \
             fill-opacity=\"{:.2}\" stroke=\"#333\" stroke-width=\"0.5\"><title>{}: {:.prec$}</title></rect>",
            cx - slot * 0.36,
            slot * 0.72,
            yb - ya,
            b.color,
            b.opacity,
            esc(b.label),
            b.mean,
            prec = value_decimals,
        );
        let top_of_bar = match clipped_interval(b, range) {
            Some((lo, hi)) => {
                error_bar(&mut svg, &f, cx, lo, hi, "black");
                hi
            }
            None => b.mean,
        };
        // Above the bar (or its error bar); where the budget line would run through it,
        // below the line instead, inside the bar.
        let mut label_y = f.py(top_of_bar.max(0.0)) - 4.0;
        if let Some(v) = reference {
            let line_y = f.py(v);
            if (label_y - 3.5 - line_y).abs() < 9.0 {
                label_y = line_y + 12.0;
            }
        }
        let _ = writeln!(
            svg,
            "<text x=\"{cx:.1}\" y=\"{label_y:.1}\" font-size=\"9\" text-anchor=\"middle\" \
             fill=\"#333\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">{:.1$}</text>",
            b.mean,
            value_decimals
        );
        let ly = top + height_plot + 10.0;
        let _ = writeln!(
            svg,
            "<text x=\"{cx:.1}\" y=\"{ly:.1}\" font-size=\"11\" text-anchor=\"end\" \
             transform=\"rotate(-45 {cx:.1} {ly:.1})\">{}</text>",
            esc(b.label)
        );
    }
    frame_box(&mut svg, &f);
    legend(&mut svg, left + width_plot + 20.0, top + 4.0, &legend_rows);
    svg.push_str("</svg>\n");
    svg
}

/// The bars of every configuration, coloured as the module says, and their legend.
fn bars_and_legend<'a>(
    summaries: &'a [ConfigSummary],
    value: impl Fn(&ConfigSummary) -> (f64, Option<f64>),
) -> (Vec<Bar<'a>>, Vec<(Key, String)>) {
    let mut legend: Vec<(Key, String)> = Vec::new();
    let mut add = |color: &'static str, opacity: f64, text: &str| {
        legend.push((Key::Swatch(color, opacity), text.to_string()));
    };
    let bars = summaries
        .iter()
        .map(|s| {
            let k = &s.config;
            let (color, opacity) = if k.controller.is_some() {
                (EXEC, 1.0)
            } else if k.heuristic.is_utility_aware() {
                let o = match k.reservations {
                    Reservations::PlaceHolder => 1.0,
                    Reservations::Permanent => 0.45,
                };
                (filter_color(k.filter), o)
            } else {
                (GREY, 1.0)
            };
            let (mean, ci) = value(s);
            Bar {
                label: &k.label,
                mean,
                ci,
                color,
                opacity,
            }
        })
        .collect::<Vec<_>>();
    // The comparison heuristics that are there, by name (a fixed list named ones a run did
    // not have).
    let mut comparison: Vec<String> = Vec::new();
    for s in summaries
        .iter()
        .filter(|s| s.config.controller.is_none() && !s.config.heuristic.is_utility_aware())
    {
        let name = s.config.heuristic.name().to_string();
        if !comparison.contains(&name) {
            comparison.push(name);
        }
    }
    if !comparison.is_empty() {
        add(GREY, 1.0, &format!("comparison: {}", comparison.join(", ")));
    }
    if summaries.iter().any(|s| s.config.controller.is_some()) {
        add(EXEC, 1.0, "exec controller");
    }
    // Filters are named only when some configuration has one.
    let filtered = summaries
        .iter()
        .any(|s| s.config.filter != FilterKind::None);
    for f in FilterKind::ALL {
        for (r, o, what) in [
            (Reservations::PlaceHolder, 1.0, "place-holders"),
            (Reservations::Permanent, 0.45, "permanent"),
        ] {
            if summaries.iter().any(|s| {
                s.config.heuristic.is_utility_aware()
                    && s.config.filter == f
                    && s.config.reservations == r
            }) {
                if filtered {
                    add(filter_color(f), o, &format!("{what}, {}", filter_name(f)));
                } else {
                    add(filter_color(f), o, what);
                }
            }
        }
    }
    (bars, legend)
}

/// `utility.svg`: the mean percentage of the maximum utility per configuration.
pub fn utility_bars(exp: &Experiment, summaries: &[ConfigSummary]) -> String {
    let (bars, legend) = bars_and_legend(summaries, |s| {
        (s.utility_percent.mean, s.utility_percent.ci95)
    });
    // Seed 001's metric (a trace experiment) is the value its jobs earn.
    let metric = if exp.trace.is_some() {
        "value"
    } else {
        "utility"
    };
    bar_chart(
        &format!("{}: percentage of maximum {metric}", exp.title),
        &subtitle(exp, summaries, "bars"),
        &format!("% of maximum {metric}"),
        1,
        &bars,
        legend,
        None,
        (0.0, 100.0),
    )
}

/// `energy.svg`: the mean energy consumed in the day per configuration, in GJ, with the
/// budget as a dashed line.
pub fn energy_bars(exp: &Experiment, summaries: &[ConfigSummary]) -> String {
    let (bars, legend) = bars_and_legend(summaries, |s| {
        (
            s.energy_joules.mean / 1e9,
            s.energy_joules.ci95.map(|c| c / 1e9),
        )
    });
    let reference = exp.budget_joules().map(|b| b / 1e9);
    bar_chart(
        &format!("{}: energy consumed", exp.title),
        &subtitle(exp, summaries, "bars"),
        "energy consumed in the day (GJ)",
        2,
        &bars,
        legend,
        reference,
        (0.0, f64::INFINITY),
    )
}

/// `leniency.svg` (or with `energy`, `leniency-energy.svg`): the mean against the leniency,
/// one line per sweep.
pub fn leniency_lines(exp: &Experiment, summaries: &[ConfigSummary], energy: bool) -> String {
    let value = |s: &ConfigSummary| -> (f64, Option<f64>) {
        if energy {
            (
                s.energy_joules.mean / 1e9,
                s.energy_joules.ci95.map(|c| c / 1e9),
            )
        } else {
            (s.utility_percent.mean, s.utility_percent.ci95)
        }
    };
    let points: Vec<Vec<(f64, f64, Option<f64>)>> = exp
        .series
        .iter()
        .map(|sr| {
            sr.configs
                .iter()
                .map(|&i| {
                    let (m, ci) = value(&summaries[i]);
                    (summaries[i].config.leniency, m, ci)
                })
                .collect()
        })
        .collect();
    let all = points.iter().flatten();
    let x_hi = all.clone().map(|p| p.0).fold(0.0, f64::max);
    let mut y_lo = all
        .clone()
        .map(|p| p.1 - p.2.unwrap_or(0.0))
        .fold(f64::INFINITY, f64::min);
    let mut y_hi = all
        .map(|p| p.1 + p.2.unwrap_or(0.0))
        .fold(f64::NEG_INFINITY, f64::max);
    let budget = exp.budget_joules().filter(|_| energy).map(|b| b / 1e9);
    if let Some(b) = budget {
        y_lo = y_lo.min(b);
        y_hi = y_hi.max(b);
    }
    if !y_lo.is_finite() {
        (y_lo, y_hi) = (0.0, 1.0);
    }
    // From zero, with room past the largest leniency: its point and error bar stay inside
    // the frame, not on its edge.
    let x = Axis::new(0.0, x_hi.max(1e-9), true);
    let (left, top, width_plot, height_plot) = (80.0, 64.0, 560.0, 380.0);
    let legend_w = {
        let mut rows: Vec<(Key, String)> = exp
            .series
            .iter()
            .map(|sr| (Key::Dashed, sr.label.clone()))
            .collect();
        if let Some(b) = budget {
            rows.push((Key::Dashed, format!("energy budget {b:.2} GJ")));
        }
        legend_width(&rows)
    };
    let f = Frame {
        left,
        top,
        width: width_plot,
        height: height_plot,
        y: Axis::new(y_lo, y_hi, false),
    };
    let px = |v: f64| left + width_plot * (v - x.lo) / (x.hi - x.lo);
    let width = left + width_plot + 20.0 + legend_w;
    let height = top + height_plot + 60.0;
    let what = if energy { "energy" } else { "utility" };
    let mut svg = String::new();
    open(
        &mut svg,
        width,
        height,
        &format!("{}: {what} against leniency", exp.title),
        &subtitle(exp, summaries, "points"),
    );
    y_axis(
        &mut svg,
        &f,
        if energy {
            "energy consumed in the day (GJ)"
        } else {
            "% of maximum utility"
        },
    );
    x_axis(&mut svg, &f, &x, "energy leniency factor");
    if let Some(b) = budget {
        ref_line(&mut svg, &f, b);
    }
    let mut legend_rows = Vec::new();
    let mut used: Vec<FilterKind> = Vec::new();
    let k = exp.series.len() as f64;
    for (i, (sr, pts)) in exp.series.iter().zip(&points).enumerate() {
        // Shift the sweeps apart by a few pixels so that their CI bars do not overlap.
        let dodge = 5.0 * (i as f64 - (k - 1.0) / 2.0);
        let px = |v: f64| px(v) + dodge;
        let color = if used.contains(&sr.filter) {
            PALETTE[i % PALETTE.len()]
        } else {
            used.push(sr.filter);
            filter_color(sr.filter)
        };
        let mut order: Vec<&(f64, f64, Option<f64>)> = pts.iter().collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = order
            .iter()
            .enumerate()
            .map(|(j, p)| {
                format!(
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    px(p.0),
                    f.py(p.1)
                )
            })
            .collect();
        let _ = writeln!(
            svg,
            "<path d=\"{}\" stroke=\"{color}\" stroke-width=\"2\" fill=\"none\"/>",
            path.join("")
        );
        for p in order {
            if let Some(ci) = p.2 {
                error_bar(&mut svg, &f, px(p.0), p.1 - ci, p.1 + ci, color);
            }
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\"><title>{} L={}: \
                 {:.3}</title></circle>",
                px(p.0),
                f.py(p.1),
                esc(&sr.label),
                p.0,
                p.1
            );
        }
        legend_rows.push((Key::Line(color), sr.label.clone()));
    }
    if let Some(b) = budget {
        legend_rows.push((Key::Dashed, format!("energy budget {b:.2} GJ")));
    }
    frame_box(&mut svg, &f);
    legend(&mut svg, left + width_plot + 20.0, top + 4.0, &legend_rows);
    svg.push_str("</svg>\n");
    svg
}

/// One line of [`ci_lines`]: its label and its points (x, mean, half-width of the mean's
/// 95% confidence interval if there is one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CiSeries {
    /// The legend's text.
    pub label: String,
    /// The points, drawn in x order.
    pub points: Vec<(f64, f64, Option<f64>)>,
}

/// Means with their 95% confidence intervals against a swept value, a line per series, on
/// round ticks with both axes labelled (seed 002's energy plots); the intervals' bars are
/// drawn and the y axis spans them. With bars, the series are shifted a few pixels apart so
/// that they do not overlap; past the palette's colours, lines are dashed.
pub fn ci_lines(
    title: &str,
    sub: &str,
    x_label: &str,
    y_label: &str,
    series: &[CiSeries],
) -> String {
    let all = || {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite())
    };
    let ci = |p: &(f64, f64, Option<f64>)| p.2.filter(|c| c.is_finite()).unwrap_or(0.0);
    let (mut x_lo, mut x_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y_lo, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in all() {
        (x_lo, x_hi) = (x_lo.min(p.0), x_hi.max(p.0));
        (y_lo, y_hi) = (y_lo.min(p.1 - ci(p)), y_hi.max(p.1 + ci(p)));
    }
    if !x_lo.is_finite() {
        (x_lo, x_hi, y_lo, y_hi) = (0.0, 1.0, 0.0, 1.0);
    }
    let x = Axis::new(x_lo, x_hi, false);
    let (left, top, width_plot, height_plot) = (80.0, 64.0, 620.0, 400.0);
    let rows: Vec<(Key, String)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let color = PALETTE[i % PALETTE.len()];
            let key = if i < PALETTE.len() {
                Key::Line(color)
            } else {
                Key::DashedLine(color)
            };
            (key, s.label.clone())
        })
        .collect();
    let f = Frame {
        left,
        top,
        width: width_plot,
        height: height_plot,
        // From zero when nothing is negative: utility and energy are.
        y: Axis::new(y_lo, y_hi, y_lo >= 0.0),
    };
    let width = left + width_plot + 20.0 + legend_width(&rows);
    let height = top + height_plot + 60.0;
    let mut svg = String::new();
    open(&mut svg, width, height, title, sub);
    y_axis(&mut svg, &f, y_label);
    x_axis(&mut svg, &f, &x, x_label);
    let k = series.len() as f64;
    // Only error bars need keeping apart: without them a point stays at its x.
    let bars = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.2.is_some()));
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let dodge = if bars {
            4.0 * (i as f64 - (k - 1.0) / 2.0)
        } else {
            0.0
        };
        let px = |v: f64| left + width_plot * (v - x.lo) / (x.hi - x.lo) + dodge;
        let mut pts: Vec<&(f64, f64, Option<f64>)> = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = pts
            .iter()
            .enumerate()
            .map(|(j, p)| {
                format!(
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    px(p.0),
                    f.py(p.1)
                )
            })
            .collect();
        if !path.is_empty() {
            let dash = if i < PALETTE.len() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{DASH}\"")
            };
            let _ = writeln!(
                svg,
                "<path d=\"{}\" stroke=\"{color}\" stroke-width=\"2\" fill=\"none\"{dash}/>",
                path.join("")
            );
        }
        for p in pts {
            if let Some(c) = p.2.filter(|c| c.is_finite()) {
                error_bar(&mut svg, &f, px(p.0), p.1 - c, p.1 + c, color);
            }
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\"><title>{} at \
                 {}: {:.3}{}</title></circle>",
                px(p.0),
                f.py(p.1),
                esc(&s.label),
                p.0,
                p.1,
                p.2.map_or(String::new(), |c| format!(" +/- {c:.3}"))
            );
        }
    }
    frame_box(&mut svg, &f);
    legend(&mut svg, left + width_plot + 20.0, top + 4.0, &rows);
    svg.push_str("</svg>\n");
    svg
}

/// One series of [`scatter`]: its label, its points (x, y), and a line through its front.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScatterSeries {
    /// The legend's text.
    pub label: String,
    /// The points, drawn as small dots (points on the same half pixel drawn once).
    pub points: Vec<(f64, f64)>,
    /// The front, drawn as a line with larger markers, in the order given.
    pub front: Vec<(f64, f64)>,
}

/// A scatter plot of several series with their fronts (seed 004's Fig. 6 form).
pub fn scatter(
    title: &str,
    sub: &str,
    x_label: &str,
    y_label: &str,
    series: &[ScatterSeries],
) -> String {
    scatter_axes(title, sub, x_label, y_label, series, YScale::FromZero)
}

/// As [`scatter`], the y axis spanning the data only (with a margin), not from zero: Pareto
/// fronts, whose shape is in a narrow band far from zero.
pub fn scatter_zoomed(
    title: &str,
    sub: &str,
    x_label: &str,
    y_label: &str,
    series: &[ScatterSeries],
) -> String {
    scatter_axes(title, sub, x_label, y_label, series, YScale::Zoomed)
}

/// The y axis of [`scatter_axes`].
#[derive(Clone, Copy, PartialEq)]
enum YScale {
    /// Linear, from zero when nothing is negative.
    FromZero,
    /// Linear over the data.
    Zoomed,
    /// Base-10 logarithms: whole decades.
    Log,
}

/// As [`scatter`], the series' y values being base-10 logarithms: the y axis is a log axis
/// with a tick and label at each decade (1, 10, 100, ...) and light lines at 2 and 5 times
/// each.
pub fn scatter_log_y(
    title: &str,
    sub: &str,
    x_label: &str,
    y_label: &str,
    series: &[ScatterSeries],
) -> String {
    scatter_axes(title, sub, x_label, y_label, series, YScale::Log)
}

/// A decade's label: `1`, `10`, ... `100000`, then `1e6`, and `0.1`, `0.01`, then `1e-3`.
fn decade_label(k: i64) -> String {
    match k {
        0..=5 => format!("1{}", "0".repeat(k as usize)),
        -2..=-1 => format!("0.{}1", "0".repeat((-k - 1) as usize)),
        _ => format!("1e{k}"),
    }
}

/// The log y axis of [`scatter_log_y`]: `f.y` spans whole decades, one a step.
fn y_axis_log(svg: &mut String, f: &Frame, label: &str) {
    for t in f.y.ticks() {
        let y = f.py(t);
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#d0d0d0\"/>\n\
             <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"black\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            f.left,
            f.left + f.width,
            f.left - 5.0,
            f.left,
            f.left - 8.0,
            y + 4.0,
            decade_label(libm::round(t) as i64),
        );
        for m in [2.0, 5.0] {
            let v = t + libm::log10(m);
            if v < f.y.hi {
                let y = f.py(v);
                let _ = writeln!(
                    svg,
                    "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" \
                     stroke=\"#f0f0f0\"/>\n\
                     <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"black\"/>",
                    f.left,
                    f.left + f.width,
                    f.left - 3.0,
                    f.left,
                );
            }
        }
    }
    let (x, y) = (f.left - 52.0, f.top + f.height / 2.0);
    let _ = writeln!(
        svg,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"13\" text-anchor=\"middle\" \
         transform=\"rotate(-90 {x:.1} {y:.1})\">{}</text>",
        esc(label)
    );
}

/// [`scatter`] or [`scatter_log_y`].
fn scatter_axes(
    title: &str,
    sub: &str,
    x_label: &str,
    y_label: &str,
    series: &[ScatterSeries],
    scale: YScale,
) -> String {
    let log_y = scale == YScale::Log;
    let all = series.iter().flat_map(|s| s.points.iter().chain(&s.front));
    let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in all.filter(|p| p.0.is_finite() && p.1.is_finite()) {
        (x_lo, x_hi, y_lo, y_hi) = (x_lo.min(x), x_hi.max(x), y_lo.min(y), y_hi.max(y));
    }
    if !x_lo.is_finite() {
        (x_lo, x_hi, y_lo, y_hi) = (0.0, 1.0, 0.0, 1.0);
    }
    let x = Axis::new(x_lo, x_hi, false);
    let (left, top, width_plot, height_plot) = (80.0, 64.0, 620.0, 400.0);
    // The legend names only the series drawn: one with no finite point draws nothing.
    let drawn = |s: &ScatterSeries| {
        s.points
            .iter()
            .chain(&s.front)
            .any(|p| p.0.is_finite() && p.1.is_finite())
    };
    let rows: Vec<(Key, String)> = series
        .iter()
        .enumerate()
        .filter(|(_, s)| drawn(s))
        .map(|(i, s)| (Key::Line(PALETTE[i % PALETTE.len()]), s.label.clone()))
        .collect();
    let y = if log_y {
        // Whole decades, one a tick.
        Axis::decades(y_lo, y_hi)
    } else {
        // From zero when nothing is negative (expansion factors, their logarithms).
        Axis::new(y_lo, y_hi, scale == YScale::FromZero && y_lo >= 0.0)
    };
    let f = Frame {
        left,
        top,
        width: width_plot,
        height: height_plot,
        y,
    };
    let px = |v: f64| left + width_plot * (v - x.lo) / (x.hi - x.lo);
    let width = left + width_plot + 20.0 + legend_width(&rows);
    let height = top + height_plot + 60.0;
    let mut svg = String::new();
    open(&mut svg, width, height, title, sub);
    if log_y {
        y_axis_log(&mut svg, &f, y_label);
    } else {
        y_axis(&mut svg, &f, y_label);
    }
    x_axis(&mut svg, &f, &x, x_label);
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        if log_y {
            dense_dots(&mut svg, color, s, &px, &f);
        } else {
            // One dot per half pixel: the same picture at a fraction of the size.
            let mut dots: Vec<(i64, i64)> = s
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&(a, b)| {
                    (
                        libm::round(px(a) * 2.0) as i64,
                        libm::round(f.py(b) * 2.0) as i64,
                    )
                })
                .collect();
            dots.sort_unstable();
            dots.dedup();
            let _ = writeln!(svg, "<g fill=\"{color}\" fill-opacity=\"0.35\">");
            for (a, b) in dots {
                let _ = writeln!(
                    svg,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"1.6\"/>",
                    a as f64 / 2.0,
                    b as f64 / 2.0
                );
            }
            svg.push_str("</g>\n");
        }
    }
    // Every front over every series' dots (a later series' dots hid an earlier front).
    for (i, s) in series.iter().enumerate() {
        continue_front(&mut svg, PALETTE[i % PALETTE.len()], s, &px, &f, log_y);
    }
    frame_box(&mut svg, &f);
    legend(&mut svg, left + width_plot + 20.0, top + 4.0, &rows);
    svg.push_str("</svg>\n");
    svg
}

/// A knapsack sweep's dots (tens of thousands of points): one per 2-pixel cell, drawn as
/// zero-length round-capped segments of one path, so the SVG holds what can be seen (a dot
/// is 3.2 px across) in a few bytes a dot rather than a circle element each.
fn dense_dots(
    svg: &mut String,
    color: &str,
    s: &ScatterSeries,
    px: &dyn Fn(f64) -> f64,
    f: &Frame,
) {
    let mut dots: Vec<(i64, i64)> = s
        .points
        .iter()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .map(|&(a, b)| {
            (
                libm::round(px(a) / 2.0) as i64,
                libm::round(f.py(b) / 2.0) as i64,
            )
        })
        .collect();
    dots.sort_unstable();
    dots.dedup();
    if dots.is_empty() {
        return;
    }
    let mut d = String::with_capacity(dots.len() * 11);
    for (a, b) in dots {
        let _ = write!(d, "M{} {}h0", a * 2, b * 2);
    }
    let _ = writeln!(
        svg,
        "<path d=\"{d}\" stroke=\"{color}\" stroke-opacity=\"0.35\" stroke-width=\"3.2\" \
         stroke-linecap=\"round\" fill=\"none\"/>"
    );
}

/// A series' front: a line through its points and a marker with its values at each.
fn continue_front(
    svg: &mut String,
    color: &str,
    s: &ScatterSeries,
    px: &dyn Fn(f64) -> f64,
    f: &Frame,
    log_y: bool,
) {
    let path: Vec<String> = s
        .front
        .iter()
        .enumerate()
        .map(|(j, p)| {
            format!(
                "{}{:.1} {:.1}",
                if j == 0 { "M" } else { "L" },
                px(p.0),
                f.py(p.1)
            )
        })
        .collect();
    if !path.is_empty() {
        // A white casing under the line keeps it apart from the dots and the other fronts.
        let d = path.join("");
        let _ = writeln!(
            svg,
            "<path d=\"{d}\" stroke=\"white\" stroke-width=\"4.5\" fill=\"none\"/>\n\
             <path d=\"{d}\" stroke=\"{color}\" stroke-width=\"2\" fill=\"none\"/>"
        );
    }
    for p in &s.front {
        let _ = writeln!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\" stroke=\"white\" \
             stroke-width=\"1\"><title>{}: {:.3}, {:.3}</title></circle>",
            px(p.0),
            f.py(p.1),
            esc(&s.label),
            p.0,
            if log_y { libm::pow(10.0, p.1) } else { p.1 }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::stats::MeanCi;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// The tick labels of the y axis (right-aligned numbers; bar labels are not numbers).
    fn y_ticks(svg: &str) -> Vec<f64> {
        svg.split("text-anchor=\"end\">")
            .skip(1)
            .filter_map(|s| s.split('<').next()?.parse().ok())
            .collect()
    }

    /// Two trials with a wide spread: a 95% interval far past 0 and 100 % (unclipped, the
    /// axis ran from -400 to 500); clipped, it stays within 0 and one tick above 100.
    #[test]
    fn two_trial_intervals_are_clipped_to_the_metric_and_flagged() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/experiment_small.toml"
        );
        let exp = Experiment::load(path).unwrap();
        let wide = |mean: f64, ci: f64| MeanCi {
            n: 2,
            mean,
            ci95: Some(ci),
        };
        let summaries: Vec<ConfigSummary> = exp
            .configs
            .iter()
            .map(|c| ConfigSummary {
                config: c.clone(),
                utility_percent: wide(50.0, 450.0),
                energy_joules: wide(1e8, 9e8),
                utility: wide(1.0, 1.0),
                max_utility_mean: 2.0,
                completed_mean: 1.0,
                dropped_mean: 0.0,
                unfinished_mean: 0.0,
                mapping_events_mean: 1.0,
            })
            .collect();
        let u = utility_bars(&exp, &summaries);
        assert!(u.contains("2 trials: the intervals say little"), "{u}");
        let ticks = y_ticks(&u);
        assert!(!ticks.is_empty());
        assert!(
            ticks.iter().all(|&t| (0.0..=120.0).contains(&t)),
            "{ticks:?}"
        );
        let e = energy_bars(&exp, &summaries);
        let ticks = y_ticks(&e);
        assert!(ticks.iter().all(|&t| t >= 0.0), "{ticks:?}");
        // Three trials: no warning.
        let mut three = summaries.clone();
        three.iter_mut().for_each(|s| s.utility_percent.n = 3);
        assert!(!utility_bars(&exp, &three).contains("say little"));
    }

    #[test]
    fn trace_experiments_plot_value_and_no_energy() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/experiment_small.toml"
        );
        let mut exp = Experiment::load(path).unwrap();
        exp.series.clear();
        exp.trace = Some(crate::experiment::TraceSource {
            key: "log.swf".into(),
            path: "log.swf".into(),
            seed: 1,
            step: kairos_core::units::Micros(0),
            jobs: vec![],
            max_runtime: kairos_core::units::Micros(0),
            variation: Default::default(),
        });
        let out = crate::experiment::runner::Outcome {
            rows: vec![],
            failures: vec![],
            generate_s: vec![],
            wall_s: 0.0,
            jobs: 1,
        };
        let dir = tempfile::tempdir().unwrap();
        crate::report::write_all(dir.path(), &exp, &out).unwrap();
        let u = std::fs::read_to_string(dir.path().join("utility.svg")).unwrap();
        assert!(u.contains("% of maximum value"), "{u}");
        assert!(!u.contains("utility"), "{u}");
        assert!(!dir.path().join("energy.svg").exists());
    }

    #[test]
    fn log_scatter_has_decade_ticks_and_a_legend_of_what_is_drawn() {
        assert_eq!(
            [-3, -2, -1, 0, 1, 3, 6].map(decade_label),
            ["1e-3", "0.01", "0.1", "1", "10", "1000", "1e6"]
        );
        let series = [
            ScatterSeries {
                label: "drawn".into(),
                points: vec![(1.0, 0.2), (2.0, 2.7)],
                front: vec![(1.0, 0.2)],
            },
            ScatterSeries {
                label: "empty class".into(),
                points: vec![(f64::NAN, 1.0)],
                front: vec![],
            },
        ];
        let svg = scatter_log_y("t", "s", "x", "y", &series);
        // Decades 1 to 1000 (0.2 to 2.7 in log10), labelled as numbers, not logarithms.
        for label in [">1<", ">10<", ">100<", ">1000<"] {
            assert!(svg.contains(label), "{label}");
        }
        assert!(!svg.contains(">0.5<") && !svg.contains(">2.5<"));
        assert!(svg.contains("drawn") && !svg.contains("empty class"));
        // A dense series: one path of dots on a 2-pixel grid, not an element a point.
        let many = ScatterSeries {
            label: "dense".into(),
            points: (0..100_000)
                .map(|i| (i as f64 / 1000.0, (i % 977) as f64 / 300.0))
                .collect(),
            front: vec![],
        };
        let svg = scatter_log_y("t", "s", "x", "y", &[many]);
        assert!(!svg.contains("r=\"1.6\""));
        assert_eq!(svg.matches("stroke-linecap=\"round\"").count(), 1);
        // At most one dot a 2-pixel cell of the 620 x 400 plot, about 11 bytes each.
        let dots = svg.matches("h0").count();
        assert!(dots <= 311 * 201, "{dots}");
        assert!(
            svg.len() < 12 * dots + 5_000,
            "{} bytes, {dots} dots",
            svg.len()
        );
    }

    /// Any f64, the awkward ones often: NaN, the infinities, zero, the extremes, subnormals.
    fn any_value() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(0.0),
            Just(f64::MAX),
            Just(f64::MIN),
            Just(f64::MIN_POSITIVE),
            Just(5e-324),
            Just(1e17),
            -1e6..1e6f64,
            proptest::num::f64::ANY,
        ]
    }

    /// An axis is usable: finite ends in order, a positive step, a bounded number of
    /// distinct increasing finite ticks, and pixels that are numbers.
    fn assert_usable(a: &Axis) -> Result<(), TestCaseError> {
        prop_assert!(a.lo.is_finite() && a.hi.is_finite() && a.lo < a.hi, "{a:?}");
        prop_assert!(a.step.is_finite() && a.step > 0.0, "{a:?}");
        let t = a.ticks();
        prop_assert!(
            t.len() >= 2 && t.len() <= MAX_TICKS + 1,
            "{a:?}: {} ticks",
            t.len()
        );
        prop_assert!(t.iter().all(|v| v.is_finite()), "{a:?}");
        prop_assert!(t.windows(2).all(|w| w[0] < w[1]), "{a:?}: {t:?}");
        let f = Frame {
            left: 0.0,
            top: 0.0,
            width: 100.0,
            height: 100.0,
            y: *a,
        };
        prop_assert!(t.iter().all(|&v| f.py(v).is_finite()), "{a:?}");
        Ok(())
    }

    proptest! {
        /// Issue 48's `capacity overflow`: no input makes an axis panic or allocate without
        /// end, and a finite range of ordinary size is covered.
        #[test]
        fn axes_never_panic(lo in any_value(), hi in any_value(), from_zero: bool) {
            for a in [Axis::new(lo, hi, from_zero), Axis::decades(lo, hi)] {
                assert_usable(&a)?;
            }
            if lo.is_finite() && hi.is_finite() && lo.abs() < 1e15 && hi.abs() < 1e15 {
                let a = Axis::new(lo, hi, from_zero);
                prop_assert!(a.lo <= lo.min(hi) && a.hi >= lo.max(hi), "{a:?}");
            }
        }
    }

    /// An axis from zero over data far from it keeps round ticks (a step over the data's
    /// span alone needed hundreds of ticks, and the axis fell back to quarters: 29.0625).
    #[test]
    fn a_from_zero_axis_over_a_narrow_band_has_round_ticks() {
        let a = Axis::new(113.2, 114.1, true);
        assert_eq!((a.lo, a.step, a.hi), (0.0, 25.0, 125.0));
        let z = Axis::new(113.2, 114.1, false);
        assert!(
            z.lo > 113.0 - 1.0 && z.hi < 115.0 && z.ticks().len() <= 11,
            "{z:?}"
        );
        assert_eq!(libm::round(z.step * 10.0) / 10.0, z.step);
    }

    /// `ci_lines` draws an error bar per interval, dashes the lines past the palette, and
    /// survives degenerate data.
    #[test]
    fn ci_lines_draw_bars_and_dashes() {
        let series: Vec<CiSeries> = (0..7)
            .map(|i| CiSeries {
                label: format!("s{i}"),
                points: vec![(1.0, 10.0 + i as f64, Some(1.0)), (2.0, 12.0, None)],
            })
            .collect();
        let svg = ci_lines("t", "s", "x", "y", &series);
        assert_eq!(svg.matches("stroke-width=\"1.2\"").count(), 7);
        assert_eq!(
            svg.matches(DASH).count(),
            2,
            "the 7th line and its legend key"
        );
        for v in [f64::NAN, f64::INFINITY, 1e300] {
            let s = [CiSeries {
                label: "s".into(),
                points: vec![(v, v, Some(v)), (0.0, 1.0, Some(v))],
            }];
            assert!(ci_lines("t", "s", "x", "y", &s).ends_with("</svg>\n"));
        }
    }

    /// The plots themselves on data that is all NaN, infinite or huge.
    #[test]
    fn plots_of_degenerate_data_are_drawn() {
        for v in [f64::NAN, f64::INFINITY, 1e300, -1e300, 0.0] {
            let series = [ScatterSeries {
                label: "s".into(),
                points: vec![(v, v), (0.0, v), (v, 1.0)],
                front: vec![(v, v)],
            }];
            for svg in [
                scatter("t", "s", "x", "y", &series),
                scatter_log_y("t", "s", "x", "y", &series),
            ] {
                assert!(svg.ends_with("</svg>\n"));
            }
            let bars = [Bar {
                label: "a",
                mean: v,
                ci: Some(v),
                color: GREY,
                opacity: 1.0,
            }];
            let svg = bar_chart("t", "s", "y", 2, &bars, Vec::new(), Some(v), (0.0, 100.0));
            assert!(svg.ends_with("</svg>\n"));
        }
    }

    #[test]
    fn the_budget_line_passes_under_the_value_labels() {
        let bars = [Bar {
            label: "a",
            mean: 1.0,
            ci: None,
            color: GREY,
            opacity: 1.0,
        }];
        let svg = bar_chart("t", "s", "y", 2, &bars, Vec::new(), Some(1.02), (0.0, 9.0));
        // The value label is the haloed text; the line comes before it.
        let line = svg.find("stroke-dasharray").unwrap();
        let label = svg.find("paint-order=\"stroke\">1.00</text>").unwrap();
        assert!(line < label, "the line is drawn first");
    }
}
