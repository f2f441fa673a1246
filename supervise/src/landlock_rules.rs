//! Landlock, defence in depth behind the sandbox's new root (`sandbox_root`): the program may
//! reach only the paths the root shows (read-only or writable as mounted), bind or connect no
//! TCP port (ABI 4 and later), and signal or reach the abstract Unix sockets of no process
//! outside its sandbox (ABI 6 and later). Best effort: a kernel without Landlock, or with an
//! older ABI, enforces what it knows (`SandboxSupport` says what).

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

/// The ABI whose rights are asked for (the kernel's own may be older or newer).
const ABI_ASKED: ABI = ABI::V7;

/// Restricts this process and its future children to `read_only` and `writable` (paths
/// that do not exist are left out); the kernel's Landlock ABI when a ruleset was enforced.
pub(crate) fn restrict(read_only: &[PathBuf], writable: &[PathBuf]) -> Result<Option<u32>, String> {
    let error = |e: landlock::RulesetError| format!("cannot set up Landlock: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_ASKED))
        .map_err(error)?
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
        .map_err(error)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(error)?
        .create()
        .map_err(error)?;
    // The root's own folders may be listed (the root holds only what the sandbox shows).
    if let Ok(fd) = PathFd::new("/") {
        ruleset = ruleset.add_rule(PathBeneath::new(fd, AccessFs::ReadDir)).map_err(error)?;
    }
    for (paths, access) in
        [(read_only, AccessFs::from_read(ABI_ASKED)), (writable, AccessFs::from_all(ABI_ASKED))]
    {
        for path in paths {
            let Ok(fd) = PathFd::new(path) else { continue };
            ruleset = ruleset.add_rule(PathBeneath::new(fd, access)).map_err(error)?;
        }
    }
    let status = ruleset.restrict_self().map_err(error)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Ok(None);
    }
    Ok(match status.landlock {
        LandlockStatus::Available { effective_abi, kernel_abi } => {
            Some(kernel_abi.map_or(effective_abi as u32, |abi| u32::try_from(abi).unwrap_or(0)))
        }
        _ => None,
    })
}
