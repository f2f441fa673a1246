//! `--pass-env NAME` under `--isolation full`: the named variables of the referee's
//! environment reach the bot, no other does (the sandbox's environment is otherwise PATH,
//! LANG, HOME and TMPDIR); with another isolation level the option is refused, since the
//! bot gets the whole environment there anyway.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::support::{Scratch, bin};

/// A bot that writes the two variables to its stderr (kept in the game's log), then plays
/// as the sample bot of the referee named by its first argument.
const BOT: &str = "echo \"seen passed=${BAO_E2E_PASSED:-unset} hidden=${BAO_E2E_HIDDEN:-unset}\" >&2\n\
                   exec \"$1\" sample-bot random\n";

/// The bot's stderr lines in the log of a match between it (south) and a sample bot,
/// played with `options` and the referee's environment holding both variables.
fn seen_by_the_bot(options: &[&str], passed: &str) -> (std::process::Output, String) {
    let dir = Scratch::dir("pass-env");
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(dir.join("bot.sh"), BOT).unwrap();
    let log = Scratch::new("pass-env", "game.jsonl");
    let referee = bin("bao-referee").display().to_string();
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--max-plies", "6", "--isolation", "full", "--log"])
        .arg(&*log)
        .args(options)
        .args(["--south", &format!("sh bot.sh {referee}"), "--south-dir"])
        .arg(&*dir)
        .args(["--north", &format!("{referee} sample-bot random")])
        .env("BAO_E2E_PASSED", passed)
        .env("BAO_E2E_HIDDEN", "secret")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr: String = std::fs::read_to_string(&*log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "stderr" && r["side"] == "S")
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect();
    (out, stderr)
}

#[test]
fn pass_env_gives_the_bot_the_variables_named_and_no_other() {
    if !isolation_available("pass_env_gives_the_bot_the_variables_named_and_no_other") {
        return;
    }
    let passed = format!("value-{}", std::process::id());
    let (out, stderr) = seen_by_the_bot(&["--pass-env", "BAO_E2E_PASSED"], &passed);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains(&format!("seen passed={passed} hidden=unset")), "{stderr}");
    // Without the option neither reaches it.
    let (out, stderr) = seen_by_the_bot(&[], &passed);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("seen passed=unset hidden=unset"), "{stderr}");
}

#[test]
fn pass_env_is_refused_without_the_sandbox_and_for_a_bad_name() {
    let referee = bin("bao-referee");
    for (args, says) in [
        (&["match", "--pass-env", "X"][..], "--pass-env applies to --isolation full only (--isolation pid"),
        (&["check", "--isolation", "none", "--pass-env", "X", "true"][..], "--isolation none passes"),
        (&["tournament", "--pass-env", "X", "--bot", "name=a", "cmd=true"][..], "--isolation full only"),
        (
            &["match", "--isolation", "full", "--pass-env", "A=B"][..],
            "not the name of an environment variable",
        ),
    ] {
        let out = Command::new(&referee).args(args).stdin(Stdio::null()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
