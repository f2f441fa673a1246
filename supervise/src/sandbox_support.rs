//! Which protections of the sandbox this machine gives: [`SandboxSupport::probe`], for a
//! server to say at start exactly what is missing (and refuse unless the operator accepts
//! it), and for logs.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::options::{Isolation, IsolationLevel, StubChoice};
use crate::subordinate_ids::SubordinateIds;

/// One protection of the sandbox ([`IsolationLevel::Full`]) that a machine may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxFeature {
    /// The sandbox itself: user (when not root), PID, mount, IPC and network namespaces, the
    /// new root, the stub that sets them up. Without it programs run with process-group
    /// isolation only, beside the caller.
    Namespaces,
    /// A cgroup v2 per sandbox with `cgroup.kill`: every process of a sandbox, `setsid`
    /// daemons included, ended at once, also after a `kill -9` of the caller (the next start
    /// kills what is left). Without it a `/proc` walk does it, racily.
    CgroupV2,
    /// A kernel memory limit (cgroup v2 `memory.max`, or the v1 memory controller); without
    /// it the supervisor samples memory and sets `RLIMIT_DATA`.
    MemoryLimit,
    /// A kernel process limit (cgroup `pids.max`, v2 or v1); without it the supervisor counts
    /// processes and, for a separate uid, `RLIMIT_NPROC` holds.
    ProcessLimit,
    /// The seccomp filter (`ptrace`, `mount`, `bpf`, new namespaces… refused).
    Seccomp,
    /// Landlock's file-system rules (ABI 1 and later): defence in depth behind the new root.
    Landlock,
    /// Landlock's TCP rules (ABI 4 and later): defence in depth behind the network namespace.
    LandlockNetwork,
    /// Landlock's scopes (ABI 6 and later): no signal to, no abstract Unix socket of, any
    /// process outside the sandbox.
    LandlockScopes,
}

impl SandboxFeature {
    /// Every feature, in the order of [`SandboxSupport::features`].
    pub const ALL: [Self; 8] = [
        Self::Namespaces,
        Self::CgroupV2,
        Self::MemoryLimit,
        Self::ProcessLimit,
        Self::Seccomp,
        Self::Landlock,
        Self::LandlockNetwork,
        Self::LandlockScopes,
    ];

    /// The feature's stable name (as in a configuration's list of accepted gaps).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Namespaces => "namespaces",
            Self::CgroupV2 => "cgroup-v2",
            Self::MemoryLimit => "memory-limit",
            Self::ProcessLimit => "process-limit",
            Self::Seccomp => "seccomp",
            Self::Landlock => "landlock",
            Self::LandlockNetwork => "landlock-network",
            Self::LandlockScopes => "landlock-scopes",
        }
    }
}

impl fmt::Display for SandboxFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SandboxFeature {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|f| f.name()).collect();
            format!("unknown sandbox feature {name:?}: expected one of {}", names.join(", "))
        })
    }
}

/// Whether one feature is there, and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureState {
    /// The feature.
    pub feature: SandboxFeature,
    /// Whether this machine gives it.
    pub available: bool,
    /// What was found (a version, a path), or why it is missing.
    pub detail: String,
}

/// The protections of the sandbox this machine gives ([`SandboxSupport::probe`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSupport {
    /// Every [`SandboxFeature`], in the order of [`SandboxFeature::ALL`].
    pub features: Vec<FeatureState>,
    /// The kernel's Landlock ABI, if it has Landlock.
    pub landlock_abi: Option<u32>,
    /// Whether the caller runs as root (each sandbox then gets a uid of its own).
    pub root: bool,
    /// Who a sandbox runs as.
    pub identity: SandboxIdentity,
}

/// Who a sandbox of this caller runs as (`docs/supervision.md`, "Identity").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum SandboxIdentity {
    /// The caller is root: each sandbox runs as a uid and gid of its own from
    /// [`SandboxProfile::ids`](crate::SandboxProfile).
    OwnUid,
    /// The caller is not root but has subordinate ids that work here: each sandbox runs as a
    /// uid of its own from `uids` (the n-th with the gid `gid_first + n`), mapped by
    /// `newuidmap` and `newgidmap`.
    SubordinateIds {
        /// The uids the sandboxes lease.
        uids: crate::IdRange,
        /// The gid of the first of them.
        gid_first: u32,
    },
    /// Every sandbox runs as the caller's uid outside its user namespace (what protects the
    /// caller's files is that the sandbox cannot see them), and why.
    CallerUid {
        /// Why not a uid of its own: no subordinate ids, no `newuidmap`, off, or refused.
        why: String,
    },
}

impl SandboxIdentity {
    /// Whether each sandbox has a uid of its own (so that `RLIMIT_NPROC` counts its tasks
    /// alone, and no file of the caller is its own).
    #[must_use]
    pub fn own_uid(&self) -> bool {
        !matches!(self, Self::CallerUid { .. })
    }
}

impl fmt::Display for SandboxIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OwnUid => f.write_str("a uid and gid of its own per sandbox (the caller is root)"),
            Self::SubordinateIds { uids, gid_first } => write!(
                f,
                "a uid and gid of its own per sandbox from the caller's subordinate ids (uids {}..{}, gids from {gid_first}, mapped by newuidmap)",
                uids.first,
                u64::from(uids.first) + u64::from(uids.count)
            ),
            Self::CallerUid { why } => {
                write!(f, "the caller's uid outside the sandbox's user namespace ({why})")
            }
        }
    }
}

impl SandboxSupport {
    /// Probes this machine with the stub [`StubChoice::Auto`] finds (see
    /// [`SandboxSupport::probe_with`]).
    #[must_use]
    pub fn probe() -> Self {
        Self::probe_with(&StubChoice::Auto)
    }

    /// [`SandboxSupport::probe_with_ids`] with the default choice of subordinate ids.
    #[must_use]
    pub fn probe_with(stub: &StubChoice) -> Self {
        Self::probe_with_ids(stub, SubordinateIds::Auto)
    }

    /// Probes this machine: starts the stub once with the whole sandbox of the default
    /// [`SandboxProfile`](crate::SandboxProfile) (namespaces, new root, Landlock and seccomp
    /// applied, no program run), and creates and removes one cgroup with a memory and a
    /// process limit. Takes a few milliseconds; not cached. Not as root, the sandbox is
    /// probed as `subordinate` would have it (a uid of its own where the caller has
    /// subordinate ids that work), and, where those fail, again as the caller's uid.
    ///
    /// The process limit is there where the pids controller is, or where each sandbox has a
    /// uid of its own (its `RLIMIT_NPROC` then counts its tasks alone).
    #[must_use]
    pub fn probe_with_ids(stub: &StubChoice, subordinate: SubordinateIds) -> Self {
        let root = nix::unistd::geteuid().is_root();
        let mut features = Vec::new();
        let mut state = |feature, available, detail: String| {
            features.push(FeatureState { feature, available, detail });
        };
        let (sandbox, identity) = match stub.resolve() {
            Some(stub) => probe_stub(&stub, root, subordinate),
            None => (
                Err("no re-exec stub: this executable does not host it (see StubChoice)".to_owned()),
                SandboxIdentity::CallerUid { why: "no sandbox".to_owned() },
            ),
        };
        match &sandbox {
            Ok(_) => {
                state(SandboxFeature::Namespaces, true, "user, PID, mount, IPC, network; new root".into())
            }
            Err(why) => state(SandboxFeature::Namespaces, false, why.clone()),
        }
        let limits = crate::ResourceLimits { max_memory_bytes: Some(64 << 20), ..Default::default() };
        match crate::cgroup::BotCgroup::create(&limits, Some(64), false) {
            Ok(cgroup) => {
                state(SandboxFeature::CgroupV2, true, cgroup.dir().display().to_string());
                let memory = cgroup.memory_limited();
                state(SandboxFeature::MemoryLimit, memory, detail(memory, "no memory controller we may use"));
                let pids = cgroup.pids_limited();
                process_limit(&mut state, pids, "no pids controller we may use", &identity);
                cgroup.remove();
            }
            Err(why) => {
                state(SandboxFeature::CgroupV2, false, why.clone());
                state(SandboxFeature::MemoryLimit, false, format!("no cgroup: {why}"));
                process_limit(&mut state, false, &format!("no cgroup: {why}"), &identity);
            }
        }
        let report = sandbox.as_ref().ok();
        let seccomp = report.is_some_and(|r| r.seccomp);
        state(SandboxFeature::Seccomp, seccomp, detail(seccomp, "the filter could not be installed"));
        let abi = report.and_then(|r| r.landlock_abi);
        let at_least = |n: u32| abi.is_some_and(|abi| abi >= n);
        let landlock_detail = |n: u32| match abi {
            Some(abi) if abi >= n => format!("ABI {abi}"),
            Some(abi) => format!("ABI {abi}, needs {n}"),
            None => "no Landlock in this kernel".to_owned(),
        };
        state(SandboxFeature::Landlock, at_least(1), landlock_detail(1));
        state(SandboxFeature::LandlockNetwork, at_least(4), landlock_detail(4));
        state(SandboxFeature::LandlockScopes, at_least(6), landlock_detail(6));
        Self { features, landlock_abi: abi, root, identity }
    }

    /// The features this machine lacks.
    #[must_use]
    pub fn missing(&self) -> Vec<SandboxFeature> {
        self.features.iter().filter(|f| !f.available).map(|f| f.feature).collect()
    }

    /// Whether every feature is there.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.features.iter().all(|f| f.available)
    }
}

impl fmt::Display for SandboxSupport {
    /// One line per feature: `name: ok (detail)` or `name: MISSING (why)`, then the identity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for state in &self.features {
            let mark = if state.available { "ok" } else { "MISSING" };
            writeln!(f, "{}: {mark} ({})", state.feature, state.detail)?;
        }
        write!(f, "identity: {}", self.identity)
    }
}

/// The process limit: `pids.max`, or else the `RLIMIT_NPROC` of each sandbox's own uid.
fn process_limit(
    state: &mut impl FnMut(SandboxFeature, bool, String),
    pids: bool,
    missing: &str,
    identity: &SandboxIdentity,
) {
    if pids {
        state(SandboxFeature::ProcessLimit, true, detail(true, missing));
    } else if identity.own_uid() {
        let text = format!("RLIMIT_NPROC of each sandbox's own uid ({missing})");
        state(SandboxFeature::ProcessLimit, true, text);
    } else {
        state(SandboxFeature::ProcessLimit, false, missing.to_owned());
    }
}

fn detail(available: bool, missing: &str) -> String {
    if available { "enforced by the kernel".to_owned() } else { missing.to_owned() }
}

/// What the stub's probe of the whole sandbox reported on its stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StubReport {
    /// The seccomp filter was installed.
    pub(crate) seccomp: bool,
    /// Landlock's ABI, when a ruleset was enforced.
    pub(crate) landlock_abi: Option<u32>,
}

impl StubReport {
    /// Reads the probe's lines `seccomp on` and `landlock ABI`.
    pub(crate) fn parse(text: &str) -> Self {
        let mut report = Self::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("seccomp", "on")) => report.seccomp = true,
                Some(("landlock", abi)) => report.landlock_abi = abi.trim().parse().ok(),
                _ => {}
            }
        }
        report
    }
}

/// The stub's probe of the whole sandbox, run as the user a sandbox gets (see
/// [`SandboxSupport::probe_with_ids`]), and who that is.
fn probe_stub(
    stub: &Path,
    root: bool,
    subordinate: SubordinateIds,
) -> (Result<StubReport, String>, SandboxIdentity) {
    let isolation = Isolation { level: IsolationLevel::Full, no_network: true };
    let run =
        |user| crate::isolation_probe::run(stub, isolation, user).map(|stdout| StubReport::parse(&stdout));
    if root {
        return (run(Some(crate::bot_user::probe_user())), SandboxIdentity::OwnUid);
    }
    let why = match crate::subordinate_ids::find(subordinate) {
        Ok(crate::subordinate_ids::Found::Ranges(range)) => match run(Some(range.probe_user())) {
            Ok(report) => {
                let identity =
                    SandboxIdentity::SubordinateIds { uids: range.uids, gid_first: range.gid_first };
                return (Ok(report), identity);
            }
            Err(why) => format!("its subordinate ids do not work here: {why}"),
        },
        Ok(crate::subordinate_ids::Found::Absent(why)) | Err(why) => why,
    };
    (run(None), SandboxIdentity::CallerUid { why })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_reports_parse() {
        for feature in SandboxFeature::ALL {
            assert_eq!(feature.name().parse::<SandboxFeature>(), Ok(feature));
        }
        assert!("selinux".parse::<SandboxFeature>().unwrap_err().contains("landlock-scopes"));
        let report = StubReport::parse("seccomp on\nlandlock 7\n");
        assert_eq!(report, StubReport { seccomp: true, landlock_abi: Some(7) });
        assert_eq!(StubReport::parse(""), StubReport::default());
    }
}
