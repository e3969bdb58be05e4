#!/bin/sh
# Tandem core vs Loro and Yrs (pycrdt) on the automerge-paper trace with undo, interleaved
# for 3 rounds; prints medians and ratios. Usage: scripts/bench-core.sh [rounds]
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
TRACE=../shared/data/automerge-paper.json.gz
PEER=../shared/bench/crdt/crdt_bench.py
VENV=/tmp/tandem-bench-venv
OUT=$(mktemp -d)
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q loro pycrdt; }
swift build -c release --product tandem-bench >/dev/null
for r in $(seq "$ROUNDS"); do
  .build/release/tandem-bench trace "$TRACE" >> "$OUT/tandem.jsonl"
  "$VENV/bin/python" "$PEER" --lib loro --mode undo --trace "$TRACE" >> "$OUT/loro.jsonl"
  "$VENV/bin/python" "$PEER" --lib pycrdt --mode undo --trace "$TRACE" >> "$OUT/pycrdt.jsonl"
done
python3 - "$OUT" <<'PY'
import json, statistics, sys, os
d = sys.argv[1]
def load(n): return [json.loads(l) for l in open(os.path.join(d, n + ".jsonl")) if l.strip()]
t, lo, py = load("tandem"), load("loro"), load("pycrdt")
med = lambda rows, k: statistics.median(r[k] for r in rows if k in r)
print("tandem:", {k: med(t, k) for k in ["replay_s", "undo_s", "redo_s", "undo_early_us", "undo_late_us", "history_mb", "heap_mb", "peak_rss_mb"]})
for name, rows in (("loro", lo), ("pycrdt", py)):
    m = {k: med(rows, k) for k in ["apply_s", "undo_s", "redo_s", "rss_delta_kb"] if any(k in r for r in rows)}
    print(name + ":", m)
    print(f"  ratio {name}/tandem: replay {m['apply_s'] / med(t, 'replay_s'):.2f}x, undo(1000) {m['undo_s'] / med(t, 'undo_s'):.1f}x, redo(1000) {m['redo_s'] / med(t, 'redo_s'):.1f}x")
# The issue's goals, judged on this run's medians (heap_mb: malloc's bytes in use after the
# replay minus before it, i.e. text + change log + undo history; peak_rss_mb also holds the
# decoded trace).
ok = lambda b: "ok" if b else "MISSED"
replay, loro = med(t, "replay_s"), med(lo, "apply_s")
early, late, heap = med(t, "undo_early_us"), med(t, "undo_late_us"), med(t, "heap_mb")
print(f"goal: replay faster than Loro: {replay:.3f} s vs {loro:.3f} s ({ok(replay < loro)})")
print(f"goal: one undo at the end < 10 us: {late:.2f} us ({ok(late < 10)}); within 2x of after 1k edits ({early:.2f} us): x{late / early:.2f} ({ok(late <= 2 * early)})")
print(f"goal: undo history of the whole trace < 20 MiB: {heap:.2f} MiB measured on the heap ({ok(heap < 20)})")
PY
