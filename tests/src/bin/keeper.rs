//! `bao-keeper [--many] [--counter FILE] [--crash-at N] [--leak-mb M] [--salt S]`: a bot of
//! protocol 1.1 for the end-to-end tests of kept processes.
//!
//! It plays a move chosen from the position alone (a hash of its notation and `--salt`), so
//! its games are the same whether its process is new or kept; it keeps a table of the moves it
//! chose (a stand-in for an engine's hash table) across games.
//!
//! - `--many`: its `ready` says `"games":"many"`.
//! - `--counter FILE`: at the first request of each game it appends `PROCESS GAME` to FILE
//!   (PROCESS: a random number drawn when the process starts, which tells processes apart
//!   where their pids do not, in PID namespaces; GAME: the games this process has begun, from
//!   1), so a test sees from outside which process played which game.
//! - `--crash-at N`: it exits (code 3, without answering) at the first request of the game
//!   that makes FILE hold N lines: it crashes in its N-th game of the run, once.
//! - `--leak-mb M`: at the first request of each game it allocates M MiB more, touched and
//!   kept (a leak across games), then waits 300 ms before answering (the supervisor samples
//!   memory).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, Write};

use bao_protocol::RefereeMessage;

struct Options {
    many: bool,
    counter: Option<std::path::PathBuf>,
    crash_at: Option<usize>,
    leak_mb: usize,
    salt: String,
}

fn options() -> Options {
    let mut o = Options { many: false, counter: None, crash_at: None, leak_mb: 0, salt: String::new() };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--many" => o.many = true,
            "--counter" => o.counter = Some(value().into()),
            "--crash-at" => o.crash_at = value().parse().ok(),
            "--leak-mb" => o.leak_mb = value().parse().unwrap_or(0),
            "--salt" => o.salt = value(),
            other => {
                eprintln!("keeper: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    o
}

fn main() {
    let o = options();
    let mut out = std::io::stdout().lock();
    let mut games = 0usize;
    let mut table: HashMap<String, String> = HashMap::new();
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    let process =
        std::hash::BuildHasher::build_hasher(&std::collections::hash_map::RandomState::new()).finish();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = RefereeMessage::parse(&line) else {
            eprintln!("keeper: cannot parse {line:?}");
            continue;
        };
        let reply = match message {
            RefereeMessage::Hello(_) => {
                let games_field = if o.many { r#","games":"many""# } else { "" };
                format!(r#"{{"type":"ready","name":"keeper","version":"1"{games_field}}}"#)
            }
            RefereeMessage::MoveRequest(request) => {
                if request.id == 1 {
                    games += 1;
                    eprintln!("keeper: game {games} of process {process:x}");
                    if let Some(path) = &o.counter {
                        let mut file = std::fs::OpenOptions::new()
                            .append(true)
                            .create(true)
                            .open(path)
                            .expect("counter");
                        // One write: the lines of the bot's processes in other slots do not interleave.
                        let line = format!("{process} {games}\n");
                        file.write_all(line.as_bytes()).expect("counter written");
                        drop(file);
                        let lines = std::fs::read_to_string(path).map_or(0, |t| t.lines().count());
                        if o.crash_at == Some(lines) {
                            eprintln!("keeper: crashing in game {lines} of the run");
                            std::process::exit(3);
                        }
                    }
                    if o.leak_mb > 0 {
                        hoard.push(vec![1u8; o.leak_mb << 20]);
                        std::hint::black_box(&hoard);
                        std::thread::sleep(std::time::Duration::from_millis(300));
                    }
                }
                let notation = request.position.notation.clone();
                let mv = table
                    .entry(notation)
                    .or_insert_with_key(|notation| {
                        let mut hasher = DefaultHasher::new();
                        (notation, &o.salt).hash(&mut hasher);
                        let pick = usize::try_from(hasher.finish() % request.legal.len() as u64).unwrap_or(0);
                        request.legal[pick].clone()
                    })
                    .clone();
                format!(r#"{{"type":"move","id":{},"move":"{mv}"}}"#, request.id)
            }
            RefereeMessage::GameOver(_) => continue,
            RefereeMessage::Quit => return,
        };
        let _ = out.write_all(reply.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}
