#!/usr/bin/env bash
# The README's test command: installs what the tests need, builds with zero warnings,
# lints the Dockerfile, runs every test target, then the end-to-end suites.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

need_apt=()
for pkg in libssl-dev zlib1g-dev libsqlite3-dev openssl curl python3-venv; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

# Python tools live in a venv outside the tree so the clone stays clean.
VENV=${TANDEM_VENV:-/tmp/tandem-venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-test.txt

echo "== hadolint Dockerfile"
"$VENV/bin/hadolint" Dockerfile

echo "== swift build (warnings are errors for our code)"
swift build --build-tests 2>&1 | tee /tmp/tandem-build.log | grep -E "error|warning" || true
if grep -E "^($ROOT/)?(Sources|Tests)/.*warning:" /tmp/tandem-build.log; then
    echo "FAILED: the build printed warnings in Tandem's own code" >&2
    exit 1
fi
grep -q "error:" /tmp/tandem-build.log && { echo "FAILED: build errors" >&2; exit 1; }

echo "== swift test"
swift test --disable-xctest 2>&1 | tee /tmp/tandem-test.log | grep -vE "^(􀟈|◇|↳)" | grep -E "✘|passed|failed|error" | tail -40
grep -q "Test run with .* passed" /tmp/tandem-test.log || { echo "FAILED: swift test" >&2; grep -E "✘" /tmp/tandem-test.log | head -50; exit 1; }
