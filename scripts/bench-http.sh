#!/usr/bin/env bash
# Tandem vs Hummingbird 2: wrk -t1 -c50, interleaved rounds, req/s, p99 and cost per request.
#
# Usage: scripts/bench-http.sh [-r ROUNDS] [-d SECONDS] [-t TANDEM_BIN] [-b BASE_BIN]
#   -t TANDEM_BIN  serve Tandem from this binary instead of building this checkout's release one
#   -b BASE_BIN    A/B: the other server is Tandem from this binary ("base", on $HB_PORT, the same
#                  TANDEM_PATHS) instead of Hummingbird; the ratios are then tandem/base
#   TANDEM_CMD   command serving Tandem on $TANDEM_PORT (default: release `tandem serve --port P --public DIR`)
#   TANDEM_PATHS paths measured on Tandem   (default "/healthz /doc.json": health check and a 2 KB static JSON file)
#   HB_DIR       Hummingbird anchor build dir (default /tmp/anchors/hb, built from ../shared/bench/hummingbird)
#   HB_PATHS     the same two routes on Hummingbird (default "/hello /doc")
# Cost per request is `perf stat -e instructions -p PID` over the wrk run divided by the requests;
# where the machine has no hardware counters (VMs without a PMU) it falls back to task-clock,
# i.e. CPU microseconds per request, and says so.
# All traffic goes to 127.0.0.1; every run is bounded by -d and `timeout`.
# The servers take turns going first (odd rounds Tandem, even rounds Hummingbird), so neither
# always meets the machine warm or cold.
# Not quite the same work on the "health" route: Tandem's /healthz answers JSON with the
# document count (`{"status":"ok","documents":N}`), Hummingbird's /hello a fixed plain string.
# The static route is the same 2 KB JSON file on both.
# A run with socket errors or non-2xx/3xx answers is printed as REJECTED and left out of
# the medians; the script exits 3 when any run was rejected.
set -uo pipefail
ROUNDS=5; DUR=10; TANDEM_BIN=""; BASE_BIN=""
while getopts "r:d:t:b:" o; do case $o in r) ROUNDS=$OPTARG;; d) DUR=$OPTARG;; t) TANDEM_BIN=$OPTARG;; b) BASE_BIN=$OPTARG;; *) exit 2;; esac; done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$ROOT/../shared/bench
WORK=${BENCH_DIR:-/tmp/tandem-bench}
mkdir -p "$WORK/public" "$WORK/out"
command -v wrk >/dev/null && command -v perf >/dev/null || apt-get install -y wrk linux-perf >/dev/null
[ -f "$WORK/public/doc.json" ] || python3 "$SHARED/http/make_doc_json.py" "$WORK/public/doc.json" >/dev/null

TANDEM_PORT=${TANDEM_PORT:-8091}; HB_PORT=${HB_PORT:-8081}
TANDEM_PATHS=${TANDEM_PATHS:-"/healthz /doc.json"}
HB_PATHS=${HB_PATHS:-"/hello /doc"}
if [ -z "${TANDEM_CMD:-}" ] && [ -n "$TANDEM_BIN" ]; then
  TANDEM_CMD="$TANDEM_BIN serve --port $TANDEM_PORT --public $WORK/public"
fi
if [ -z "${TANDEM_CMD:-}" ]; then
  (cd "$ROOT" && swift build -c release --product tandem >/dev/null) || { echo "tandem build failed" >&2; exit 1; }
  TANDEM_CMD="$ROOT/.build/release/tandem serve --port $TANDEM_PORT --public $WORK/public"
fi
OTHER=hummingbird
if [ -n "$BASE_BIN" ]; then
  # The base Tandem takes Hummingbird's place, port and turn.
  OTHER=base
  HB_PATHS=$TANDEM_PATHS
  HB_CMD="$BASE_BIN serve --port $HB_PORT --public $WORK/public"
else
  HB_DIR=${HB_DIR:-/tmp/anchors/hb}
  if [ ! -x "$HB_DIR/.build/release/HBAnchor" ]; then
    mkdir -p "$HB_DIR" && cp -r "$SHARED/hummingbird/." "$HB_DIR/" && chmod -R u+w "$HB_DIR"
    (cd "$HB_DIR" && swift build -c release >/dev/null) || { echo "Hummingbird build failed" >&2; exit 1; }
  fi
  HB_CMD="$HB_DIR/.build/release/HBAnchor $WORK/public/doc.json $HB_PORT"
fi

EVENT=instructions
perf stat -x, -e instructions true 2>&1 | grep -q "not supported" && EVENT=task-clock
echo "cost metric: $EVENT$( [ $EVENT = task-clock ] && echo ' (no hardware counters here: CPU time per request)')"

port_open() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
SPID=""
stop_server() {
  if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then
    kill -TERM "$SPID"; for _ in $(seq 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SPID" 2>/dev/null && kill -9 "$SPID"; wait "$SPID" 2>/dev/null
  fi
  SPID=""
}
trap stop_server EXIT INT TERM

RESULTS=$WORK/out/results-$(date +%s).jsonl
: > "$RESULTS"
for r in $(seq 1 "$ROUNDS"); do
  order="tandem $OTHER"; [ $((r % 2)) = 0 ] && order="$OTHER tandem"
  for name in $order; do
    if [ $name = tandem ]; then port=$TANDEM_PORT; cmd=$TANDEM_CMD; paths=$TANDEM_PATHS
    else port=$HB_PORT; cmd=$HB_CMD; paths=$HB_PATHS; fi
    port_open "$port" && { echo "port $port busy" >&2; exit 1; }
    $cmd > "$WORK/out/$name.log" 2>&1 &
    SPID=$!
    for _ in $(seq 100); do port_open "$port" && break; sleep 0.1; done
    port_open "$port" || { echo "$name did not open $port" >&2; cat "$WORK/out/$name.log" >&2; exit 1; }
    timeout 10 wrk -t1 -c50 -d2s "http://127.0.0.1:$port${paths%% *}" >/dev/null 2>&1
    kind=0
    for path in $paths; do
      perf stat -x, -e $EVENT -p "$SPID" -o "$WORK/out/perf.txt" -- sleep $((DUR + 1)) &
      PERF=$!
      sleep 0.5
      timeout $((DUR + 20)) wrk -t1 -c50 -d"${DUR}s" --latency "http://127.0.0.1:$port$path" > "$WORK/out/wrk.txt" 2>&1
      wait $PERF
      cost=$(awk -F, '/instructions|task-clock/ {print $1; exit}' "$WORK/out/perf.txt")
      kindname=$([ $kind = 0 ] && echo health || echo doc)
      python3 "$SHARED/http/parse_wrk.py" "$WORK/out/wrk.txt" server=$name path=$path kind=$kindname round=$r cost=$cost >> "$RESULTS"
      kind=1
      tail -n1 "$RESULTS" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
bad = d.get("sock_errors", 0) or d.get("non2xx", 0) or not d.get("rps")
line = "round %d %-12s %-10s %10.0f req/s  p99 %.2f ms" % (d["round"], d["server"], d["path"], d["rps"] or 0, d["p99_ms"] or 0)
if bad:
    line += "  REJECTED: %d socket errors, %d non-2xx/3xx (%s)" % (d.get("sock_errors", 0), d.get("non2xx", 0), d["file"])
print(line)'
    done
    stop_server
    sleep 1
  done
done

python3 - "$RESULTS" "$EVENT" "$DUR" "$OTHER" <<'PY'
import json, statistics, sys
every = [json.loads(l) for l in open(sys.argv[1])]
event, dur, other = sys.argv[2], float(sys.argv[3]), sys.argv[4]
def clean(d): return d.get("rps") and not d.get("sock_errors") and not d.get("non2xx")
rows = [d for d in every if clean(d)]
rejected = [d for d in every if not clean(d)]
for d in rejected:
    print(f"REJECTED round {d['round']} {d['server']} {d['path']}: {d.get('sock_errors', 0)} socket errors, {d.get('non2xx', 0)} non-2xx/3xx")
if not rows: sys.exit(3)
def per_request(d):
    # perf ran DUR+1 s around a DUR s wrk run (plus the 0.5 s lead-in): charge it to wrk's requests.
    if not d.get("requests") or d.get("cost") in (None, "", "<not supported>"): return None
    c = float(d["cost"])
    return c / d["requests"] if event == "instructions" else c * 1000.0 / d["requests"]
unit = "instr/req" if event == "instructions" else "CPU us/req"
print(f"\nmedians over {max(d['round'] for d in rows)} interleaved rounds (wrk -t1 -c50 -d{int(dur)}s)")
print(f"{'server':12s} {'route':10s} {'req/s':>10s} {'p99 ms':>8s} {unit:>12s}")
med = {}
for kind in ("health", "doc"):
    for server in ("tandem", other):
        sel = [d for d in rows if d["server"] == server and d["kind"] == kind]
        if not sel: continue
        rps = statistics.median(d["rps"] for d in sel)
        p99 = statistics.median(d["p99_ms"] for d in sel)
        costs = [c for c in map(per_request, sel) if c is not None]
        cost = statistics.median(costs) if costs else float("nan")
        med[(server, kind)] = (rps, p99, cost)
        print(f"{server:12s} {sel[0]['path']:10s} {rps:10.0f} {p99:8.2f} {cost:12.2f}")
for kind in ("health", "doc"):
    if ("tandem", kind) in med and (other, kind) in med:
        t, h = med[("tandem", kind)], med[(other, kind)]
        print(f"{kind}: tandem/{other} req/s x{t[0]/h[0]:.2f}, p99 x{t[1]/h[1]:.2f}, {unit} x{t[2]/h[2]:.2f}")
if other == "base":
    # Paired: each round's tandem/base ratio, so a machine that drifts between rounds cancels out.
    for kind in ("health", "doc"):
        pairs = []
        for r in sorted({d["round"] for d in rows}):
            t = [d for d in rows if d["round"] == r and d["kind"] == kind and d["server"] == "tandem"]
            b = [d for d in rows if d["round"] == r and d["kind"] == kind and d["server"] == "base"]
            if t and b: pairs.append((t[0], b[0]))
        if not pairs: continue
        rps = [t["rps"] / b["rps"] for t, b in pairs]
        costs = [per_request(t) / per_request(b) for t, b in pairs if per_request(t) and per_request(b)]
        print(f"{kind}: per-round tandem/base req/s " + " ".join(f"x{x:.3f}" for x in rps) + f", median x{statistics.median(rps):.3f}")
        if costs:
            print(f"{kind}: per-round tandem/base {unit} " + " ".join(f"x{x:.3f}" for x in costs) + f", median x{statistics.median(costs):.3f}")
if rejected:
    print(f"{len(rejected)} run(s) rejected for errors: the medians above leave them out")
    sys.exit(3)
PY
