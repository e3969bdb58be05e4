#!/usr/bin/env bash
# Issue 4 and issue 6 load benchmarks: builds the release server and its load generator
# (tandem-load), runs scripts/bench-load.py (50 typing sessions with stale bases on one
# document + 50 SSE subscribers, in alternating rounds with the HTTP ceiling, POST /ping,
# then a no-op edit reference, all on the same keep-alive connections) once with
# --durability full and once with --durability off, then prints a table with the goals and
# the full/off ratios (group commit should keep full within 2x of off).
#
# Issue 30, several nodes on one PostgreSQL: with --nodes and/or --database it runs
# scripts/bench-load.py's cluster comparison instead, once: (a) one node on SQLite, (b) one
# node on PostgreSQL, (c) N nodes (default 2) on PostgreSQL sharing one schema, writer and
# subscriber i on node i mod N, under the same load on one hot document, and (b) against (c)
# with the writers and subscribers spread over 200 documents; the configurations take turns
# in rounds. It prints the CPU cost per applied edit (the configuration's Tandem nodes plus
# the whole PostgreSQL cluster, from /proc), the p99 edit latency and fan-out, and the ratios
# against their goals. Without --database it starts a throwaway PostgreSQL
# (scripts/test-postgres.sh: fsync off; --pg-fsync restarts it with fsync on).
#
# Usage: scripts/bench-load.sh [-d SECONDS] [-c CEILING_SECONDS]
#        scripts/bench-load.sh --nodes N [--database URL] [-d SECONDS] [--rounds R]
#                              [--documents D] [--pg-fsync] [--json PATH] [--routing round-robin|hash]
#                              [--cluster leases|sequenced]  (the nodes' --cluster; default leases)
#        (cluster mode: -d is each configuration's edit time, 20 s by default)
# All traffic goes to 127.0.0.1; every run is bounded by its duration and `timeout`.
set -euo pipefail
DUR=20; CEIL=10
NODES=""; DATABASE=""; JSON=""; ROUNDS=4; DOCS=200; PG_FSYNC=""; ROUTING=""; CLUSTER_MODE=""
usage() { sed -n '/^# Usage:/,/^# All traffic/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -d) DUR=$2; shift 2;;
    -d?*) DUR=${1#-d}; shift;;
    -c) CEIL=$2; shift 2;;
    -c?*) CEIL=${1#-c}; shift;;
    --nodes) NODES=$2; shift 2;;
    --nodes=*) NODES=${1#*=}; shift;;
    --database) DATABASE=$2; shift 2;;
    --database=*) DATABASE=${1#*=}; shift;;
    --rounds) ROUNDS=$2; shift 2;;
    --rounds=*) ROUNDS=${1#*=}; shift;;
    --documents) DOCS=$2; shift 2;;
    --documents=*) DOCS=${1#*=}; shift;;
    --json) JSON=$2; shift 2;;
    --json=*) JSON=${1#*=}; shift;;
    --pg-fsync) PG_FSYNC=1; shift;;
    --cluster) CLUSTER_MODE=$2; shift 2;;
    --cluster=*) CLUSTER_MODE=${1#*=}; shift;;
    --routing) ROUTING=$2; shift 2;;
    --routing=*) ROUTING=${1#*=}; shift;;
    *) usage;;
  esac
done
CLUSTER=""
if [ -n "$NODES" ] || [ -n "$DATABASE" ]; then CLUSTER=1; NODES=${NODES:-2}; fi
if [ -z "$CLUSTER" ] && { [ -n "$JSON" ] || [ -n "$PG_FSYNC" ]; }; then
  echo "--json and --pg-fsync belong to the cluster mode (--nodes / --database)" >&2; exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d /tmp/tandem-bench-load.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

(cd "$ROOT" && swift build -c release --product tandem 2>&1 | tail -1)
(cd "$ROOT" && swift build -c release --product tandem-load 2>&1 | tail -1)
BIN=$ROOT/.build/release/tandem
GEN=$ROOT/.build/release/tandem-load

if [ -n "$CLUSTER" ]; then
  if [ -z "$DATABASE" ]; then
    # shellcheck source=scripts/test-postgres.sh
    source "$ROOT/scripts/test-postgres.sh"
    trap 'stop_test_postgres; rm -rf "$OUT"' EXIT
    start_test_postgres
    DATABASE=$TANDEM_TEST_DATABASE_URL
    if [ -n "$PG_FSYNC" ]; then
      # The test cluster has fsync=off on its command line; the same options with fsync on.
      pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
      as=(); [ "$(id -u)" -eq 0 ] && as=(runuser -u postgres --)
      "${as[@]}" "$pgbin/pg_ctl" -D "$TANDEM_PG_DIR/data" -l "$TANDEM_PG_DIR/server.log" -w -t 60 -m fast restart \
        -o "${TANDEM_TEST_PG_OPTIONS/fsync=off/fsync=on}" >/dev/null
    fi
  elif [ -n "$PG_FSYNC" ]; then
    echo "--pg-fsync only applies to the throwaway PostgreSQL (without --database)" >&2; exit 2
  fi
  args=(--binary "$BIN" --generator "$GEN" --nodes "$NODES" --database "$DATABASE" --seconds "$DUR"
        --rounds "$ROUNDS" --documents "$DOCS")
  [ -n "$JSON" ] && args+=(--json "$JSON")
  [ -n "$ROUTING" ] && args+=(--routing "$ROUTING")
  [ -n "$CLUSTER_MODE" ] && args+=(--cluster "$CLUSTER_MODE")
  # Five configurations, each DUR seconds of edits plus ROUNDS settles, idle windows, set-up.
  timeout $((5 * (DUR + 2 * ROUNDS) + 2 * ROUNDS + 300)) python3 "$ROOT/scripts/bench-load.py" "${args[@]}"
  exit
fi

for mode in full off; do
  timeout $((DUR + CEIL + 180)) python3 "$ROOT/scripts/bench-load.py" --binary "$BIN" --generator "$GEN" --durability "$mode" \
    --seconds "$DUR" --ceiling-seconds "$CEIL" --json "$OUT/$mode.json"
  echo
done
# Issue 31: one writer watched by 50, where nothing should wait for company.
timeout $((DUR + CEIL + 180)) python3 "$ROOT/scripts/bench-load.py" --binary "$BIN" --generator "$GEN" --durability full \
  --sessions 1 --seconds "$DUR" --ceiling-seconds "$CEIL" --json "$OUT/one.json"
echo

python3 - "$OUT/full.json" "$OUT/off.json" "$OUT/one.json" <<'PY'
import json, sys
full, off, one = (json.load(open(p)) for p in sys.argv[1:4])
rows = [
    ("edits/s applied", "edits_per_s", "{:.0f}", "higher"),
    ("edit latency p50 (ms)", "edit_p50_ms", "{:.2f}", "lower"),
    ("edit latency p99 (ms)", "edit_p99_ms", "{:.2f}", "lower"),
    ("fan-out p99 (ms)", "fanout_p99_ms", "{:.2f}", "lower"),
    ("fan-out misses (revisions)", "fanout_missed_revisions", "{:.0f}", "lower"),
    ("HTTP ceiling (POST /ping/s)", "ceiling_per_s", "{:.0f}", "higher"),
    ("no-op edits/s (reference)", "noop_edit_per_s", "{:.0f}", "higher"),
    ("peak memory (MB)", "peak_memory_mb", "{:.1f}", "lower"),
    ("event-stream bytes per change", "stream_bytes_per_change", "{:.0f}", "lower"),
    ("server CPU under load (cores)", "server_cpu_cores_load", "{:.2f}", "-"),
    ("server CPU per edit (us)", "server_cpu_us_per_edit", "{:.1f}", "lower"),
    ("server CPU per ping (us)", "server_cpu_us_per_ping", "{:.1f}", "lower"),
    ("  edit/ping CPU", "server_cpu_edit_over_ping", "{:.2f}", "lower"),
]
print(f"{'':32}{'full':>12}{'off':>12}{'full/off':>10}")
for label, key, fmt, _ in rows:
    a, b = full[key], off[key]
    print(f"{label:32}{fmt.format(a):>12}{fmt.format(b):>12}{a / b if b else float('nan'):>10.2f}")
print(f"{'machine steal during edits':32}{full['machine_load']['steal']:>12.0%}{off['machine_load']['steal']:>12.0%}")
print(f"{'machine steal during ceiling':32}{full['machine_ceiling']['steal']:>12.0%}{off['machine_ceiling']['steal']:>12.0%}")
print()
for name, f in (("full", full), ("off", off)):
    ratio = f["edits_per_s"] / f["ceiling_per_s"]
    print(f"goals ({name}): edits/ceiling {ratio:.2f} {'ok' if ratio >= 0.5 else 'MISSED'} (>= 0.5); "
          f"p99 edit {f['edit_p99_ms']:.1f} ms {'ok' if f['edit_p99_ms'] <= 10 else 'MISSED'} (<= 10); "
          f"p99 fan-out {f['fanout_p99_ms']:.1f} ms {'ok' if f['fanout_p99_ms'] <= 50 else 'MISSED'} (<= 50)")
for label, f, goal in (("50 writers + 50 subscribers", full, 5), ("1 writer + 50 subscribers", one, 2)):
    p99 = f["fanout_p99_ms"]
    print(f"issue 31: fan-out p50/p99/max at {label} (full): {f['fanout_p50_ms']:.2f} / {p99:.2f} / "
          f"{f.get('fanout_max_ms', float('nan')):.2f} ms ({'ok' if p99 <= goal else 'MISSED'}: p99 <= {goal} ms); "
          f"{f['stream_bytes_per_change']:.0f} event-stream bytes per change")
slow = off["edits_per_s"] / full["edits_per_s"]
print(f"issue 6: off/full edits/s = {slow:.2f} ({'ok' if slow <= 2 else 'MISSED'}: full within 2x of off)")
PY
