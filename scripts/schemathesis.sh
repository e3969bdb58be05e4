#!/usr/bin/env bash
# Fuzzes the live server with schemathesis against its own /openapi.json: no 5xx, no
# response outside its documented statuses, types and schemas, no crash.
# Two passes: anonymous (every operation but the event streams), then as a session
# (also without ending it).
# Usage: scripts/schemathesis.sh TANDEM_BIN [EXAMPLES]
set -euo pipefail
BIN=$1; EXAMPLES=${2:-25}
VENV=${TANDEM_VENV:-/tmp/tandem-venv}
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
"$BIN" serve --host 127.0.0.1 --port "$PORT" --data "$DATA" --log-level warning > "$DATA/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
BASE=http://127.0.0.1:$PORT
CHECKS=not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance
# Event streams never end by themselves, so every generated case would wait for the request
# timeout; their framing and content are checked exactly by Tests/e2e and Tests/browser.
common=(--checks "$CHECKS" -n "$EXAMPLES" --generation-deterministic --request-timeout 10
        --exclude-operation-id documentEvents --exclude-operation-id pasteboardEvents)
"$VENV/bin/schemathesis" --config-file "$(dirname "$0")/../schemathesis.toml" run "$BASE/openapi.json" "${common[@]}"
TOKEN=$(curl -sf -XPOST "$BASE/sessions" -H 'Content-Type: application/json' -d '{"name":"fuzz"}' |
    python3 -c 'import json,sys;print(json.load(sys.stdin)["token"])')
"$VENV/bin/schemathesis" --config-file "$(dirname "$0")/../schemathesis.toml" run "$BASE/openapi.json" "${common[@]}" -H "Authorization: Bearer $TOKEN" --exclude-operation-id endSession
kill -0 $PID || { echo "FAILED: the server died under fuzzing" >&2; tail -20 "$DATA/server.log" >&2; exit 1; }
echo "schemathesis: both passes clean"
