//! A least-squares straight line through points: the marginal cost (slope) and the fixed
//! cost (intercept) of runs of different lengths.

use serde::Serialize;

/// `y = intercept + slope · x`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Line {
    /// The cost of one more unit of `x`.
    pub slope: f64,
    /// The cost at `x = 0`.
    pub intercept: f64,
}

/// The least-squares line through `points` (`x`, `y`); `None` for fewer than two distinct `x`.
#[must_use]
pub fn least_squares(points: &[(f64, f64)]) -> Option<Line> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if points.len() < 2 || sxx <= f64::EPSILON {
        return None;
    }
    let slope = sxy / sxx;
    Some(Line { slope, intercept: mean_y - slope * mean_x })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_line_and_needs_two_distinct_x() {
        let line = least_squares(&[(0.0, 8.0), (100.0, 10.5), (200.0, 13.0)]).expect("three points");
        assert!((line.slope - 0.025).abs() < 1e-12 && (line.intercept - 8.0).abs() < 1e-9, "{line:?}");
        let noisy = least_squares(&[(0.0, 1.0), (0.0, 3.0), (2.0, 4.0), (2.0, 6.0)]).expect("four points");
        assert!((noisy.slope - 1.5).abs() < 1e-12 && (noisy.intercept - 2.0).abs() < 1e-12, "{noisy:?}");
        assert_eq!(least_squares(&[(1.0, 2.0)]), None);
        assert_eq!(least_squares(&[(1.0, 2.0), (1.0, 3.0)]), None);
        assert_eq!(least_squares(&[]), None);
    }
}
