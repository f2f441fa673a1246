//! Generates a large arena for the benchmarks in BENCHMARKS.md: USERS users
//! with BOTS_PER_USER active bots each, and GAMES finished games between them
//! (results drawn from hidden strengths), then computes the ratings once.
//! The game loop is paused (`games.concurrency = 0`) so that the server only
//! serves pages. No bot files or game logs are written.
//!
//!     cargo run --release -p bao-server --example gen_arena -- DIR [BOTS] [GAMES]

use std::path::PathBuf;
use std::time::Instant;

use bao_server::arena::Arena;
use rand::{Rng, SeedableRng};
use rusqlite::params;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: gen_arena DIR [BOTS] [GAMES]")?);
    let bots: i64 = args.next().map_or(Ok(1000), |s| s.parse())?;
    let games: i64 = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    if dir.exists() {
        return Err(format!("{} exists: give a new directory", dir.display()).into());
    }
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("arena.toml"),
        bao_server::config::DEFAULT_CONFIG.replacen("\n# concurrency = 1\n", "\nconcurrency = 0\n", 1),
    )?;
    let arena = Arena::open(&dir)?;
    let started = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let strength: Vec<f64> = (0..bots).map(|_| rng.random_range(-600.0..600.0)).collect();
    arena.db.write_blocking(|c| {
        let tx = c.transaction()?;
        let now = bao_server::db::now_ms();
        let users = (bots / 10).max(1);
        for u in 0..users {
            tx.execute("INSERT INTO users (id, name, created_at) VALUES (?1, ?2, ?3)", params![u + 1, format!("user{u}"), now])?;
        }
        for b in 0..bots {
            tx.execute(
                "INSERT INTO bots (id, name, owner_id, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![b + 1, format!("bot{b}"), b % users + 1, now],
            )?;
            tx.execute(
                "INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
                 VALUES (?1, ?1, 1, 'executable', 'bot', 0, 'active', ?2, ?2)",
                params![b + 1, now],
            )?;
        }
        {
            let mut insert = tx.prepare(
                "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, result, reason, plies,
                 started_at, finished_at, log_path) VALUES (?1, ?2, ?3, 0, 'ladder', 'finished', ?4, 'front_row_empty', 60, ?5, ?5, '')",
            )?;
            for g in 0..games {
                let s = rng.random_range(0..bots);
                let mut n = rng.random_range(0..bots - 1);
                if n >= s {
                    n += 1;
                }
                let p = 1.0 / (1.0 + 10f64.powf((strength[n as usize] - strength[s as usize]) / 400.0));
                let x: f64 = rng.random();
                let result = if x < p * 0.95 { "south" } else if x < p * 0.95 + 0.05 { "draw" } else { "north" };
                insert.execute(params![s + 1, n + 1, format!("g{}", g / 2), result, now - (games - g) * 10])?;
            }
        }
        tx.commit()?;
        Ok(())
    })?;
    eprintln!("inserted {bots} bots and {games} games in {:.1} s", started.elapsed().as_secs_f64());
    let rt = tokio::runtime::Runtime::new()?;
    let t = Instant::now();
    let rated = rt
        .block_on(bao_server::ratings::recompute(&arena, &mut bao_server::ratings::RatingState::default()))?;
    eprintln!("rated {rated} versions over {games} games in {:.2} s", t.elapsed().as_secs_f64());
    Ok(())
}
