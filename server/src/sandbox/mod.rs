//! The one sandbox of every untrusted program the server runs: a build, the
//! conformance gate's checks and a game's bots all start through
//! `bao-supervise` at [`IsolationLevel::Full`](bao_supervise::IsolationLevel::Full),
//! each with its profile from `arena.toml` ([`Profile`]); [`probe`] finds at start
//! which protection this machine lacks, and the server refuses to run submissions
//! unless `sandbox.unsafe_sandbox` accepts it (docs/server.md, "Security model").

pub mod probe;
pub mod profile;

pub use profile::Profile;
