//! Reading process facts from Linux `/proc`: parent, group, session, state, CPU time,
//! memory, and children.

use std::sync::OnceLock;
use std::time::Duration;

use nix::unistd::{Pid, SysconfVar, sysconf};

/// The fields of `/proc/PID/stat` the supervisor uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcStat {
    pub(crate) pid: i32,
    pub(crate) ppid: i32,
    pub(crate) pgid: i32,
    pub(crate) sid: i32,
    /// `R`, `S`, `D`, `Z`, ...
    pub(crate) state: char,
    /// User + system CPU time, in clock ticks.
    pub(crate) cpu_ticks: u64,
    /// User + system CPU time of waited-for children, in clock ticks.
    pub(crate) children_cpu_ticks: u64,
    /// Start time after boot, in clock ticks: with the pid it identifies a process.
    pub(crate) start_time: u64,
}

impl ProcStat {
    pub(crate) fn is_zombie(&self) -> bool {
        self.state == 'Z' || self.state == 'X'
    }
}

/// Parses the text of `/proc/PID/stat`.
pub(crate) fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<i64>().ok());
    let unsigned = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    Some(ProcStat {
        pid,
        state: fields.first()?.chars().next()?,
        ppid: i32::try_from(number(1)?).ok()?,
        pgid: i32::try_from(number(2)?).ok()?,
        sid: i32::try_from(number(3)?).ok()?,
        cpu_ticks: unsigned(11)? + unsigned(12)?,
        children_cpu_ticks: u64::try_from(number(13)?.max(0) + number(14)?.max(0)).ok()?,
        start_time: unsigned(19)?,
    })
}

/// The text of a small `/proc` file: `open`, `read` until the end, `close`.
///
/// Not `std::fs::read_to_string`, which also asks for the file's size (`statx`) to size its
/// buffer: a `/proc` file reports 0, so that is one system call in five wasted, on files read
/// for every bot.
fn read_small(path: &str) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::with_capacity(512);
    // `Take` has no size hint to ask for: plain `read`s into the buffer.
    file.take(u64::MAX).read_to_string(&mut text).ok()?;
    Some(text)
}

/// `/proc/PID/stat`, or `None` if the process is gone.
pub(crate) fn stat(pid: i32) -> Option<ProcStat> {
    parse_stat(&read_small(&format!("/proc/{pid}/stat"))?)
}

/// The children of every thread of `pid` (from `/proc/PID/task/TID/children`).
pub(crate) fn children(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return out };
    for task in tasks.flatten() {
        let tid = task.file_name();
        if let Some(tid) = tid.to_str() {
            out.extend(thread_children_at(&format!("/proc/{pid}/task/{tid}/children")));
        }
    }
    out
}

/// The children of one thread of `pid` (`/proc/PID/task/TID/children`): one file.
pub(crate) fn thread_children(pid: i32, tid: i32) -> Vec<i32> {
    thread_children_at(&format!("/proc/{pid}/task/{tid}/children"))
}

fn thread_children_at(path: &str) -> Vec<i32> {
    read_small(path)
        .map(|text| text.split_whitespace().filter_map(|p| p.parse::<i32>().ok()).collect())
        .unwrap_or_default()
}

/// Whether `/proc/PID/task/TID/children` exists on this kernel.
pub(crate) fn children_files_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let me = std::process::id();
        std::path::Path::new(&format!("/proc/{me}/task/{me}/children")).exists()
    })
}

/// All processes' stats, by scanning `/proc` (the slow path when `children` files are missing).
pub(crate) fn all_stats() -> Vec<ProcStat> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter_map(stat)
        .collect()
}

/// Whether the environment a process was started with contains `entry` (`NAME=value`).
pub(crate) fn environ_contains(pid: i32, entry: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
}

/// Private resident memory (anonymous pages) of a process, in bytes, from `/proc/PID/statm`.
pub(crate) fn anon_rss_bytes(pid: i32) -> Option<u64> {
    let text = read_small(&format!("/proc/{pid}/statm"))?;
    let mut fields = text.split_whitespace().skip(1).map(|f| f.parse::<u64>().ok());
    let resident = fields.next()??;
    let shared = fields.next()??;
    Some(resident.saturating_sub(shared) * page_size())
}

/// CPU time of a live process with nanosecond resolution (its CPU-time clock), falling back
/// to the clock ticks of `/proc/PID/stat`.
pub(crate) fn process_cpu(stat: &ProcStat) -> Duration {
    if stat.is_zombie() {
        return ticks(stat.cpu_ticks);
    }
    nix::time::clock_getcpuclockid(Pid::from_raw(stat.pid))
        .and_then(nix::time::clock_gettime)
        .map_or_else(|_| ticks(stat.cpu_ticks), Duration::from)
}

/// Clock ticks as a duration.
pub(crate) fn ticks(ticks: u64) -> Duration {
    static PER_SECOND: OnceLock<u64> = OnceLock::new();
    let per_second = *PER_SECOND.get_or_init(|| {
        sysconf(SysconfVar::CLK_TCK).ok().flatten().and_then(|t| u64::try_from(t).ok()).unwrap_or(100)
    });
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / per_second.max(1))
}

fn page_size() -> u64 {
    static SIZE: OnceLock<u64> = OnceLock::new();
    *SIZE.get_or_init(|| {
        sysconf(SysconfVar::PAGE_SIZE).ok().flatten().and_then(|t| u64::try_from(t).ok()).unwrap_or(4096)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_spaces_and_parens_in_the_name() {
        let text = "1234 (a (b) c) S 1 1234 99 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 1 0 5555 1000 100";
        let stat = parse_stat(text).unwrap();
        assert_eq!(
            stat,
            ProcStat {
                pid: 1234,
                ppid: 1,
                pgid: 1234,
                sid: 99,
                state: 'S',
                cpu_ticks: 10,
                children_cpu_ticks: 3,
                start_time: 5555
            }
        );
    }

    #[test]
    fn reads_this_process() {
        let me = i32::try_from(std::process::id()).unwrap();
        let stat = stat(me).unwrap();
        assert_eq!(stat.pid, me);
        assert_eq!(stat.ppid, nix::unistd::getppid().as_raw());
        assert!(anon_rss_bytes(me).unwrap() > 0);
        assert!(process_cpu(&stat) > Duration::ZERO);
    }
}
