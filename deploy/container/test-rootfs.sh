#!/bin/bash
# The runtime stage of the repository's Containerfile, tried without a container runtime:
# builds a Debian trixie root with debootstrap, installs in it exactly the packages of the
# Containerfile's runtime stage (its `apt-get install` line, read from the file), copies a
# built `bao-referee` and `bao-exec-stub` into /usr/local/bin, and starts `bao-referee serve`
# in it the way a container runtime would: in a mount namespace whose root is that folder
# (pivot_root), with the host's /proc, /sys and /dev, through tini, with
# deploy/kubernetes/arena.toml as its configuration. Then it submits the starter bots in the
# five languages of the default table (python, node, cpp, java, rust), requires each to be
# built, pass the gate and finish games, verifies every finished game's log, and stops the
# server with SIGTERM (it must log `stopped`). Exits non-zero with a message on the first
# failure.
#
# What it does not test: the build stage (rust:1.95-slim-trixie), the image itself, and a
# container's restrictions (it runs as the host's root, with the host's cgroups and no
# seccomp profile: closest to the privileged container of deploy/kubernetes/). No PID
# namespace: the server's cleanup of dead referees' cgroups looks for their pids in its own
# /proc, and other referees of this machine may share its parent cgroup.
#
#   bash deploy/container/test-rootfs.sh
#
# Run as root. Needs Debian's package mirror (deb.debian.org; debootstrap is fetched with
# `apt-get download` if it is not installed) and about 2 GB in /tmp.
# BAO_REFEREE: the referee to put in the root (default: target/release/bao-referee, built if
# missing; the stub is taken from the same folder). BAO_PORT: the port (default 18431).
# BAO_KEEP_TMP=1 keeps the temporary folder (its path is printed) for a post-mortem.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$SECONDS

fail() {
    echo "test-rootfs: FAIL: $*" >&2
    exit 1
}
say() { echo "test-rootfs: $*"; }

[ "$(id -u)" -eq 0 ] || fail "must run as root (debootstrap, chroot, mounts)"
for tool in unshare pivot_root curl python3; do
    command -v "$tool" >/dev/null || fail "$tool is needed"
done

referee=${BAO_REFEREE:-$repo/target/release/bao-referee}
if [ ! -x "$referee" ]; then
    say "building $referee"
    cargo build --release --locked -p bao-referee
fi
[ -x "$referee" ] || fail "no referee at $referee"
bin_dir=$(cd "$(dirname "$referee")" && pwd)
[ -x "$bin_dir/bao-exec-stub" ] || fail "no bao-exec-stub next to $referee"
"$referee" serve --help >/dev/null 2>&1 && "$referee" serve --help | grep -q -- --data \
    || fail "$referee has no server (built without its default features?)"
port=${BAO_PORT:-18431}
url=http://127.0.0.1:$port
! curl -s -o /dev/null "$url/healthz" || fail "something already answers on port $port (BAO_PORT)"

tmp=$(mktemp -d /tmp/bao-rootfs-test.XXXXXX)
root=$tmp/rootfs
server_pid=
cleanup() {
    local status=$?
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        sleep 5
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -f "$tmp/server.err" ]; then
        echo "test-rootfs: the server's last log lines:" >&2
        tail -n 30 "$tmp/server.err" >&2
    fi
    if [ "${BAO_KEEP_TMP:-}" = 1 ]; then
        echo "test-rootfs: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
    exit "$status"
}
trap cleanup EXIT

# ---- a Debian trixie root with the runtime stage's packages ---------------------------------
debootstrap=$(command -v debootstrap || true)
if [ -z "$debootstrap" ]; then
    say "fetching debootstrap (apt-get download, unpacked in $tmp)"
    (cd "$tmp" && apt-get download -qq debootstrap 2>/dev/null) || fail "apt-get download debootstrap"
    dpkg -x "$tmp"/debootstrap_*.deb "$tmp/debootstrap"
    export DEBOOTSTRAP_DIR=$tmp/debootstrap/usr/share/debootstrap
    debootstrap=$tmp/debootstrap/usr/sbin/debootstrap
fi
say "debootstrap --variant=minbase trixie (a few minutes)"
"$debootstrap" --variant=minbase trixie "$root" http://deb.debian.org/debian >"$tmp/debootstrap.log" 2>&1 \
    || { tail -n 20 "$tmp/debootstrap.log" >&2; fail "debootstrap"; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The runtime stage's `RUN apt-get update ... && apt-get install ...` instruction, as written.
apt_line=$(python3 - "$repo/Containerfile" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
stages = re.split(r"^FROM ", text, flags=re.M)
runtime = stages[-1]
match = re.search(r"^RUN (apt-get update.*?)(?=^\S)", runtime, re.S | re.M)
if not match:
    sys.exit("no `RUN apt-get update` instruction in the Containerfile's last stage")
print(match.group(1).replace("\\\n", " "))
PY
) || fail "reading the Containerfile's runtime stage"
say "in the root: $apt_line"
unshare --mount --fork sh -c "mount --rbind /proc '$root/proc' && DEBIAN_FRONTEND=noninteractive chroot '$root' sh -c '$apt_line'" \
    >"$tmp/apt.log" 2>&1 || { tail -n 20 "$tmp/apt.log" >&2; fail "installing the runtime stage's packages"; }
install -m 755 "$referee" "$root/usr/local/bin/bao-referee"
install -m 755 "$bin_dir/bao-exec-stub" "$root/usr/local/bin/bao-exec-stub"
mkdir -p "$root/var/lib/bao/arena"
chmod 700 "$root/var/lib/bao/arena"
cp "$repo/deploy/kubernetes/arena.toml" "$root/var/lib/bao/arena/arena.toml"

in_root() { # a command in the root, with the host's /proc (no sandbox: administration only)
    unshare --mount --fork sh -c "mount --rbind /proc '$root/proc' && chroot '$root' $*"
}
for tool in python3 node g++ javac java rustc tini; do
    in_root "sh -c 'command -v $tool'" >/dev/null || fail "$tool is not in the root"
done
token=$(in_root bao-referee serve --data /var/lib/bao/arena user add kits) || fail "serve user add"

# ---- the server, started as a container runtime would ---------------------------------------
say "starting the server in the root on $url"
unshare --mount --propagation private sh -c '
    set -e
    R=$1
    mount --bind "$R" "$R"
    mount --rbind /proc "$R/proc"
    mount --rbind /sys "$R/sys"
    mount --rbind /dev "$R/dev"
    mkdir -p "$R/.oldroot"
    cd "$R"
    pivot_root . .oldroot
    exec chroot . /bin/sh -c "umount -l /.oldroot && rmdir /.oldroot && cd /var/lib/bao && exec /usr/bin/tini -- /usr/local/bin/bao-referee serve --data /var/lib/bao/arena --listen 127.0.0.1:$2"
' sh "$root" "$port" >"$tmp/server.out" 2>"$tmp/server.err" &
server_pid=$!
for _ in $(seq 60); do
    curl -s -o /dev/null "$url/healthz" && break
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited at start"
    sleep 1
done
[ "$(curl -s "$url/healthz")" = ok ] || fail "/healthz does not answer ok"
# What the sandbox probe found here (a protection missing and not accepted would have
# stopped the server at start).
grep "bao_server::sandbox::probe" "$tmp/server.err" | sed 's/^.*probe: /test-rootfs: probe: /' || true

# ---- the five languages: built, gated, playing ----------------------------------------------
sed 's/public final class Bot {/public final class Main {/' sample-bots/java/Bot.java >"$tmp/Main.java"
grep -q "public final class Main {" "$tmp/Main.java" || fail "could not make Main.java from the Java kit"
submit() { # BOT LANGUAGE FILE: the new version's id
    BAO_TOKEN=$token "$referee" submit --server "$url" --bot "$1" --language "$2" "$3" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
state_of() { curl -s "$url/api/versions/$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }
settle() { # ID: waits up to 5 minutes for a decided state, prints it
    local state
    for _ in $(seq 150); do
        state=$(state_of "$1")
        case $state in queued | building | checking) sleep 2 ;; *) break ;; esac
    done
    echo "$state"
}
# At most 4 versions may wait per user (limits.queued_per_user): two batches.
ids=()
bots=(py js cpp java rs)
ids+=("$(submit py python sample-bots/python/random_bot.py)")
ids+=("$(submit js node sample-bots/js/bot.js)")
ids+=("$(submit cpp cpp sample-bots/cpp/bot.cpp)")
for i in 0 1 2; do
    state=$(settle "${ids[$i]}")
    [ "$state" = active ] || fail "${bots[$i]}: version ${ids[$i]} is $state, not active"
    say "${bots[$i]}: built, passed the gate, active"
done
ids+=("$(submit java java "$tmp/Main.java")")
ids+=("$(submit rs rust server/tests/e2e/fixtures/first_legal.rs)")
for i in 3 4; do
    state=$(settle "${ids[$i]}")
    [ "$state" = active ] || fail "${bots[$i]}: version ${ids[$i]} is $state, not active"
    say "${bots[$i]}: built, passed the gate, active"
done
finished() { curl -s "$url/api/games?bot=$1&state=finished&limit=5" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }
for bot in "${bots[@]}"; do
    for _ in $(seq 120); do
        [ "$(finished "$bot")" -gt 0 ] && break
        sleep 2
    done
    [ "$(finished "$bot")" -gt 0 ] || fail "$bot finished no game in 4 minutes"
done
say "every bot finished games"

# ---- stop, then every finished game's log verifies -----------------------------------------
kill -TERM "$server_pid"
for _ in $(seq 30); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 1
done
kill -0 "$server_pid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
server_pid=
grep -q "bao_server::serve: stopped" "$tmp/server.err" || fail "the server did not log that it stopped"
finished_ids=$(in_root bao-referee serve --data /var/lib/bao/arena export /tmp/export >/dev/null \
    && python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$root/tmp/export/games.json") \
    || fail "serve export"
verified=0
for log in "$root"/tmp/export/games/*.jsonl; do
    "$referee" verify "$log" >/dev/null || fail "$(basename "$log") does not verify"
    verified=$((verified + 1))
done
[ "$verified" -gt 0 ] && [ "$verified" -eq "$finished_ids" ] \
    || fail "$verified logs verified, $finished_ids finished games exported"
say "PASS: five languages built and played in the runtime stage's root; $verified finished games, every log verifies ($((SECONDS - started)) s)"
