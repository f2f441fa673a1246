//! Arbitrary bytes → a tournament's `plan.json`, as `tournament --resume` and `merge` read it.
//! Parsing and `Plan::check` must not panic; a plan that checks must give every game of its
//! shard a configuration, and checking a log against it must not panic.

#![no_main]

use bao_tournament::plan::Plan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(plan) = serde_json::from_slice::<Plan>(data) else { return };
    if plan.check().is_err() {
        return;
    }
    for game in plan.games_to_play().take(64) {
        let config = plan.game_config(&game).expect("a checked plan configures its games");
        assert_eq!(config.time, plan.time_control);
        let _ = plan.check_log(&game, "");
    }
    let _ = plan.unsharded().difference(&plan);
});
