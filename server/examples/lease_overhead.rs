//! The lease and transaction overhead per game of `games.executor = "workers"` (docs/worker.md)
//! on a PostgreSQL database: GAMES games queued, then WORKERS simulated workers (each with its
//! own connections, as separate processes have) claim, renew once and record each game with a
//! 2 KB log and no play at all, as fast as they can. Two ways of claiming, measured one after
//! the other on fresh queues:
//!
//! - `skip-locked` (what the worker does): one `UPDATE … (SELECT … FOR UPDATE SKIP LOCKED)`
//!   on a connection outside the servers' global write lock;
//! - `write-lock`: the same statement under the servers' global write lock (an advisory lock
//!   taken by every write of every server), as a plain write of the server would run.
//!
//! The recording transaction takes the write lock in both.
//!
//!     cargo run --release -p bao-server --example lease_overhead -- postgres://URL [GAMES] [WORKERS]
//!
//! The URL's database gets the arena's tables (a throwaway one: `deploy/postgres/throwaway.sh`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bao_server::db::{Db, Location, now_ms};
use bao_server::domain::{GameResult, Purpose, VersionId};
use bao_server::games::NewGame;
use bao_server::worker::queue::{self, Played};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: lease_overhead postgres://URL [GAMES] [WORKERS]")?;
    let games: usize = args.next().map_or(Ok(2000), |s| s.parse())?;
    let workers: usize = args.next().map_or(Ok(4), |s| s.parse())?;
    let location = Location::from_option(Some(&url), std::path::Path::new(""))?;
    if matches!(location, Location::Sqlite(_)) {
        return Err("give a postgres:// URL".into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // The database's synchronous client is used off the runtime's threads, as the server does.
    {
        let setup = Db::open_location(&location)?;
        setup.write_blocking(|c| {
            c.execute_batch(
                "INSERT INTO users (name, created_at) VALUES ('lease-bench', 0) ON CONFLICT DO NOTHING;
                 INSERT INTO bots (name, owner_id, created_at)
                   SELECT 'lease-bench', id, 0 FROM users WHERE name = 'lease-bench' ON CONFLICT DO NOTHING;",
            )?;
            Ok(())
        })?;
        let versions: Vec<VersionId> = setup.write_blocking(|c| {
            let bot: i64 = c.query_row("SELECT id FROM bots WHERE name = 'lease-bench'", [], |r| r.get(0))?;
            let mut ids = Vec::new();
            for n in [1_000_001_i64, 1_000_002] {
                let id = c.query_row(
                    "INSERT INTO versions (bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
                     VALUES (?1, ?2, 'executable', 'b', 1, 'active', 0, 0)
                     ON CONFLICT (bot_id, number) DO UPDATE SET state = 'active' RETURNING id",
                    bao_server::db::params![bot, n],
                    |r| r.get(0),
                )?;
                // Built for the architecture the simulated workers claim for.
                c.execute(
                    "INSERT INTO version_artifacts (version_id, arch, hash) VALUES (?1, 'bench', 'bench')
                     ON CONFLICT (version_id, arch) DO NOTHING",
                    [id],
                )?;
                ids.push(id);
            }
            Ok(ids)
        })?;
        let log = vec![b'x'; 2048];
        println!("{games} games, {workers} workers, {}", location.describe());
        for mode in ["skip-locked", "write-lock", "skip-locked", "write-lock"] {
            let new = NewGame {
                south_id: versions[0],
                north_id: versions[1],
                pair_key: "lease-bench".into(),
                opening_seed: 0,
                purpose: Purpose::Ladder,
            };
            setup.write_blocking(|c| {
                for _ in 0..games {
                    bao_server::games::insert_queued(c, &new, now_ms())?;
                }
                Ok(())
            })?;
            let dbs: Vec<Db> =
                (0..workers).map(|_| Db::open_location(&location)).collect::<Result<_, _>>()?;
            let done = Arc::new(AtomicUsize::new(0));
            let log = log.clone();
            let counted = done.clone();
            let started = Instant::now();
            runtime.block_on(async move {
                let mut tasks = tokio::task::JoinSet::new();
                for (i, db) in dbs.into_iter().enumerate() {
                    let (done, log, name) = (done.clone(), log.clone(), format!("bench-{i}"));
                    tasks.spawn(async move {
                        loop {
                            let n = name.clone();
                            let lease = if mode == "skip-locked" {
                                db.read(move |c| queue::claim(c, &n, "bench", 30_000)).await?
                            } else {
                                db.write(move |c| {
                                    let tx = c.transaction()?;
                                    let l = queue::claim(&tx, &n, "bench", 30_000)?;
                                    tx.commit()?;
                                    Ok(l)
                                })
                                .await?
                            };
                            let Some(lease) = lease else { return Ok::<_, bao_server::ServerError>(()) };
                            let l = lease.clone();
                            db.read(move |c| queue::renew(c, &l, 30_000)).await?;
                            let played = Played {
                                result: GameResult::Draw,
                                reason: "bench".into(),
                                plies: 1,
                                log: log.clone(),
                            };
                            if db.write(move |c| queue::finish(c, &lease, &played)).await? {
                                done.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                }
                while let Some(r) = tasks.join_next().await {
                    r.map_err(|e| format!("a worker task failed: {e}"))??;
                }
                Ok::<_, Box<dyn std::error::Error>>(())
            })?;
            let done = counted;
            let secs = started.elapsed().as_secs_f64();
            let n = done.load(Ordering::Relaxed);
            println!(
                "{mode:>11}: {n} games recorded in {secs:.2} s: {:.0} games/s, {:.2} ms of claim + renewal + record per game per worker",
                n as f64 / secs,
                secs * 1000.0 * workers as f64 / n.max(1) as f64
            );
        }
    }
    Ok(())
}
