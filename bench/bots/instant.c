/*
 * instant: the benchmark's instant bot (issue 10). It answers `hello` with `ready` and every
 * `move_request` with the first legal move, at once, doing nothing else; it exits on `quit`
 * or at the end of its input. `bao-bench bench referee` compiles it with `cc -O2`.
 *
 *   instant [--many] [--times FILE]
 *                            the bot; with --many its ready says "games":"many" (protocol 1.1:
 *                            it answers every hello, so a tournament may keep its process from
 *                            game to game); with --times, at exit it appends one line to FILE:
 *                            "PID REQUESTS CPU_US INTERVAL_NS..." where CPU_US is its own
 *                            user + system CPU (getrusage, stub phase before exec included)
 *                            and the intervals are between the arrivals of two successive
 *                            move requests (CLOCK_MONOTONIC) of one game, i.e. two ply cycles each.
 *   instant --echo           the pipe floor's far end: answers every line with one short
 *                            move line, parsing nothing.
 *
 * Replies are written with one write(2) each, unbuffered.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_INTERVALS 4096

static const char ECHO_REPLY[] = "{\"type\":\"move\",\"id\":57,\"move\":\"B3<\"}\n";
static const char READY[] = "{\"type\":\"ready\",\"name\":\"instant\",\"author\":\"bao-bench\"}\n";
static const char READY_MANY[] =
    "{\"type\":\"ready\",\"name\":\"instant\",\"author\":\"bao-bench\",\"games\":\"many\"}\n";

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n <= 0) return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int echo(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        if (write_all(1, ECHO_REPLY, sizeof ECHO_REPLY - 1) != 0) return 1;
    }
    return 0;
}

static uint64_t intervals[MAX_INTERVALS];
static size_t interval_count;
static uint64_t requests;

static void report(const char *path) {
    if (path == NULL) return;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t cpu_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
                      (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    size_t cap = 64 + 21 * interval_count;
    char *text = malloc(cap);
    if (text == NULL) return;
    size_t len = (size_t)snprintf(text, cap, "%ld %llu %llu", (long)getpid(), (unsigned long long)requests,
                                  (unsigned long long)cpu_us);
    for (size_t i = 0; i < interval_count && len < cap; i++) {
        len += (size_t)snprintf(text + len, cap - len, " %llu", (unsigned long long)intervals[i]);
    }
    if (len < cap) text[len++] = '\n';
    /* One append: the lines of concurrent bots do not interleave. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        (void)write_all(fd, text, len);
        close(fd);
    }
    free(text);
}

/* The value of the first `"key":` (a number) or `"key":["` (a string in an array). */
static const char *after(const char *line, const char *key) {
    const char *at = strstr(line, key);
    return at == NULL ? NULL : at + strlen(key);
}

static int bot(const char *times, int many) {
    char *line = NULL;
    size_t cap = 0;
    char reply[256];
    uint64_t last = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        uint64_t arrived = now_ns();
        if (strstr(line, "\"type\":\"move_request\"") != NULL) {
            const char *id = after(line, "\"id\":");
            const char *mv = after(line, "\"legal\":[\"");
            if (id == NULL || mv == NULL) {
                fprintf(stderr, "instant: a move_request without id or legal moves\n");
                return 1;
            }
            const char *end = strchr(mv, '"');
            if (end == NULL || end - mv > 16) {
                fprintf(stderr, "instant: a bad first legal move\n");
                return 1;
            }
            int len = snprintf(reply, sizeof reply, "{\"type\":\"move\",\"id\":%llu,\"move\":\"%.*s\"}\n",
                               strtoull(id, NULL, 10), (int)(end - mv), mv);
            if (write_all(1, reply, (size_t)len) != 0) return 1;
            if (last != 0 && interval_count < MAX_INTERVALS) intervals[interval_count++] = arrived - last;
            last = arrived;
            requests++;
        } else if (strstr(line, "\"type\":\"hello\"") != NULL) {
            int ok = many ? write_all(1, READY_MANY, sizeof READY_MANY - 1) : write_all(1, READY, sizeof READY - 1);
            if (ok != 0) return 1;
            last = 0; /* a new game: intervals are measured within a game */
        } else if (strstr(line, "\"type\":\"quit\"") != NULL) {
            break;
        }
    }
    report(times);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--echo") == 0) return echo();
    int many = argc >= 2 && strcmp(argv[1], "--many") == 0;
    if (argc == 3 + many && strcmp(argv[1 + many], "--times") == 0) return bot(argv[2 + many], many);
    if (argc == 1 + many) return bot(NULL, many);
    fprintf(stderr, "usage: instant [--many] [--times FILE] | instant --echo\n");
    return 2;
}
