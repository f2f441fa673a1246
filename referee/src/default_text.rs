//! The referee's defaults ([`bao_game::defaults`]) as the command line writes them, for clap's
//! `default_value` (shown in `--help`, and parsed back by the options' own parsers).

use std::sync::OnceLock;
use std::time::Duration;

use bao_game::defaults;

/// [`defaults::STARTUP`] as text: `5s`.
pub fn startup() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| duration(defaults::STARTUP))
}

/// [`defaults::MARGIN`] as text: `100ms`.
pub fn margin() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| duration(defaults::MARGIN))
}

/// `d` as `--startup-time` and `--margin` read it back: `5s`, `100ms`.
fn duration(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_read_back_as_the_defaults() {
        assert_eq!((startup(), margin()), ("5s", "100ms"));
        assert_eq!(crate::options::parse_positive_duration(startup()), Ok(defaults::STARTUP));
        assert_eq!(crate::options::parse_duration(margin()), Ok(defaults::MARGIN));
    }
}
