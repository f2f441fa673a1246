//! The sandbox's seccomp filter (`seccompiler`), installed last before the program's `exec`:
//! system calls a program has no use for and an attacker has, refused with `EPERM`; `clone3`
//! refused with `ENOSYS` (its flags are behind a pointer, which a filter cannot read), so that
//! the C library falls back to `clone`, whose namespace flags the filter does see. Sets
//! `no_new_privs`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

/// Refused outright: tracing, mounts, kernel keyrings, BPF, perf, namespaces joined, kernel
/// modules and kexec, swap, reboot, the clocks, accounting, quotas, other processes' memory,
/// userfaultfd, file handles, io_uring, the kernel log, port I/O.
const REFUSED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    libc::SYS_bpf,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_perf_event_open,
    libc::SYS_setns,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_userfaultfd,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_syslog,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// The namespace flags refused to `clone` and `unshare`.
const NAMESPACE_FLAGS: [libc::c_int; 8] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
    0x80, // CLONE_NEWTIME
];

/// The personalities allowed (Docker's list): the default, its query, 32-bit, `UNAME26`.
const PERSONALITIES: [u64; 5] = [0, 8, 0x0002_0000, 0x0002_0008, 0xffff_ffff];

/// `ioctl`s refused: pushing input into a terminal (`TIOCSTI`, `TIOCLINUX`).
const IOCTLS: [u64; 2] = [0x5412, 0x541c];

/// Installs the filter on this thread (and so on the program it `exec`s).
pub(crate) fn install() -> Result<(), String> {
    for program in [refusals()?, no_clone3()?] {
        seccompiler::apply_filter(&program).map_err(|e| format!("cannot install the seccomp filter: {e}"))?;
    }
    Ok(())
}

fn arch() -> Result<seccompiler::TargetArch, String> {
    std::env::consts::ARCH.try_into().map_err(|e| format!("no seccomp filter for this architecture: {e:?}"))
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| format!("a bad seccomp rule: {e}"))
}

fn condition(
    arg: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, len, op, value).map_err(|e| format!("a bad seccomp condition: {e}"))
}

/// Everything refused with `EPERM`.
fn refusals() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|&call| (call, Vec::new())).collect();
    let flag_rules = || -> Result<Vec<SeccompRule>, String> {
        NAMESPACE_FLAGS
            .iter()
            .map(|&flag| {
                let flag = u64::from(flag.unsigned_abs());
                rule(vec![condition(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)?])
            })
            .collect()
    };
    rules.insert(libc::SYS_clone, flag_rules()?);
    rules.insert(libc::SYS_unshare, flag_rules()?);
    let not_allowed = PERSONALITIES
        .iter()
        .map(|&p| condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, p))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_personality, vec![rule(not_allowed)?]);
    let ioctls = IOCTLS
        .iter()
        .map(|&request| rule(vec![condition(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)?]))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctls);
    compile(rules, libc::EPERM)
}

/// `clone3` refused with `ENOSYS`.
fn no_clone3() -> Result<BpfProgram, String> {
    compile(BTreeMap::from([(libc::SYS_clone3, Vec::new())]), libc::ENOSYS)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: libc::c_int) -> Result<BpfProgram, String> {
    let errno = u32::try_from(errno).map_err(|_| "a negative errno".to_owned())?;
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno), arch()?)
        .map_err(|e| format!("a bad seccomp filter: {e}"))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("cannot compile the seccomp filter: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile() {
        assert!(refusals().unwrap().len() > REFUSED.len());
        assert!(!no_clone3().unwrap().is_empty());
    }
}
