/*
 * spawn_cost: a bench-only experiment (issue 10) that times, from a single-threaded C
 * parent, the ways of starting one bot, greeting it and ending it, to show what the
 * referee's fixed cost per game could be. Each lifecycle: create the bot's cgroup (if the
 * way uses one), start the C instant bot, write `hello`, read `ready`, write `quit`, wait
 * for its exit (blocking waitpid: no polling), read cpu.stat once, remove the cgroup.
 *
 *   spawn_cost ROUNDS INSTANT STUB SMALL_STUB CGROUP_PARENT
 *
 * INSTANT is the instant bot, STUB the executable hosting `__exec-bot` (bao-referee),
 * SMALL_STUB the dedicated stub executable (bao-exec-stub; "-" for none: its ways are
 * skipped), CGROUP_PARENT a writable cgroup v2 directory ("-" for none: the cgroup ways are
 * skipped). A lifecycle is timed up to the moment the parent knows the bot's end (waitpid, or
 * the init's report for the ns-floor ways) and has read cpu.stat and written cgroup.kill — what
 * the referee waits for; the teardown (reaping every process, then rmdir of the cgroup) follows
 * untimed, before the next lifecycle.
 * The ways, interleaved round by round so that they see the same load:
 *   direct          vfork + exec of the bot, no cgroup (the exec floor)
 *   stub            vfork + exec of `STUB __exec-bot --parent-pid P -- INSTANT` (no cgroup)
 *   stub+cgroup     mkdir the cgroup, the stub joins it (writes cgroup.procs), then execs
 *                   the bot (the referee's path under `--isolation none`)
 *   stub+cgroup+pid the referee's default path (`--isolation pid`): mkdir the cgroup, the
 *                   stub creates the user, PID and IPC namespaces and forks the
 *                   namespace's init born in the cgroup (clone3; an older stub started
 *                   itself again there), which makes the mount namespace, mounts /proc
 *                   and starts the bot
 *   small-stub      as stub, with SMALL_STUB
 *   small-stub+cgroup+pid  as stub+cgroup+pid, with SMALL_STUB (the referee's default path
 *                   when bao-exec-stub lies next to it)
 *   migrate         mkdir, vfork + exec of the bot, the parent writes the pid to cgroup.procs
 *   clone3-cgroup   mkdir, clone3(CLONE_VFORK | CLONE_INTO_CGROUP) + exec of the bot: born
 *                   inside its cgroup, no stub, no migration
 *   ns-floor        the kernel's floor for the referee's `--isolation pid` (no stub, no Rust,
 *                   the fewest processes): mkdir the cgroup; clone3(CLONE_NEWUSER |
 *                   CLONE_NEWPID | CLONE_NEWIPC | CLONE_INTO_CGROUP) makes the namespace's init,
 *                   born in the cgroup, which does what the stub's outer half and its init do
 *                   (sandbox.rs, exec_stub.rs): RLIMIT_CORE 0, PR_SET_PDEATHSIG, writes its
 *                   own uid and gid maps (setgroups deny; root inside), unshare(CLONE_NEWNS),
 *                   makes every mount private, mounts a new /proc, writes ns_last_pid, mounts
 *                   a read-only tmpfs over /sys/fs/cgroup, unshare(CLONE_NEWUSER | CLONE_NEWNS)
 *                   with its maps (the locking user namespace), PR_SET_PDEATHSIG again, then
 *                   vfork + exec of the bot, waits for it and writes "exit CODE" on a status
 *                   pipe — the end the parent waits for (as the referee waits for the outer
 *                   stub, which ends on that report, not for the init's exit)
 *   ns-floor-no-lock    as ns-floor without the locking user + mount namespace
 *   ns-floor-no-cghide  as ns-floor without the tmpfs over /sys/fs/cgroup
 *   ns-floor-no-proc    as ns-floor without the /proc mount (nor ns_last_pid)
 *   ns-floor-no-mntns   as ns-floor without any mount namespace (no /proc, tmpfs, lock)
 *   ns-floor-no-ipc     as ns-floor without the IPC namespace
 *   ns-floor-no-userns  as ns-floor without the first user namespace (the init is real root;
 *                   the lock still makes one)
 *   ns-floor-no-ns      the same processes and status pipe, no namespace at all (init born in
 *                   the cgroup, vfork + exec of the bot): the floor of the two-process shape
 *   ns-floor-keep-mntns  as ns-floor, the init holding a descriptor of its first mount namespace
 *                   (/proc/self/ns/mnt, opened before the locking unshare), so that leaving
 *                   it does not tear it down then: its teardown moves to the init's exit
 *   ns-floor-bot-is-init  as ns-floor with one process: after the set-up the init execs the bot
 *                   itself (the bot is pid 1, without ordinary signal semantics), and the end
 *                   is its waitpid, which the kernel reports only after tearing down the
 *                   bot's namespaces
 * and, alone: cgroup-mkdir-rmdir (an empty cgroup made and removed), cpu.stat-open-read
 * (open + read + close, the referee's per-ply read today) and cpu.stat-pread (one pread on
 * a descriptor kept open).
 *
 * The environment variable SPAWN_COST_WAYS, a comma-separated list of names, runs only those
 * ways (for profiling one at a time; `bao-bench bench spawn` passes its environment on).
 *
 * Prints one line per way over ROUNDS: "NAME median_us p90_us" for the three alone, and
 * "NAME median_us p90_us cpu_median_us cpu_p90_us teardown_median_us teardown_p90_us" for
 * the lifecycles, where cpu is the CPU time of this process and of every process of the
 * lifecycle (getrusage RUSAGE_SELF + RUSAGE_CHILDREN, from before the start until every
 * process is reaped and the cgroup removed: the teardown included, the kernel's workers not),
 * and teardown is the untimed end, from the cgroup.kill (or the bot's end, without a
 * cgroup) until every process is reaped and the cgroup removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

extern char **environ;

enum way {
    DIRECT, STUB, STUB_CGROUP, STUB_CGROUP_PID, SMALL_STUB, SMALL_STUB_CGROUP_PID, MIGRATE, CLONE3_CGROUP,
    NS_FLOOR, NS_NO_LOCK, NS_NO_CGHIDE, NS_NO_PROC, NS_NO_MNTNS, NS_NO_IPC, NS_NO_USERNS, NS_NO_NS, NS_BOT_INIT, NS_KEEP_MNTNS,
    MKDIR_RMDIR, STAT_OPEN, STAT_PREAD, WAYS
};
static const char *NAMES[WAYS] = {"direct", "stub", "stub+cgroup", "stub+cgroup+pid", "small-stub",
                                  "small-stub+cgroup+pid", "migrate", "clone3-cgroup", "ns-floor",
                                  "ns-floor-no-lock", "ns-floor-no-cghide", "ns-floor-no-proc",
                                  "ns-floor-no-mntns", "ns-floor-no-ipc", "ns-floor-no-userns",
                                  "ns-floor-no-ns", "ns-floor-bot-is-init", "ns-floor-keep-mntns", "cgroup-mkdir-rmdir", "cpu.stat-open-read",
                                  "cpu.stat-pread"};

/* The pieces of the isolation an ns-floor way sets up. */
enum piece {
    PIECE_USER = 1,    /* CLONE_NEWUSER, and the init writes its uid and gid maps */
    PIECE_PID = 2,     /* CLONE_NEWPID */
    PIECE_IPC = 4,     /* CLONE_NEWIPC */
    PIECE_MNT = 8,     /* unshare(CLONE_NEWNS), / made private recursively */
    PIECE_PROC = 16,   /* a new /proc, ns_last_pid written */
    PIECE_CGHIDE = 32, /* an empty read-only tmpfs over /sys/fs/cgroup */
    PIECE_LOCK = 64,   /* unshare(CLONE_NEWUSER | CLONE_NEWNS) and its maps */
    PIECE_ALL = 127,
    PIECE_BOT_INIT = 128, /* no init of our own: the bot is exec'd as pid 1 (not in PIECE_ALL) */
    PIECE_KEEP_MNTNS = 256 /* the first mount namespace kept open until the init's exit */
};

/* The pieces of an ns-floor way; 0 for the other ways. */
static unsigned pieces_of(enum way way) {
    switch (way) {
    case NS_FLOOR: return PIECE_ALL;
    case NS_NO_LOCK: return PIECE_ALL & ~PIECE_LOCK;
    case NS_NO_CGHIDE: return PIECE_ALL & ~PIECE_CGHIDE;
    case NS_NO_PROC: return PIECE_ALL & ~PIECE_PROC;
    case NS_NO_MNTNS: return PIECE_ALL & ~(PIECE_MNT | PIECE_PROC | PIECE_CGHIDE | PIECE_LOCK);
    case NS_NO_IPC: return PIECE_ALL & ~PIECE_IPC;
    case NS_NO_USERNS: return PIECE_ALL & ~PIECE_USER;
    case NS_BOT_INIT: return PIECE_ALL | PIECE_BOT_INIT;
    case NS_KEEP_MNTNS: return PIECE_ALL | PIECE_KEEP_MNTNS;
    default: return 0;
    }
}

static int is_ns_floor(enum way way) { return way >= NS_FLOOR && way <= NS_KEEP_MNTNS; }

/* What one lifecycle measured, ns; cpu and teardown NONE for the ways timed alone. */
struct sample {
    uint64_t wall, cpu, teardown;
};
#define NONE UINT64_MAX

static const char HELLO[] = "{\"type\":\"hello\",\"protocol\":1,\"side\":\"S\"}\n";
static const char QUIT[] = "{\"type\":\"quit\"}\n";

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "spawn_cost: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* In a child: says what failed and exits at once (no stdio buffers of the parent flushed). */
static void child_die(const char *what) {
    char line[512];
    int n = snprintf(line, sizeof line, "spawn_cost (child): %s: %s\n", what, strerror(errno));
    if (n > 0) (void)!write(2, line, (size_t)n);
    _exit(1);
}

/* The CPU time of this process and of its reaped children (and theirs), ns. */
static uint64_t cpu_ns(void) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    uint64_t us = 0;
    const struct timeval *tv[] = {&self.ru_utime, &self.ru_stime, &children.ru_utime, &children.ru_stime};
    for (int i = 0; i < 4; i++) us += (uint64_t)tv[i]->tv_sec * 1000000u + (uint64_t)tv[i]->tv_usec;
    return us * 1000u;
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) die(path);
    close(fd);
}

static void read_cpu_stat(const char *dir) {
    char path[4096], buf[512];
    snprintf(path, sizeof path, "%s/cpu.stat", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die(path);
    if (read(fd, buf, sizeof buf) < 0) die(path);
    close(fd);
}

/* Starts argv with stdin/stdout on pipes; cgroup_fd >= 0 uses clone3 into that cgroup. */
static pid_t start(char *const argv[], int to_child[2], int from_child[2], int cgroup_fd) {
    if (pipe2(to_child, O_CLOEXEC) < 0 || pipe2(from_child, O_CLOEXEC) < 0) die("pipe2");
    pid_t pid;
    if (cgroup_fd >= 0) {
        struct clone_args args;
        memset(&args, 0, sizeof args);
        args.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
        args.exit_signal = SIGCHLD;
        args.cgroup = (uint64_t)cgroup_fd;
        pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
    } else {
        pid = vfork();
    }
    if (pid < 0) die("clone");
    if (pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        execve(argv[0], argv, environ);
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    return pid;
}

/* In a child: writes text to path (a /proc file), or fails with what. */
static void child_write(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) child_die(path);
    close(fd);
}

/* In a child that has just made a user namespace: maps `inside` to `outside` (uid and gid
   alike), setgroups denied first, as the stub's map_ids does. */
static void map_ids(unsigned inside_uid, unsigned outside_uid, unsigned inside_gid, unsigned outside_gid) {
    char text[64];
    child_write("/proc/self/setgroups", "deny");
    snprintf(text, sizeof text, "%u %u 1", inside_uid, outside_uid);
    child_write("/proc/self/uid_map", text);
    snprintf(text, sizeof text, "%u %u 1", inside_gid, outside_gid);
    child_write("/proc/self/gid_map", text);
}

/* The namespace's init of an ns-floor way (a child of clone3): sets up `pieces`, starts the
   bot (vfork + exec) on the pipes, waits for it, reports "exit CODE" on `status`, exits. */
static void ns_init(unsigned pieces, uid_t host_uid, gid_t host_gid, pid_t outer, const char *instant,
                    int to_child[2], int from_child[2], int status) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) child_die("PR_SET_PDEATHSIG");
    if (pieces & PIECE_USER) map_ids(0, host_uid, 0, host_gid);
    const unsigned long hardened = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    if (pieces & PIECE_MNT) {
        if (unshare(CLONE_NEWNS) < 0) child_die("unshare(CLONE_NEWNS)");
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) child_die("mount / private");
    }
    if (pieces & PIECE_PROC) {
        if (mount("proc", "/proc", "proc", hardened, NULL) < 0) child_die("mount /proc");
        char base[32];
        snprintf(base, sizeof base, "%d", (int)outer);
        int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC); /* best effort, as the stub */
        if (fd >= 0) {
            (void)!write(fd, base, strlen(base));
            close(fd);
        }
    }
    if (pieces & PIECE_CGHIDE) {
        if (mount("tmpfs", "/sys/fs/cgroup", "tmpfs", hardened | MS_RDONLY, "size=4k,mode=555") < 0)
            child_die("mount tmpfs over /sys/fs/cgroup");
    }
    if (pieces & PIECE_LOCK) {
        /* The bot gets the host's ids back, mapped to the first namespace's ids (root). */
        uid_t uid = geteuid();
        gid_t gid = getegid();
        /* Leaving the first mount namespace drops its last reference: the kernel tears it down
           (and waits for an RCU grace period) inside this unshare, unless a descriptor keeps it
           until the init's exit. */
        if ((pieces & PIECE_KEEP_MNTNS) && open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC) < 0)
            child_die("/proc/self/ns/mnt");
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) child_die("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
        map_ids(host_uid, uid, host_gid, gid);
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) child_die("PR_SET_PDEATHSIG");
    close(to_child[1]);
    close(from_child[0]);
    if (pieces & PIECE_BOT_INIT) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        char *argv[] = {(char *)instant, NULL};
        execve(instant, argv, environ);
        child_die(instant);
    }
    pid_t bot = vfork();
    if (bot < 0) child_die("vfork");
    if (bot == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        char *argv[] = {(char *)instant, NULL};
        execve(instant, argv, environ);
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    int code;
    for (;;) {
        pid_t ended = waitpid(-1, &code, 0);
        if (ended < 0 && errno != EINTR) child_die("waitpid");
        if (ended == bot) break;
    }
    char line[32];
    int n = snprintf(line, sizeof line, "exit %d\n", WIFEXITED(code) ? WEXITSTATUS(code) : 128 + WTERMSIG(code));
    if (write(status, line, (size_t)n) < 0) child_die("write status");
    _exit(0);
}

/* Starts an ns-floor way's init in the cgroup `cgroup_fd` with `pieces`; `status` gets the
   read end of its status pipe. */
static pid_t start_ns_floor(unsigned pieces, const char *instant, int to_child[2], int from_child[2],
                            int cgroup_fd, int *status) {
    int status_pipe[2];
    if (pipe2(to_child, O_CLOEXEC) < 0 || pipe2(from_child, O_CLOEXEC) < 0 || pipe2(status_pipe, O_CLOEXEC) < 0)
        die("pipe2");
    uid_t host_uid = geteuid();
    gid_t host_gid = getegid();
    pid_t outer = getpid();
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_INTO_CGROUP;
    if (pieces & PIECE_USER) args.flags |= CLONE_NEWUSER;
    if (pieces & PIECE_PID) args.flags |= CLONE_NEWPID;
    if (pieces & PIECE_IPC) args.flags |= CLONE_NEWIPC;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    pid_t pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
    if (pid < 0) die("clone3 of the namespace's init");
    if (pid == 0) {
        close(status_pipe[0]);
        ns_init(pieces, host_uid, host_gid, outer, instant, to_child, from_child, status_pipe[1]);
    }
    close(status_pipe[1]);
    close(to_child[0]);
    close(from_child[1]);
    if (pieces & PIECE_BOT_INIT) {
        close(status_pipe[0]); /* the bot's own exit is the end */
        *status = -1;
    } else {
        *status = status_pipe[0];
    }
    return pid;
}

/* hello, ready, quit, exit (waitpid; or, with status >= 0, the init's "exit 0" on it). */
static void converse(pid_t pid, int to_child[2], int from_child[2], int status_fd) {
    char buf[4096];
    if (write(to_child[1], HELLO, sizeof HELLO - 1) < 0) die("write hello");
    ssize_t n = read(from_child[0], buf, sizeof buf);
    if (n <= 0 || strstr(buf, "ready") == NULL) {
        errno = EPROTO;
        die("no ready from the bot");
    }
    if (write(to_child[1], QUIT, sizeof QUIT - 1) < 0) die("write quit");
    if (status_fd >= 0) {
        n = read(status_fd, buf, sizeof buf - 1);
        if (n <= 0 || strncmp(buf, "exit 0\n", 7) != 0) {
            errno = EPROTO;
            die("the namespace's init did not report the bot's exit with 0");
        }
        close(status_fd);
    } else {
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            errno = ECHILD;
            die("the bot did not exit with 0");
        }
    }
    close(to_child[1]);
    close(from_child[0]);
}

/* Reaps every child of this process (the stub or the init, and the orphans it adopted as
   subreaper), blocking: every process of the lifecycle has then exited, so its CPU time is in
   RUSAGE_CHILDREN and its cgroup is empty. */
static void reap_all(void) {
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {}
    if (errno != ECHILD) die("waitpid");
}

/* Removes the cgroup, once empty (after reap_all; sleeps, does not spin, while it is not). */
static void remove_cgroup(const char *dir) {
    while (rmdir(dir) < 0) {
        if (errno != EBUSY) die(dir);
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

static struct sample lifecycle(enum way way, const char *instant, const char *stub, const char *small,
                               const char *parent, int round) {
    char dir[2048], procs[4096], pidtext[32], ppid[32];
    snprintf(dir, sizeof dir, "%s/spawn-cost-%d-%d", parent, (int)getpid(), round);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
    snprintf(ppid, sizeof ppid, "%d", (int)getpid());
    char *direct[] = {(char *)instant, NULL};
    char *via_stub[] = {(char *)stub, "__exec-bot", "--parent-pid", ppid, "--", (char *)instant, NULL};
    char *via_stub_cgroup[] = {(char *)stub, "__exec-bot", "--parent-pid", ppid, "--cgroup", dir, "--",
                               (char *)instant, NULL};
    char *via_stub_pid[] = {(char *)stub, "__exec-bot", "--parent-pid", ppid, "--cgroup", dir,
                            "--isolation", "pid", "--", (char *)instant, NULL};
    char *via_small[] = {(char *)small, "__exec-bot", "--parent-pid", ppid, "--", (char *)instant, NULL};
    char *via_small_pid[] = {(char *)small, "__exec-bot", "--parent-pid", ppid, "--cgroup", dir,
                             "--isolation", "pid", "--", (char *)instant, NULL};
    int to_child[2], from_child[2];
    struct sample sample = {0, NONE, NONE};
    uint64_t cpu0 = cpu_ns();
    uint64_t t0 = now_ns();
    pid_t pid;
    switch (way) {
    case DIRECT:
    case STUB:
    case SMALL_STUB:
        pid = start(way == DIRECT ? direct : way == STUB ? via_stub : via_small, to_child, from_child, -1);
        converse(pid, to_child, from_child, -1);
        sample.wall = now_ns() - t0;
        reap_all();
        sample.teardown = now_ns() - t0 - sample.wall;
        sample.cpu = cpu_ns() - cpu0;
        return sample;
    case MKDIR_RMDIR:
        if (mkdir(dir, 0755) < 0) die(dir);
        if (rmdir(dir) < 0) die(dir);
        sample.wall = now_ns() - t0;
        return sample;
    default:
        break;
    }
    if (mkdir(dir, 0755) < 0) die(dir);
    if (way == STAT_OPEN || way == STAT_PREAD) {
        char path[4096], buf[512];
        snprintf(path, sizeof path, "%s/cpu.stat", dir);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) die(path);
        uint64_t start_ns = now_ns();
        for (int i = 0; i < 100; i++) {
            if (way == STAT_OPEN) {
                read_cpu_stat(dir);
            } else if (pread(fd, buf, sizeof buf, 0) < 0) {
                die("pread");
            }
        }
        sample.wall = (now_ns() - start_ns) / 100;
        close(fd);
        if (rmdir(dir) < 0) die(dir);
        return sample;
    }
    int status_fd = -1;
    if (way == STUB_CGROUP) {
        pid = start(via_stub_cgroup, to_child, from_child, -1);
    } else if (way == STUB_CGROUP_PID) {
        pid = start(via_stub_pid, to_child, from_child, -1);
    } else if (way == SMALL_STUB_CGROUP_PID) {
        pid = start(via_small_pid, to_child, from_child, -1);
    } else if (way == MIGRATE) {
        pid = start(direct, to_child, from_child, -1);
        snprintf(pidtext, sizeof pidtext, "%d", (int)pid);
        write_file(procs, pidtext);
    } else {
        int cgroup_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cgroup_fd < 0) die(dir);
        if (is_ns_floor(way)) {
            pid = start_ns_floor(pieces_of(way), instant, to_child, from_child, cgroup_fd, &status_fd);
        } else {
            pid = start(direct, to_child, from_child, cgroup_fd);
        }
        close(cgroup_fd);
    }
    converse(pid, to_child, from_child, status_fd);
    read_cpu_stat(dir);
    char kill_path[4096];
    snprintf(kill_path, sizeof kill_path, "%s/cgroup.kill", dir);
    write_file(kill_path, "1");
    sample.wall = now_ns() - t0;
    /* Untimed: what is left in the cgroup (the namespace's init tearing down its namespaces)
       dies; the referee waits for that in the background. Its orphans are reaped by this
       process as their subreaper. */
    reap_all();
    remove_cgroup(dir);
    sample.teardown = now_ns() - t0 - sample.wall;
    sample.cpu = cpu_ns() - cpu0;
    return sample;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether a way needs what was not given, or is not among those of SPAWN_COST_WAYS. */
static int skipped(enum way way, const char *small, const char *parent) {
    if (small == NULL && (way == SMALL_STUB || way == SMALL_STUB_CGROUP_PID)) return 1;
    const char *only = getenv("SPAWN_COST_WAYS");
    if (only != NULL && *only != '\0') {
        size_t len = strlen(NAMES[way]);
        const char *at = only;
        int listed = 0;
        while (!listed && (at = strstr(at, NAMES[way])) != NULL) {
            listed = (at == only || at[-1] == ',') && (at[len] == '\0' || at[len] == ',');
            at += len;
        }
        if (!listed) return 1;
    }
    return parent == NULL && way != DIRECT && way != STUB && way != SMALL_STUB;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: spawn_cost ROUNDS INSTANT STUB SMALL_STUB|- CGROUP_PARENT|-\n");
        return 2;
    }
    /* The outer stub leaves the namespace's init behind as an orphan: become its reaper. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) die("PR_SET_CHILD_SUBREAPER");
    int rounds = atoi(argv[1]);
    if (rounds < 1) {
        fprintf(stderr, "spawn_cost: ROUNDS must be at least 1\n");
        return 2;
    }
    const char *small = strcmp(argv[4], "-") == 0 ? NULL : argv[4];
    const char *parent = strcmp(argv[5], "-") == 0 ? NULL : argv[5];
    uint64_t *samples[WAYS][3];
    for (int w = 0; w < WAYS; w++) {
        for (int k = 0; k < 3; k++) {
            samples[w][k] = calloc((size_t)rounds, sizeof(uint64_t));
            if (samples[w][k] == NULL) die("calloc");
        }
    }
    for (int r = -1; r < rounds; r++) { /* round -1 warms up */
        for (int w = 0; w < WAYS; w++) {
            if (skipped((enum way)w, small, parent)) continue;
            struct sample s = lifecycle((enum way)w, argv[2], argv[3], small, parent, r + 1);
            if (r >= 0) {
                samples[w][0][r] = s.wall;
                samples[w][1][r] = s.cpu;
                samples[w][2][r] = s.teardown;
            }
        }
    }
    for (int w = 0; w < WAYS; w++) {
        if (skipped((enum way)w, small, parent)) continue;
        printf("%s", NAMES[w]);
        for (int k = 0; k < 3; k++) {
            if (samples[w][k][0] == NONE) break;
            qsort(samples[w][k], (size_t)rounds, sizeof(uint64_t), compare);
            printf(" %.1f %.1f", samples[w][k][rounds / 2] / 1000.0, samples[w][k][(rounds * 9) / 10] / 1000.0);
        }
        printf("\n");
    }
    return 0;
}
