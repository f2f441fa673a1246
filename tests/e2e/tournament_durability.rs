//! A tournament folder survives a kill at any moment and a disk that fills: after a SIGKILL
//! during a handshake, after a kill during the first write of `plan.json`, and after a full
//! disk, running the same command again ends with the same results as a run that was never
//! interrupted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Scratch, bin, describe};

/// Games in each tournament of this file.
const GAMES: &str = "6";

/// The `--bot` words of a sample bot that takes `delay` seconds to start (a handshake long
/// enough to be killed in).
fn bot(name: &str, kind: &str, seed: u64, delay: &str) -> Vec<String> {
    let script =
        format!("sleep {delay}; exec '{}' sample-bot {kind} --seed {seed}", bin("bao-referee").display());
    ["--bot", &format!("name={name}"), "cmd=sh", "arg=-c", &format!("arg={script}")]
        .map(str::to_owned)
        .to_vec()
}

fn tournament(out: &Path, delay: &str) -> Command {
    let mut cmd = Command::new(bin("bao-referee"));
    cmd.arg("tournament");
    cmd.args(bot("r", "random", 71, delay)).args(bot("g", "greedy", 72, delay));
    cmd.args(["--games", GAMES, "--tc", "10+0.1", "--max-plies", "40", "--concurrency", "1", "--plain"]);
    cmd.arg("--out").arg(out).stdin(Stdio::null());
    cmd
}

/// Each counted game's result and plies, read from the journal (every log verified).
fn results_of(dir: &Path) -> BTreeMap<u64, (String, u64)> {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let mut games = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let e: Value = serde_json::from_str(line).unwrap();
        if e["reason"] == "aborted" {
            continue;
        }
        assert_eq!(e["verified"], true, "{e}");
        let game = e["game"].as_u64().unwrap();
        let previous =
            games.insert(game, (e["result"].as_str().unwrap().to_owned(), e["plies"].as_u64().unwrap()));
        assert!(previous.is_none(), "game {game} counted twice");
    }
    games
}

/// The results of the same tournament, never interrupted.
fn uninterrupted(root: &Path, delay: &str) -> BTreeMap<u64, (String, u64)> {
    let out = root.join("uninterrupted");
    let run = tournament(&out, delay).output().unwrap();
    assert!(run.status.success(), "{}", describe(&run));
    let results = results_of(&out);
    assert_eq!(results.len(), 6);
    results
}

fn verify(log: &Path) -> Output {
    Command::new(bin("bao-referee")).arg("verify").arg(log).output().unwrap()
}

fn wait_for(limit: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_tournament_killed_during_a_handshake_leaves_an_incomplete_log_and_resumes_to_the_same_results() {
    let root = Scratch::dir("durable-handshake");
    let expected = uninterrupted(&root, "0.5");
    let out = root.join("killed");
    let mut child = tournament(&out, "0.5").stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let first = out.join("games/00000.jsonl");
    // The header is written before the bots start, which take 0.5 s to answer the hello.
    wait_for(Duration::from_secs(30), "the first log's header", || {
        std::fs::read(&first).is_ok_and(|bytes| bytes.ends_with(b"\n"))
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&first).unwrap();
    assert_eq!(text.lines().count(), 1, "killed during the handshake: {text}");
    let checked = verify(&first);
    assert_eq!(checked.status.code(), Some(1), "{}", describe(&checked));
    assert!(String::from_utf8_lossy(&checked.stderr).contains("incomplete"), "{}", describe(&checked));

    let resumed = tournament(&out, "0.5").output().unwrap();
    assert!(resumed.status.success(), "{}", describe(&resumed));
    assert_eq!(results_of(&out), expected);
    assert!(verify(&first).status.success());
}

#[test]
fn a_tournament_killed_while_it_first_wrote_its_plan_is_started_again() {
    let root = Scratch::dir("durable-plan");
    let expected = uninterrupted(&root, "0");
    // What a kill during the first write of plan.json leaves: the lock, games/, and a
    // temporary file holding part of the plan.
    let out = root.join("killed");
    let dry = tournament(&root.join("unused"), "0").arg("--dry-run").output().unwrap();
    assert!(dry.status.success(), "{}", describe(&dry));
    std::fs::create_dir_all(out.join("games")).unwrap();
    std::fs::write(out.join(".lock"), b"").unwrap();
    std::fs::write(out.join("plan.json.tmp"), &dry.stdout[..dry.stdout.len() / 2]).unwrap();

    let rerun = tournament(&out, "0").output().unwrap();
    assert!(rerun.status.success(), "{}", describe(&rerun));
    assert!(!out.join("plan.json.tmp").exists(), "the temporary file became plan.json");
    assert_eq!(results_of(&out), expected);

    // Without plan.json, anything else in the folder is still refused.
    let foreign = root.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), b"mine").unwrap();
    let refused = tournament(&foreign, "0").output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", describe(&refused));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not a tournament folder"));
}

/// A tmpfs of `bytes` mounted at `dir` (unmounted when dropped).
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, bytes: u64) -> Result<SmallDisk, String> {
        if !nix::unistd::geteuid().is_root() {
            return Err("mounting a tmpfs needs root".to_owned());
        }
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let options = format!("size={bytes}");
        nix::mount::mount(
            Some("tmpfs"),
            dir,
            Some("tmpfs"),
            nix::mount::MsFlags::empty(),
            Some(options.as_str()),
        )
        .map_err(|e| format!("cannot mount a tmpfs on {}: {e}", dir.display()))?;
        Ok(SmallDisk(dir.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = nix::mount::umount2(&self.0, nix::mount::MntFlags::MNT_DETACH);
    }
}

#[test]
fn a_tournament_on_a_disk_that_fills_and_frees_again_resumes_to_the_same_results() {
    let root = Scratch::dir("durable-disk");
    let disk = match SmallDisk::mount(&root.join("disk"), 2048 * 1024) {
        Ok(disk) => disk,
        Err(why) if std::env::var_os("BAO_REQUIRE_ALL").is_some_and(|v| v == "1") => {
            panic!("BAO_REQUIRE_ALL=1: {why}")
        }
        Err(why) => {
            eprintln!(
                "skipped: a_tournament_on_a_disk_that_fills_and_frees_again_resumes_to_the_same_results: {why}"
            );
            return;
        }
    };
    let expected = uninterrupted(&root, "0");
    let out = disk.0.join("t");
    // Leave room for the plan and about two games (each log has its replay page beside it).
    let filler = disk.0.join("filler");
    std::fs::write(&filler, vec![b'x'; (2048 - 120) * 1024]).unwrap();
    let full = tournament(&out, "0").output().unwrap();
    assert_eq!(full.status.code(), Some(3), "the disk filled: {}", describe(&full));
    let stderr = String::from_utf8_lossy(&full.stderr);
    let error = stderr.lines().find(|l| l.starts_with("error:")).unwrap_or_default();
    assert!(error.contains(&out.display().to_string()), "the error names the file: {error}");
    assert_eq!(error.matches("os error 28").count(), 1, "the reason is said once: {error}");

    std::fs::remove_file(&filler).unwrap();
    let resumed = tournament(&out, "0").output().unwrap();
    assert!(resumed.status.success(), "{}", describe(&resumed));
    assert_eq!(results_of(&out), expected);
}
