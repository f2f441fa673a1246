//! Honest bots in Python, Node, C++, Java and Rust still build (with the default
//! build commands, in the sandbox), pass the gate and play games.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{Arena, FAST, get, settle, submit, wait_for};

/// The Java kit's class is `Bot`: the test arena offers it as a language of its own.
const JAVA_KIT: &str = "name = \"java-kit\"
description = \"test: the Java kit (class Bot)\"
main = \"Bot.java\"
build = \"javac -J-Xmx512m -proc:none -d classes ./*.java\"
run = \"java -Xmx256m -Xss16m -cp classes Bot\"

[[languages]]
name = \"executable\"";

fn kit(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The toolchain folder of `rustc` (where rustup keeps it), which the sandbox is
/// given read-only, and the compiler in it.
fn rust_toolchain() -> (String, String) {
    let out = Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let sysroot = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    let rustc = format!("{sysroot}/bin/rustc");
    assert!(Path::new(&rustc).is_file(), "no {rustc}");
    (sysroot, rustc)
}

pub fn honest_bots_build_and_play_in_every_language() {
    let (sysroot, rustc) = rust_toolchain();
    let rust_build = format!("build = \"{rustc} -O --edition 2021 -o bot ./main.rs\"");
    let mut edits = FAST.to_vec();
    edits.push(("name = \"executable\"", JAVA_KIT));
    edits.push(("queued_per_user = 4", "queued_per_user = 5"));
    edits.push(("build = \"rustc -O --edition 2021 -o bot ./main.rs\"", &rust_build));
    let arena = Arena::new_with_paths(&["admin", "kits"], &edits, &[Path::new(&sysroot)]);
    let server = crate::support::Server::start(&arena.data());
    let t = &arena.tokens[1];
    let bots: [(&str, &str, &str, Vec<u8>); 5] = [
        ("py", "python", "random_bot.py", kit("sample-bots/python/random_bot.py")),
        ("js", "node", "bot.js", kit("sample-bots/js/bot.js")),
        ("cpp", "cpp", "bot.cpp", kit("sample-bots/cpp/bot.cpp")),
        ("java", "java-kit", "Bot.java", kit("sample-bots/java/Bot.java")),
        ("rs", "rust", "main.rs", include_bytes!("fixtures/first_legal.rs").to_vec()),
    ];
    let mut ids = Vec::new();
    for (bot, language, file, body) in &bots {
        let a = submit(&server, t, bot, language, file, body, "");
        assert_eq!(a.status, 201, "{bot}: {}", a.body);
        ids.push(a.json()["id"].as_i64().expect("id"));
    }
    for ((bot, ..), id) in bots.iter().zip(&ids) {
        let state = settle(&server, *id, 300);
        let v = get(&format!("{}/api/versions/{id}", server.url), Some(t), None).json();
        assert_eq!(
            state,
            "active",
            "{bot}: {}\n{}\n{}",
            v["reason"],
            v["build_log"].as_str().unwrap_or(""),
            v["check_report"].as_str().unwrap_or("")
        );
    }
    // Each plays finished games on the ladder.
    for (bot, ..) in &bots {
        wait_for(240, &format!("a finished game of {bot}"), || {
            let games = get(&format!("{}/api/games?bot={bot}&state=finished", server.url), None, None).json();
            games.as_array().is_some_and(|g: &Vec<Value>| !g.is_empty()).then_some(())
        });
    }
}
