//! `arena.toml`: the operator's configuration of an arena, written with comments
//! on first start ([`DEFAULT_CONFIG`]) and read on every start.

use std::net::SocketAddr;
use std::path::Path;

use serde::Deserialize;

use crate::error::ServerError;
use crate::languages::Language;

/// The configuration file written into a new arena directory. Every key is
/// documented here and in docs/server.md.
pub const DEFAULT_CONFIG: &str = include_str!("../arena.default.toml");

/// An arena's configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// The address to listen on (`--listen` overrides it).
    pub listen: SocketAddr,
    /// The URL the server is reached at through a reverse proxy (`https://bao.example.org`):
    /// a form posted from this origin is accepted whatever `Host` the proxy sends.
    #[serde(default)]
    pub public_url: Option<String>,
    /// Set the `Secure` flag on the session cookie (serve behind HTTPS).
    #[serde(default)]
    pub secure_cookies: bool,
    /// The games played.
    pub games: GamesConfig,
    /// Limits on submissions and builds.
    pub limits: LimitsConfig,
    /// Matchmaking.
    pub matchmaking: MatchmakingConfig,
    /// Ratings.
    pub rating: RatingConfig,
    /// Candidate evaluation (SPRT).
    pub candidate: CandidateConfig,
    /// The conformance gate.
    pub gate: GateConfig,
    /// The sandbox of builds, checks and games.
    #[serde(default)]
    pub sandbox: SandboxConfig,
    /// The languages entrants may submit in.
    pub languages: Vec<Language>,
    /// Connections: timeouts, caps, `/metrics` (defaults when the section is missing).
    #[serde(default)]
    pub http: crate::http::settings::HttpConfig,
    /// People playing in the browser (`/play`; defaults when the section is missing).
    #[serde(default)]
    pub play: crate::play::settings::PlayConfig,
}

/// How games are played.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamesConfig {
    /// `kiswahili` or `kujifunza`.
    #[serde(deserialize_with = "variant_by_name")]
    pub variant: bao_rules::Variant,
    /// Base time on each clock, in milliseconds.
    pub base_ms: u64,
    /// Fischer increment per move, in milliseconds.
    pub increment_ms: u64,
    /// Time a bot has to answer hello, in milliseconds.
    pub startup_ms: u64,
    /// A game still running after this many plies is a draw.
    pub max_plies: u32,
    /// Pairs of games played at the same time (0 pauses the game loop); absent: what the
    /// CPUs can give every thinking bot a full CPU ([`GamesConfig::slots`]).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// Who plays the games: this server's engine, or worker processes (docs/worker.md).
    #[serde(default)]
    pub executor: Executor,
    /// With workers: a queued game that nobody holds and that no live worker can claim (none
    /// of an architecture both of its bots are built for, or can be built for, reported in
    /// the last 30 s) is aborted, not counted, once it has waited this many seconds.
    #[serde(default = "default_unclaimable_abort_secs")]
    pub unclaimable_abort_secs: u64,
    /// Freeze the bot not to move (`bao-referee match --no-ponder`): a bot gets CPU only
    /// while its own clock runs.
    #[serde(default)]
    pub no_ponder: bool,
    /// Play rated games even where a bot's CPU cannot be confined (no cgroup CPU limit here),
    /// where one entrant's busy processes can make others lose on time. Off: the game loop
    /// does not run on such a machine, and says why at start.
    #[serde(default)]
    pub allow_unconfined_cpu: bool,
    /// Random plies from the start position that make a pair's shared opening.
    pub opening_plies: u32,
    /// Memory limit per bot process, in MiB.
    pub bot_memory_mib: u64,
    /// CPU-time limit per bot process for one game, in seconds.
    pub bot_cpu_secs: u64,
}

/// Who plays the ladder's games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Executor {
    /// The leading server, in its engine.
    #[default]
    Server,
    /// `bao-referee worker` processes that claim the games from the database.
    Workers,
}

/// Pairs queued for the workers at once when `games.concurrency` is not set.
pub const WORKER_PAIRS: usize = 8;

impl GamesConfig {
    /// The game slots to run, and why (one line for the start): `concurrency` if set, else
    /// as many as the CPUs can give every bot that may be thinking one CPU of its own (one
    /// bot a slot with `no_ponder`, both otherwise); none where the bots' CPU cannot be
    /// confined, unless `allow_unconfined_cpu`.
    #[must_use]
    pub fn slots(&self) -> (usize, String) {
        if self.executor == Executor::Workers {
            // The workers confine their bots' CPU (each refuses to play where it cannot).
            return match self.concurrency {
                Some(n) => (n, "games.concurrency in arena.toml, pairs queued for the workers".into()),
                None => (WORKER_PAIRS, "pairs queued for the workers (games.executor = \"workers\")".into()),
            };
        }
        let machine = bao_supervise::cpu_confinement();
        let unconfined = match (&machine.limit, &machine.freeze) {
            (Err(why), _) => Some(why.clone()),
            (Ok(_), Err(why)) if self.no_ponder => Some(format!("no_ponder, but {why}")),
            _ => None,
        };
        if let Some(why) = &unconfined
            && !self.allow_unconfined_cpu
        {
            return (
                0,
                format!(
                    "no rated games: a bot's CPU cannot be confined here ({why}); set                      games.allow_unconfined_cpu = true in arena.toml to play them anyway"
                ),
            );
        }
        let warning = unconfined.map(|why| format!("; bots' CPU NOT confined ({why})")).unwrap_or_default();
        if let Some(n) = self.concurrency {
            return (n, format!("games.concurrency in arena.toml{warning}"));
        }
        let cpus = machine.cpus.max(1);
        let (thinking, how) = if self.no_ponder {
            (1, "one bot a game thinks at a time (no_ponder)")
        } else {
            (2, "both bots of a game may think at once")
        };
        ((cpus / thinking).max(1), format!("{cpus} CPUs, one CPU per thinking bot, {how}{warning}"))
    }
}

/// Limits on uploads, builds and submission rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// The largest upload accepted, in bytes.
    pub upload_bytes: usize,
    /// The most entries (files and directories) an archive may have.
    pub archive_entries: usize,
    /// The most bytes an archive may unpack to.
    pub unpacked_bytes: u64,
    /// Submissions per user per hour (admins are not limited).
    pub submissions_per_hour: u32,
    /// Versions a user may have waiting for the builder (queued, building or checking).
    #[serde(default = "default_queued_per_user")]
    pub queued_per_user: u32,
    /// Wall-clock limit of a build, in seconds.
    pub build_timeout_secs: u64,
    /// Address-space limit of a build, in MiB.
    pub build_memory_mib: u64,
    /// CPU-time limit of a build, in seconds.
    pub build_cpu_secs: u64,
    /// Processes a build may run at once (the compiler's children included).
    #[serde(default = "default_build_processes")]
    pub build_processes: u64,
    /// Disk a build may write (its folder and its `TMPDIR`), in MiB.
    #[serde(default = "default_build_disk_mib")]
    pub build_disk_mib: u64,
    /// Bytes of build output kept (the rest is cut).
    pub build_log_bytes: usize,
    /// Builds run at the same time.
    pub build_concurrency: usize,
}

fn default_unclaimable_abort_secs() -> u64 {
    600
}

fn default_build_processes() -> u64 {
    64
}

fn default_build_disk_mib() -> u64 {
    512
}

/// The sandbox every untrusted program runs in (docs/server.md, "Security model").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// The first uid (and gid) of the sandboxes when the server runs as root.
    #[serde(default = "default_uid_base")]
    pub uid_base: u32,
    /// How many uids from `uid_base` the sandboxes may use.
    #[serde(default = "default_uid_count")]
    pub uid_count: u32,
    /// The ids of the sandboxes when the server does not run as root: `"auto"` (its
    /// subordinate ids from /etc/subuid and /etc/subgid, where it has them and
    /// `newuidmap` works; else its own uid), `"off"` or `"FIRST:COUNT"` (only these of its
    /// subordinate uids; an error if they are not its own).
    #[serde(default, deserialize_with = "subordinate_ids")]
    pub subordinate_ids: bao_supervise::SubordinateIds,
    /// More host paths a sandbox sees, read-only (a toolchain outside `/usr`).
    #[serde(default)]
    pub read_only_paths: Vec<std::path::PathBuf>,
    /// The `PATH` of builds and bots (they get no other variable of the server's environment).
    #[serde(default = "default_path")]
    pub path: String,
    /// The protections missing on this machine that the operator accepts, by the names
    /// `serve` prints at start (comma-separated); empty: none may be missing.
    #[serde(default)]
    pub unsafe_sandbox: String,
}

impl Default for SandboxConfig {
    fn default() -> SandboxConfig {
        SandboxConfig {
            uid_base: default_uid_base(),
            uid_count: default_uid_count(),
            subordinate_ids: bao_supervise::SubordinateIds::Auto,
            read_only_paths: Vec::new(),
            path: default_path(),
            unsafe_sandbox: String::new(),
        }
    }
}

impl SandboxConfig {
    /// The names listed in `unsafe_sandbox`.
    #[must_use]
    pub fn accepted(&self) -> Vec<&str> {
        self.unsafe_sandbox.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()).collect()
    }
}

/// `sandbox.subordinate_ids`, read from its text.
fn subordinate_ids<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<bao_supervise::SubordinateIds, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

fn default_uid_base() -> u32 {
    1_500_000_000
}

fn default_uid_count() -> u32 {
    65_536
}

fn default_path() -> String {
    "/usr/local/bin:/usr/bin:/bin".into()
}

fn default_queued_per_user() -> u32 {
    4
}

/// Matchmaking settings (see docs/server.md for the reasoning).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchmakingConfig {
    /// Games a new version plays (in colour-swapped pairs) before anything else.
    pub placement_games: u32,
    /// A bot that has not started a game for this many seconds is scheduled next.
    pub wait_bound_secs: u64,
}

/// Rating settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingConfig {
    /// `bradley-terry` (maximum likelihood over all games, shown on the Elo scale).
    pub model: crate::domain::RatingModel,
    /// Seconds between two recomputations of the ratings.
    pub recompute_secs: u64,
}

/// The conformance gate: `bao-check`'s checks with a fixed time per move.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    /// The time per move of the checks, in milliseconds.
    pub move_ms: u64,
    /// The time to answer hello, in milliseconds.
    pub startup_ms: u64,
}

/// Candidate evaluation: an SPRT between a candidate and its owner's active version.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateConfig {
    /// H0: the candidate is at most this many Elo better.
    pub elo0: f64,
    /// H1: the candidate is at least this many Elo better.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// Games after which an undecided test stops (and the candidate is rejected).
    pub max_games: u32,
}

impl ArenaConfig {
    /// Parses a configuration, naming `path` in errors, and checks its values.
    pub fn parse(text: &str, path: &Path) -> Result<ArenaConfig, ServerError> {
        let err = |message: String| ServerError::Config { path: path.display().to_string(), message };
        let config: ArenaConfig = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        config.validate().map_err(err)?;
        Ok(config)
    }

    /// The configuration written on first start.
    #[must_use]
    pub fn default_config() -> ArenaConfig {
        toml::from_str(DEFAULT_CONFIG).unwrap_or_else(|e| unreachable!("arena.default.toml is invalid: {e}"))
    }

    /// Reads `DIR/arena.toml`, writing the default one first if it does not exist.
    pub fn load_or_create(dir: &Path) -> Result<ArenaConfig, ServerError> {
        let path = dir.join("arena.toml");
        if !path.exists() {
            std::fs::write(&path, DEFAULT_CONFIG)
                .map_err(|e| ServerError::io(format!("cannot write {}", path.display()), e))?;
            tracing::info!(path = %path.display(), "wrote the default configuration");
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ServerError::io(format!("cannot read {}", path.display()), e))?;
        ArenaConfig::parse(&text, &path)
    }

    /// The language named `name`.
    #[must_use]
    pub fn language(&self, name: &str) -> Option<&Language> {
        self.languages.iter().find(|l| l.name == name)
    }

    /// The rules variant.
    #[must_use]
    pub fn variant(&self) -> bao_rules::Variant {
        self.games.variant
    }

    /// Every duration setting at most [`MAX_DURATION_SECS`]: a deadline that far ahead
    /// cannot be computed (a clock's `Instant` would overflow), and none is meant.
    fn durations_in_bounds(&self) -> Result<(), String> {
        let (g, l) = (&self.games, &self.limits);
        let in_secs = [
            ("games.unclaimable_abort_secs", g.unclaimable_abort_secs),
            ("games.bot_cpu_secs", g.bot_cpu_secs),
            ("limits.build_timeout_secs", l.build_timeout_secs),
            ("limits.build_cpu_secs", l.build_cpu_secs),
            ("matchmaking.wait_bound_secs", self.matchmaking.wait_bound_secs),
            ("rating.recompute_secs", self.rating.recompute_secs),
        ];
        let in_ms = [
            ("games.base_ms", g.base_ms),
            ("games.increment_ms", g.increment_ms),
            ("games.startup_ms", g.startup_ms),
            ("gate.move_ms", self.gate.move_ms),
            ("gate.startup_ms", self.gate.startup_ms),
        ];
        let too_long = in_secs
            .into_iter()
            .map(|(name, secs)| (name, secs, secs))
            .chain(in_ms.into_iter().map(|(name, ms)| (name, ms, ms / 1000)))
            .find(|&(_, _, secs)| secs > MAX_DURATION_SECS);
        match too_long {
            Some((name, value, _)) => Err(format!(
                "{name} = {value} is longer than a year ({MAX_DURATION_SECS} s), the longest duration a setting may have"
            )),
            None => Ok(()),
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.limits.build_concurrency == 0 {
            return Err("limits.build_concurrency must be at least 1".into());
        }
        if self.limits.build_processes == 0 || self.limits.build_disk_mib == 0 {
            return Err("limits.build_processes and limits.build_disk_mib must be at least 1".into());
        }
        let sandbox = &self.sandbox;
        crate::sandbox::probe::accepted(sandbox)?;
        crate::sandbox::Profile::id_range(sandbox)
            .validate()
            .map_err(|e| format!("sandbox.uid_base, uid_count: {e}"))?;
        if let Some(p) = sandbox.read_only_paths.iter().find(|p| !p.is_absolute()) {
            return Err(format!("sandbox.read_only_paths: {} is not an absolute path", p.display()));
        }
        if self.gate.move_ms == 0 || self.gate.startup_ms == 0 {
            return Err("gate.move_ms and gate.startup_ms must be positive".into());
        }
        if self.games.base_ms == 0 {
            return Err("games.base_ms must be positive".into());
        }
        if self.rating.recompute_secs == 0 {
            return Err("rating.recompute_secs must be at least 1".into());
        }
        self.durations_in_bounds()?;
        let c = &self.candidate;
        let ordered = c.elo1 > c.elo0 && c.elo0.is_finite() && c.elo1.is_finite();
        let rates =
            (0.0..0.5).contains(&c.alpha) && c.alpha > 0.0 && (0.0..0.5).contains(&c.beta) && c.beta > 0.0;
        if !(ordered && rates) {
            return Err("candidate: need elo1 > elo0 and 0 < alpha, beta < 0.5".into());
        }
        self.http.validate()?;
        if let Some(url) = &self.public_url {
            crate::auth::origin_of(url)
                .ok_or_else(|| format!("public_url must be like \"https://bao.example.org\", not {url:?}"))?;
        }
        if self.languages.is_empty() {
            return Err("at least one [[languages]] entry is needed".into());
        }
        for (i, l) in self.languages.iter().enumerate() {
            l.validate().map_err(|e| format!("languages[{i}] ({}): {e}", l.name))?;
            if self.languages[..i].iter().any(|o| o.name == l.name) {
                return Err(format!("language {:?} is defined twice", l.name));
            }
        }
        Ok(())
    }
}

/// Reads `games.variant` by its name (`kiswahili`, `kujifunza`); another name is an
/// error naming it and the accepted ones.
fn variant_by_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bao_rules::Variant, D::Error> {
    let name = String::deserialize(d)?;
    name.parse().map_err(serde::de::Error::custom)
}

/// The longest duration a setting may have: a year, in seconds.
pub const MAX_DURATION_SECS: u64 = 365 * 24 * 3600;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_parses_and_validates() {
        let c = ArenaConfig::parse(DEFAULT_CONFIG, Path::new("arena.toml")).expect("valid");
        for name in ["python", "node", "cpp", "java", "rust", "executable"] {
            assert!(c.language(name).is_some(), "language {name} missing");
        }
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let bad = DEFAULT_CONFIG.replace("# concurrency = 1\n", "concurrency = 1\nbogus = 3\n");
        assert_ne!(bad, DEFAULT_CONFIG);
        let e = ArenaConfig::parse(&bad, Path::new("a.toml")).expect_err("unknown key").to_string();
        assert!(e.contains("bogus"), "{e}");
        let bad = DEFAULT_CONFIG.replace("variant = \"kiswahili\"", "variant = \"chess\"");
        let e = ArenaConfig::parse(&bad, Path::new("a.toml")).expect_err("bad variant").to_string();
        assert!(e.contains("chess") && e.contains("kujifunza"), "{e}");
        let bad = DEFAULT_CONFIG.replace("model = \"bradley-terry\"", "model = \"glicko\"");
        assert_ne!(bad, DEFAULT_CONFIG);
        let e = ArenaConfig::parse(&bad, Path::new("a.toml")).expect_err("bad model").to_string();
        assert!(e.contains("glicko") && e.contains("bradley-terry"), "{e}");
    }

    #[test]
    fn durations_longer_than_a_year_are_refused_by_name() {
        for (from, to, name) in [
            (
                "build_timeout_secs = ",
                "build_timeout_secs = 18446744073709551615 #",
                "limits.build_timeout_secs",
            ),
            ("base_ms = ", "base_ms = 40000000000 #", "games.base_ms"),
            (
                "# unclaimable_abort_secs = 600",
                "unclaimable_abort_secs = 31536001",
                "games.unclaimable_abort_secs",
            ),
        ] {
            let bad = DEFAULT_CONFIG.replacen(from, to, 1);
            assert_ne!(bad, DEFAULT_CONFIG, "{from}");
            let e = ArenaConfig::parse(&bad, Path::new("a.toml")).expect_err(name).to_string();
            assert!(e.contains(name) && e.contains("longer than a year"), "{e}");
        }
        let year =
            DEFAULT_CONFIG.replacen("# unclaimable_abort_secs = 600", "unclaimable_abort_secs = 31536000", 1);
        ArenaConfig::parse(&year, Path::new("a.toml")).expect("a year is accepted");
    }
}
