#!/usr/bin/env bash
# Fuzzes the live server with schemathesis against its own /openapi.json: no 5xx, no
# response outside its documented statuses, types and schemas, no crash.
# Before fuzzing it makes what the operations act on: documents (one shared, one for PATCH,
# one for DELETE, the shared one with a saved version) and pasteboards owned by the fuzzing
# session (with an item); schemathesis.toml points every {id}, {name}, {n} and {index} at
# them, so the real handlers run instead of answering 404.
# Two passes: anonymous (every operation but the event streams), then as that session
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

TOKEN=$(curl -sf -XPOST "$BASE/sessions" -H 'Content-Type: application/json' -d '{"name":"fuzz"}' |
    python3 -c 'import json,sys;print(json.load(sys.stdin)["token"])')
AUTH="Authorization: Bearer $TOKEN"
make() { # METHOD PATH [JSON] — fails the script unless the answer is 2xx
    curl -sf -o /dev/null -X "$1" "$BASE$2" -H "$AUTH" -H 'Content-Type: application/json' ${3:+-d "$3"}
}
export FUZZ_CACHE=$DATA/schemathesis-cache
export FUZZ_DOC=fuzz-doc FUZZ_DOC_PATCH=fuzz-doc-patch FUZZ_DOC_DELETE=fuzz-doc-delete
export FUZZ_PASTEBOARD=fuzz-pb FUZZ_PASTEBOARD_DELETE=fuzz-pb-delete
for d in "$FUZZ_DOC" "$FUZZ_DOC_PATCH" "$FUZZ_DOC_DELETE"; do
    make POST /documents "{\"id\":\"$d\",\"text\":\"Hello, fuzzing world.\"}"
done
make POST "/documents/$FUZZ_DOC/save"
for p in "$FUZZ_PASTEBOARD" "$FUZZ_PASTEBOARD_DELETE"; do
    make POST /pasteboards "{\"name\":\"$p\",\"persistent\":true}"
    curl -sf -o /dev/null -X PUT "$BASE/pasteboards/$p/items" -H "$AUTH" -H 'Content-Type: text/plain' -d clip
done

CHECKS=not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance
# Event streams never end by themselves, so every generated case would wait for the request
# timeout; their framing and content are checked exactly by Tests/e2e and Tests/browser.
common=(--checks "$CHECKS" -n "$EXAMPLES" --generation-deterministic --request-timeout 10
        --exclude-operation-id documentEvents --exclude-operation-id pasteboardEvents)
CONFIG=$(dirname "$0")/../schemathesis.toml
"$VENV/bin/schemathesis" --config-file "$CONFIG" run "$BASE/openapi.json" "${common[@]}"
"$VENV/bin/schemathesis" --config-file "$CONFIG" run "$BASE/openapi.json" "${common[@]}" -H "$AUTH" --exclude-operation-id endSession
kill -0 $PID || { echo "FAILED: the server died under fuzzing" >&2; tail -20 "$DATA/server.log" >&2; exit 1; }
echo "schemathesis: both passes clean"
