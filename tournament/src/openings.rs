//! Where the games of a tournament start: the standard start, a number of
//! random legal plies from it (seeded), or a file of positions.
//!
//! Opening `j` of a random source is `bao_game::opening::random_opening` of the seed and `j`
//! (ChaCha8 seeded with the seed, on stream `j`): the generator the competition server draws
//! its pairs' openings from too, so the same `--seed` always gives the same openings, however
//! many are drawn.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use bao_game::opening::random_opening;
use bao_rules::{Position, Variant};

/// The most plies `--openings random:PLIES` accepts. Random play from the start ends most
/// games within 150 to 200 plies, and an opening is a few plies (4 to 12 is usual).
pub const MAX_RANDOM_PLIES: u32 = 100;

/// Where openings come from (`--openings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpeningSource {
    /// Every game starts at the start position (`start`).
    Start,
    /// This many random legal plies from the start position (`random:PLIES`).
    Random {
        /// Plies played at random.
        plies: u32,
    },
    /// Positions read from a file, one per line, used in order and cycled (any other value).
    File(PathBuf),
}

impl FromStr for OpeningSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "start" {
            return Ok(OpeningSource::Start);
        }
        if let Some(plies) = s.strip_prefix("random:") {
            return match plies.parse::<u32>() {
                Ok(plies) if (1..=MAX_RANDOM_PLIES).contains(&plies) => Ok(OpeningSource::Random { plies }),
                _ => Err(format!(
                    "--openings {s:?}: random:PLIES needs a number of plies from 1 to {MAX_RANDOM_PLIES} \
                     (for the start position itself, --openings start)"
                )),
            };
        }
        if s.is_empty() {
            return Err("--openings: expected start, random:PLIES or a file of positions".to_owned());
        }
        Ok(OpeningSource::File(PathBuf::from(s)))
    }
}

impl fmt::Display for OpeningSource {
    /// The description stored in the plan (a file is not named: the plan
    /// holds its positions, and shards may read it from different paths).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningSource::Start => f.write_str("start"),
            OpeningSource::Random { plies } => write!(f, "random:{plies}"),
            OpeningSource::File(_) => f.write_str("file"),
        }
    }
}

pub use crate::error::OpeningError;

/// The `count` openings of `source`, from `start` (for start and random openings).
///
/// # Errors
/// An unreadable or bad file, or random plies that always end the game.
pub fn make(
    source: &OpeningSource,
    count: u32,
    seed: u64,
    start: &Position,
) -> Result<Vec<Position>, OpeningError> {
    match source {
        OpeningSource::Start => Ok(vec![*start; count as usize]),
        OpeningSource::Random { plies } => {
            (0..count).map(|j| Ok(random_opening(start, *plies, seed, j)?)).collect()
        }
        OpeningSource::File(path) => {
            let positions = read_file(path, start.variant())?;
            Ok((0..count as usize).map(|j| positions[j % positions.len()]).collect())
        }
    }
}

/// Reads positions, one per line; blank lines and lines starting with `#` are skipped.
///
/// # Errors
/// An unreadable file, a line that is not a position, of another variant,
/// or a finished game, or a file without positions.
pub fn read_file(path: &Path, variant: Variant) -> Result<Vec<Position>, OpeningError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| OpeningError::Read { path: path.to_path_buf(), source })?;
    let bad =
        |line: usize, message: String| OpeningError::BadLine { path: path.to_path_buf(), line, message };
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let position: Position = line.parse().map_err(|e| bad(i + 1, format!("{e}")))?;
        if position.variant() != variant {
            return Err(bad(
                i + 1,
                format!(
                    "a {} position, but the tournament plays {variant} (see --variant)",
                    position.variant()
                ),
            ));
        }
        if position.outcome().is_over() {
            return Err(bad(i + 1, format!("the game is already over ({})", position.outcome())));
        }
        positions.push(position);
    }
    if positions.is_empty() {
        return Err(OpeningError::Empty(path.to_path_buf()));
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Position {
        Position::start(Variant::Kiswahili)
    }

    #[test]
    fn sources_parse() {
        assert_eq!("start".parse::<OpeningSource>(), Ok(OpeningSource::Start));
        assert_eq!("random:8".parse::<OpeningSource>(), Ok(OpeningSource::Random { plies: 8 }));
        assert!("random:x".parse::<OpeningSource>().unwrap_err().contains("random:PLIES"));
        assert_eq!("book.txt".parse::<OpeningSource>(), Ok(OpeningSource::File("book.txt".into())));
    }

    #[test]
    fn random_openings_depend_only_on_seed_and_index() {
        let a = make(&OpeningSource::Random { plies: 6 }, 10, 42, &start()).unwrap();
        let b = make(&OpeningSource::Random { plies: 6 }, 20, 42, &start()).unwrap();
        assert_eq!(a[..], b[..10], "drawing more openings does not change the first ones");
        let c = make(&OpeningSource::Random { plies: 6 }, 10, 43, &start()).unwrap();
        assert_ne!(a, c, "another seed gives other openings");
        let distinct: std::collections::HashSet<String> = b.iter().map(ToString::to_string).collect();
        assert!(distinct.len() > 10, "random openings vary: {} distinct of 20", distinct.len());
        for p in &a {
            assert!(!p.outcome().is_over());
            assert_ne!(*p, start());
        }
    }

    #[test]
    fn start_openings_are_the_start() {
        assert_eq!(make(&OpeningSource::Start, 3, 1, &start()).unwrap(), vec![start(); 3]);
    }

    #[test]
    fn a_file_is_read_in_order_and_cycled() {
        let dir = std::env::temp_dir().join(format!("bao-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.txt");
        let one = random_opening(&start(), 3, 1, 0).unwrap();
        let two = random_opening(&start(), 3, 1, 1).unwrap();
        std::fs::write(&path, format!("# a book\n{one}\n\n{two}\n")).unwrap();
        let got = make(&OpeningSource::File(path.clone()), 3, 0, &start()).unwrap();
        assert_eq!(got, vec![one, two, one]);

        std::fs::write(&path, "# nothing\n").unwrap();
        assert!(matches!(read_file(&path, Variant::Kiswahili), Err(OpeningError::Empty(_))));
        std::fs::write(&path, format!("{one}\nnot a position\n")).unwrap();
        let err = read_file(&path, Variant::Kiswahili).unwrap_err().to_string();
        assert!(err.contains("book.txt:2"), "{err}");
        let kujifunza = Position::start(Variant::Kujifunza);
        std::fs::write(&path, format!("{kujifunza}\n")).unwrap();
        let err = read_file(&path, Variant::Kiswahili).unwrap_err().to_string();
        assert!(err.contains("--variant"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
