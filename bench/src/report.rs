//! Text output shared by the benchmark reports.

use super::stats::Summary;

/// One aligned line: label, count, median, p90, p99 and max in µs.
#[must_use]
pub fn summary_row(label: &str, summary: &Summary) -> String {
    format!(
        "  {label:<44} n={:<7} median {:>9.1}  p90 {:>9.1}  p99 {:>9.1}  max {:>10.1} µs",
        summary.count, summary.median_us, summary.p90_us, summary.p99_us, summary.max_us
    )
}

/// Prints a report as one JSON line.
///
/// # Errors
/// The report cannot be serialised.
pub fn print_json<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(report)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_row_shows_the_count_and_the_statistics() {
        let summary = Summary::of(&[Duration::from_micros(10), Duration::from_micros(30)]).expect("two");
        let row = summary_row("ply cycle", &summary);
        assert!(row.starts_with("  ply cycle "), "{row}");
        assert!(row.contains("n=2 "), "{row}");
        assert!(row.contains("median      20.0"), "{row}");
        assert!(row.ends_with("max       30.0 µs"), "{row}");
    }
}
