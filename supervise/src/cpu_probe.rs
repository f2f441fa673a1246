//! What CPU confinement this machine gives a bot, found once per process by making (and
//! removing) one probe cgroup the way a bot's is made: for the referee to say at start, and
//! write in each game's log, whether one bot's CPU can cost another bot its time here.

use std::sync::OnceLock;

use crate::cgroup::BotCgroup;
use crate::{CpuShare, ResourceLimits};

/// The CPU confinement of this machine, for this process (see [`cpu_confinement`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuConfinement {
    /// How a bot's tree is held to its CPU limit (`cgroup v2 cpu.max`, `cgroup v1
    /// cpu.cfs_quota_us`), or why nothing can hold it here.
    pub limit: Result<&'static str, String>,
    /// Whether a bot's tree can be frozen (`cgroup.freeze`, for `--no-ponder`), or why not.
    pub freeze: Result<(), String>,
    /// The CPUs this process may run on (bots get whole ones of their own from these).
    pub cpus: usize,
}

impl CpuConfinement {
    /// Whether a bot's CPU can be limited here.
    #[must_use]
    pub fn limited(&self) -> bool {
        self.limit.is_ok()
    }

    /// One sentence for the console: how bots are confined, or why they are not.
    #[must_use]
    pub fn summary(&self) -> String {
        match &self.limit {
            Ok(by) => format!("each bot's CPU is confined ({by}; {} CPUs here)", self.cpus),
            Err(why) => format!(
                "bots' CPU is NOT confined: one bot's busy processes can slow the bots thinking \
                 beside it, in its game or another ({why})"
            ),
        }
    }
}

/// The CPU confinement of this machine (probed on the first call, then remembered).
pub fn cpu_confinement() -> &'static CpuConfinement {
    static PROBE: OnceLock<CpuConfinement> = OnceLock::new();
    PROBE.get_or_init(probe)
}

fn probe() -> CpuConfinement {
    let cpus = crate::cpu_lease::allowed_cpus().len();
    let limits = ResourceLimits { cpus: Some(CpuShare::ONE), ..ResourceLimits::default() };
    match BotCgroup::create(&limits, None, false) {
        Ok(cgroup) => {
            let limit = cgroup.cpu_limit_by().ok_or_else(|| {
                "neither the cgroup v2 cpu controller nor a writable cgroup v1 cpu hierarchy is \
                 available to this process (run as root, or in a cgroup v2 whose cpu controller \
                 is delegated to this user)"
                    .to_owned()
            });
            let freeze = if cgroup.freezable() {
                Ok(())
            } else {
                Err("the bot's cgroup has no cgroup.freeze (Linux before 5.2)".to_owned())
            };
            cgroup.remove();
            CpuConfinement { limit, freeze, cpus }
        }
        Err(why) => {
            let why = format!("no cgroup v2 for the bots: {why}");
            CpuConfinement { limit: Err(why.clone()), freeze: Err(why), cpus }
        }
    }
}
