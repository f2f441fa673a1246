//! The bots' private `TMPDIR`s in a tournament, which reuses them from game to game
//! (`bao_supervise::PrivateTmpReuse`): every bot finds its own empty, mode-700 directory,
//! whatever the bot before it left there, and nothing is left once the tournament is over.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const REFEREE: &str = env!("CARGO_BIN_EXE_bao-referee");

/// A bot that reports what its `TMPDIR` held when it started, then leaves files, a folder
/// and a world-writable mode there; it plays the first legal move.
const BOT: &str = r#"
import json, os, sys
tmp = os.environ["TMPDIR"]
seen = sorted(os.listdir(tmp))
mode = os.stat(tmp).st_mode & 0o7777
os.makedirs(os.path.join(tmp, "sub", "deeper"))
with open(os.path.join(tmp, "sub", "deeper", "left"), "w") as f:
    f.write("secret of %d" % os.getpid())
with open(os.path.join(tmp, "left"), "w") as f:
    f.write("x")
os.chmod(tmp, 0o777)
print("report tmpdir=%s mode=%o seen=%s" % (tmp, mode, ",".join(seen) or "-"), file=sys.stderr, flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "py", "author": "tests", "version": "1"}), flush=True)
    elif m["type"] == "move_request":
        print(json.dumps({"type": "move", "id": m["id"], "move": m["legal"][0]}), flush=True)
    elif m["type"] == "quit":
        break
"#;

fn have_python3(test: &str) -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        let why = format!("{test}: skipped: `python3` is not installed");
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
        eprintln!("{why}");
    }
    found
}

/// The `report` lines of the bots' stderr in every game log of `out`: `tmpdir -> [(mode, seen)]`.
fn reports(out: &Path) -> BTreeMap<PathBuf, Vec<(String, String)>> {
    let mut by_dir: BTreeMap<PathBuf, Vec<(String, String)>> = BTreeMap::new();
    let games = std::fs::read_dir(out.join("games")).expect("a games folder");
    for log in games.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        for line in std::fs::read_to_string(&log).expect("a log").lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("a record");
            if record["type"] != "stderr" {
                continue;
            }
            for report in record["text"].as_str().unwrap_or("").lines().filter(|l| l.starts_with("report ")) {
                let field = |name: &str| {
                    report
                        .split(&format!(" {name}="))
                        .nth(1)
                        .and_then(|r| r.split(' ').next())
                        .unwrap_or_else(|| panic!("no {name}: {report}"))
                        .to_owned()
                };
                by_dir
                    .entry(PathBuf::from(field("tmpdir")))
                    .or_default()
                    .push((field("mode"), field("seen")));
            }
        }
    }
    by_dir
}

#[test]
fn every_bot_gets_an_empty_private_tmpdir_and_none_is_left_after_the_tournament() {
    let test = "every_bot_gets_an_empty_private_tmpdir_and_none_is_left_after_the_tournament";
    if !have_python3(test) {
        return;
    }
    let scratch = tempfile::Builder::new().prefix("bao-tmpdirs-").tempdir().expect("a scratch folder");
    let bot = scratch.path().join("bot.py");
    std::fs::write(&bot, BOT).expect("the bot");
    let out = scratch.path().join("out");
    let cmd = format!("cmd=python3 {}", bot.display());
    let run = Command::new(REFEREE)
        .args(["tournament", "--bot", "name=a", &cmd, "--bot", "name=b", &cmd])
        .args(["--games", "8", "--max-plies", "4", "--tc", "60s+1s", "--plain", "--out"])
        .arg(&out)
        .stdin(Stdio::null())
        .output()
        .expect("the referee runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));

    let by_dir = reports(&out);
    let bots: usize = by_dir.values().map(Vec::len).sum();
    assert_eq!(bots, 16, "two bots a game: {by_dir:?}");
    for (dir, seen) in &by_dir {
        for (mode, entries) in seen {
            assert_eq!(
                (mode.as_str(), entries.as_str()),
                ("700", "-"),
                "{} when a bot started",
                dir.display()
            );
        }
        assert!(!dir.exists(), "{} is left after the tournament", dir.display());
    }
    assert!(by_dir.len() < bots, "the directories are reused from game to game: {by_dir:?}");

    // Nothing of this referee's (named after its pid) is left in the temporary directory.
    let owners: BTreeSet<String> = by_dir
        .keys()
        .filter_map(|d| {
            d.file_name()?.to_str()?.strip_prefix("bao-bot-")?.split('-').next().map(str::to_owned)
        })
        .collect();
    assert_eq!(owners.len(), 1, "one referee: {owners:?}");
    let owner = owners.first().expect("one");
    let parent = by_dir.keys().next().and_then(|d| d.parent()).expect("a parent").to_path_buf();
    let left: Vec<String> = std::fs::read_dir(&parent)
        .expect("the temporary directory")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.starts_with(&format!("bao-bot-{owner}-")))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "left in {}", parent.display());
}
