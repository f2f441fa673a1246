//! Order statistics of timing samples: median, nearest-rank percentiles, a summary in µs.

use std::time::Duration;

use serde::Serialize;

/// The median of sorted samples: the middle one, or the mean of the two middle ones.
/// `None` for no samples.
#[must_use]
pub fn median(sorted: &[Duration]) -> Option<Duration> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

/// The `p`-th percentile of sorted samples by the nearest-rank method: the smallest sample
/// with at least `p`% of the samples at or below it (`p` is clamped to 0..=100; p0 is the
/// minimum, p100 the maximum). `None` for no samples.
#[must_use]
pub fn percentile(sorted: &[Duration], p: f64) -> Option<Duration> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 100.0) };
    // 0 <= p/100 * n <= n, so the conversion neither truncates nor loses the sign.
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
}

/// A duration in microseconds, to 0.1 µs.
#[must_use]
pub fn micros(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000_000.0).round() / 10.0
}

/// Count, mean and order statistics of a set of durations, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// The smallest sample.
    pub min_us: f64,
    /// The median.
    pub median_us: f64,
    /// The 90th percentile (nearest rank).
    pub p90_us: f64,
    /// The 99th percentile (nearest rank).
    pub p99_us: f64,
    /// The largest sample.
    pub max_us: f64,
    /// The arithmetic mean.
    pub mean_us: f64,
}

impl Summary {
    /// Summarises the samples (in any order). `None` for no samples.
    #[must_use]
    pub fn of(samples: &[Duration]) -> Option<Summary> {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let total: Duration = sorted.iter().sum();
        let count = sorted.len();
        let mean = total.checked_div(u32::try_from(count).ok()?)?;
        Some(Summary {
            count,
            min_us: micros(*sorted.first()?),
            median_us: micros(median(&sorted)?),
            p90_us: micros(percentile(&sorted, 90.0)?),
            p99_us: micros(percentile(&sorted, 99.0)?),
            max_us: micros(*sorted.last()?),
            mean_us: micros(mean),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|&v| Duration::from_micros(v)).collect()
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&us(&[])), None);
        assert_eq!(median(&us(&[7])), Some(Duration::from_micros(7)));
        assert_eq!(median(&us(&[1, 2, 10])), Some(Duration::from_micros(2)));
        assert_eq!(median(&us(&[1, 2, 4, 10])), Some(Duration::from_micros(3)));
    }

    #[test]
    fn nearest_rank_percentiles() {
        let hundred: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&hundred, 99.0), Some(Duration::from_micros(99)));
        assert_eq!(percentile(&hundred, 90.0), Some(Duration::from_micros(90)));
        assert_eq!(percentile(&hundred, 50.0), Some(Duration::from_micros(50)));
        assert_eq!(percentile(&hundred, 100.0), Some(Duration::from_micros(100)));
        assert_eq!(percentile(&hundred, 0.0), Some(Duration::from_micros(1)));
        // Ten samples: p99 is the largest, p90 the ninth.
        let ten = us(&[10, 20, 30, 40, 50, 60, 70, 80, 90, 1000]);
        assert_eq!(percentile(&ten, 99.0), Some(Duration::from_micros(1000)));
        assert_eq!(percentile(&ten, 90.0), Some(Duration::from_micros(90)));
        assert_eq!(percentile(&ten, 91.0), Some(Duration::from_micros(1000)));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn out_of_range_percentiles_are_clamped() {
        let three = us(&[1, 2, 3]);
        assert_eq!(percentile(&three, -5.0), Some(Duration::from_micros(1)));
        assert_eq!(percentile(&three, 250.0), Some(Duration::from_micros(3)));
        assert_eq!(percentile(&three, f64::NAN), Some(Duration::from_micros(1)));
    }

    #[test]
    fn summary_sorts_and_rounds_to_a_tenth_of_a_microsecond() {
        let samples = vec![
            Duration::from_nanos(3_060),
            Duration::from_nanos(1_000),
            Duration::from_nanos(2_260),
            Duration::from_nanos(100_000),
        ];
        let summary = Summary::of(&samples).expect("four samples");
        assert_eq!(summary.count, 4);
        assert_eq!(summary.min_us, 1.0);
        assert_eq!(summary.median_us, 2.7); // (2.26 + 3.06) / 2 = 2.66 µs
        assert_eq!(summary.p90_us, 100.0);
        assert_eq!(summary.p99_us, 100.0);
        assert_eq!(summary.max_us, 100.0);
        assert_eq!(summary.mean_us, 26.6); // 106.32 / 4 = 26.58
        assert_eq!(Summary::of(&[]), None);
    }
}
