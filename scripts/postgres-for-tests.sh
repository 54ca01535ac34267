#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of the Postgres store (`store::postgres`).
#
#   scripts/postgres-for-tests.sh start [FOLDER]   start it (or reuse the one running), print its URL
#   scripts/postgres-for-tests.sh url   [FOLDER]   print the URL of the one running
#   scripts/postgres-for-tests.sh stop  [FOLDER]   stop it (the folder is kept for the next start)
#   scripts/postgres-for-tests.sh ca    [FOLDER]   print the path of the certificate authority that
#                                                  signed the server's TLS certificate
#
# FOLDER defaults to target/postgres-for-tests/ of this checkout: build output, never committed,
# and one server per worktree, so engineers working side by side never share a database.
#
# It uses Debian's `postgresql` package (installed with apt-get when `initdb` is missing and we
# are root) rather than a downloaded build or a container: the same binaries a team would run,
# and nothing fetched beyond the distribution's own archive.
#
# The printed URL is the admin one, postgres://dossier_test:PASSWORD@127.0.0.1:PORT/postgres, for
# a superuser role: each test creates (and drops) its own database with it.
#
# The server speaks TLS (`ssl = on`) with a certificate for 127.0.0.1 and localhost, signed by a
# certificate authority of the cluster's own made with `openssl` (tls/ca.pem; its key is deleted
# once it has signed), so the tests can connect with sslmode=verify-full as a team would to a
# remote database. A cluster made before the server had TLS gets it at its next `start`.
set -euo pipefail

command=${1:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
folder=${2:-$root/target/postgres-for-tests}
role=dossier_test

usage() {
    echo "usage: $0 start|url|stop|ca [FOLDER]" >&2
    exit 2
}

# The newest installed server (Debian keeps each major version in its own folder, so several can
# be installed side by side and none is on PATH).
newest_bin() {
    local folders=(/usr/lib/postgresql/*/bin)
    [[ -x ${folders[0]}/initdb ]] || return 0
    printf '%s\n' "${folders[@]}" | sort -V | tail -n 1
}

find_bin() {
    local bin
    bin=$(newest_bin)
    if [[ -z $bin ]]; then
        if [[ $EUID -ne 0 ]]; then
            echo "PostgreSQL is not installed; as root: apt-get install -y postgresql" >&2
            exit 1
        fi
        echo "installing Debian's postgresql package" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2
        bin=$(newest_bin)
    fi
    echo "$bin"
}

# PostgreSQL refuses to run as root (a server bug would own the machine), so as root every
# server command runs as the unprivileged `postgres` user the Debian package creates. As anyone
# else, as that user.
as_owner() {
    if [[ $EUID -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

running() {
    [[ -f $folder/data/postmaster.pid ]] && as_owner "$bin/pg_ctl" status -D "$folder/data" >/dev/null 2>&1
}

print_url() {
    echo "postgres://$role:$(cat "$folder/password")@127.0.0.1:$(cat "$folder/port")/postgres"
}

# A port nobody listens on now. Another program may take it before the server does; `start`
# then tries another.
free_port() {
    local port
    for _ in $(seq 1 50); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    echo "no free port found" >&2
    exit 1
}

initialise() {
    mkdir -p "$folder"
    if [[ $EUID -eq 0 ]]; then
        chown postgres: "$folder"
    fi
    chmod 700 "$folder"
    # A fresh random password for every new cluster: the server listens on loopback only, but
    # other users of this machine can reach loopback too.
    local password
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    (umask 077 && printf '%s' "$password" >"$folder/password")
    if [[ $EUID -eq 0 ]]; then
        chown postgres: "$folder/password"
    fi
    as_owner "$bin/initdb" -D "$folder/data" -U "$role" --pwfile="$folder/password" \
        --auth-local=reject --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 \
        >"$folder/initdb.log" 2>&1 || {
        cat "$folder/initdb.log" >&2
        exit 1
    }
    # Password authentication over TCP from 127.0.0.1 and nothing else: no Unix socket (which
    # would let any local account try peer authentication), no other address.
    as_owner tee "$folder/data/pg_hba.conf" >/dev/null <<'EOF'
# TYPE  DATABASE  USER  ADDRESS       METHOD
host    all       all   127.0.0.1/32  scram-sha-256
EOF
    as_owner tee -a "$folder/data/postgresql.conf" >/dev/null <<'EOF'

# scripts/postgres-for-tests.sh: loopback TCP only, no Unix socket.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
# Tests create a database each and run side by side.
max_connections = 200
# A test server: losing its last transactions in a machine crash costs nothing, and the tests
# run faster without waiting for the disk.
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
}

# A certificate authority and a server certificate signed by it, for 127.0.0.1 and localhost (the
# names the tests connect with). Made as the server's owner: PostgreSQL refuses a key file that
# another user owns or that others can read.
make_certificates() {
    local tls=$folder/tls
    as_owner mkdir -p "$tls"
    as_owner tee "$tls/openssl.cnf" >/dev/null <<'EOF'
[req]
prompt = no
distinguished_name = authority_name
x509_extensions = authority

[authority_name]
CN = Dossier test certificate authority

[authority]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
EOF
    local serial
    serial=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
    if ! (
        umask 077
        cd "$tls"
        as_owner openssl req -x509 -config openssl.cnf -newkey ec \
            -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
            -keyout ca.key -out ca.pem &&
            as_owner openssl req -new -config openssl.cnf -subj /CN=localhost -newkey ec \
                -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -keyout server.key -out server.csr &&
            as_owner openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key \
                -set_serial "0x$serial" -days 3650 -sha256 \
                -extfile openssl.cnf -extensions server -out server.crt
    ) >"$folder/openssl.log" 2>&1; then
        cat "$folder/openssl.log" >&2
        exit 1
    fi
    # The authority signs nothing else, so its key goes. Its certificate is public.
    rm -f "$tls/ca.key" "$tls/server.csr"
    chmod 644 "$tls/ca.pem"
    as_owner mv "$tls/server.crt" "$tls/server.key" "$folder/data/"
}

# TLS for a cluster that has none yet: a new one, or one made before this script turned TLS on
# (engineers' machines keep their cluster between runs). A running server takes the change when
# it reloads its configuration; connections it accepted before stay unencrypted.
ensure_tls() {
    if [[ ! -f $folder/data/server.crt || ! -f $folder/data/server.key || ! -f $folder/tls/ca.pem ]]; then
        make_certificates
    fi
    if ! grep -q '^ssl = on' "$folder/data/postgresql.conf"; then
        as_owner tee -a "$folder/data/postgresql.conf" >/dev/null <<'EOF'

# scripts/postgres-for-tests.sh: TLS with server.crt and server.key (in this folder), signed by
# the certificate authority in ../tls/ca.pem.
ssl = on
EOF
        if running; then
            as_owner "$bin/pg_ctl" reload -D "$folder/data" >/dev/null
            until_tls_offered
        fi
    fi
}

# `pg_ctl reload` only signals the server: wait until a new connection is offered TLS.
until_tls_offered() {
    for _ in $(seq 1 50); do
        if [[ $(PGSSLMODE=require "$bin/psql" "$(print_url)" -XAtc 'SHOW ssl' 2>/dev/null) == on ]]; then
            return 0
        fi
        sleep 0.2
    done
    echo "the server did not turn TLS on after a reload; see $folder/server.log" >&2
    exit 1
}

start() {
    if running; then
        ensure_tls
        print_url
        return 0
    fi
    if [[ ! -f $folder/data/PG_VERSION ]]; then
        initialise
    fi
    ensure_tls
    local port attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        echo "$port" >"$folder/port"
        if as_owner "$bin/pg_ctl" start -w -t 60 -D "$folder/data" -l "$folder/server.log" \
            -o "-p $port" >/dev/null 2>&1 9>&-; then
            print_url
            return 0
        fi
        echo "the server did not start on port $port (attempt $attempt); see $folder/server.log" >&2
    done
    tail -n 20 "$folder/server.log" >&2 || true
    exit 1
}

[[ -n $command ]] || usage
bin=$(find_bin)
mkdir -p "$folder"
# As root the server runs as `postgres`, which must be able to reach the folder: a checkout under
# a private home (/root is 700) is not. Then the cluster lives in /tmp instead, one per checkout.
if [[ $EUID -eq 0 && -z ${2:-} ]] && ! runuser -u postgres -- test -x "$folder" 2>/dev/null; then
    folder=/tmp/dossier-postgres-for-tests-$(printf '%s' "$root" | sha256sum | cut -c1-12)
    mkdir -p "$folder"
fi
# Several test binaries start at once (cargo runs them in parallel): one of them starts the
# server, the others wait here and then reuse it.
exec 9>"$folder.lock"
flock 9

case $command in
start) start ;;
url)
    if ! running; then
        echo "no test server is running in $folder; run: $0 start" >&2
        exit 1
    fi
    print_url
    ;;
ca)
    if [[ ! -f $folder/tls/ca.pem ]]; then
        echo "no certificate authority in $folder/tls yet; run: $0 start" >&2
        exit 1
    fi
    echo "$folder/tls/ca.pem"
    ;;
stop)
    if running; then
        as_owner "$bin/pg_ctl" stop -D "$folder/data" -m fast -w >/dev/null
    fi
    ;;
*) usage ;;
esac
