//! The lifecycle of a bot version: `queued → building → checking → active |
//! rejected`, with `evaluating` for a candidate under SPRT and `retired` for a
//! version replaced by a newer active one.

use std::fmt;

use serde::Serialize;

/// The state of a bot version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum VersionState {
    /// Uploaded, waiting for the build worker.
    Queued,
    /// Being built.
    Building,
    /// Built; the conformance gate is running.
    Checking,
    /// A candidate playing its owner's active version under an SPRT.
    Evaluating,
    /// On the ladder.
    Active,
    /// Refused: the build failed, a check failed, or the SPRT said no.
    Rejected,
    /// Replaced by a newer active version of the same bot.
    Retired,
}

impl VersionState {
    /// Every state.
    pub const ALL: [VersionState; 7] = [
        VersionState::Queued,
        VersionState::Building,
        VersionState::Checking,
        VersionState::Evaluating,
        VersionState::Active,
        VersionState::Rejected,
        VersionState::Retired,
    ];

    /// The name stored in the database.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            VersionState::Queued => "queued",
            VersionState::Building => "building",
            VersionState::Checking => "checking",
            VersionState::Evaluating => "evaluating",
            VersionState::Active => "active",
            VersionState::Rejected => "rejected",
            VersionState::Retired => "retired",
        }
    }

    /// Parses a stored name.
    #[must_use]
    pub fn parse(s: &str) -> Option<VersionState> {
        VersionState::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether a version may go from `self` to `to`.
    #[must_use]
    pub fn may_become(self, to: VersionState) -> bool {
        use VersionState::{Active, Building, Checking, Evaluating, Queued, Rejected, Retired};
        matches!(
            (self, to),
            (Queued, Building)
                | (Building, Checking | Rejected | Queued)
                | (Checking, Active | Evaluating | Rejected | Queued)
                | (Evaluating, Active | Rejected)
                | (Active, Retired)
        )
    }
}

impl fmt::Display for VersionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in VersionState::ALL {
            assert_eq!(VersionState::parse(s.as_str()), Some(s));
        }
        assert_eq!(VersionState::parse("bogus"), None);
    }

    #[test]
    fn only_forward_transitions() {
        use VersionState::*;
        assert!(Queued.may_become(Building));
        assert!(Building.may_become(Checking));
        assert!(Checking.may_become(Active));
        assert!(Evaluating.may_become(Active));
        assert!(!Queued.may_become(Active), "skipping the build and the gate");
        assert!(!Rejected.may_become(Active));
        assert!(!Retired.may_become(Active));
        assert!(!Active.may_become(Queued));
        for s in VersionState::ALL {
            assert!(!s.may_become(s), "{s} -> {s}");
        }
    }
}
