//! The sample bots' command line: `[--seed N]`.

/// The usage line of the sample bots.
pub const USAGE: &str =
    "usage: BOT [--seed N]\n  --seed N   seed of the random generator (a u64; bao-random only)";

/// The parsed command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Args {
    /// `--seed N` or `--seed=N`, if given.
    pub seed: Option<u64>,
    /// `--help` or `-h` was given.
    pub help: bool,
}

/// Parses the arguments after the program name.
///
/// # Errors
/// A message naming the argument that is wrong.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let seed_text = match arg.as_str() {
            "--help" | "-h" => {
                parsed.help = true;
                continue;
            }
            "--seed" => args.next().ok_or_else(|| "--seed needs a value, e.g. --seed 42".to_owned())?,
            other => match other.strip_prefix("--seed=") {
                Some(value) => value.to_owned(),
                None => return Err(format!("unknown argument {other:?}")),
            },
        };
        let seed = seed_text
            .parse::<u64>()
            .map_err(|e| format!("--seed {seed_text:?}: expected a non-negative integer ({e})"))?;
        parsed.seed = Some(seed);
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn parses_seed_forms_and_help() {
        assert_eq!(parse(&[]), Ok(Args::default()));
        assert_eq!(parse(&["--seed", "42"]), Ok(Args { seed: Some(42), help: false }));
        assert_eq!(parse(&["--seed=7"]), Ok(Args { seed: Some(7), help: false }));
        assert_eq!(parse(&["-h"]), Ok(Args { seed: None, help: true }));
    }

    #[test]
    fn errors_name_the_argument() {
        assert!(parse(&["--seed"]).unwrap_err().contains("--seed needs a value"));
        assert!(parse(&["--seed", "x"]).unwrap_err().contains("--seed \"x\""));
        assert!(parse(&["--seed=-1"]).unwrap_err().contains("non-negative"));
        assert_eq!(parse(&["--fast"]).unwrap_err(), "unknown argument \"--fast\"");
    }
}
