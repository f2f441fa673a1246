//! The bots of a tournament: `--bot name=NAME cmd=CMD [arg=ARG]... [dir=DIR]
//! [option.NAME=VALUE]... [tc=BASE+INC | st=SECONDS]` on the command line, or a JSON/TOML file
//! listing them.
//!
//! `option.NAME=VALUE` appends the two arguments `--NAME VALUE` to the bot's command line (the
//! protocol has no options message; arguments are how a bot is configured). `tc=` gives the
//! bot its own Fischer clock and `st=` its own fixed time per move, instead of the
//! tournament's `--tc`/`--move-time` (as cutechess's `-engine tc=... st=...`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use bao_supervise::BotSpec;

pub use crate::error::BotListError;

/// The keys of `--bot`, for messages.
pub(crate) const KEYS: &str = "name, cmd, arg, dir, option.NAME, tc, st";

/// A bot's own time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotClock {
    /// `tc=BASE+INC`: a Fischer clock.
    Fischer {
        /// The time at the start.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// `st=SECONDS`: a fixed time per move.
    MoveTime(Duration),
}

impl BotClock {
    /// The time control, with the tournament's startup time and margin.
    #[must_use]
    pub fn time_control(self, startup: Duration, margin: Duration) -> bao_game::TimeControl {
        let (base, increment, move_time) = match self {
            BotClock::Fischer { base, increment } => (Some(base), increment, None),
            BotClock::MoveTime(t) => (None, Duration::ZERO, Some(t)),
        };
        bao_game::TimeControl { base, increment, move_time, startup, margin }
    }
}

/// A bot of the tournament: what to run, and its own clock if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bot {
    /// The program, its arguments (the options included), its folder and name.
    pub spec: BotSpec,
    /// Its own time control (`tc=` or `st=`), if any.
    pub clock: Option<BotClock>,
}

/// A config file: `{"bots": [{"name": .., "cmd": .., "args": [..], "dir": ..}]}` or the TOML equivalent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    bots: Vec<ConfigBot>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigBot {
    name: Option<String>,
    cmd: String,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<PathBuf>,
    /// `--NAME VALUE` arguments, in name order.
    #[serde(default)]
    options: BTreeMap<String, String>,
    /// `BASE+INC`.
    tc: Option<String>,
    /// Seconds per move.
    st: Option<String>,
}

/// A bot from the words after one `--bot` (`bot` is its 1-based number, for messages).
///
/// # Errors
/// A word that is not KEY=VALUE, an unknown or repeated key, no or a bad command.
pub fn parse_bot_words(bot: usize, words: &[String]) -> Result<BotSpec, BotListError> {
    parse_bot(bot, words).map(|b| b.spec)
}

/// A bot, with its own clock, from the words after one `--bot`.
///
/// # Errors
/// As [`parse_bot_words`], and a bad `tc=`, `st=` or `option.` key.
pub fn parse_bot(bot: usize, words: &[String]) -> Result<Bot, BotListError> {
    let mut name = None;
    let mut cmd = None;
    let mut dir = None;
    let mut tc = None;
    let mut st = None;
    let mut extra = Vec::new();
    let what = format!("--bot #{bot}");
    for word in words {
        let (key, value) =
            word.split_once('=').ok_or_else(|| BotListError::NotKeyValue { bot, word: word.clone() })?;
        let (key, slot) = match key {
            "name" => ("name", &mut name),
            "cmd" => ("cmd", &mut cmd),
            "dir" => ("dir", &mut dir),
            "tc" => ("tc", &mut tc),
            "st" => ("st", &mut st),
            "arg" => {
                extra.push(value.to_owned());
                continue;
            }
            other if other.starts_with("option.") => {
                extra.extend(option_args(&what, &other["option.".len()..], value)?);
                continue;
            }
            other => return Err(BotListError::UnknownKey { bot, key: other.to_owned() }),
        };
        if slot.replace(value.to_owned()).is_some() {
            return Err(BotListError::Repeated { bot, key });
        }
    }
    let cmd = cmd.ok_or_else(|| BotListError::NoCommand { what: what.clone() })?;
    let clock = clock(&what, tc.as_deref(), st.as_deref())?;
    Ok(Bot { spec: spec(&what, name, &cmd, extra, dir.map(PathBuf::from))?, clock })
}

/// `option.NAME=VALUE` as the arguments `--NAME VALUE`.
fn option_args(what: &str, name: &str, value: &str) -> Result<[String; 2], BotListError> {
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(BotListError::BadValue {
            what: what.to_owned(),
            message: format!("option.{name}: an option name is letters, digits, - and _"),
        });
    }
    Ok([format!("--{name}"), value.to_owned()])
}

/// The bot's own clock from `tc=` or `st=` (not both).
fn clock(what: &str, tc: Option<&str>, st: Option<&str>) -> Result<Option<BotClock>, BotListError> {
    let bad = |message: String| BotListError::BadValue { what: what.to_owned(), message };
    match (tc, st) {
        (Some(_), Some(_)) => Err(bad("give tc= (a clock) or st= (a time per move), not both".to_owned())),
        (Some(tc), None) => {
            let (base, increment) = crate::units::parse_tc(tc).map_err(|e| bad(format!("tc={tc}: {e}")))?;
            Ok(Some(BotClock::Fischer { base, increment }))
        }
        (None, Some(st)) => {
            let t = crate::units::parse_positive_duration(st).map_err(|e| bad(format!("st={st}: {e}")))?;
            Ok(Some(BotClock::MoveTime(t)))
        }
        (None, None) => Ok(None),
    }
}

fn spec(
    what: &str,
    name: Option<String>,
    command: &str,
    extra: Vec<String>,
    dir: Option<PathBuf>,
) -> Result<BotSpec, BotListError> {
    let bad = |message: String| BotListError::BadCommand {
        what: what.to_owned(),
        command: command.to_owned(),
        message,
    };
    let mut words =
        shell_words::split(command).map_err(|e| bad(format!("cannot split it into words: {e}")))?;
    if words.is_empty() {
        return Err(bad("the command line is empty".to_owned()));
    }
    let program = crate::preflight::resolve_self(words.remove(0));
    words.extend(extra);
    let mut spec = BotSpec { name, program, args: words, dir };
    spec.name = Some(spec.display_name());
    Ok(spec)
}

/// The bots of a config file. A relative `dir` is taken from the file's folder.
///
/// # Errors
/// An unreadable or invalid file, or a bad command.
pub fn read_config(path: &Path) -> Result<Vec<Bot>, BotListError> {
    let json = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => true,
        Some("toml") => false,
        _ => return Err(BotListError::UnknownFormat(path.to_path_buf())),
    };
    let text = std::fs::read_to_string(path)
        .map_err(|source| BotListError::Read { path: path.to_path_buf(), source })?;
    let parse_error =
        |format, message: String| BotListError::Parse { path: path.to_path_buf(), format, message };
    let config: ConfigFile = if json {
        serde_json::from_str(&text).map_err(|e| parse_error("JSON", e.to_string()))?
    } else {
        toml::from_str(&text).map_err(|e| parse_error("TOML", e.to_string()))?
    };
    let base = path.parent().unwrap_or(Path::new(""));
    config
        .bots
        .into_iter()
        .enumerate()
        .map(|(i, bot)| {
            let what = format!("{} bot #{}", path.display(), i + 1);
            let dir = bot.dir.map(|d| if d.is_relative() { base.join(d) } else { d });
            let mut args = bot.args;
            for (name, value) in &bot.options {
                args.extend(option_args(&what, name, value)?);
            }
            let clock = clock(&what, bot.tc.as_deref(), bot.st.as_deref())?;
            Ok(Bot { spec: spec(&what, bot.name, &bot.cmd, args, dir)?, clock })
        })
        .collect()
}

/// All bots: those of the config file (if any), then those of `--bot`, with distinct names.
///
/// # Errors
/// Any error of the file or the words, or two bots with one name.
pub fn collect(config: Option<&Path>, bot_words: &[Vec<String>]) -> Result<Vec<Bot>, BotListError> {
    let mut bots = match config {
        Some(path) => read_config(path)?,
        None => Vec::new(),
    };
    for (i, words) in bot_words.iter().enumerate() {
        bots.push(parse_bot(i + 1, words)?);
    }
    let mut names = std::collections::HashSet::new();
    for bot in &bots {
        let name = bot.spec.display_name();
        if !names.insert(name.clone()) {
            return Err(BotListError::DuplicateName(name));
        }
    }
    Ok(bots)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn bot_words_make_a_spec() {
        let spec = parse_bot_words(
            1,
            &words(&["name=fast", "cmd=python3 'my bot.py' -q", "arg=--depth=3", "dir=bots"]),
        )
        .unwrap();
        assert_eq!(spec.name.as_deref(), Some("fast"));
        assert_eq!(spec.program, "python3");
        assert_eq!(spec.args, words(&["my bot.py", "-q", "--depth=3"]));
        assert_eq!(spec.dir, Some(PathBuf::from("bots")));
        let unnamed = parse_bot_words(1, &words(&["cmd=/opt/bots/alpha --x"])).unwrap();
        assert_eq!(unnamed.name.as_deref(), Some("alpha"));
    }

    #[test]
    fn bad_bot_words_are_named() {
        let err = |w: &[&str]| parse_bot_words(2, &words(w)).unwrap_err().to_string();
        assert!(err(&["name=x"]).contains("--bot #2: no command"));
        assert!(err(&["cmd=a", "colour=red"]).contains("unknown key \"colour\""));
        assert!(err(&["cmd=a", "cmd=b"]).contains("cmd= is given twice"));
        assert!(err(&["cmd=a", "oops"]).contains("\"oops\" is not KEY=VALUE"));
        assert!(err(&["cmd="]).contains("empty"));
        assert!(err(&["cmd=a 'b"]).contains("cannot split"));
    }

    #[test]
    fn config_files_in_json_and_toml() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let json = dir.join("bots.json");
        std::fs::write(
            &json,
            r#"{"bots": [{"name": "a", "cmd": "bot-a --x", "dir": "sub"}, {"cmd": "bot-b"}]}"#,
        )
        .unwrap();
        let toml_path = dir.join("bots.toml");
        std::fs::write(
            &toml_path,
            "[[bots]]\nname = \"a\"\ncmd = \"bot-a --x\"\ndir = \"sub\"\n\n[[bots]]\ncmd = \"bot-b\"\n",
        )
        .unwrap();
        let from_json = collect(Some(&json), &[]).unwrap();
        let from_toml = collect(Some(&toml_path), &[]).unwrap();
        assert_eq!(from_json, from_toml);
        assert_eq!(from_json[0].spec.dir, Some(dir.join("sub")));
        assert_eq!(from_json[1].spec.name.as_deref(), Some("bot-b"));

        let both = collect(Some(&json), &[words(&["name=c", "cmd=bot-c"])]).unwrap();
        assert_eq!(both.len(), 3);
        let dup = collect(Some(&json), &[words(&["name=a", "cmd=bot-c"])]).unwrap_err();
        assert!(dup.to_string().contains("two bots are named \"a\""));

        std::fs::write(&json, r#"{"bots": [{"cmd": "x", "colour": 1}]}"#).unwrap();
        assert!(collect(Some(&json), &[]).unwrap_err().to_string().contains("not valid JSON"));
        let yaml = dir.join("bots.yaml");
        assert!(matches!(read_config(&yaml), Err(BotListError::UnknownFormat(_))));
        std::fs::write(
            &toml_path,
            "[[bots]]\ncmd = \"x\"\ntc = \"5+0.05\"\n[bots.options]\ndepth = \"3\"\nhash = \"16\"\n",
        )
        .unwrap();
        let with_options = collect(Some(&toml_path), &[]).unwrap();
        assert_eq!(with_options[0].spec.args, words(&["--depth", "3", "--hash", "16"]));
        let five = BotClock::Fischer { base: Duration::from_secs(5), increment: Duration::from_millis(50) };
        assert_eq!(with_options[0].clock, Some(five));
    }

    #[test]
    fn options_and_clocks_in_bot_words() {
        let bot = parse_bot(1, &words(&["cmd=eng --x", "option.depth=4", "arg=-q", "tc=2+0.05"])).unwrap();
        assert_eq!(bot.spec.args, words(&["--x", "--depth", "4", "-q"]));
        let two = BotClock::Fischer { base: Duration::from_secs(2), increment: Duration::from_millis(50) };
        assert_eq!(bot.clock, Some(two));
        let timed = parse_bot(1, &words(&["cmd=eng", "st=0.2"])).unwrap();
        assert_eq!(timed.clock, Some(BotClock::MoveTime(Duration::from_millis(200))));
        let tc = timed.clock.unwrap().time_control(Duration::from_secs(5), Duration::ZERO);
        assert_eq!((tc.base, tc.move_time), (None, Some(Duration::from_millis(200))));
        let err = |w: &[&str]| parse_bot(3, &words(w)).unwrap_err().to_string();
        assert!(err(&["cmd=e", "tc=10"]).contains("--bot #3: tc=10"), "{}", err(&["cmd=e", "tc=10"]));
        assert!(err(&["cmd=e", "st=0"]).contains("st=0"));
        assert!(err(&["cmd=e", "tc=1+0", "st=1"]).contains("not both"));
        assert!(err(&["cmd=e", "option.=1"]).contains("option name"));
        assert!(err(&["cmd=e", "option.a b=1"]).contains("option name"));
    }
}
