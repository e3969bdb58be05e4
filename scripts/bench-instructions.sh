#!/usr/bin/env bash
# Instructions per request, counted exactly: Tandem and the Hummingbird 2 anchor each run under
# valgrind's callgrind, wrk sends the same load to the routes of scripts/bench-http.sh, and the
# instructions executed while wrk ran are divided by the requests it made.
#
# Valgrind 3.19 (Debian 12) itself crashes on the Hummingbird binary here ("the 'impossible'
# happened", in NIO's threads); the script then says so and compares with the issue's own
# figure for Hummingbird, ~150k instructions per request, user and kernel.
#
# This complements bench-http.sh on machines without hardware counters (VMs without a PMU),
# where `perf stat -e instructions` is not available and bench-http.sh falls back to CPU time,
# which drifts with the machine. Callgrind counts are the same from run to run within a few
# percent (how requests batch per epoll wake-up still varies a little), whatever the machine
# is doing. They cover user space only: the kernel's share (socket reads and writes, about
# 15k instructions per request per the issue's bare epoll loop) is not in them and is about
# the same for both servers.
#
# With -e it measures issue 4's edit path instead, on Tandem alone: `POST /documents/d/edits`
# of one-character inserts and the same-size `POST /ping` ceiling, both with a bearer token,
# while 5 SSE subscribers listen. Valgrind slows the server some 50 times, so group commits
# carry few changes and the once-a-second housekeeping weighs on each edit far more than at
# full speed: read these rows as a same-conditions comparison between builds, not as the
# share of a real run. Each row's callgrind profile stays in $WORK/out/callgrind.NAME.* (NAME:
# tandem-edits, tandem-ping) for callgrind_annotate --inclusive=yes.
#
# Usage: scripts/bench-instructions.sh [-d SECONDS] [-c CONNECTIONS] [-e]
#   TANDEM_BIN  (default: release build of this checkout)   HB_DIR (default /tmp/anchors/hb)
# All traffic goes to 127.0.0.1; every run is bounded by -d and `timeout`.
set -uo pipefail
DUR=5; CONN=10; EDITS=0
while getopts "d:c:e" o; do case $o in d) DUR=$OPTARG;; c) CONN=$OPTARG;; e) EDITS=1;; *) exit 2;; esac; done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$ROOT/../shared/bench
WORK=${BENCH_DIR:-/tmp/tandem-bench}
mkdir -p "$WORK/public" "$WORK/out"
command -v valgrind >/dev/null && command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y valgrind wrk; } >/dev/null
[ -f "$WORK/public/doc.json" ] || python3 "$SHARED/http/make_doc_json.py" "$WORK/public/doc.json" >/dev/null

TANDEM_BIN=${TANDEM_BIN:-}
if [ -z "$TANDEM_BIN" ]; then
  (cd "$ROOT" && swift build -c release --product tandem >/dev/null) || { echo "tandem build failed" >&2; exit 1; }
  TANDEM_BIN=$ROOT/.build/release/tandem
fi
HB_DIR=${HB_DIR:-/tmp/anchors/hb}
if [ ! -x "$HB_DIR/.build/release/HBAnchor" ]; then
  mkdir -p "$HB_DIR" && cp -r "$SHARED/hummingbird/." "$HB_DIR/" && chmod -R u+w "$HB_DIR"
  (cd "$HB_DIR" && swift build -c release >/dev/null) || { echo "Hummingbird build failed" >&2; exit 1; }
fi

# Valgrind 3.19 gives up on the debug info of the Hummingbird build ("possibly corrupted
# debuginfo file"): it runs from a copy without it (same code, only no line tables).
HB_BIN=$WORK/out/HBAnchor.nodebug
strip --strip-debug -o "$HB_BIN" "$HB_DIR/.build/release/HBAnchor"

PORT=8097
port_open() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
VPID=""; SUBS=()
stop() {
  for p in "${SUBS[@]}"; do kill "$p" 2>/dev/null; done
  SUBS=()
  if [ -n "$VPID" ] && kill -0 "$VPID" 2>/dev/null; then
    kill -INT "$VPID"; for _ in $(seq 100); do kill -0 "$VPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$VPID" 2>/dev/null && kill -9 "$VPID"; wait "$VPID" 2>/dev/null
  fi
  VPID=""
}
trap stop EXIT INT TERM

# measure NAME PATH CMD...: prints "NAME PATH requests instructions/request"
measure() {
  local name=$1 path=$2; shift 2
  local out="$WORK/out/callgrind.$name"
  rm -f "$out"*
  valgrind --tool=callgrind --callgrind-out-file="$out" --instr-atstart=no "$@" > "$WORK/out/$name.vg.log" 2>&1 &
  VPID=$!
  for _ in $(seq 300); do port_open $PORT && break; kill -0 "$VPID" 2>/dev/null || break; sleep 0.2; done
  if ! port_open $PORT; then
    echo "$name did not open $PORT under valgrind (see $WORK/out/$name.vg.log)" >&2
    stop; return 0
  fi
  local url="http://127.0.0.1:$PORT$path" script=()
  if [ -n "${SETUP:-}" ]; then $SETUP; url="http://127.0.0.1:$PORT"; script=(-s "$WORK/out/post.lua"); export EPATH=$path; fi
  timeout 60 wrk -t1 -c"$CONN" -d2s "${script[@]}" "$url" >/dev/null 2>&1   # warm-up, not counted
  callgrind_control -i on "$VPID" >/dev/null 2>&1
  local n
  n=$(timeout $((DUR + 60)) wrk -t1 -c"$CONN" -d"${DUR}s" "${script[@]}" "$url" | awk '/requests in/ {print $1}')
  callgrind_control -i off "$VPID" >/dev/null 2>&1
  callgrind_control -d "$VPID" >/dev/null 2>&1
  sleep 0.5
  stop
  local total
  total=$(cat "$out".* 2>/dev/null | awk '/^totals:/ {s += $2} END {print s + 0}')
  if [ -z "$n" ] || [ "$n" = 0 ] || [ "$total" = 0 ]; then echo "$name $path: no measurement" >&2; return 0; fi
  echo "$name $path $n $((total / n))"
}

# -e: a session, a document, 5 subscribers; wrk posts with the session's token.
edit_setup() {
  local base="http://127.0.0.1:$PORT" json='Content-Type: application/json'
  TOKEN=$(curl -s -XPOST "$base/sessions" -H "$json" -d '{"name":"bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  export TOKEN
  curl -s -XPOST "$base/documents" -H "$json" -d '{"id":"d","text":"a start text for the edits of the benchmark"}' >/dev/null
  for _ in 1 2 3 4 5; do curl -sN "$base/documents/d/events" >/dev/null 2>&1 & SUBS+=($!); done
  sleep 0.5
}
if [ $EDITS = 1 ]; then
  # Same body size for both routes, as in bench-load.py.
  cat > "$WORK/out/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, os.getenv("EPATH"), nil, '{"insert":"a","at":' .. (n % 40) .. '}')
end
LUA
  echo "user-space instructions per request under callgrind, edit path (wrk -t1 -c$CONN -d${DUR}s per row, 5 SSE subscribers)"
  RESULTS=$WORK/out/instructions-edits-$(date +%s).txt
  {
    SETUP=edit_setup measure tandem-edits /documents/d/edits "$TANDEM_BIN" serve --port $PORT --data "$WORK/out/data-instr"
    rm -rf "$WORK/out/data-instr"
    SETUP=edit_setup measure tandem-ping /ping "$TANDEM_BIN" serve --port $PORT --data "$WORK/out/data-instr"
  } | tee "$RESULTS"
  rm -rf "$WORK/out/data-instr"
  python3 - "$RESULTS" <<'PY'
import sys
cost = {r[1]: int(r[3]) for r in (l.split() for l in open(sys.argv[1]) if l.strip())}
if "/documents/d/edits" in cost and "/ping" in cost:
    e, p = cost["/documents/d/edits"], cost["/ping"]
    print(f"edit {e} vs ping {p} user-space instructions: edit/ping x{e / p:.2f}")
PY
  exit 0
fi

echo "user-space instructions per request under callgrind (wrk -t1 -c$CONN -d${DUR}s per row)"
RESULTS=$WORK/out/instructions-$(date +%s).txt
{
  measure tandem /healthz "$TANDEM_BIN" serve --port $PORT --public "$WORK/public" --data "$WORK/out/data-instr"
  measure tandem /doc.json "$TANDEM_BIN" serve --port $PORT --public "$WORK/public" --data "$WORK/out/data-instr"
  measure hummingbird /hello "$HB_BIN" "$WORK/public/doc.json" $PORT
  measure hummingbird /doc "$HB_BIN" "$WORK/public/doc.json" $PORT
} | tee "$RESULTS"
rm -rf "$WORK/out/data-instr"
python3 - "$RESULTS" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cost = {(r[0], r[1]): int(r[3]) for r in rows}
# The issue's own figure for Hummingbird (perf stat, user and kernel) and for the kernel's share
# of a request (its bare epoll loop): the yardstick when valgrind cannot run the anchor here.
HB_ISSUE, KERNEL = 150_000, 15_000
for kind, t, h in (("health", "/healthz", "/hello"), ("doc", "/doc.json", "/doc")):
    a, b = cost.get(("tandem", t)), cost.get(("hummingbird", h))
    if a is None:
        print(f"{kind}: no Tandem measurement"); continue
    if b is not None:
        print(f"{kind}: tandem {a} vs hummingbird {b} user-space instructions/request: x{a / b:.2f}")
    else:
        print(f"{kind}: tandem {a} user-space instructions/request; hummingbird not measurable under valgrind here. "
              f"With ~{KERNEL // 1000}k kernel instructions added, against the issue's ~{HB_ISSUE // 1000}k for Hummingbird: "
              f"x{(a + KERNEL) / HB_ISSUE:.2f}")
PY
