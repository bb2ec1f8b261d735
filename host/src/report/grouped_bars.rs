//! Grouped bars over named groups (seed 003's rates, node counts, core counts, grid points): one
//! bar per series in each group, a capped error bar at each mean's 95% confidence interval, a
//! y axis on round ticks, the groups' names under them and an x-axis label below. Drawn with
//! the helpers of [`super::svg`], so its figures look like seed 000's; numbers are written with
//! fixed decimals, so the same means give the same bytes.

use super::svg::{error_bar, frame_box, legend, legend_width, open, y_axis, Axis, Frame, Key};
use std::fmt::Write as _;

/// One series of [`grouped_bars`]: its legend text, its colour and, per group, its mean and
/// the half-width of the mean's 95% interval (`None`: no interval, e.g. one trial).
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    /// The legend's text.
    pub label: String,
    /// The fill colour.
    pub color: &'static str,
    /// Per group, in the groups' order: (mean, half-width).
    pub values: Vec<(f64, Option<f64>)>,
}

/// The text of the groups is 11 px: about 6.3 px a character.
const CHAR_PX: f64 = 6.3;

/// Grouped bars: `groups` along x (labelled under the frame, `x_label` below them), a bar per
/// series in each, from zero (or from the lowest interval end when one is negative).
pub fn grouped_bars(
    title: &str,
    subtitle: &str,
    x_label: &str,
    y_label: &str,
    groups: &[String],
    series: &[BarSeries],
) -> String {
    let ends = |&(m, ci): &(f64, Option<f64>)| {
        let c = ci.filter(|c| c.is_finite()).unwrap_or(0.0);
        (m - c, m + c)
    };
    let finite = series
        .iter()
        .flat_map(|s| s.values.iter())
        .filter(|v| v.0.is_finite());
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for v in finite {
        let (a, b) = ends(v);
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    let rows: Vec<(Key, String)> = series
        .iter()
        .map(|s| (Key::Swatch(s.color, 1.0), s.label.clone()))
        .collect();
    let ng = groups.len().max(1) as f64;
    let ns = series.len().max(1) as f64;
    let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as f64;
    // A group at least as wide as its label, and room for its bars.
    let group_w = (CHAR_PX * longest + 12.0).max(18.0 * ns + 16.0).max(60.0);
    let (left, top) = (80.0, 64.0);
    let width_plot = (group_w * ng).max(360.0);
    let height_plot = 360.0;
    let f = Frame {
        left,
        top,
        width: width_plot,
        height: height_plot,
        y: Axis::new(lo, hi, lo >= 0.0),
    };
    let width = left + width_plot + 20.0 + legend_width(&rows);
    let height = top + height_plot + 64.0;
    let mut svg = String::new();
    open(&mut svg, width, height, title, subtitle);
    y_axis(&mut svg, &f, y_label);
    let gw = width_plot / ng;
    let bw = gw * 0.8 / ns;
    let base = f.py(f.y.lo.max(0.0).min(f.y.hi));
    for (si, s) in series.iter().enumerate() {
        for (gi, v) in s.values.iter().enumerate().take(groups.len()) {
            if !v.0.is_finite() {
                continue;
            }
            let x = left + gw * gi as f64 + gw * 0.1 + bw * si as f64;
            let y = f.py(v.0);
            let _ = writeln!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" \
                 stroke=\"#333\" stroke-width=\"0.5\"><title>{} at {}: {:.4}{}</title></rect>",
                y.min(base),
                bw * 0.9,
                (base - y).abs(),
                s.color,
                super::svg::esc(&s.label),
                super::svg::esc(&groups[gi]),
                v.0,
                v.1.map_or(String::new(), |c| format!(" +/- {c:.4}"))
            );
            if let Some(c) = v.1.filter(|c| c.is_finite() && *c > 0.0) {
                error_bar(&mut svg, &f, x + bw * 0.45, v.0 - c, v.0 + c, "black");
            }
        }
    }
    let bottom = top + height_plot;
    for (gi, g) in groups.iter().enumerate() {
        let cx = left + gw * (gi as f64 + 0.5);
        let _ = writeln!(
            svg,
            "<line x1=\"{cx:.1}\" y1=\"{bottom:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" \
             stroke=\"black\"/>\n<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"11\" \
             text-anchor=\"middle\">{}</text>",
            bottom + 5.0,
            bottom + 18.0,
            super::svg::esc(g)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
        left + width_plot / 2.0,
        bottom + 42.0,
        super::svg::esc(x_label)
    );
    frame_box(&mut svg, &f);
    legend(&mut svg, left + width_plot + 20.0, top + 4.0, &rows);
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Vec<BarSeries> {
        vec![
            BarSeries {
                label: "A".into(),
                color: "#1f77b4",
                values: vec![(1.0, Some(0.1)), (0.83, None)],
            },
            BarSeries {
                label: "B & C".into(),
                color: "#d62728",
                values: vec![(1.37, Some(0.05)), (f64::NAN, None)],
            },
        ]
    }

    #[test]
    fn round_ticks_labels_caps_and_escapes() {
        let g = vec!["high".to_string(), "low".to_string()];
        let s = grouped_bars("T", "48 trials", "arrival rate", "value", &g, &two());
        // Round ticks: 0 to 1.5 by 0.5 (the means reach 1.42 with the interval).
        assert!(
            s.contains(">0.0</text>") && s.contains(">1.5</text>"),
            "{s}"
        );
        assert!(s.contains(">arrival rate</text>"));
        assert!(s.contains(">48 trials</text>"));
        assert!(s.contains("B &amp; C"));
        // Two capped error bars (the two intervals), none for the bar without one or NaN.
        assert_eq!(s.matches("stroke-width=\"1.2\"").count(), 2, "{s}");
        // Three bars: the NaN mean is not drawn.
        assert_eq!(s.matches("<rect x=").count() - 2 - 1, 3, "{s}");
        assert_eq!(
            s,
            grouped_bars("T", "48 trials", "arrival rate", "value", &g, &two())
        );
    }

    #[test]
    fn no_data_and_negative_means_give_a_usable_plot() {
        let s = grouped_bars("T", "", "x", "y", &[], &[]);
        assert!(s.ends_with("</svg>\n"));
        let g = vec!["a".to_string()];
        let neg = vec![BarSeries {
            label: "n".into(),
            color: "#000",
            values: vec![(-2.0, Some(0.5))],
        }];
        let s = grouped_bars("T", "", "x", "y", &g, &neg);
        assert!(s.contains(">-3</text>"), "{s}");
        assert!(!s.contains("NaN"));
    }
}
