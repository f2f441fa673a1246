#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and trials, from Debian's `postgresql` package:
#
#   deploy/postgres/throwaway.sh start DIR [PORT]   # initdb + pg_ctl start; prints the URL
#   deploy/postgres/throwaway.sh stop DIR
#
# The cluster listens on 127.0.0.1:PORT (default 55432) and on a socket in DIR, trusts local
# connections (a test cluster: never for real data), and belongs to the user `postgres` when
# run as root (PostgreSQL refuses to run as root). The URL printed is the superuser's, for
# `BAO_TEST_POSTGRES`: the tests create a database of their own in it per test. Commits are
# not flushed to disk (fsync off: a test cluster) unless BAO_PG_FSYNC=on (for benchmarks that
# compare with SQLite, which the server runs with full synchronisation).
set -euo pipefail
cmd=${1:?start DIR [PORT] | stop DIR}
dir=${2:?the cluster directory}
port=${3:-55432}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z $bin || ! -x $bin/initdb ]]; then
    echo "throwaway.sh: PostgreSQL's server programs are not installed (apt-get install postgresql)" >&2
    exit 1
fi
as_owner() {
    if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
owner=$(if [[ $(id -u) == 0 ]]; then echo postgres; else id -un; fi)
case $cmd in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
    if [[ ! -f $dir/data/PG_VERSION ]]; then
        as_owner "$bin/initdb" -D "$dir/data" -U "$owner" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=${BAO_PG_FSYNC:-off} -c max_connections=400" \
        start >/dev/null
    echo "postgres://$owner@127.0.0.1:$port/postgres"
    ;;
stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
*)
    echo "throwaway.sh: unknown command $cmd (start DIR [PORT] | stop DIR)" >&2
    exit 2
    ;;
esac
