#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and trials, from Debian's `postgresql` package:
#
#   deploy/postgres/throwaway.sh start DIR [PORT]   # initdb + pg_ctl start; prints the URL
#   deploy/postgres/throwaway.sh stop DIR
#
# The cluster listens on 127.0.0.1:PORT (default 55432) and on a socket in DIR, trusts local
# connections (a test cluster: never for real data), and belongs to the user `postgres` when
# run as root (PostgreSQL refuses to run as root). The URL printed is the superuser's, for
# `BAO_TEST_POSTGRES`: the tests create a database of their own in it per test. With openssl
# installed it also accepts TLS, with a certificate of its own authority, DIR/ca.crt (for
# `BAO_TEST_POSTGRES_CA`). Commits are not flushed to disk (fsync off: a test cluster) unless
# BAO_PG_FSYNC=on (for benchmarks that compare with SQLite, which the server runs with full
# synchronisation).
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
    tls=()
    if command -v openssl >/dev/null; then
        # TLS too, with a certificate authority of the cluster's own in DIR/ca.crt (for the
        # tests of `sslmode=require&sslrootcert=`): plain connections still work.
        if [[ ! -f $dir/server.crt ]]; then
            (
                cd "$dir"
                ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
                openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.crt -days 30 -subj "/CN=bao-referee throwaway CA" \
                    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
                openssl req "${ec[@]}" -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
                printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext
                openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
                    -extfile server.ext -out server.crt 2>/dev/null
                chmod 600 server.key ca.key
                chmod 644 ca.crt server.crt
                if [[ $(id -u) == 0 ]]; then chown postgres: server.key server.crt; fi
            )
        fi
        tls=(-c ssl=on -c "ssl_cert_file=$dir/server.crt" -c "ssl_key_file=$dir/server.key")
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=${BAO_PG_FSYNC:-off} -c max_connections=400 ${tls[*]}" \
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
