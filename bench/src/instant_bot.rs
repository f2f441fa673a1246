//! The C instant bot of the outside benchmarks (`bench/bots/instant.c`): its source is built
//! into `bao-bench` and compiled with the system C compiler at run time.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

/// The bot's C source.
pub const SOURCE: &str = include_str!("../bots/instant.c");

/// Writes the source into `dir` and compiles it there with `cc -O2` (`compiler` replaces
/// `cc`); returns the executable's path.
///
/// # Errors
/// The source cannot be written, or the compiler is missing or fails (its output is shown).
pub fn compile(dir: &Path, compiler: &str) -> anyhow::Result<PathBuf> {
    let source = dir.join("instant.c");
    let exe = dir.join("instant");
    std::fs::write(&source, SOURCE).with_context(|| format!("cannot write {}", source.display()))?;
    let output = Command::new(compiler)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .with_context(|| format!("cannot run the C compiler {compiler:?} (install one, or pass --cc)"))?;
    if !output.status.success() {
        anyhow::bail!(
            "{compiler} could not compile {}: {}\n{}",
            source.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(exe)
}

/// What one instant bot wrote to its `--times` file at exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotTimes {
    /// Its pid.
    pub pid: u32,
    /// Move requests it answered.
    pub requests: u64,
    /// Its own CPU time (user + system), µs, including the re-exec stub's work before `exec`.
    pub cpu_us: u64,
    /// The times between two successive move requests it received (two ply cycles), ns.
    pub intervals_ns: Vec<u64>,
}

/// Parses a `--times` file: one line per bot, `PID REQUESTS CPU_US INTERVAL_NS...`.
///
/// # Errors
/// A line that does not have that form (named by its number).
pub fn parse_times(text: &str) -> anyhow::Result<Vec<BotTimes>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let bad = || {
                format!(
                    "line {} of the bots' times file is not `PID REQUESTS CPU_US INTERVAL_NS...`: {line:?}",
                    index + 1
                )
            };
            let mut numbers = line.split_ascii_whitespace().map(str::parse::<u64>);
            let mut next = || numbers.next().with_context(bad)?.with_context(bad);
            let pid = u32::try_from(next()?).with_context(bad)?;
            let requests = next()?;
            let cpu_us = next()?;
            let intervals_ns = numbers.collect::<Result<Vec<u64>, _>>().with_context(bad)?;
            Ok(BotTimes { pid, requests, cpu_us, intervals_ns })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_times_lines_and_names_a_bad_one() {
        let times = parse_times("12 3 450 1000 2000\n\n13 1 99\n").expect("two lines");
        assert_eq!(
            times,
            [
                BotTimes { pid: 12, requests: 3, cpu_us: 450, intervals_ns: vec![1000, 2000] },
                BotTimes { pid: 13, requests: 1, cpu_us: 99, intervals_ns: vec![] },
            ]
        );
        for bad in ["12 3\n", "12 x 4\n", "1 2 3 4.5\n"] {
            let error = parse_times(bad).expect_err(bad);
            assert!(format!("{error:#}").contains("line 1"), "{error:#}");
        }
    }

    /// Compiles the bot (skipped without a C compiler unless `BAO_REQUIRE_ALL=1`) and plays
    /// one exchange with it.
    #[test]
    fn the_compiled_bot_answers_the_first_legal_move_and_reports_its_times() {
        use std::io::Write as _;
        let compiler_found = Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success());
        if !compiler_found {
            assert!(
                std::env::var_os("BAO_REQUIRE_ALL").is_none_or(|v| v != "1"),
                "BAO_REQUIRE_ALL=1 but no `cc`"
            );
            eprintln!("skipped: no C compiler `cc` on PATH");
            return;
        }
        let dir = std::env::temp_dir().join(format!("bao-bench-instant-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let exe = compile(&dir, "cc").expect("compiles");
        let times = dir.join("times");
        let mut child = Command::new(&exe)
            .arg("--times")
            .arg(&times)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("starts");
        let input = concat!(
            "{\"type\":\"hello\"}\n",
            "{\"type\":\"move_request\",\"id\":7,\"legal\":[\"A5<\",\"B1>\"]}\n",
            "{\"type\":\"move_request\",\"id\":8,\"legal\":[\"B3>+\"]}\n",
            "{\"type\":\"quit\"}\n"
        );
        child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("writes");
        let output = child.wait_with_output().expect("exits");
        assert!(output.status.success());
        let replies: Vec<bao_protocol::BotMessage> = String::from_utf8(output.stdout)
            .expect("utf-8")
            .lines()
            .map(|line| bao_protocol::BotMessage::parse(line).expect("a valid message"))
            .collect();
        let types: Vec<&str> = replies.iter().map(bao_protocol::BotMessage::message_type).collect();
        assert_eq!(types, ["ready", "move", "move"]);
        let moves: Vec<(u64, &str)> = replies
            .iter()
            .filter_map(|m| match m {
                bao_protocol::BotMessage::Move(reply) => Some((reply.id, reply.move_text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(moves, [(7, "A5<"), (8, "B3>+")]);
        let reported = parse_times(&std::fs::read_to_string(&times).expect("times written")).expect("parses");
        assert_eq!(reported.len(), 1);
        assert_eq!((reported[0].requests, reported[0].intervals_ns.len()), (2, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
