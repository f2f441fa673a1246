//! The words of durations, time controls and sizes, as the command line and a tournament's
//! bot list (`tc=`, `st=`) write them: `0.5`, `500ms`, `10+0.1`, `512M`.

use std::time::Duration;

/// The longest duration any option accepts (a time control, a startup time, a margin): one day.
/// Longer is surely a typo, and a deadline that far away would overflow the clock.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// Seconds as a decimal number (`0.5`), or a duration with a unit (`500ms`, `2s`, `1m`), at
/// most [`MAX_DURATION`].
///
/// # Errors
/// A message naming the text that is not a duration, or is too long.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let duration = match s.parse::<f64>() {
        Ok(secs) => Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("{s:?} is not a non-negative number of seconds"))?,
        Err(_) => humantime::parse_duration(s)
            .map_err(|e| format!("{s:?} is not a duration (seconds like 0.5, or 500ms, 2s): {e}"))?,
    };
    if duration > MAX_DURATION {
        return Err(format!("{s:?} is longer than the most allowed, one day (86400 seconds)"));
    }
    Ok(duration)
}

/// A duration as [`parse_duration`] reads it, more than zero.
///
/// # Errors
/// As [`parse_duration`], and for zero.
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let duration = parse_duration(s)?;
    if duration.is_zero() {
        return Err(format!("{s:?}: must be more than zero"));
    }
    Ok(duration)
}

/// `BASE+INC`: both are required (`10` alone is refused: it could mean 10+0 or a typo of 10+0.1).
///
/// # Errors
/// A message naming the part that is wrong.
pub fn parse_tc(s: &str) -> Result<(Duration, Duration), String> {
    let Some((base, inc)) = s.split_once('+') else {
        return Err(format!(
            "{s:?} is not BASE+INC: give the increment too, e.g. {s}+0 (no increment) or {s}+0.1"
        ));
    };
    let base = parse_duration(base).map_err(|e| format!("time control base: {e}"))?;
    let inc = parse_duration(inc).map_err(|e| format!("time control increment: {e}"))?;
    if base.is_zero() {
        return Err(format!("time control {s:?}: the base time must be more than zero"));
    }
    Ok((base, inc))
}

/// Bytes as a number, with an optional K, M or G suffix (powers of 1024).
///
/// # Errors
/// A message naming the text that is not a size.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (digits, multiplier) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&s[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiplier))
        .ok_or_else(|| format!("{s:?} is not a size in bytes (e.g. 1048576, 512M, 2G)"))
}

/// The largest size a limit accepts: 1 PiB (`1048576G`). More is surely a typo.
pub const MAX_BYTES: u64 = 1 << 50;

/// A size as [`parse_bytes`] reads it, more than zero and at most [`MAX_BYTES`].
///
/// # Errors
/// As [`parse_bytes`], and for zero or more than [`MAX_BYTES`].
pub fn parse_positive_bytes(s: &str) -> Result<u64, String> {
    match parse_bytes(s)? {
        0 => Err(format!("{s:?}: must be more than zero (omit the option for no limit)")),
        n if n > MAX_BYTES => {
            Err(format!("{s:?}: must be at most 1048576G (1 PiB; omit the option for no limit)"))
        }
        n => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_seconds_or_with_units() {
        assert_eq!(parse_duration("0.25").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("200ms").unwrap(), Duration::from_millis(200));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("soon").unwrap_err().contains("soon"));
    }

    #[test]
    fn time_controls() {
        assert_eq!(parse_tc("10+0.1").unwrap(), (Duration::from_secs(10), Duration::from_millis(100)));
        assert!(parse_tc("60").unwrap_err().contains("60+0"));
        assert!(parse_tc("0+1").is_err());
        assert!(parse_tc("1e19+0").unwrap_err().contains("one day"));
        assert!(parse_tc("10+1e19").unwrap_err().contains("increment"));
        assert!(parse_positive_duration("0").unwrap_err().contains("more than zero"));
        assert!(parse_positive_duration("1e19").is_err());
        assert!(parse_positive_duration("86401").is_err());
        assert_eq!(parse_positive_duration("86400").unwrap(), MAX_DURATION);
        assert!(parse_tc("x+1").unwrap_err().contains("base"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("512M").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("1024").unwrap(), 1024);
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("99999999999G").is_err());
        assert!(parse_positive_bytes("0").is_err());
        assert!(parse_positive_bytes("0M").is_err());
        assert!(parse_positive_bytes("1048577G").unwrap_err().contains("at most"));
        assert_eq!(parse_positive_bytes("1048576G").unwrap(), MAX_BYTES);
    }
}
