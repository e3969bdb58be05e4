#!/usr/bin/env python3
"""Two server builds compared under issue 4's load, in pairs: scripts/bench-load.py runs build
A and build B one after the other, N times, the order swapped every pair (AB, BA, AB, ...) so
that neither build always runs on the warmer or the busier machine. Each run's edits/ceiling
ratio is already measured against its own ceiling; the pairs then compare the two builds on
the same minute of a machine whose hypervisor steal swings from 0 to 50% within minutes, and
whose figures drift by a third between runs (see the README's benchmark notes).

Prints every run, then for each figure the mean of A, of B, the mean paired difference B - A
with its 95% confidence interval (Student's t over the pairs), and in how many pairs B was
better. A difference whose interval holds 0 is not shown to be one.

Usage: bench-load-ab.py --a BIN_A --b BIN_B [--pairs 6] [--durability off]
       [--seconds 10] [--ceiling-seconds 4] [--rounds 2] [--generator tandem-load]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Two-sided 95% Student's t quantiles by degrees of freedom (1..30); above that ~1.96.
T95 = [12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042]

# (label, key in bench-load.py's JSON, format, whether higher is better)
FIGURES = [
    ("edits/ceiling", None, "{:.3f}", True),
    ("edits/s", "edits_per_s", "{:.0f}", True),
    ("ceiling /s", "ceiling_per_s", "{:.0f}", True),
    ("p99 edit (ms)", "edit_p99_ms", "{:.2f}", False),
    ("p99 fan-out (ms)", "fanout_p99_ms", "{:.2f}", False),
    ("server us/edit", "server_cpu_us_per_edit", "{:.1f}", False),
    ("server us/ping", "server_cpu_us_per_ping", "{:.1f}", False),
]


# With --nodes: one configuration of bench-load.py's cluster run ((c), the hot document on the
# nodes, unless --config names another), which measures no HTTP ceiling.
CLUSTER_FIGURES = [
    ("edits/s", "edits_per_s", "{:.0f}", True),
    ("p99 edit (ms)", "edit_p99_ms", "{:.2f}", False),
    ("p99 fan-out (ms)", "fanout_p99_ms", "{:.2f}", False),
    ("CPU us/edit", "cost_us_per_edit", "{:.1f}", False),
]


def figure(run: dict, key: str | None) -> float:
    return run["edits_per_s"] / run["ceiling_per_s"] if key is None else run[key]


def run_once(binary: str, args: argparse.Namespace, out: str) -> dict:
    cmd = [sys.executable, os.path.join(HERE, "bench-load.py"), "--binary", binary, "--durability", args.durability,
           "--seconds", str(args.seconds), "--rounds", str(args.rounds), "--json", out]
    if args.nodes:
        cmd += ["--nodes", str(args.nodes), "--database", args.database]
    else:
        cmd += ["--ceiling-seconds", str(args.ceiling_seconds)]
    if args.generator:
        cmd += ["--generator", args.generator]
    budget = (args.seconds + args.ceiling_seconds) * 3 * (6 if args.nodes else 1) + 180
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=budget)
    with open(out) as f:
        run = json.load(f)
    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the reference build (a tandem binary)")
    ap.add_argument("--b", required=True, help="the build compared with it")
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--durability", default="off", choices=["full", "normal", "off"])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--ceiling-seconds", type=float, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--generator", help="the tandem-load binary (default: next to --a)")
    ap.add_argument("--nodes", type=int, help="compare bench-load.py's cluster run with this many nodes (needs --database)")
    ap.add_argument("--database", help="the PostgreSQL URL of the cluster run (scripts/test-postgres.sh starts one)")
    ap.add_argument("--config", help="the cluster run's configurations to compare, comma-separated "
                                     "(default postgres_<nodes>nodes_hot)")
    args = ap.parse_args()
    if args.nodes and not args.database:
        ap.error("--nodes needs --database")
    if args.nodes and not args.config:
        args.config = f"postgres_{args.nodes}nodes_hot"
    if args.pairs < 2:
        ap.error("--pairs must be at least 2 for an interval")
    if not args.generator:
        args.generator = os.path.join(os.path.dirname(os.path.abspath(args.a)), "tandem-load")

    work = tempfile.mkdtemp(prefix="tandem-bench-ab-")
    runs: dict[str, list[dict]] = {"A": [], "B": []}
    print(f"== bench-load A/B: {args.pairs} pairs, --durability {args.durability}, {args.seconds:g} s of edits and "
          f"{args.ceiling_seconds:g} s of ceiling in {args.rounds} rounds per run, order swapped every pair")
    print(f"   A = {args.a}\n   B = {args.b}")
    for i in range(args.pairs):
        order = ("A", "B") if i % 2 == 0 else ("B", "A")
        for name in order:
            binary = args.a if name == "A" else args.b
            run = run_once(binary, args, os.path.join(work, f"{name}-{i}.json"))
            runs[name].append(run)
            if args.nodes:
                for config in args.config.split(","):
                    c = run["configs"][config]
                    print(f"pair {i + 1} {name}: {config}: edits/s {c['edits_per_s']:.0f}  p99 {c['edit_p99_ms']:.2f} ms  "
                          f"fan-out p99 {c['fanout_p99_ms']:.2f} ms  us/edit {c['cost_us_per_edit']:.1f}", flush=True)
                continue
            load = run["machine_load"]
            print(f"pair {i + 1} {name}: edits/ceiling {figure(run, None):.3f}  edits/s {run['edits_per_s']:.0f}  "
                  f"ceiling {run['ceiling_per_s']:.0f}  p99 {run['edit_p99_ms']:.2f} ms  "
                  f"us/edit {run['server_cpu_us_per_edit']:.1f}  steal {load['steal']:.0%}  idle {load.get('idle', 0):.0%}",
                  flush=True)

    for config in args.config.split(",") if args.nodes else [None]:
        table(config, runs, args)
    return 0


def table(config: str | None, runs: dict[str, list[dict]], args: argparse.Namespace) -> None:
    print()
    if config:
        print(config)
        runs = {k: [r["configs"][config] for r in v] for k, v in runs.items()}
    print(f"{'':18}{'A':>10}{'B':>10}{'B - A':>10}{'95% CI':>22}{'B better':>10}")
    for label, key, fmt, higher in (CLUSTER_FIGURES if args.nodes else FIGURES):
        a = [figure(r, key) for r in runs["A"]]
        b = [figure(r, key) for r in runs["B"]]
        diffs = [y - x for x, y in zip(a, b)]
        mean = statistics.fmean(diffs)
        half = T95[min(len(diffs) - 1, len(T95)) - 1] * statistics.stdev(diffs) / math.sqrt(len(diffs))
        better = sum(1 for d in diffs if (d > 0) == higher and d != 0)
        ci = f"[{fmt.format(mean - half)}, {fmt.format(mean + half)}]"
        print(f"{label:18}{fmt.format(statistics.fmean(a)):>10}{fmt.format(statistics.fmean(b)):>10}"
              f"{fmt.format(mean):>10}{ci:>22}{f'{better}/{len(diffs)}':>10}")


if __name__ == "__main__":
    sys.exit(main())
