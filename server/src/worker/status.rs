//! What each worker reports of itself every few seconds — its program version, host, CPU
//! architecture, game slots, games running and the machine's load — and what `/metrics`
//! shows of it (`bao_worker_games_running`, `bao_worker_load`, per worker heard from in the
//! last [`SEEN_MS`]).
//!
//! When a worker started and when it last reported are written on the database's clock
//! ([`db_now`]), as the leases are, never on the worker's: a worker whose clock is wrong is
//! neither shown silent while it reports nor taken for alive after it stopped.

use crate::db::{Conn, params};
use crate::error::ServerError;

use super::queue::db_now;

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
}

/// A worker's last report as the servers read it, with the database's times.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SeenWorker {
    /// What it reported.
    #[serde(flatten)]
    pub report: WorkerReport,
    /// When its first report was written (Unix ms, the database's clock).
    pub started_at: i64,
    /// When its last report was written (Unix ms, the database's clock).
    pub seen_at: i64,
    /// How long ago that was, on the database's clock (ms).
    pub age_ms: i64,
}

impl SeenWorker {
    /// Whether it was not heard from for longer than [`SEEN_MS`].
    #[must_use]
    pub fn silent(&self) -> bool {
        self.age_ms > SEEN_MS
    }
}

/// Writes a worker's report (its row replaced; its start kept), stamped with the database's
/// clock.
pub fn report(conn: &Conn, w: &WorkerReport) -> Result<(), ServerError> {
    let now = db_now(conn);
    conn.execute(
        &format!(
            "INSERT INTO workers (id, host, version, arch, concurrency, running, load, started_at, seen_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, {now}, {now})
             ON CONFLICT (id) DO UPDATE SET running = excluded.running, load = excluded.load,
                 seen_at = excluded.seen_at"
        ),
        params![w.id, w.host, w.version, w.arch, w.concurrency, w.running, w.load],
    )?;
    Ok(())
}

/// Removes a worker's row (it stopped).
pub fn remove(conn: &Conn, id: &str) -> Result<(), ServerError> {
    conn.execute("DELETE FROM workers WHERE id = ?1", [id])?;
    Ok(())
}

/// The workers heard from within the last `within_ms` on the database's clock (all of them
/// with `None`), by name.
pub fn seen(conn: &Conn, within_ms: Option<i64>) -> Result<Vec<SeenWorker>, ServerError> {
    let now = db_now(conn);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, host, version, arch, concurrency, running, load, started_at, seen_at, {now} - seen_at
         FROM workers WHERE seen_at >= {now} - ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([within_ms.unwrap_or(i64::MAX)], |r| {
        Ok(SeenWorker {
            report: WorkerReport {
                id: r.get(0)?,
                host: r.get(1)?,
                version: r.get(2)?,
                arch: r.get(3)?,
                concurrency: r.get(4)?,
                running: r.get(5)?,
                load: r.get(6)?,
            },
            started_at: r.get(7)?,
            seen_at: r.get(8)?,
            age_ms: r.get(9)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The CPU architectures of the workers heard from in the last [`SEEN_MS`] (the database's
/// clock), by name.
pub fn live_arches(conn: &Conn) -> Result<Vec<String>, ServerError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT DISTINCT arch FROM workers WHERE seen_at >= {} - ?1 ORDER BY arch",
        db_now(conn)
    ))?;
    let rows = stmt.query_map([SEEN_MS], |r| r.get(0))?;
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
pub fn fill_metrics(conn: &Conn, metrics: &crate::metrics::Metrics) -> Result<(), ServerError> {
    let workers = seen(conn, Some(SEEN_MS))?;
    metrics.worker_games_running.reset();
    metrics.worker_load.reset();
    for w in workers.iter().map(|w| &w.report) {
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
    use crate::worker::queue::db_now_ms;
    use crate::worker::queue::tests::on_each;

    fn report_of(id: &str, running: i64) -> WorkerReport {
        WorkerReport {
            id: id.into(),
            host: "h".into(),
            version: "0.1.0".into(),
            arch: "x86_64".into(),
            concurrency: 2,
            running,
            load: 0.5,
        }
    }

    /// Moves a worker's last report `ms` into the past of the database's clock.
    fn age(conn: &Conn, id: &str, ms: i64) {
        conn.execute(
            &format!("UPDATE workers SET seen_at = {} - ?2 WHERE id = ?1", db_now(conn)),
            params![id, ms],
        )
        .expect("age");
    }

    #[test]
    fn a_report_replaces_the_last_and_old_workers_are_left_out() {
        on_each(|_, conn| {
            conn.execute("DELETE FROM workers", []).expect("none");
            report(conn, &report_of("h-1-x", 1)).expect("report");
            let first = seen(conn, None).expect("seen")[0].started_at;
            report(conn, &report_of("h-1-x", 2)).expect("again");
            report(conn, &report_of("gone", 0)).expect("old");
            age(conn, "gone", SEEN_MS + 5_000);
            let live = seen(conn, Some(SEEN_MS)).expect("seen");
            assert_eq!(
                live.iter().map(|w| w.report.clone()).collect::<Vec<_>>(),
                vec![report_of("h-1-x", 2)]
            );
            assert_eq!(live[0].started_at, first, "its start is kept");
            assert_eq!(seen(conn, None).expect("all").len(), 2);
            assert_eq!(live_arches(conn).expect("arches"), vec!["x86_64".to_owned()]);
            let m = crate::metrics::Metrics::new().expect("metrics");
            fill_metrics(conn, &m).expect("metrics");
            let text = m.render().expect("render");
            assert!(
                text.contains(
                    r#"bao_worker_games_running{arch="x86_64",host="h",version="0.1.0",worker="h-1-x"} 2"#
                ),
                "{text}"
            );
            assert!(!text.contains("gone"), "{text}");
            remove(conn, "h-1-x").expect("remove");
            assert_eq!(seen(conn, None).expect("seen").len(), 1);
            assert!(live_arches(conn).expect("arches").is_empty(), "only a silent one left");
        });
    }

    /// A report's times are the database's clock, whatever the clock of the worker's machine
    /// says (no call takes the worker's time): a worker whose clock runs an hour behind is not
    /// shown silent while it reports, and one whose clock runs an hour ahead is not kept alive
    /// once it stopped reporting.
    #[test]
    fn reports_are_stamped_on_the_databases_clock_not_the_workers() {
        on_each(|_, conn| {
            conn.execute("DELETE FROM workers", []).expect("none");
            let before = db_now_ms(conn).expect("db clock");
            report(conn, &report_of("w", 1)).expect("report");
            let after = db_now_ms(conn).expect("db clock");
            let w = seen(conn, None).expect("seen").pop().expect("its row");
            assert!((before..=after).contains(&w.seen_at), "seen at {} not in {before}..{after}", w.seen_at);
            assert!((before..=after).contains(&w.started_at), "started at {}", w.started_at);
            assert!(!w.silent() && w.age_ms < SEEN_MS, "a worker that just reported is live: {w:?}");
            assert_eq!(live_arches(conn).expect("arches"), vec!["x86_64".to_owned()]);
            // Silent past SEEN_MS on the database's clock: left out, whatever its clock said.
            age(conn, "w", SEEN_MS + 1);
            let w = seen(conn, None).expect("seen").pop().expect("its row");
            assert!(w.silent(), "{w:?}");
            assert!(seen(conn, Some(SEEN_MS)).expect("seen").is_empty());
            assert!(live_arches(conn).expect("arches").is_empty());
            // Its next report makes it live again, stamped anew.
            report(conn, &report_of("w", 0)).expect("report");
            assert_eq!(live_arches(conn).expect("arches").len(), 1);
        });
    }
}
