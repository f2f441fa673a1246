//! The sample bots' command line:
//! `[--seed N] [--depth N | --nodes N | --time] [--capture-plies N] [--bench]`.

use crate::alphabeta::Level;

/// The usage text of the sample bots.
pub const USAGE: &str =
    "usage: BOT [--seed N] [--depth N | --nodes N | --time] [--capture-plies N] [--hand-weights] [--bench]
  --seed N           seed of every game (a u64); default: a fresh seed per game, printed on stderr
  --depth N          alphabeta: search N plies
  --nodes N          alphabeta: search N nodes per move; mcts: N iterations per move
  --time             search as long as the clock allows (the default)
  --capture-plies N  alphabeta: plies of capture extension at the horizon (default 2)
  --hand-weights     alphabeta: the hand-set evaluation weights (to measure the tuning)
  --weights W,...    alphabeta: 28 comma-separated evaluation weights (namua, then mtaji)
  --bench            alphabeta: print search speed on fixed positions and exit";

/// The parsed command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Args {
    /// `--seed N`, if given.
    pub seed: Option<u64>,
    /// `--depth N`, `--nodes N` or `--time`, if given.
    pub level: Option<Level>,
    /// `--capture-plies N`, if given.
    pub capture_plies: Option<u32>,
    /// `--bench` was given.
    pub bench: bool,
    /// `--hand-weights`: the evaluation's hand-set weights instead of the tuned ones.
    pub hand_weights: bool,
    /// `--weights W1,...,W28`: evaluation weights (namua then mtaji), for tuning.
    pub weights: Option<crate::eval::Weights>,
    /// `--help` or `-h` was given.
    pub help: bool,
}

impl Args {
    /// Whether an option of alphabeta's evaluation or benchmark was given (`--bench`,
    /// `--capture-plies`, `--hand-weights`, `--weights`).
    #[must_use]
    pub const fn alphabeta_only(&self) -> bool {
        self.bench || self.capture_plies.is_some() || self.hand_weights || self.weights.is_some()
    }

    /// Whether an option other than `--seed` was given.
    #[must_use]
    pub const fn beyond_seed(&self) -> bool {
        self.level.is_some() || self.alphabeta_only()
    }
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map_err(|e| format!("{flag} {text:?}: expected a non-negative integer ({e})"))
}

/// Parses `--weights`: 2 × [`crate::eval::FEATURES`] integers separated by commas.
fn parse_weights(text: &str) -> Result<crate::eval::Weights, String> {
    use crate::eval::FEATURES;
    let values: Vec<i32> = text
        .split(',')
        .map(|v| v.trim().parse::<i32>().map_err(|e| format!("--weights: {v:?} is not an integer ({e})")))
        .collect::<Result<_, _>>()?;
    if values.len() != 2 * FEATURES {
        return Err(format!("--weights: expected {} integers, found {}", 2 * FEATURES, values.len()));
    }
    let mut weights = [[0; FEATURES]; 2];
    for (i, v) in values.into_iter().enumerate() {
        weights[i / FEATURES][i % FEATURES] = v;
    }
    Ok(weights)
}

/// Parses the arguments after the program name (`--flag value` or `--flag=value`).
///
/// # Errors
/// A message naming the argument that is wrong.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |example: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => args.next().ok_or_else(|| format!("{flag} needs a value, e.g. {flag} {example}")),
            }
        };
        let set_level = |parsed: &mut Args, level: Level| -> Result<(), String> {
            if parsed.level.is_some() {
                return Err(format!("{flag}: give only one of --depth, --nodes and --time"));
            }
            parsed.level = Some(level);
            Ok(())
        };
        match flag.as_str() {
            "--help" | "-h" => parsed.help = true,
            "--bench" => parsed.bench = true,
            "--hand-weights" => parsed.hand_weights = true,
            "--weights" => parsed.weights = Some(parse_weights(&value("100,40,...")?)?),
            "--time" => set_level(&mut parsed, Level::Time)?,
            "--seed" => parsed.seed = Some(number(&flag, &value("42")?)?),
            "--depth" => {
                let depth: u32 = number(&flag, &value("4")?)?;
                if depth == 0 {
                    return Err("--depth 0: the depth is at least 1".to_owned());
                }
                set_level(&mut parsed, Level::Depth(depth))?;
            }
            "--nodes" => {
                let nodes: u64 = number(&flag, &value("100000")?)?;
                if nodes == 0 {
                    return Err("--nodes 0: at least 1 node".to_owned());
                }
                set_level(&mut parsed, Level::Nodes(nodes))?;
            }
            "--capture-plies" => parsed.capture_plies = Some(number(&flag, &value("2")?)?),
            other => return Err(format!("unknown argument {other:?}")),
        }
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
    fn parses_every_form() {
        assert_eq!(parse(&[]), Ok(Args::default()));
        assert_eq!(parse(&["--seed", "42"]).map(|a| a.seed), Ok(Some(42)));
        assert_eq!(parse(&["--seed=7"]).map(|a| a.seed), Ok(Some(7)));
        assert_eq!(parse(&["-h"]).map(|a| a.help), Ok(true));
        assert_eq!(parse(&["--depth", "3"]).map(|a| a.level), Ok(Some(Level::Depth(3))));
        assert_eq!(parse(&["--nodes=500"]).map(|a| a.level), Ok(Some(Level::Nodes(500))));
        assert_eq!(parse(&["--time", "--bench"]).map(|a| (a.level, a.bench)), Ok((Some(Level::Time), true)));
        assert_eq!(parse(&["--capture-plies", "0"]).map(|a| a.capture_plies), Ok(Some(0)));
    }

    #[test]
    fn which_bots_an_option_is_for() {
        let of = |args: &[&str]| parse(args).map(|a| (a.beyond_seed(), a.alphabeta_only()));
        assert_eq!(of(&["--seed", "3"]), Ok((false, false)));
        assert_eq!(of(&["--nodes", "9"]), Ok((true, false)));
        for alphabeta in [&["--bench"][..], &["--capture-plies", "1"], &["--hand-weights"]] {
            assert_eq!(of(alphabeta), Ok((true, true)), "{alphabeta:?}");
        }
    }

    #[test]
    fn errors_name_the_argument() {
        assert!(parse(&["--seed"]).unwrap_err().contains("--seed needs a value"));
        assert!(parse(&["--seed", "x"]).unwrap_err().contains("--seed \"x\""));
        assert!(parse(&["--seed=-1"]).unwrap_err().contains("non-negative"));
        assert_eq!(parse(&["--fast"]).unwrap_err(), "unknown argument \"--fast\"");
        assert!(parse(&["--depth", "2", "--time"]).unwrap_err().contains("only one of"));
        assert!(parse(&["--depth", "0"]).unwrap_err().contains("at least 1"));
        assert!(parse(&["--nodes", "0"]).unwrap_err().contains("at least 1"));
        assert!(parse(&["--weights", "1,2"]).unwrap_err().contains("expected 28 integers, found 2"));
        assert!(parse(&["--weights=1,x"]).unwrap_err().contains("\"x\" is not an integer"));
        let all: Vec<String> = (0..28).map(|i| i.to_string()).collect();
        let weights = parse(&["--weights", &all.join(",")]).expect("28").weights.expect("some");
        assert_eq!((weights[0][0], weights[1][13]), (0, 27));
    }
}
