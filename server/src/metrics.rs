//! Prometheus metrics of the server, rendered in the text format at `/metrics`.

use prometheus::{
    Encoder, GaugeVec, Histogram, HistogramOpts, IntCounter, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

use crate::error::ServerError;

/// The server's metrics.
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    /// Games finished (rate() of it is games per second).
    pub games_finished: IntCounter,
    /// Games aborted (the server stopped while they ran).
    pub games_aborted: IntCounter,
    /// Games running now.
    pub games_running: IntGauge,
    /// Versions per lifecycle state (set at each scrape).
    pub versions: IntGaugeVec,
    /// Builds that failed.
    pub builds_failed: IntCounter,
    /// Versions rejected by the conformance gate.
    pub checks_failed: IntCounter,
    /// Build durations.
    pub build_seconds: Histogram,
    /// Game durations.
    pub game_seconds: Histogram,
    /// Rating recomputation durations.
    pub rating_seconds: Histogram,
    /// Games each worker plays now (`games.executor = "workers"`; set at each scrape).
    pub worker_games_running: IntGaugeVec,
    /// Each worker's machine load (set at each scrape).
    pub worker_load: GaugeVec,
    /// Games waiting for a worker (set at each scrape).
    pub games_queued: IntGauge,
    /// Games a worker holds under a live lease (set at each scrape).
    pub games_leased: IntGauge,
    /// 1 while this server leads the builds, games and ratings, else 0.
    pub leader: IntGauge,
    /// Terms of leadership this server ended by stepping down (its lock's connection failed).
    pub leader_stepped_down: IntCounter,
}

fn int_counter(registry: &Registry, name: &str, help: &str) -> Result<IntCounter, prometheus::Error> {
    let c = IntCounter::new(name, help)?;
    registry.register(Box::new(c.clone()))?;
    Ok(c)
}

fn histogram(
    registry: &Registry,
    name: &str,
    help: &str,
    buckets: Vec<f64>,
) -> Result<Histogram, prometheus::Error> {
    let h = Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))?;
    registry.register(Box::new(h.clone()))?;
    Ok(h)
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Result<Metrics, ServerError> {
        Metrics::build().map_err(|e| ServerError::Internal(format!("metrics: {e}")))
    }

    fn build() -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new_custom(Some("bao".into()), None)?;
        let games_running = IntGauge::new("games_running", "Games running now")?;
        registry.register(Box::new(games_running.clone()))?;
        let versions =
            IntGaugeVec::new(Opts::new("versions", "Bot versions per lifecycle state"), &["state"])?;
        registry.register(Box::new(versions.clone()))?;
        let worker_labels = ["worker", "host", "version", "arch"];
        let worker_games_running = IntGaugeVec::new(
            Opts::new("worker_games_running", "Games each worker heard from in the last 30 s plays now"),
            &worker_labels,
        )?;
        registry.register(Box::new(worker_games_running.clone()))?;
        let worker_load = GaugeVec::new(
            Opts::new("worker_load", "Each worker's machine load over a minute"),
            &worker_labels,
        )?;
        registry.register(Box::new(worker_load.clone()))?;
        let games_queued = IntGauge::new("games_queued", "Games waiting for a worker")?;
        registry.register(Box::new(games_queued.clone()))?;
        let games_leased = IntGauge::new("games_leased", "Games a worker holds under a live lease")?;
        registry.register(Box::new(games_leased.clone()))?;
        let leader = IntGauge::new("leader", "1 while this server leads the builds, games and ratings")?;
        registry.register(Box::new(leader.clone()))?;
        let secs = vec![0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0];
        Ok(Metrics {
            games_finished: int_counter(&registry, "games_finished_total", "Games finished")?,
            games_aborted: int_counter(&registry, "games_aborted_total", "Games aborted by a server stop")?,
            builds_failed: int_counter(&registry, "builds_failed_total", "Builds that failed")?,
            checks_failed: int_counter(
                &registry,
                "checks_failed_total",
                "Versions rejected by the conformance gate",
            )?,
            build_seconds: histogram(&registry, "build_duration_seconds", "Build durations", secs.clone())?,
            game_seconds: histogram(&registry, "game_duration_seconds", "Game durations", secs)?,
            rating_seconds: histogram(
                &registry,
                "rating_duration_seconds",
                "Rating recomputation durations",
                vec![0.001, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0],
            )?,
            games_running,
            versions,
            worker_games_running,
            worker_load,
            games_queued,
            games_leased,
            leader,
            leader_stepped_down: int_counter(
                &registry,
                "leader_stepped_down_total",
                "Times this server stepped down from the lead (its lock's connection failed)",
            )?,
            registry,
        })
    }

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> Result<String, ServerError> {
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .map_err(|e| ServerError::Internal(format!("metrics: {e}")))?;
        String::from_utf8(out).map_err(|e| ServerError::Internal(format!("metrics: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_text_format() {
        let m = Metrics::new().expect("metrics");
        m.games_finished.inc();
        m.versions.with_label_values(&["active"]).set(3);
        let text = m.render().expect("render");
        assert!(text.contains("bao_games_finished_total 1"), "{text}");
        assert!(text.contains("bao_versions{state=\"active\"} 3"), "{text}");
        assert!(text.contains("# TYPE bao_game_duration_seconds histogram"), "{text}");
    }
}
