//! The rating plot of a bot page, drawn on the server as SVG: the rating line
//! over time, a rating axis with round values and gridlines, and a time axis
//! with dates (and the time of day when the history spans less than two days).

use serde::Serialize;

/// The plot's drawing area in SVG units: left, top, right, bottom.
const LEFT: f64 = 52.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 590.0;
const BOTTOM: f64 = 196.0;
/// The SVG's size (its `viewBox`).
pub const WIDTH: f64 = 600.0;
/// The SVG's height.
pub const HEIGHT: f64 = 226.0;

/// A labelled tick on an axis: its position in SVG units and its text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tick {
    /// x for the time axis, y for the rating axis.
    pub at: f64,
    /// What it says.
    pub label: String,
}

/// Everything the template draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingPlot {
    /// The line's points, `x,y x,y …`.
    pub points: String,
    /// The rating axis' ticks (y).
    pub rating_ticks: Vec<Tick>,
    /// The time axis' ticks (x).
    pub time_ticks: Vec<Tick>,
    /// The drawing area, for the axes' lines.
    pub left: f64,
    /// Top of the drawing area.
    pub top: f64,
    /// Right of the drawing area.
    pub right: f64,
    /// Bottom of the drawing area.
    pub bottom: f64,
    /// The viewBox width.
    pub width: f64,
    /// The viewBox height.
    pub height: f64,
    /// The newest rating, rounded.
    pub last: i64,
    /// The points plotted.
    pub count: usize,
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `parts` pieces.
fn nice_step(span: f64, parts: f64) -> f64 {
    let raw = (span / parts).max(1e-9);
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// How finely a time axis is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grain {
    /// `3 Dec 2026`: a history of two days or more.
    Days,
    /// `3 Dec 14:05`: of two hours or more.
    Minutes,
    /// `14:05:07`: shorter.
    Seconds,
}

/// A Unix-ms time as its axis label, UTC.
fn date_label(ms: i64, grain: Grain) -> String {
    let Ok(t) = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000)) else { return String::new() };
    let month = MONTHS[usize::from(u8::from(t.month())) - 1];
    match grain {
        Grain::Days => format!("{} {month} {}", t.day(), t.year()),
        Grain::Minutes => format!("{} {month} {:02}:{:02}", t.day(), t.hour(), t.minute()),
        Grain::Seconds => format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second()),
    }
}

/// The plot of a rating history `(Unix ms, Elo)`, oldest first; none for fewer than two points.
#[must_use]
pub fn plot(points: &[(i64, f64)]) -> Option<RatingPlot> {
    let (first, last) = (points.first()?, points.last()?);
    if points.len() < 2 {
        return None;
    }
    let (t0, t1) = (first.0, last.0.max(first.0 + 1));
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    // Round bounds: the axis starts and ends on a tick, at least 20 Elo apart.
    let step = nice_step((hi - lo).max(20.0), 4.0);
    let (min, max) =
        ((lo / step).floor() * step, ((hi / step).ceil() * step).max((lo / step).floor() * step + step));
    let x = |t: i64| LEFT + (RIGHT - LEFT) * ((t - t0) as f64 / (t1 - t0) as f64);
    let y = |r: f64| BOTTOM - (BOTTOM - TOP) * ((r - min) / (max - min));
    let line = points.iter().map(|&(t, r)| format!("{:.1},{:.1}", x(t), y(r))).collect::<Vec<_>>().join(" ");
    let mut rating_ticks = Vec::new();
    let mut v = min;
    while v <= max + step / 2.0 {
        rating_ticks.push(Tick { at: y(v), label: format!("{v:.0}") });
        v += step;
    }
    // Four dates, the first and last at the ends of the history.
    let hour = 3600 * 1000;
    let grain = match t1 - t0 {
        span if span >= 48 * hour => Grain::Days,
        span if span >= 2 * hour => Grain::Minutes,
        _ => Grain::Seconds,
    };
    let time_ticks = (0..4)
        .map(|i| {
            let t = t0 + (t1 - t0) * i / 3;
            Tick { at: x(t), label: date_label(t, grain) }
        })
        .collect();
    Some(RatingPlot {
        points: line,
        rating_ticks,
        time_ticks,
        left: LEFT,
        top: TOP,
        right: RIGHT,
        bottom: BOTTOM,
        width: WIDTH,
        height: HEIGHT,
        last: last.1.round() as i64,
        count: points.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_have_round_ratings_and_dates() {
        // 3 Dec 2026 00:00 UTC, then 10 days of history from 1480 to 1623.
        let t0 = 1_796_256_000_000;
        let day = 24 * 3600 * 1000;
        let p = plot(&[(t0, 1480.0), (t0 + 5 * day, 1550.0), (t0 + 10 * day, 1623.0)]).expect("a plot");
        let labels: Vec<&str> = p.rating_ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["1450", "1500", "1550", "1600", "1650"]);
        assert!(p.rating_ticks.windows(2).all(|w| w[0].at > w[1].at), "higher ratings higher up");
        assert_eq!(p.time_ticks.first().map(|t| t.label.as_str()), Some("3 Dec 2026"));
        assert_eq!(p.time_ticks.last().map(|t| t.label.as_str()), Some("13 Dec 2026"));
        assert_eq!(p.time_ticks.first().map(|t| t.at), Some(LEFT));
        assert_eq!(p.last, 1623);
        // Every point inside the drawing area.
        for xy in p.points.split(' ') {
            let (x, y) = xy.split_once(',').expect("x,y");
            let (x, y): (f64, f64) = (x.parse().expect("x"), y.parse().expect("y"));
            assert!((LEFT..=RIGHT).contains(&x) && (TOP..=BOTTOM).contains(&y), "{xy}");
        }
        // Within two days, hours and minutes; within two hours, seconds; a flat history still has a span.
        let p = plot(&[(t0, 1500.0), (t0 + 6 * 3_600_000, 1500.0)]).expect("a plot");
        assert_eq!(p.time_ticks[0].label, "3 Dec 00:00");
        assert_eq!(p.time_ticks[1].label, "3 Dec 02:00");
        let p = plot(&[(t0 + 5_000, 1500.0), (t0 + 65_000, 1500.0)]).expect("a plot");
        assert_eq!(p.time_ticks[0].label, "00:00:05");
        assert!(p.rating_ticks.len() >= 2);
        assert!(plot(&[(t0, 1500.0)]).is_none());
        assert!(plot(&[]).is_none());
    }
}
