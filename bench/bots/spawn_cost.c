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
 * skipped). A lifecycle is timed up to the moment the parent knows the bot's end (waitpid) and
 * has read cpu.stat and written cgroup.kill — what the referee waits for; removing the cgroup
 * (waiting until it is empty, rmdir) follows untimed, before the next lifecycle.
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
 * and, alone: cgroup-mkdir-rmdir (an empty cgroup made and removed), cpu.stat-open-read
 * (open + read + close, the referee's per-ply read today) and cpu.stat-pread (one pread on
 * a descriptor kept open). Prints one line per way: "NAME median_us p90_us" over ROUNDS.
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
#include <sys/prctl.h>
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
    MKDIR_RMDIR, STAT_OPEN, STAT_PREAD, WAYS
};
static const char *NAMES[WAYS] = {"direct", "stub", "stub+cgroup", "stub+cgroup+pid", "small-stub",
                                  "small-stub+cgroup+pid", "migrate", "clone3-cgroup", "cgroup-mkdir-rmdir",
                                  "cpu.stat-open-read", "cpu.stat-pread"};

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

/* hello, ready, quit, exit. */
static void converse(pid_t pid, int to_child[2], int from_child[2]) {
    char buf[4096];
    if (write(to_child[1], HELLO, sizeof HELLO - 1) < 0) die("write hello");
    ssize_t n = read(from_child[0], buf, sizeof buf);
    if (n <= 0 || strstr(buf, "ready") == NULL) {
        errno = EPROTO;
        die("no ready from the bot");
    }
    if (write(to_child[1], QUIT, sizeof QUIT - 1) < 0) die("write quit");
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        errno = ECHILD;
        die("the bot did not exit with 0");
    }
    close(to_child[1]);
    close(from_child[0]);
}

/* Waits (untimed) until the cgroup is empty, then removes it. */
static void remove_cgroup(const char *dir) {
    while (rmdir(dir) < 0) {
        if (errno != EBUSY) die(dir);
        sched_yield();
    }
}

static uint64_t lifecycle(enum way way, const char *instant, const char *stub, const char *small,
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
    uint64_t t0 = now_ns();
    pid_t pid;
    switch (way) {
    case DIRECT:
        pid = start(direct, to_child, from_child, -1);
        converse(pid, to_child, from_child);
        return now_ns() - t0;
    case STUB:
    case SMALL_STUB:
        pid = start(way == STUB ? via_stub : via_small, to_child, from_child, -1);
        converse(pid, to_child, from_child);
        return now_ns() - t0;
    case MKDIR_RMDIR:
        if (mkdir(dir, 0755) < 0) die(dir);
        if (rmdir(dir) < 0) die(dir);
        return now_ns() - t0;
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
        uint64_t elapsed = (now_ns() - start_ns) / 100;
        close(fd);
        if (rmdir(dir) < 0) die(dir);
        return elapsed;
    }
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
        pid = start(direct, to_child, from_child, cgroup_fd);
        close(cgroup_fd);
    }
    converse(pid, to_child, from_child);
    read_cpu_stat(dir);
    char kill_path[4096];
    snprintf(kill_path, sizeof kill_path, "%s/cgroup.kill", dir);
    write_file(kill_path, "1");
    uint64_t elapsed = now_ns() - t0;
    /* Untimed: what is left in the cgroup (the namespace's init tearing down its mount
       namespaces) dies; the referee waits for that in the background. Its orphans are
       reaped by this process as their subreaper. */
    remove_cgroup(dir);
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    return elapsed;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether a way needs what was not given. */
static int skipped(enum way way, const char *small, const char *parent) {
    if (small == NULL && (way == SMALL_STUB || way == SMALL_STUB_CGROUP_PID)) return 1;
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
    uint64_t *samples[WAYS];
    for (int w = 0; w < WAYS; w++) {
        samples[w] = calloc((size_t)rounds, sizeof(uint64_t));
        if (samples[w] == NULL) die("calloc");
    }
    for (int r = -1; r < rounds; r++) { /* round -1 warms up */
        for (int w = 0; w < WAYS; w++) {
            if (skipped((enum way)w, small, parent)) continue;
            uint64_t ns = lifecycle((enum way)w, argv[2], argv[3], small, parent, r + 1);
            if (r >= 0) samples[w][r] = ns;
        }
    }
    for (int w = 0; w < WAYS; w++) {
        if (skipped((enum way)w, small, parent)) continue;
        qsort(samples[w], (size_t)rounds, sizeof(uint64_t), compare);
        printf("%s %.1f %.1f\n", NAMES[w], samples[w][rounds / 2] / 1000.0, samples[w][(rounds * 9) / 10] / 1000.0);
    }
    return 0;
}
