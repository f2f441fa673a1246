//! `bao-exec-stub`: the re-exec stub that starts every bot (`bao_supervise::exec_stub`), as an
//! executable of its own that links nothing else, so that starting it is cheap. The referee
//! uses it when it lies next to its own executable (`cargo install` and `cargo build` put it
//! there); `bao-referee __exec-bot` does the same, from the big executable.

fn main() {
    bao_supervise::exec_stub::run_standalone()
}
