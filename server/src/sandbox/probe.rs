//! What this machine lets the sandbox do: checked once at start by starting a
//! program (`/bin/true`) under the bots' profile and reading what it ran under.
//! A protection missing here is named; the server refuses to build or run
//! submissions unless `sandbox.unsafe_sandbox` of `arena.toml` accepts it.

use bao_supervise::{BotProcess, BotSpec, IsolationLevel};

use std::path::Path;

use crate::config::ArenaConfig;
use crate::error::ServerError;
use crate::sandbox::Profile;

/// One protection of the sandbox that this machine does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// Its name, as `unsafe_sandbox` accepts it (`namespaces`, `cgroup`, `separate-uid`).
    pub name: &'static str,
    /// What is missing and what it means for the arena.
    pub why: String,
}

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxCheck {
    /// The protections missing here.
    pub missing: Vec<Missing>,
    /// How the probe's program ran (for the log).
    pub supervision: String,
}

/// The names `unsafe_sandbox` knows.
pub const NAMES: &[&str] = &["namespaces", "cgroup", "separate-uid"];

impl SandboxCheck {
    /// Starts `/bin/true` under `profile` and reads what it ran under.
    pub async fn run(profile: &Profile) -> SandboxCheck {
        let spec = BotSpec {
            name: Some("sandbox probe".into()),
            program: "/bin/true".into(),
            args: Vec::new(),
            dir: Some("/".into()),
        };
        let process = match BotProcess::spawn_with(&spec, &profile.limits, &profile.options).await {
            Ok(p) => p,
            Err(e) => {
                return SandboxCheck {
                    missing: vec![Missing {
                        name: "namespaces",
                        why: format!("no program can be started in the sandbox: {e}"),
                    }],
                    supervision: String::new(),
                };
            }
        };
        let s = process.supervision().clone();
        let _ = process.shutdown(std::time::Duration::from_secs(1)).await;
        let mut missing = Vec::new();
        if !s.stub || s.isolation.level != IsolationLevel::Full || !s.isolation.no_network() {
            missing.push(Missing {
                name: "namespaces",
                why: "the kernel allows no namespaces here (user, PID, mount, network): a submission \
                      would run beside the server, with its network, able to signal its processes"
                    .into(),
            });
        }
        if s.cgroup.is_none() {
            missing.push(Missing {
                name: "cgroup",
                why: "the server cannot create cgroups here (cgroup v2 delegated to it): memory and \
                      processes are limited by sampling and rlimits only"
                    .into(),
            });
        }
        if nix::unistd::geteuid().is_root() && s.uid.is_none() {
            missing.push(Missing {
                name: "separate-uid",
                why: "the server runs as root but the sandbox cannot run as a uid of its own".into(),
            });
        }
        SandboxCheck { missing, supervision: s.to_string() }
    }

    /// The protections missing and not accepted by `accepted` (the names of
    /// `unsafe_sandbox`).
    #[must_use]
    pub fn refused<'a>(&'a self, accepted: &[&str]) -> Vec<&'a Missing> {
        self.missing.iter().filter(|m| !accepted.contains(&m.name)).collect()
    }

    /// The message of a server that refuses to start: each protection missing and
    /// not accepted, and how to accept it.
    #[must_use]
    pub fn refusal(&self, accepted: &[&str]) -> Option<String> {
        let refused = self.refused(accepted);
        if refused.is_empty() {
            return None;
        }
        let mut text = String::from(
            "the sandbox of submissions lacks protections on this machine, so the server will not build \
             or run them:\n",
        );
        for m in &refused {
            text.push_str(&format!("  - {}: {}\n", m.name, m.why));
        }
        let names: Vec<&str> = refused.iter().map(|m| m.name).collect();
        text.push_str(&format!(
            "Give the server what is missing (docs/server.md, \"Security model\"), or accept the weaker \
             sandbox in arena.toml: [sandbox] unsafe_sandbox = \"{}\"",
            names.join(",")
        ));
        Some(text)
    }
}

/// Probes the machine at start: logs what the sandbox runs under and every
/// protection missing; fails, naming them, when one is missing that
/// `unsafe_sandbox` does not accept.
pub async fn require(config: &ArenaConfig, config_path: &Path) -> Result<SandboxCheck, ServerError> {
    let check = SandboxCheck::run(&Profile::bot(config)).await;
    let accepted = config.sandbox.accepted();
    tracing::info!(supervision = %check.supervision, "the sandbox of submissions");
    for m in &check.missing {
        if accepted.contains(&m.name) {
            tracing::warn!(protection = m.name, "missing, accepted by unsafe_sandbox: {}", m.why);
        }
    }
    match check.refusal(&accepted) {
        Some(message) => Err(ServerError::Config { path: config_path.display().to_string(), message }),
        None => Ok(check),
    }
}

/// Checks the names of `unsafe_sandbox`.
pub fn validate_names(accepted: &[&str]) -> Result<(), String> {
    match accepted.iter().find(|n| !NAMES.contains(n)) {
        Some(bad) => Err(format!(
            "sandbox.unsafe_sandbox names {bad:?}, which is not a protection of the sandbox; the names are: {}",
            NAMES.join(", ")
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_names_what_is_missing_and_not_accepted() {
        let check = SandboxCheck {
            missing: vec![
                Missing { name: "cgroup", why: "no cgroups".into() },
                Missing { name: "separate-uid", why: "no uid".into() },
            ],
            supervision: String::new(),
        };
        let text = check.refusal(&[]).expect("refused");
        assert!(text.contains("cgroup: no cgroups") && text.contains("separate-uid: no uid"), "{text}");
        assert!(text.contains("unsafe_sandbox = \"cgroup,separate-uid\""), "{text}");
        let text = check.refusal(&["cgroup"]).expect("still refused");
        assert!(!text.contains("cgroup:") && text.contains("separate-uid"), "{text}");
        assert_eq!(check.refusal(&["cgroup", "separate-uid"]), None);
        assert!(validate_names(&["cgroup"]).is_ok());
        assert!(validate_names(&["landlok"]).expect_err("typo").contains("landlok"));
    }
}
