#!/usr/bin/env bash
# Issue 4 and issue 6 load benchmarks: builds the release server and its load generator
# (tandem-load), runs scripts/bench-load.py (50 typing sessions with stale bases on one
# document + 50 SSE subscribers, in alternating rounds with the HTTP ceiling, POST /ping,
# then a no-op edit reference, all on the same keep-alive connections) once with
# --durability full and once with --durability off, then prints a table with the goals and
# the full/off ratios (group commit should keep full within 2x of off).
#
# Usage: scripts/bench-load.sh [-d SECONDS] [-c CEILING_SECONDS]
# All traffic goes to 127.0.0.1; every run is bounded by its duration and `timeout`.
set -euo pipefail
DUR=20; CEIL=10
while getopts "d:c:" o; do case $o in d) DUR=$OPTARG;; c) CEIL=$OPTARG;; *) exit 2;; esac; done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d /tmp/tandem-bench-load.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

(cd "$ROOT" && swift build -c release --product tandem 2>&1 | tail -1)
(cd "$ROOT" && swift build -c release --product tandem-load 2>&1 | tail -1)
BIN=$ROOT/.build/release/tandem
GEN=$ROOT/.build/release/tandem-load

for mode in full off; do
  timeout $((DUR + CEIL + 180)) python3 "$ROOT/scripts/bench-load.py" --binary "$BIN" --generator "$GEN" --durability "$mode" \
    --seconds "$DUR" --ceiling-seconds "$CEIL" --json "$OUT/$mode.json"
  echo
done

python3 - "$OUT/full.json" "$OUT/off.json" <<'PY'
import json, sys
full, off = (json.load(open(p)) for p in sys.argv[1:3])
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
slow = off["edits_per_s"] / full["edits_per_s"]
print(f"issue 6: off/full edits/s = {slow:.2f} ({'ok' if slow <= 2 else 'MISSED'}: full within 2x of off)")
PY
