//! `bao-referee tournament` and `merge` with the real binary and the sample bots.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Scratch, bin, describe};

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> Scratch {
    Scratch::dir(&format!("tournament-{name}"))
}

/// `--bot` words for a sample bot; `mark` is a distinctive seed that tells its processes apart in /proc.
fn bot(name: &str, kind: &str, mark: u64) -> Vec<String> {
    let referee = bin("bao-referee");
    vec![
        "--bot".to_owned(),
        format!("name={name}"),
        format!("cmd='{}'", referee.display()),
        "arg=sample-bot".to_owned(),
        format!("arg={kind}"),
        "arg=--seed".to_owned(),
        format!("arg={mark}"),
    ]
}

/// A tournament command with short games.
fn tournament(out: &Path, bots: &[Vec<String>], extra: &[&str]) -> Command {
    let mut cmd = Command::new(bin("bao-referee"));
    cmd.arg("tournament");
    for words in bots {
        cmd.args(words);
    }
    if !extra.contains(&"--tc") {
        cmd.args(["--tc", "10+0.1"]);
    }
    cmd.args(["--max-plies", "40", "--concurrency", "2", "--plain", "--out"]).arg(out).args(extra);
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null()).output().unwrap()
}

/// The journal's lines as JSON (a torn last line would fail here: completed runs have none).
fn journal(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The counted (not aborted) game numbers, asserting that none is counted twice.
fn counted_games(entries: &[Value]) -> BTreeSet<u64> {
    let mut games = BTreeSet::new();
    for e in entries.iter().filter(|e| e["reason"] != "aborted") {
        assert!(games.insert(e["game"].as_u64().unwrap()), "game {} counted twice", e["game"]);
    }
    games
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every counted game's log verifies with `bao-referee verify`, and the journal says so.
fn assert_logs_verify(dir: &Path, entries: &[Value]) {
    for e in entries.iter().filter(|e| e["reason"] != "aborted") {
        assert_eq!(e["verified"], true, "{e}");
        let log = dir.join(e["log"].as_str().unwrap());
        let out = Command::new(bin("bao-referee")).arg("verify").arg(&log).output().unwrap();
        assert!(out.status.success(), "{}: {}", log.display(), describe(&out));
    }
}

/// The games the plan in `dir` schedules for its shard.
fn planned_games(dir: &Path) -> BTreeSet<u64> {
    let plan = read_json(&dir.join("plan.json"));
    let shard = &plan["shard"];
    (0..plan["games"].as_u64().unwrap())
        .filter(|g| {
            shard.is_null()
                || (g / 2) % shard["count"].as_u64().unwrap() == shard["index"].as_u64().unwrap() - 1
        })
        .collect()
}

/// Processes whose command line contains `needle` (other than this test process).
fn processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if pid == std::process::id() {
            continue;
        }
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// Waits until `check` holds, or panics after `limit`.
fn wait_for(limit: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the referee has journaled a game (and has not exited).
fn wait_for_first_game(child: &mut Child, out: &Path) {
    wait_for(Duration::from_secs(60), "the first journal line", || {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the referee exited with {status} before the first game was journaled");
        }
        !journal(out).is_empty()
    });
}

/// Waits for a child to exit, killing it after `limit`.
fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the referee did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, sig).unwrap();
}

#[test]
fn a_round_robin_of_three_bots_plays_every_pairing_in_both_colours() {
    let dir = scratch("round-robin");
    let out = dir.join("t");
    let bots = [bot("r1", "random", 1), bot("r2", "random", 2), bot("g", "greedy", 3)];
    let result = run(tournament(&out, &bots, &["--games", "2", "--rounds", "2", "--json"]));
    assert!(result.status.success(), "{}", describe(&result));

    // 3 pairings x 2 rounds x 2 games.
    let entries = journal(&out);
    assert_eq!(entries.len(), 12);
    assert_eq!(counted_games(&entries), (0..12).collect());
    for name in ["r1", "r2", "g"] {
        let south = entries.iter().filter(|e| e["south"] == name).count();
        let north = entries.iter().filter(|e| e["north"] == name).count();
        assert_eq!((south, north), (4, 4), "{name} plays each colour equally often");
    }
    // Each pair: the same opening, colours swapped.
    for pair in 0..6u64 {
        let games: Vec<&Value> = entries.iter().filter(|e| e["pair"] == pair).collect();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0]["south"], games[1]["north"]);
        assert_eq!(games[0]["opening"], games[1]["opening"]);
    }
    assert_logs_verify(&out, &entries);

    let results = read_json(&out.join("results.json"));
    let printed: Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(printed, results, "--json prints what results.json holds");
    assert_eq!(results["games_planned"], 12);
    assert_eq!(results["games_counted"], 12);
    assert_eq!(results["complete"], true);
    assert_eq!(results["pairings"].as_array().unwrap().len(), 3);
    assert_eq!(results["standings"].as_array().unwrap().len(), 3);
    let score: f64 =
        results["standings"].as_array().unwrap().iter().map(|s| s["score"].as_f64().unwrap()).sum();
    assert!((score - 12.0).abs() < 1e-9, "the scores add up to the games played: {score}");
    assert!(results["worst_lag_ms"].as_f64().is_some());

    // Running again on the finished folder plays nothing more.
    let again = run(tournament(&out, &bots, &["--games", "2", "--rounds", "2"]));
    assert!(again.status.success(), "{}", describe(&again));
    assert_eq!(journal(&out).len(), 12);

    // Another plan in the same folder is refused, naming the difference.
    let other = run(tournament(&out, &bots, &["--games", "2", "--rounds", "2", "--seed", "9"]));
    assert_eq!(other.status.code(), Some(2), "{}", describe(&other));
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(stderr.contains("differs at seed: 0 vs 9"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_seed_gives_the_same_schedule_and_openings() {
    let dir = scratch("seed");
    let bots = [bot("a", "random", 11), bot("b", "random", 12), bot("c", "greedy", 13)];
    let plan = |seed: &str| {
        let out = run(tournament(
            &dir.join("unused"),
            &bots,
            &["--games", "4", "--rounds", "3", "--openings", "random:6", "--seed", seed, "--dry-run"],
        ));
        assert!(out.status.success(), "{}", describe(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let first = plan("42");
    assert_eq!(first, plan("42"));
    let mut other = plan("43");
    assert_eq!(other["seed"], 43);
    other["seed"] = first["seed"].clone();
    // The plan holds the schedule's and the openings' parameters, not a list of games.
    assert_eq!(first, other, "only the seed differs");
    assert_eq!(first["games"], 3 * 3 * 4);
    assert_eq!(first["opening_source"], "random:6");
    assert!(first.get("schedule").is_none() && first.get("book").is_none(), "{first}");
    assert!(!dir.join("unused").exists(), "--dry-run writes nothing");

    // A real run stores exactly that plan.
    let out = dir.join("t");
    let played =
        run(tournament(&out, &bots[..2], &["--games", "2", "--openings", "random:6", "--seed", "42"]));
    assert!(played.status.success(), "{}", describe(&played));
    let dry = run(tournament(
        &dir.join("unused"),
        &bots[..2],
        &["--games", "2", "--openings", "random:6", "--seed", "42", "--dry-run"],
    ));
    assert_eq!(read_json(&out.join("plan.json")), serde_json::from_slice::<Value>(&dry.stdout).unwrap());
    // Both games of the pair start from the random opening, which is not the start position.
    let entries = journal(&out);
    let start = Command::new(bin("bao-referee")).args(["rules", "start", "kiswahili"]).output().unwrap();
    let start = String::from_utf8(start.stdout).unwrap();
    let starts: Vec<Value> = entries
        .iter()
        .map(|e| {
            let log = std::fs::read_to_string(out.join(e["log"].as_str().unwrap())).unwrap();
            let header: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
            assert_ne!(header["start"].as_str().unwrap(), start.trim());
            header["start"].clone()
        })
        .collect();
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0], starts[1], "both games of a pair start from its opening");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_tournament_resumes_without_losing_or_repeating_games() {
    let dir = scratch("resume");
    let out = dir.join("t");
    let mark = 900_000_021;
    let bots = [bot("r", "random", mark), bot("g", "greedy", mark + 1)];
    let args = ["--games", "30"];
    let mut child = tournament(&out, &bots, &args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_first_game(&mut child, &out);
    signal(&child, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    let before = journal(&out).len();
    assert!(before < 30, "the kill came before the end ({before} games)");

    let resumed = run(tournament(&out, &bots, &[&args[..], &["--resume"]].concat()));
    assert!(resumed.status.success(), "{}", describe(&resumed));
    let entries = journal(&out);
    assert_eq!(counted_games(&entries), planned_games(&out));
    assert_eq!(counted_games(&entries).len(), 30);
    assert_logs_verify(&out, &entries);
    assert_eq!(read_json(&out.join("results.json"))["games_counted"], 30);

    // --resume with only the folder uses the stored plan.
    let again = run({
        let mut cmd = Command::new(bin("bao-referee"));
        cmd.args(["tournament", "--resume", "--plain", "--out"]).arg(&out);
        cmd
    });
    assert!(again.status.success(), "{}", describe(&again));
    assert_eq!(journal(&out).len(), entries.len());
    wait_for(Duration::from_secs(10), "the killed run's bots to exit", || {
        processes_with(&mark.to_string()).is_empty()
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merged_cover_the_unsharded_schedule_exactly() {
    let dir = scratch("shards");
    let bots = [bot("r", "random", 31), bot("g", "greedy", 32), bot("x", "random", 33)];
    let args = ["--games", "2", "--rounds", "2", "--openings", "random:4", "--seed", "7"];
    for shard in ["1/2", "2/2"] {
        let out = dir.join(format!("shard-{}", &shard[..1]));
        let played = run(tournament(&out, &bots, &[&args[..], &["--shard", shard]].concat()));
        assert!(played.status.success(), "{}", describe(&played));
        assert_eq!(counted_games(&journal(&out)), planned_games(&out));
    }
    let (one, two) = (dir.join("shard-1"), dir.join("shard-2"));
    let shard_one: BTreeSet<u64> = counted_games(&journal(&one));
    let shard_two: BTreeSet<u64> = counted_games(&journal(&two));
    assert!(shard_one.is_disjoint(&shard_two));

    let merged_dir = dir.join("merged");
    let merged = Command::new(bin("bao-referee"))
        .arg("merge")
        .arg(&one)
        .arg(&two)
        .arg("--out")
        .arg(&merged_dir)
        .arg("--json")
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", describe(&merged));
    let dry = run(tournament(&dir.join("unused"), &bots, &[&args[..], &["--dry-run"]].concat()));
    let unsharded: Value = serde_json::from_slice(&dry.stdout).unwrap();
    assert_eq!(read_json(&merged_dir.join("plan.json")), unsharded, "the merged plan is the unsharded plan");
    let entries = journal(&merged_dir);
    let all: BTreeSet<u64> = (0..unsharded["games"].as_u64().unwrap()).collect();
    assert_eq!(counted_games(&entries), all);
    assert_eq!(shard_one.union(&shard_two).copied().collect::<BTreeSet<u64>>(), all);
    assert_logs_verify(&merged_dir, &entries);
    let results: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(results, read_json(&merged_dir.join("results.json")));
    assert_eq!(results["games_counted"], 12);
    assert_eq!(results["complete"], true);

    // One shard alone is incomplete; a shard twice has duplicates.
    let alone = Command::new(bin("bao-referee")).arg("merge").arg(&one).output().unwrap();
    assert_eq!(alone.status.code(), Some(1), "{}", describe(&alone));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("missing: 6 game(s)"), "{}", describe(&alone));
    let twice = Command::new(bin("bao-referee")).arg("merge").arg(&one).arg(&one).arg(&two).output().unwrap();
    assert_eq!(twice.status.code(), Some(1), "{}", describe(&twice));
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains("duplicate: game 0 is in"),
        "{}",
        describe(&twice)
    );

    // A journal's `verified` is not taken on trust: a log edited after the run does not merge.
    let entry = journal(&one).into_iter().find(|e| e["reason"] != "aborted").unwrap();
    let log = one.join(entry["log"].as_str().unwrap());
    let text = std::fs::read_to_string(&log).unwrap();
    let edited = text.replacen(r#""clock_ms":["#, r#""clock_ms":[1,999999],"was":["#, 1);
    assert_ne!(edited, text);
    std::fs::write(&log, &edited).unwrap();
    let tampered = Command::new(bin("bao-referee")).arg("merge").arg(&one).arg(&two).output().unwrap();
    assert_eq!(tampered.status.code(), Some(1), "{}", describe(&tampered));
    let stderr = String::from_utf8_lossy(&tampered.stderr);
    assert!(stderr.contains(&format!("does not verify: game {}", entry["game"])), "{}", describe(&tampered));
    assert!(stderr.contains("clock_ms is [1, 999999]"), "{}", describe(&tampered));
    std::fs::write(&log, &text).unwrap();

    // Another tournament's shard does not merge.
    let other = dir.join("other");
    let played =
        run(tournament(&other, &bots, &["--games", "2", "--rounds", "2", "--seed", "8", "--shard", "2/2"]));
    assert!(played.status.success(), "{}", describe(&played));
    let mixed_out = dir.join("mixed");
    let mixed = Command::new(bin("bao-referee"))
        .arg("merge")
        .arg(&one)
        .arg(&other)
        .arg("--out")
        .arg(&mixed_out)
        .output()
        .unwrap();
    assert_eq!(mixed.status.code(), Some(2), "{}", describe(&mixed));
    assert!(
        String::from_utf8_lossy(&mixed.stderr).contains("hold different tournaments"),
        "{}",
        describe(&mixed)
    );
    assert!(!mixed_out.exists(), "nothing is written before every plan and journal line is checked");
    // A journal line that is not a game of its shard is found before anything is written.
    let foreign_out = dir.join("foreign");
    let mut text = std::fs::read_to_string(two.join("journal.jsonl")).unwrap();
    let first_of_one = std::fs::read_to_string(one.join("journal.jsonl")).unwrap();
    text.push_str(first_of_one.lines().next().unwrap());
    text.push('\n');
    std::fs::write(two.join("journal.jsonl"), &text).unwrap();
    let foreign = Command::new(bin("bao-referee"))
        .arg("merge")
        .arg(&one)
        .arg(&two)
        .arg("--out")
        .arg(&foreign_out)
        .output()
        .unwrap();
    assert_eq!(foreign.status.code(), Some(2), "{}", describe(&foreign));
    assert!(
        String::from_utf8_lossy(&foreign.stderr).contains("which is not a game of its plan and shard"),
        "{}",
        describe(&foreign)
    );
    assert!(!foreign_out.exists(), "nothing is written for a journal with a foreign line");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C (SIGINT) stops a tournament like SIGTERM and SIGHUP (tournament/src/signals.rs): the
/// running games are aborted (not counted), no bot is left, and a rerun completes the schedule.
#[test]
fn ctrl_c_aborts_running_games_and_leaves_no_bot() {
    let dir = scratch("ctrl-c");
    let out = dir.join("t");
    let mark = 900_000_041;
    let bots = [bot("r", "random", mark), bot("g", "greedy", mark + 1)];
    let args = ["--games", "40"];
    let mut child = tournament(&out, &bots, &args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_first_game(&mut child, &out);
    signal(&child, nix::sys::signal::Signal::SIGINT);
    let status = wait_exit(&mut child, Duration::from_secs(30));
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("aborting the running games"), "{stderr}");

    let leftovers = processes_with(&mark.to_string());
    assert!(leftovers.is_empty(), "bots left running: {leftovers:?}");
    let entries = journal(&out);
    let counted = counted_games(&entries);
    assert!(counted.len() < 40, "stopped early");
    assert_logs_verify(&out, &entries);
    let results = read_json(&out.join("results.json"));
    assert_eq!(results["games_counted"], counted.len());
    assert_eq!(results["complete"], false);

    // Running the same command again completes the schedule exactly.
    let resumed = run(tournament(&out, &bots, &args));
    assert!(resumed.status.success(), "{}", describe(&resumed));
    assert_eq!(counted_games(&journal(&out)), (0..40).collect());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_ctrl_c_aborts_running_games_and_leaves_no_bot() {
    let dir = scratch("ctrl-c-twice");
    let out = dir.join("t");
    let mark = 900_000_051;
    let tag = format!("tournament-abort-{mark}");
    // A bot that never answers: both games are still running when the second Ctrl-C comes.
    let silent = vec![
        "--bot".to_owned(),
        "name=silent".to_owned(),
        format!("cmd='{}'", bin("bao-misbehave").display()),
        "arg=--mode".to_owned(),
        "arg=never-answer".to_owned(),
        "arg=--tag".to_owned(),
        format!("arg={tag}"),
    ];
    let bots = [bot("r", "random", mark), silent];
    let args = ["--games", "4", "--tc", "3+0"];
    let mut child = tournament(&out, &bots, &args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = |game: u32| {
        std::fs::read_to_string(out.join(format!("games/{game:05}.jsonl")))
            .is_ok_and(|log| log.contains("\n"))
    };
    // A log's header is written before its bots start: wait for the bots themselves too.
    wait_for(Duration::from_secs(30), "two games to start and both silent bots to run", || {
        assert!(child.try_wait().unwrap().is_none(), "the referee exited early");
        started(0) && started(1) && processes_with(&tag).len() >= 2
    });
    signal(&child, nix::sys::signal::Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(100));
    signal(&child, nix::sys::signal::Signal::SIGINT);
    let status = wait_exit(&mut child, Duration::from_secs(10));
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("aborting the running games"), "{stderr}");

    for needle in [tag.clone(), mark.to_string()] {
        let leftovers = processes_with(&needle);
        assert!(leftovers.is_empty(), "bots left running: {leftovers:?}");
    }
    let entries = journal(&out);
    assert_eq!(entries.len(), 2, "{entries:?}");
    for e in &entries {
        assert_eq!(e["reason"], "aborted");
        assert_eq!(e["verified"], true, "an aborted game's log is complete: {e}");
    }
    let results = read_json(&out.join("results.json"));
    assert_eq!((results["games_counted"].as_u64(), results["games_aborted"].as_u64()), (Some(0), Some(2)));

    // Resuming plays the aborted games again, and the rest (the silent bot loses each on time).
    let resumed = run(tournament(&out, &bots, &[&args[..], &["--resume"]].concat()));
    assert!(resumed.status.success(), "{}", describe(&resumed));
    let entries = journal(&out);
    assert_eq!(counted_games(&entries), (0..4).collect());
    assert_logs_verify(&out, &entries);
    assert!(
        entries.iter().filter(|e| e["reason"] != "aborted").all(|e| e["reason"] == "timeout"),
        "{entries:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
