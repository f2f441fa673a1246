//! What each worker reports of itself every few seconds — its program version, host, CPU
//! architecture, game slots, games running and the machine's load — and what `/metrics`
//! shows of it (`bao_worker_games_running`, `bao_worker_load`, per worker heard from in the
//! last [`SEEN_MS`]).

use crate::db::{Conn, params};
use crate::error::ServerError;

/// A worker not heard from for this long is left out of `/metrics`.
pub const SEEN_MS: i64 = 30_000;

/// One worker's report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WorkerReport {
    /// Its name (host, process id and a random part).
    pub id: String,
    /// The machine's host name.
    pub host: String,
    /// The program's version.
    pub version: String,
    /// The machine's CPU architecture.
    pub arch: String,
    /// Games it plays at once at most.
    pub concurrency: i64,
    /// Games it plays now.
    pub running: i64,
    /// The machine's load average over a minute.
    pub load: f64,
    /// When it started (Unix ms).
    pub started_at: i64,
    /// When it reported (Unix ms).
    pub seen_at: i64,
}

/// Writes a worker's report (its row replaced).
pub fn report(conn: &Conn, w: &WorkerReport) -> Result<(), ServerError> {
    conn.execute(
        "INSERT INTO workers (id, host, version, arch, concurrency, running, load, started_at, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (id) DO UPDATE SET running = excluded.running, load = excluded.load,
             seen_at = excluded.seen_at",
        params![w.id, w.host, w.version, w.arch, w.concurrency, w.running, w.load, w.started_at, w.seen_at],
    )?;
    Ok(())
}

/// Removes a worker's row (it stopped).
pub fn remove(conn: &Conn, id: &str) -> Result<(), ServerError> {
    conn.execute("DELETE FROM workers WHERE id = ?1", [id])?;
    Ok(())
}

/// The workers heard from since `since` (Unix ms), by name.
pub fn seen(conn: &Conn, since: i64) -> Result<Vec<WorkerReport>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, host, version, arch, concurrency, running, load, started_at, seen_at FROM workers
         WHERE seen_at >= ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([since], |r| {
        Ok(WorkerReport {
            id: r.get(0)?,
            host: r.get(1)?,
            version: r.get(2)?,
            arch: r.get(3)?,
            concurrency: r.get(4)?,
            running: r.get(5)?,
            load: r.get(6)?,
            started_at: r.get(7)?,
            seen_at: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The machine's host name (`unknown` if it cannot be read).
#[must_use]
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The machine's load average over the last minute (0 if it cannot be read).
#[must_use]
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0.0)
}

/// Sets the workers' gauges of `/metrics` from the database.
pub fn fill_metrics(conn: &Conn, metrics: &crate::metrics::Metrics, now: i64) -> Result<(), ServerError> {
    let workers = seen(conn, now - SEEN_MS)?;
    metrics.worker_games_running.reset();
    metrics.worker_load.reset();
    for w in &workers {
        let labels = [w.id.as_str(), w.host.as_str(), w.version.as_str(), w.arch.as_str()];
        metrics.worker_games_running.with_label_values(&labels).set(w.running);
        metrics.worker_load.with_label_values(&labels).set(w.load);
    }
    let (queued, leased) = super::queue::counts(conn)?;
    metrics.games_queued.set(queued);
    metrics.games_leased.set(leased);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_replaces_the_last_and_old_workers_are_left_out() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = crate::db::open(&dir.path().join("a.sqlite3")).expect("db");
        let mut w = WorkerReport {
            id: "h-1-x".into(),
            host: "h".into(),
            version: "0.1.0".into(),
            arch: "x86_64".into(),
            concurrency: 2,
            running: 1,
            load: 0.5,
            started_at: 100,
            seen_at: 100,
        };
        report(&conn, &w).expect("report");
        w.running = 2;
        w.seen_at = 40_000;
        report(&conn, &w).expect("again");
        let old = WorkerReport { id: "gone".into(), seen_at: 5_000, ..w.clone() };
        report(&conn, &old).expect("old");
        assert_eq!(seen(&conn, 40_000 - SEEN_MS).expect("seen"), vec![w.clone()]);
        let m = crate::metrics::Metrics::new().expect("metrics");
        fill_metrics(&conn, &m, 40_000).expect("metrics");
        let text = m.render().expect("render");
        assert!(
            text.contains(
                r#"bao_worker_games_running{arch="x86_64",host="h",version="0.1.0",worker="h-1-x"} 2"#
            ),
            "{text}"
        );
        assert!(!text.contains("gone"), "{text}");
        remove(&conn, "h-1-x").expect("remove");
        assert_eq!(seen(&conn, 0).expect("seen").len(), 1);
    }
}
