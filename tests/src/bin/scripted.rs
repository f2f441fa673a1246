//! `bao-scripted --moves M1,M2,...`: a bot that plays the listed moves in order, whatever the
//! referee's list of legal moves says (as a bot written to its own reading of the rules
//! would), then the first legal move. For end-to-end tests of what the referee accepts.

use std::io::{BufRead, Write};

use bao_protocol::RefereeMessage;

fn main() {
    let mut script: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--moves" {
            let list = args.next().unwrap_or_default();
            script = list.split(',').filter(|m| !m.is_empty()).map(str::to_owned).collect();
        } else {
            eprintln!("scripted: unknown argument {arg:?}");
            std::process::exit(2);
        }
    }
    let mut script = script.into_iter();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = RefereeMessage::parse(&line) else {
            eprintln!("scripted: cannot parse {line:?}");
            continue;
        };
        let reply = match message {
            RefereeMessage::Hello(_) => {
                r#"{"type":"ready","name":"scripted","author":"tests","version":"1"}"#.to_owned()
            }
            RefereeMessage::MoveRequest(request) => {
                let mv = script.next().or_else(|| request.legal.first().cloned()).unwrap_or_default();
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
