//! A state change of a bot version that the lifecycle allows: the only thing
//! [`crate::versions::set_state`] accepts, so an impossible change cannot be
//! written. The named changes are checked when the program is compiled; any
//! other pair goes through [`VersionChange::new`], which refuses it.

use super::VersionState;

/// A change of state the lifecycle refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a {what} cannot go from {from} to {to}")]
pub struct ImpossibleTransition {
    /// `version` or `game`.
    pub what: &'static str,
    /// The state it is in.
    pub from: &'static str,
    /// The state asked for.
    pub to: &'static str,
}

/// An allowed change of a version's state, `from → to`.
///
/// Its fields are private: a change is made only by the named constants or
/// by [`VersionChange::new`], so one the lifecycle refuses does not compile:
///
/// ```compile_fail
/// use bao_server::domain::{VersionChange, VersionState};
/// let _ = VersionChange { from: VersionState::Retired, to: VersionState::Active };
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionChange {
    from: VersionState,
    to: VersionState,
}

impl VersionChange {
    /// The build worker takes a queued version.
    pub const START_BUILD: VersionChange = VersionChange::known(VersionState::Queued, VersionState::Building);
    /// The build succeeded: the conformance gate runs.
    pub const START_CHECK: VersionChange =
        VersionChange::known(VersionState::Building, VersionState::Checking);
    /// The build could not start (the server's fault): queued again.
    pub const REQUEUE_BUILD: VersionChange =
        VersionChange::known(VersionState::Building, VersionState::Queued);
    /// A stop cut the check short: queued again.
    pub const REQUEUE_CHECK: VersionChange =
        VersionChange::known(VersionState::Checking, VersionState::Queued);
    /// The build failed.
    pub const BUILD_FAILED: VersionChange =
        VersionChange::known(VersionState::Building, VersionState::Rejected);
    /// The conformance gate failed.
    pub const CHECK_FAILED: VersionChange =
        VersionChange::known(VersionState::Checking, VersionState::Rejected);
    /// A candidate that passed the gate starts its SPRT.
    pub const START_EVALUATION: VersionChange =
        VersionChange::known(VersionState::Checking, VersionState::Evaluating);
    /// A version that passed the gate joins the ladder.
    pub const ACTIVATE: VersionChange = VersionChange::known(VersionState::Checking, VersionState::Active);
    /// A candidate found better is promoted.
    pub const PROMOTE: VersionChange = VersionChange::known(VersionState::Evaluating, VersionState::Active);
    /// A candidate found not better (or whose baseline left) is refused.
    pub const NOT_PROMOTED: VersionChange =
        VersionChange::known(VersionState::Evaluating, VersionState::Rejected);
    /// A newer version of the bot became active.
    pub const RETIRE: VersionChange = VersionChange::known(VersionState::Active, VersionState::Retired);

    /// The change `from → to`, refused when the lifecycle does not allow it.
    pub fn new(from: VersionState, to: VersionState) -> Result<VersionChange, ImpossibleTransition> {
        if from.may_become(to) {
            Ok(VersionChange { from, to })
        } else {
            Err(ImpossibleTransition { what: "version", from: from.as_str(), to: to.as_str() })
        }
    }

    /// A change checked when the program is compiled (a constant of an
    /// impossible one fails to compile).
    const fn known(from: VersionState, to: VersionState) -> VersionChange {
        assert!(from.may_become(to), "the lifecycle does not allow this change");
        VersionChange { from, to }
    }

    /// The state the version must be in.
    #[must_use]
    pub const fn from(self) -> VersionState {
        self.from
    }

    /// The state it goes to.
    #[must_use]
    pub const fn to(self) -> VersionState {
        self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use VersionState::*;

    #[test]
    fn the_lifecycle_goes_forward() {
        let path = [
            VersionChange::START_BUILD,
            VersionChange::START_CHECK,
            VersionChange::START_EVALUATION,
            VersionChange::PROMOTE,
            VersionChange::RETIRE,
        ];
        for pair in path.windows(2) {
            assert_eq!(pair[0].to(), pair[1].from(), "{pair:?}");
        }
        assert_eq!(VersionChange::new(Checking, Active), Ok(VersionChange::ACTIVATE));
    }

    #[test]
    fn an_impossible_change_is_refused() {
        let e = VersionChange::new(Retired, Active).expect_err("a retired version stays retired");
        assert_eq!(e.to_string(), "a version cannot go from retired to active");
        assert!(VersionChange::new(Queued, Active).is_err(), "skipping the build and the gate");
        assert!(VersionChange::new(Rejected, Queued).is_err());
        assert!(VersionChange::new(Active, Evaluating).is_err());
        for s in VersionState::ALL {
            assert!(VersionChange::new(*s, *s).is_err(), "{s} -> {s}");
        }
        // Every pair is either allowed or refused, as `may_become` says.
        for from in VersionState::ALL {
            for to in VersionState::ALL {
                assert_eq!(VersionChange::new(*from, *to).is_ok(), from.may_become(*to), "{from} -> {to}");
            }
        }
    }
}
