//! End-to-end tests of the competition server: the real server process on a free port,
//! a real SQLite file, bots submitted through the API.
//!
//! Run with `cargo test -p bao-server --test e2e [NAME-FILTER]`. The test binary is also the
//! server, with the command line of `bao-referee serve|submit` (`e2e serve --data DIR user add
//! NAME`, `e2e serve --listen ADDR --data DIR`, `e2e submit ...`, from `bao_server::cli`), and
//! a bot: `e2e --bot random|greedy|slow|worst|search-small|search-large` speaks the protocol (the sample bots
//! of `bao-sample-bots`), which the tests submit as one-line shell scripts.

mod attack;
mod browser;
mod candidate;
mod chaos;
mod connections;
mod cpu_hog;
mod honest;
mod hostile;
mod identity;
mod kill9;
mod ladder;
mod leader;
mod play;
mod sessions;
mod site;
mod state;
mod support;
mod worker_arch_gate;
mod worker_attacks;
mod worker_builds;
mod workers;

use std::panic::AssertUnwindSafe;
use std::process::ExitCode;

type Test = (&'static str, fn());

/// Tests that run on PostgreSQL whichever database the suite uses (they start their servers
/// and workers on `BAO_TEST_POSTGRES` or a cluster of their own): the suite's pass on
/// PostgreSQL (`BAO_E2E_DATABASE=postgres`, which `.ci/run` makes after the pass on SQLite)
/// runs them only when named.
const ON_POSTGRES_ANYWAY: &[&str] = &[
    "a_follower_takes_the_lead_when_the_leader_dies",
    "workers_play_the_ladder_and_a_killed_workers_game_is_replayed_once",
    "workers_survive_kills_a_server_crash_and_a_database_outage",
    "worker_attacks_stay_in_the_sandbox",
    "worker_attacks_cache_is_closed_to_other_users",
    "worker_attacks_results_are_the_referees",
    "worker_attacks_unpackable_bot_is_not_the_machines_fault",
    "worker_attacks_gate_verdict_with_a_nul_is_recorded",
    "workers_build_and_check_for_two_servers_without_a_shared_folder",
    "workers_gate_every_architectures_build_and_abort_unclaimable_games",
];

const TESTS: &[Test] = &[
    ("entrant_attacks_fail", attack::entrant_attacks_fail),
    ("honest_bots_build_and_play_in_every_language", honest::honest_bots_build_and_play_in_every_language),
    ("kill_9_leaves_no_sandbox_process", kill9::kill_9_leaves_no_sandbox_process),
    ("sandboxes_run_as_uids_of_their_own", identity::sandboxes_run_as_uids_of_their_own),
    ("api_errors_auth_and_docs", sessions::api_errors_auth_and_docs),
    ("pages_sessions_and_csrf", sessions::pages_sessions_and_csrf),
    ("hostile_uploads_are_refused_with_a_message", hostile::hostile_uploads_are_refused_with_a_message),
    ("rate_limit_and_bot_ownership", hostile::rate_limit_and_bot_ownership),
    ("ladder_survives_kill_9_and_exports", ladder::ladder_survives_kill_9_and_exports),
    ("candidate_evaluation_reaches_a_verdict", candidate::candidate_evaluation_reaches_a_verdict),
    ("pages_in_a_browser", browser::pages_in_a_browser),
    ("people_play_a_rung_in_a_browser", play::play_a_rung_in_a_browser),
    ("people_play_a_friend_in_two_browsers", play::play_a_friend_in_two_browsers),
    ("people_play_sockets_and_limits", play::play_sockets_and_limits),
    ("people_play_a_bot_only_when_its_owner_allows", play::play_a_bot_only_when_its_owner_allows),
    ("site_at_1280_and_360", site::site_at_1280_and_360),
    ("slow_and_many_clients_are_cut", connections::slow_and_many_clients_are_cut),
    (
        "descriptor_flood_during_games_and_private_logs",
        connections::descriptor_flood_during_games_and_private_logs,
    ),
    (
        "a_follower_takes_the_lead_when_the_leader_dies",
        leader::a_follower_takes_the_lead_when_the_leader_dies,
    ),
    ("operators_and_clients_get_clear_answers", connections::operators_and_clients_get_clear_answers),
    ("parallel_submissions_count_the_limit_once", state::parallel_submissions_count_the_limit_once),
    ("builds_take_turns_between_users", state::builds_take_turns_between_users),
    ("crashes_between_writes_are_completed_or_undone", state::crashes_between_writes_are_completed_or_undone),
    ("five_bots_spread_their_games", state::five_bots_spread_their_games),
    (
        "a_hog_costs_no_honest_bot_its_time_nor_its_gate",
        cpu_hog::a_hog_costs_no_honest_bot_its_time_nor_its_gate,
    ),
    (
        "workers_play_the_ladder_and_a_killed_workers_game_is_replayed_once",
        workers::workers_play_the_ladder_and_a_killed_workers_game_is_replayed_once,
    ),
    (
        "workers_survive_kills_a_server_crash_and_a_database_outage",
        chaos::workers_survive_kills_a_server_crash_and_a_database_outage,
    ),
    ("worker_attacks_stay_in_the_sandbox", worker_attacks::worker_attacks_stay_in_the_sandbox),
    (
        "worker_attacks_cache_is_closed_to_other_users",
        worker_attacks::worker_attacks_cache_is_closed_to_other_users,
    ),
    ("worker_attacks_results_are_the_referees", worker_attacks::worker_attacks_results_are_the_referees),
    (
        "worker_attacks_unpackable_bot_is_not_the_machines_fault",
        worker_attacks::worker_attacks_unpackable_bot_is_not_the_machines_fault,
    ),
    (
        "worker_attacks_gate_verdict_with_a_nul_is_recorded",
        worker_attacks::worker_attacks_gate_verdict_with_a_nul_is_recorded,
    ),
    (
        "workers_build_and_check_for_two_servers_without_a_shared_folder",
        worker_builds::workers_build_and_check_for_two_servers_without_a_shared_folder,
    ),
    (
        "workers_gate_every_architectures_build_and_abort_unclaimable_games",
        worker_arch_gate::workers_gate_every_architectures_build_and_abort_unclaimable_games,
    ),
];

fn main() -> ExitCode {
    // The bots' re-exec stub (limits, namespaces) runs from this executable, as from
    // `bao-referee`: the server run as `e2e serve` starts its bots through it.
    bao_supervise::exec_stub::run_if_requested();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("worker") {
        return workers::run_worker_command(&args);
    }
    if matches!(args.first().map(String::as_str), Some("serve" | "submit")) {
        return support::run_server_command(&args);
    }
    // The reference rungs of /play: the server runs its own executable's `sample-bot`, as
    // `bao-referee sample-bot`.
    if args.first().map(String::as_str) == Some("sample-bot") {
        return support::run_sample_bot(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("--bot") {
        let kind = args.get(1).map_or("random", String::as_str);
        return cpu_hog::run_bot(kind).unwrap_or_else(|| support::run_bot(kind));
    }
    // `cargo test` passes libtest flags (e.g. --quiet); the first other argument filters by name.
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in TESTS {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        if filter.is_none() && support::suite_on_postgres() && ON_POSTGRES_ANYWAY.contains(name) {
            println!(
                "test {name} ... not run again: it runs on PostgreSQL in every pass (name it to run it)"
            );
            continue;
        }
        eprintln!("test {name} ...");
        let started = std::time::Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(test));
        // The time each took, for keeping CI's time in view.
        let secs = started.elapsed().as_secs_f64();
        match outcome {
            Ok(()) => {
                passed += 1;
                println!("test {name} ... ok ({secs:.1} s)");
            }
            Err(_) => {
                failed += 1;
                println!("test {name} ... FAILED ({secs:.1} s)");
            }
        }
    }
    support::remove_bin_dir();
    println!("{passed} passed, {failed} failed");
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
