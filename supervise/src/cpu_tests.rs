//! Tests of CPU confinement: a bot's whole tree held to its CPU limit, and frozen and thawed
//! (`sh` scripts as bots, started directly). Each says plainly when this machine cannot
//! confine a bot's CPU, and fails then under `BAO_REQUIRE_ALL=1`.

use std::time::Duration;

use tokio::time::Instant;

use super::*;

fn sh(script: &str) -> BotSpec {
    BotSpec { name: None, program: "sh".into(), args: vec!["-c".into(), script.into()], dir: None }
}

/// No cpuset of its own: the lease table is shared by the tests of this process.
fn options() -> SpawnOptions {
    SpawnOptions { stub: StubChoice::Never, own_cpus: false, ..SpawnOptions::default() }
}

fn after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

/// Whether `what` can run here; says why not (a failure under `BAO_REQUIRE_ALL=1`).
fn can(test: &str, what: Result<(), String>) -> bool {
    match what {
        Ok(()) => true,
        Err(why) => {
            eprintln!("{test}: SKIPPED, this machine cannot confine a bot's CPU: {why}");
            assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
            false
        }
    }
}

/// Four busy processes, started once the bot has said `go`.
const FOUR_SPINNERS: &str = "for i in 1 2 3 4; do (while :; do :; done) & done; echo go; wait";

#[tokio::test]
async fn a_cpu_limit_holds_the_whole_tree_to_it() {
    let test = "a_cpu_limit_holds_the_whole_tree_to_it";
    if !can(test, cpu_confinement().limit.clone().map(drop)) {
        return;
    }
    // Half a CPU: below what four spinners get on any machine, even a one-CPU one.
    let limits = ResourceLimits { cpus: Some("0.5".parse().unwrap()), ..ResourceLimits::default() };
    let mut bot = BotProcess::spawn_with(&sh(FOUR_SPINNERS), &limits, &options()).await.unwrap();
    assert!(bot.supervision().cpu_limit_by.is_some(), "{}", bot.supervision());
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "go");
    // The wall-clock span encloses the CPU one (its clock read first, and last): a pause of
    // this thread between the two readings (a busy machine) then widens the wall-clock span,
    // never the CPU one alone.
    let wall0 = Instant::now();
    let cpu0 = bot.cpu_time().unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let cpu = bot.cpu_time().unwrap() - cpu0;
    let wall = wall0.elapsed();
    bot.shutdown(Duration::from_millis(100)).await;
    // The kernel's quota is per 100 ms period: at most one period's quota over.
    let most = wall.mul_f64(0.5) + Duration::from_millis(60);
    assert!(cpu <= most, "four spinners used {cpu:?} of CPU in {wall:?} under a limit of half a CPU");
    assert!(
        cpu >= Duration::from_millis(100),
        "the spinners hardly ran ({cpu:?}): the test measured nothing"
    );
}

#[tokio::test]
async fn a_frozen_bot_uses_no_cpu_and_its_output_comes_when_thawed() {
    let test = "a_frozen_bot_uses_no_cpu_and_its_output_comes_when_thawed";
    if !can(test, cpu_confinement().freeze.clone()) {
        return;
    }
    // Spins in the background; prints a line every 50 ms.
    let script = "(while :; do :; done) & i=0; while :; do i=$((i+1)); echo line $i; sleep 0.05; done";
    let mut bot = BotProcess::spawn_with(&sh(script), &ResourceLimits::default(), &options()).await.unwrap();
    assert!(bot.supervision().freezable, "{}", bot.supervision());
    assert!(bot.recv_line(after(5000)).await.unwrap().starts_with("line"));
    bot.freeze().unwrap();
    assert!(bot.wait_frozen(Duration::from_secs(2)), "the kernel never reported the bot frozen");
    // Lines written before the freeze may still be in the channel: drain them.
    while bot.recv_line(after(0)).await.is_ok() {}
    let cpu0 = bot.cpu_time().unwrap();
    assert_eq!(bot.recv_line(after(300)).await, Err(BotFault::Timeout), "a frozen bot wrote a line");
    let frozen_cpu = bot.cpu_time().unwrap() - cpu0;
    assert!(frozen_cpu < Duration::from_millis(5), "a frozen bot used {frozen_cpu:?} of CPU in 300 ms");
    bot.thaw().unwrap();
    assert!(bot.recv_line(after(2000)).await.unwrap().starts_with("line"), "no output after the thaw");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(bot.cpu_time().unwrap() - cpu0 >= Duration::from_millis(20), "the thawed spinner does not run");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn a_frozen_bot_is_still_ended_by_shutdown() {
    let test = "a_frozen_bot_is_still_ended_by_shutdown";
    if !can(test, cpu_confinement().freeze.clone()) {
        return;
    }
    let mut bot = BotProcess::spawn_with(&sh("echo up; sleep 30"), &ResourceLimits::default(), &options())
        .await
        .unwrap();
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "up");
    bot.freeze().unwrap();
    let begin = Instant::now();
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert!(begin.elapsed() < Duration::from_secs(3), "{:?}", begin.elapsed());
    assert!(report.signal.is_some(), "{report}");
}
