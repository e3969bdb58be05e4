#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `source` this file, then `start_test_postgres`
# (exports TANDEM_TEST_DATABASE_URL) and `stop_test_postgres` (from an EXIT trap). The cluster
# lives in a temporary folder, listens on a free loopback port (and a Unix socket in that
# folder), runs as the `postgres` user when this runs as root (the server refuses root), else
# as the current user, and has fsync off: it holds only test data and is deleted at the end.
# Run directly (`scripts/test-postgres.sh`), it starts a cluster, checks it answers, stops it.

TANDEM_PG_DIR=""

start_test_postgres() {
    local bin port as=()
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -x "$bin/initdb" ] || { echo "postgres: no initdb under /usr/lib/postgresql (apt-get install postgresql)" >&2; return 1; }
    TANDEM_PG_DIR=$(mktemp -d /tmp/tandem-pg.XXXXXX)
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres:postgres "$TANDEM_PG_DIR"
        as=(runuser -u postgres --)
    fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${as[@]}" "$bin/initdb" -D "$TANDEM_PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C >"$TANDEM_PG_DIR/initdb.log" 2>&1 \
        || { cat "$TANDEM_PG_DIR/initdb.log" >&2; return 1; }
    # Exported so that a test can stop and start this cluster (PostgreSQL down during load).
    export TANDEM_TEST_PG_DIR="$TANDEM_PG_DIR"
    export TANDEM_TEST_PG_OPTIONS="-p $port -k $TANDEM_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=800"
    "${as[@]}" "$bin/pg_ctl" -D "$TANDEM_PG_DIR/data" -l "$TANDEM_PG_DIR/server.log" -w -t 60 \
        -o "$TANDEM_TEST_PG_OPTIONS" start >/dev/null \
        || { tail -n 20 "$TANDEM_PG_DIR/server.log" >&2; return 1; }
    "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE tandem_test" >/dev/null
    export TANDEM_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$port/tandem_test"
    echo "postgres: $("$bin/postgres" --version | sed 's/^postgres //') on 127.0.0.1:$port ($TANDEM_PG_DIR)"
}

stop_test_postgres() {
    [ -n "$TANDEM_PG_DIR" ] && [ -d "$TANDEM_PG_DIR" ] || return 0
    local bin as=()
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ "$(id -u)" -eq 0 ] && as=(runuser -u postgres --)
    "${as[@]}" "$bin/pg_ctl" -D "$TANDEM_PG_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    rm -rf "$TANDEM_PG_DIR"
    TANDEM_PG_DIR=""
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    trap stop_test_postgres EXIT
    start_test_postgres
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    "$bin/psql" -Atc "SELECT 'postgres: answers, ' || current_database()" "$TANDEM_TEST_DATABASE_URL"
fi
