//! The sandbox's seccomp filter (`seccompiler`), installed last before the program's `exec`:
//! system calls a program has no use for and an attacker has, refused with `EPERM`; `clone3`
//! refused with `ENOSYS` (its flags are behind a pointer, which a filter cannot read), so that
//! the C library falls back to `clone`, whose namespace flags the filter does see; sockets
//! (`socket`, `socketpair`) of any family but `AF_UNIX`, `AF_INET`, `AF_INET6` and
//! `AF_NETLINK` refused with `EAFNOSUPPORT` (a network namespace does not cover `AF_VSOCK`,
//! and nothing a bot runs needs `AF_PACKET`, `AF_ALG` and the rest), and netlink sockets of any
//! protocol but `NETLINK_ROUTE` too; on x86_64, every x32
//! system call (number ≥ `0x40000000`, the same architecture to the filter's check) refused
//! with `ENOSYS`. Sets `no_new_privs`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    sock_filter,
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

/// The socket families allowed: local sockets (the C library's `nscd` lookups), IP (whose
/// network is the sandbox's own empty namespace) and netlink (`getifaddrs`, in that
/// namespace too).
const SOCKET_FAMILIES: [libc::c_int; 4] = [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];

/// The compiled filter's programs, compiled once per process: by the spawn server before it
/// forks a sandbox's stub ([`prepare`]), so that each sandbox only installs them (compiling
/// took about 0.3 ms of each sandbox's start: `bao-bench bench sandbox --stages`).
static COMPILED: std::sync::OnceLock<Result<[BpfProgram; 4], String>> = std::sync::OnceLock::new();

fn compiled() -> &'static Result<[BpfProgram; 4], String> {
    COMPILED.get_or_init(|| Ok([refusals()?, no_clone3()?, other_socket_families()?, no_x32()]))
}

/// Compiles the filter now, for the processes forked from this one.
pub(crate) fn prepare() {
    let _ = compiled();
}

/// Installs the filter on this thread (and so on the program it `exec`s).
pub(crate) fn install() -> Result<(), String> {
    for program in compiled().as_ref().map_err(Clone::clone)? {
        if program.is_empty() {
            continue;
        }
        seccompiler::apply_filter(program).map_err(|e| format!("cannot install the seccomp filter: {e}"))?;
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

/// `socket` and `socketpair` of a family outside [`SOCKET_FAMILIES`], and netlink sockets
/// of any protocol but `NETLINK_ROUTE`, refused with `EAFNOSUPPORT`.
fn other_socket_families() -> Result<BpfProgram, String> {
    let other = || -> Result<Vec<SeccompRule>, String> {
        let conditions = SOCKET_FAMILIES
            .iter()
            .map(|&family| {
                condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family.unsigned_abs().into())
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(vec![rule(conditions)?])
    };
    // Netlink but `NETLINK_ROUTE` (`getifaddrs`): `NETLINK_USERSOCK` lets any two processes
    // of one network namespace message each other (a sandbox's processes need no such way).
    let mut socket = other()?;
    socket.push(rule(vec![
        condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, libc::AF_NETLINK.unsigned_abs().into())?,
        condition(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, libc::NETLINK_ROUTE.unsigned_abs().into())?,
    ])?);
    compile(
        BTreeMap::from([(libc::SYS_socket, socket), (libc::SYS_socketpair, other()?)]),
        libc::EAFNOSUPPORT,
    )
}

/// On x86_64, every x32 system call (its number has bit 30 set; the architecture the filter
/// checks is the same) refused with `ENOSYS`: `seccompiler` matches exact numbers only, so
/// this short filter is written out. Elsewhere, an empty program (not installed).
fn no_x32() -> BpfProgram {
    if !cfg!(target_arch = "x86_64") {
        return Vec::new();
    }
    const X32_BIT: u32 = 0x4000_0000;
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    const LOAD_WORD: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const RETURN: u16 = libc::BPF_RET as u16;
    let jump = |op: u32, k: u32, jt: u8, jf: u8| sock_filter {
        code: (libc::BPF_JMP | op | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let errno = libc::SECCOMP_RET_ERRNO | libc::ENOSYS.unsigned_abs();
    vec![
        sock_filter { code: LOAD_WORD, jt: 0, jf: 0, k: 4 }, // seccomp_data.arch
        jump(libc::BPF_JEQ, AUDIT_ARCH_X86_64, 0, 3),
        sock_filter { code: LOAD_WORD, jt: 0, jf: 0, k: 0 }, // seccomp_data.nr
        jump(libc::BPF_JGE, X32_BIT, 0, 1),
        sock_filter { code: RETURN, jt: 0, jf: 0, k: errno },
        sock_filter { code: RETURN, jt: 0, jf: 0, k: libc::SECCOMP_RET_ALLOW },
    ]
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
        assert!(!other_socket_families().unwrap().is_empty());
        assert_eq!(no_x32().len(), if cfg!(target_arch = "x86_64") { 6 } else { 0 });
    }
}
