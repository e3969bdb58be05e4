#!/usr/bin/env bash
# The README's test command. Installs what the tests need, builds with zero warnings in
# Tandem's own code, lints the Dockerfile, runs the Swift test targets, the end-to-end and
# browser suites against the real server binary, builds and runs the Docker image, runs
# compose.yaml (two nodes, PostgreSQL, nginx), and schemathesis against its OpenAPI.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

need_apt=()
for pkg in libssl-dev zlib1g-dev libsqlite3-dev libpq-dev postgresql nginx-light openssl curl python3-venv chromium chromium-driver; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Python tools live in a venv outside the tree so the clone stays clean.
export TANDEM_VENV=${TANDEM_VENV:-/tmp/tandem-venv}
[ -x "$TANDEM_VENV/bin/python" ] || python3 -m venv "$TANDEM_VENV"
"$TANDEM_VENV/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-test.txt

echo "== hadolint Dockerfile"
"$TANDEM_VENV/bin/hadolint" Dockerfile

echo "== swift build (warnings in our code fail the build)"
swift build --build-tests 2>&1 | tee /tmp/tandem-build.log | grep -E "error:|warning:" || true
if grep -E "^($ROOT/)?(Sources|Tests)/[^ ]*: warning:" /tmp/tandem-build.log; then
    echo "FAILED: the build printed warnings in Tandem's own code" >&2
    exit 1
fi
if grep -q "error:" /tmp/tandem-build.log; then echo "FAILED: build errors" >&2; exit 1; fi
export TANDEM_BIN=$ROOT/.build/debug/tandem

# A throwaway PostgreSQL for PostgresStore's contract tests (and the server on it), stopped
# at exit: CI=true makes those tests fail rather than skip without it.
source scripts/test-postgres.sh
trap stop_test_postgres EXIT
echo "== postgres: a throwaway cluster for the tests"
start_test_postgres

echo "== swift test"
set +e
swift test --skip-build --disable-xctest > /tmp/tandem-test.log 2>&1
swift_status=$?
set -e
grep -E "✘" /tmp/tandem-test.log | head -40 || true
tail -n 3 /tmp/tandem-test.log
[ $swift_status -eq 0 ] || { echo "FAILED: swift test" >&2; exit 1; }

echo "== fuzz: libFuzzer, 60 s per target"
./scripts/fuzz.sh 60

# Each suite has its own conftest, so each runs in its own pytest process.
for suite in Tests/e2e Tests/browser; do
    [ -d "$suite" ] || continue
    echo "== pytest $suite (the real server over real sockets$( [ $suite = Tests/browser ] && echo ', headless Chromium'))"
    "$TANDEM_VENV/bin/python" -m pytest -q -p no:cacheprovider -rs "$suite"
done

# The e2e suite again with every server on PostgreSQL as two nodes on one schema behind a
# local nginx rendered from deploy/nginx.conf (the file compose.yaml mounts): first as
# written, each document's requests to the node its id hashes to (`hash … consistent`), so
# each document lives on one node as with a single node on PostgreSQL; then round robin, each
# request to the next node in turn. The tests of Tandem's own HTTP parsing on a raw socket run
# on one node (`one_node`); those that need the SQLite file (a full disk, start-up replay, WAL
# metrics) stay on SQLite.
echo "== pytest Tests/e2e on two nodes behind nginx, hash routing (TANDEM_E2E_NODES=2)"
TANDEM_E2E_DATABASE=postgres TANDEM_E2E_NODES=2 "$TANDEM_VENV/bin/python" -m pytest -q -p no:cacheprovider -rs Tests/e2e
echo "== pytest Tests/e2e on two nodes behind nginx, round robin (TANDEM_E2E_ROUTING=round-robin)"
TANDEM_E2E_DATABASE=postgres TANDEM_E2E_NODES=2 TANDEM_E2E_ROUTING=round-robin "$TANDEM_VENV/bin/python" -m pytest -q -p no:cacheprovider -rs Tests/e2e

# Issue 38's attacks (memory, stalls, limits, access that ends, secrets) once more on the
# release binary (the stall tests with one event loop), as the issue measured them: the figures that count are
# the shipped server's, not a debug build's.
echo "== pytest the attack tests on the release binary"
swift build -c release --product tandem 2>&1 | tail -n 1
TANDEM_BIN=$ROOT/.build/release/tandem "$TANDEM_VENV/bin/python" -m pytest -q -p no:cacheprovider -rs \
    Tests/e2e/test_budgets.py Tests/e2e/test_client_limits.py Tests/e2e/test_access_ends.py Tests/e2e/test_secrets_and_startup.py

echo "== docker: build the image from the Dockerfile, run it, restart it on its volume"
./scripts/test-docker.sh

echo "== compose: compose.yaml as it is, two nodes on PostgreSQL behind nginx, one killed mid-edit"
./scripts/test-compose.sh

echo "== schemathesis against /openapi.json"
./scripts/schemathesis.sh "$TANDEM_BIN" 25
