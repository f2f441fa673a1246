//! What this machine lets the sandbox do, probed once at start
//! (`bao_supervise::SandboxSupport`). Every protection missing here is named in
//! the log; the server refuses to start (and so to build or run a submission)
//! unless `sandbox.unsafe_sandbox` of `arena.toml` accepts each of them.

use std::path::Path;

use bao_supervise::{SandboxFeature, SandboxIdentity, SandboxSupport, SubordinateIds};

use crate::config::ArenaConfig;
use crate::error::ServerError;

/// The features missing in `support` and not named in `accepted`.
#[must_use]
pub fn refused(support: &SandboxSupport, accepted: &[SandboxFeature]) -> Vec<SandboxFeature> {
    support.missing().into_iter().filter(|f| !accepted.contains(f)).collect()
}

/// The message of a server that refuses to run submissions: each protection
/// missing and not accepted, why, and how to accept it.
#[must_use]
pub fn refusal(support: &SandboxSupport, accepted: &[SandboxFeature]) -> Option<String> {
    let refused = refused(support, accepted);
    if refused.is_empty() {
        return None;
    }
    let mut text = String::from(
        "the sandbox of submissions lacks protections on this machine, so the server will not build \
         or run them:\n",
    );
    for state in support.features.iter().filter(|s| refused.contains(&s.feature)) {
        text.push_str(&format!("  - {}: {}\n", state.feature, state.detail));
    }
    let names: Vec<&str> = refused.iter().map(|f| f.name()).collect();
    text.push_str(&format!(
        "Give the server what is missing (docs/server.md, \"Security model\"), or accept the weaker \
         sandbox in arena.toml: [sandbox] unsafe_sandbox = \"{}\"",
        names.join(",")
    ));
    Some(text)
}

/// The features `unsafe_sandbox` accepts, or an error naming one it does not know.
pub fn accepted(config: &crate::config::SandboxConfig) -> Result<Vec<SandboxFeature>, String> {
    config
        .accepted()
        .into_iter()
        .map(|name| name.parse::<SandboxFeature>().map_err(|e| format!("sandbox.unsafe_sandbox: {e}")))
        .collect()
}

/// Probes the machine at start: logs each protection of the sandbox and
/// whether it is there; fails, naming them, when one is missing that
/// `unsafe_sandbox` does not accept.
pub async fn require(config: &ArenaConfig, config_path: &Path) -> Result<SandboxSupport, ServerError> {
    let subordinate = config.sandbox.subordinate_ids;
    let support = tokio::task::spawn_blocking(move || {
        SandboxSupport::probe_with_ids(&bao_supervise::StubChoice::Auto, subordinate)
    })
    .await
    .map_err(|e| ServerError::Internal(format!("the sandbox probe stopped: {e}")))?;
    let config_error = |message| ServerError::Config { path: config_path.display().to_string(), message };
    let accepted = accepted(&config.sandbox).map_err(config_error)?;
    log_identity(&support.identity);
    if let Some(message) = identity_refusal(subordinate, &support.identity) {
        return Err(config_error(message));
    }
    for state in &support.features {
        if state.available {
            tracing::info!(feature = %state.feature, "sandbox: ok ({})", state.detail);
        } else if accepted.contains(&state.feature) {
            tracing::warn!(feature = %state.feature, "sandbox: MISSING, accepted by unsafe_sandbox ({})", state.detail);
        } else {
            tracing::error!(feature = %state.feature, "sandbox: MISSING ({})", state.detail);
        }
    }
    match refusal(&support, &accepted) {
        Some(message) => Err(config_error(message)),
        None => Ok(support),
    }
}

/// Why the server refuses to start when `sandbox.subordinate_ids` names a range
/// that its sandboxes cannot run as (`support` found them sharing its uid).
#[must_use]
pub fn identity_refusal(subordinate: SubordinateIds, identity: &SandboxIdentity) -> Option<String> {
    match (subordinate, identity) {
        (SubordinateIds::Within(range), SandboxIdentity::CallerUid { why }) => Some(format!(
            "sandbox.subordinate_ids = \"{}:{}\" cannot be used: {why}",
            range.first, range.count
        )),
        _ => None,
    }
}

/// Says who the sandboxes run as: a warning when they share the server's uid
/// though they could have their own (docs/server.md, "Security model").
fn log_identity(identity: &SandboxIdentity) {
    match identity {
        SandboxIdentity::OwnUid => tracing::info!("sandbox identity: own-uid ({identity})"),
        SandboxIdentity::SubordinateIds { .. } => {
            tracing::info!("sandbox identity: subordinate-ids ({identity})");
        }
        SandboxIdentity::CallerUid { .. } => tracing::warn!(
            "sandbox identity: server-uid ({identity}); give the server's user subordinate ids for a uid per \
             sandbox (docs/server.md, \"Security model\")"
        ),
    }
}

#[cfg(test)]
mod tests {
    use bao_supervise::FeatureState;

    use super::*;

    #[test]
    fn refusal_names_what_is_missing_and_not_accepted() {
        let support = SandboxSupport {
            features: SandboxFeature::ALL
                .iter()
                .map(|&feature| FeatureState {
                    feature,
                    available: !matches!(feature, SandboxFeature::CgroupV2 | SandboxFeature::LandlockScopes),
                    detail: format!("why {feature}"),
                })
                .collect(),
            landlock_abi: Some(5),
            root: false,
            identity: SandboxIdentity::CallerUid { why: "test".into() },
        };
        let text = refusal(&support, &[]).expect("refused");
        assert!(text.contains("cgroup-v2: why cgroup-v2") && text.contains("landlock-scopes: why"), "{text}");
        assert!(text.contains("unsafe_sandbox = \"cgroup-v2,landlock-scopes\""), "{text}");
        let text = refusal(&support, &[SandboxFeature::CgroupV2]).expect("still refused");
        assert!(!text.contains("cgroup-v2:") && text.contains("landlock-scopes"), "{text}");
        assert_eq!(refusal(&support, &[SandboxFeature::CgroupV2, SandboxFeature::LandlockScopes]), None);
        let mut config = crate::config::SandboxConfig {
            unsafe_sandbox: "cgroup-v2, landlock".into(),
            ..crate::config::SandboxConfig::default()
        };
        assert_eq!(accepted(&config), Ok(vec![SandboxFeature::CgroupV2, SandboxFeature::Landlock]));
        config.unsafe_sandbox = "landlok".into();
        assert!(accepted(&config).expect_err("typo").contains("landlok"));
    }

    #[test]
    fn a_subordinate_range_asked_for_by_name_is_never_dropped_silently() {
        let within = SubordinateIds::Within(bao_supervise::IdRange { first: 200_000, count: 10 });
        let shared = SandboxIdentity::CallerUid { why: "user bao has no range in /etc/subuid".into() };
        let text = identity_refusal(within, &shared).expect("refused");
        assert!(text.contains("\"200000:10\"") && text.contains("no range in /etc/subuid"), "{text}");
        assert_eq!(identity_refusal(SubordinateIds::Auto, &shared), None, "auto falls back, said in the log");
        let own = SandboxIdentity::SubordinateIds {
            uids: bao_supervise::IdRange { first: 200_000, count: 9 },
            gid_first: 5,
        };
        assert_eq!(identity_refusal(within, &own), None);
        let text: crate::config::SandboxConfig =
            toml::from_str("subordinate_ids = \"200000:10\"").expect("parses");
        assert_eq!(text.subordinate_ids, within);
        let bad = toml::from_str::<crate::config::SandboxConfig>("subordinate_ids = \"many\"")
            .expect_err("refused");
        assert!(bad.to_string().contains("FIRST:COUNT"), "{bad}");
    }
}
