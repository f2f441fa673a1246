//! The lifecycle state of a bot version: `queued → building → checking →
//! active | rejected`, with `evaluating` for a candidate under SPRT and
//! `retired` for a version replaced by a newer active one.

stored_text! {
    /// The state of a bot version.
    pub enum VersionState ("version state") {
        /// Uploaded, waiting for the build worker.
        Queued = "queued",
        /// Being built.
        Building = "building",
        /// Built; the conformance gate is running.
        Checking = "checking",
        /// A candidate playing its owner's active version under an SPRT.
        Evaluating = "evaluating",
        /// On the ladder.
        Active = "active",
        /// Refused: the build failed, a check failed, or the SPRT said no.
        Rejected = "rejected",
        /// Replaced by a newer active version of the same bot.
        Retired = "retired",
    }
}

impl VersionState {
    /// Whether a version may go from `self` to `to`: forward through the
    /// lifecycle, or back to `queued` from a build or check a stop (or a
    /// failure of the server's own) cut short.
    #[must_use]
    pub const fn may_become(self, to: VersionState) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_unknown_one_is_named() {
        for s in VersionState::ALL {
            assert_eq!(s.as_str().parse::<VersionState>(), Ok(*s));
        }
        let e = "bogus".parse::<VersionState>().expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "unknown version state \"bogus\": expected queued, building, checking, evaluating, active, rejected or retired"
        );
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
            assert!(!s.may_become(*s), "{s} -> {s}");
        }
    }

    #[test]
    fn json_shows_the_stored_text() {
        assert_eq!(serde_json::to_string(&VersionState::Evaluating).expect("json"), "\"evaluating\"");
    }
}
