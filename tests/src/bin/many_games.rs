//! `bao-many-games --second MODE`: a bot that says `"games":"many"` in `ready` (protocol 1.1)
//! and plays the first legal move, for the conformance checker's `two-games` tests. `MODE` is
//! what it does in the games after its first:
//!
//! | mode | what it does |
//! |---|---|
//! | `ready` | answers every `hello` with `ready` and plays correctly (a correct bot) |
//! | `exit` | exits with code 0 at the first `game_over`, as a protocol-1 bot may (the classic mistake) |
//! | `silent` | reads the second `hello` and never answers it |
//! | `move` | answers the second `hello` with a `move` line instead of `ready` |
//! | `old-ids` | answers `ready`, then keeps counting request ids from the first game (3 requests in, it answers id 4 to id 1) |
//!
//! `--declare one` leaves `"games"` out of `ready` (a protocol-1 bot; it still plays on if
//! sent another `hello`). `--record FILE` appends every line it reads to FILE, and a line
//! `pid PID` when it starts (for tests to see the exchange, and the processes, from outside).

use std::io::{BufRead, Write};

use bao_protocol::RefereeMessage;

fn main() {
    let mut second = String::from("ready");
    let mut declare = String::from("many");
    let mut record: Option<std::fs::File> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--second" => second = args.next().unwrap_or_default(),
            "--declare" => declare = args.next().unwrap_or_default(),
            "--record" => {
                let path = args.next().unwrap_or_default();
                let file = std::fs::OpenOptions::new().create(true).append(true).open(&path);
                record = Some(file.unwrap_or_else(|e| {
                    eprintln!("many-games: cannot open {path}: {e}");
                    std::process::exit(2);
                }));
            }
            other => {
                eprintln!("many-games: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    if let Some(file) = record.as_mut() {
        let _ = writeln!(file, "pid {}", std::process::id());
    }
    let games_field = if declare == "many" { r#","games":"many""# } else { "" };
    let mut out = std::io::stdout().lock();
    let mut games = 0u32;
    let mut requests = 0u64;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        if let Some(file) = record.as_mut() {
            let _ = writeln!(file, "{line}");
        }
        let Ok(message) = RefereeMessage::parse(&line) else {
            eprintln!("many-games: cannot parse {line:?}");
            continue;
        };
        let reply = match message {
            RefereeMessage::Hello(hello) => {
                games += 1;
                eprintln!("many-games: game {games}: playing {:?} in {}", hello.side, hello.variant);
                match second.as_str() {
                    "silent" if games > 1 => continue,
                    "move" if games > 1 => r#"{"type":"move","id":1,"move":"A6<"}"#.to_owned(),
                    _ => format!(r#"{{"type":"ready","name":"many-games-{second}"{games_field}}}"#),
                }
            }
            RefereeMessage::MoveRequest(request) => {
                requests += 1;
                let id = if second == "old-ids" { requests } else { request.id };
                format!(r#"{{"type":"move","id":{id},"move":"{}"}}"#, request.legal[0])
            }
            RefereeMessage::GameOver(_) if second == "exit" => {
                eprintln!("many-games: game over, exiting");
                return;
            }
            RefereeMessage::GameOver(_) => continue,
            RefereeMessage::Quit => return,
        };
        let _ = out.write_all(reply.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}
