#!/usr/bin/env bash
# Fuzzes Tandem's parsers and decoders with libFuzzer (Tests/Fuzz): builds the targets with
# -sanitize=fuzzer,address in their own scratch path, then runs each for SECONDS (default 60) on
# a copy of its seed corpus in /tmp, so the committed corpus never grows. A target passes when
# libFuzzer found nothing: no crash, no broken property, no input slower than the timeout, no
# runaway memory. A finding prints its reproducer's path and bytes, to become a test row.
#   scripts/fuzz.sh [SECONDS]        FUZZ_TARGETS="http json" narrows the run to some targets;
#                                    FUZZ_JOBS=N runs N at a time (default: the cores);
#                                    FUZZ_SEED=N (default 1) picks libFuzzer's seed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${1:-60}
TARGETS=${FUZZ_TARGETS:-"http json edit-body journal change-run snapshot"}

module() {
    case $1 in
        http) echo FuzzHTTP ;; json) echo FuzzJSON ;; edit-body) echo FuzzEditBody ;;
        journal) echo FuzzJournal ;; change-run) echo FuzzChangeRun ;; snapshot) echo FuzzSnapshot ;;
        *) echo "fuzz: unknown target $1" >&2; exit 2 ;;
    esac
}

echo "fuzz: building (release, -sanitize=fuzzer,address) in .build-fuzz"
build_start=$(date +%s)
if ! swift build --package-path Tests/Fuzz --scratch-path "$ROOT/.build-fuzz" -c release \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing > /tmp/tandem-fuzz-build.log 2>&1; then
    grep -E "error:" /tmp/tandem-fuzz-build.log | head -20 >&2
    echo "FAILED: the fuzz targets do not build (log: /tmp/tandem-fuzz-build.log)" >&2
    exit 1
fi
if grep -E "^($ROOT/)?(Sources|Tests)/[^ ]*: warning:" /tmp/tandem-fuzz-build.log; then
    echo "FAILED: the fuzz build printed warnings in Tandem's own code" >&2
    exit 1
fi
BIN=$ROOT/.build-fuzz/release
echo "fuzz: built in $(( $(date +%s) - build_start )) s"

WORK=$(mktemp -d /tmp/tandem-fuzz.XXXXXX)
# libFuzzer runs on one core: the targets run FUZZ_JOBS at a time (default: the cores), each
# for SECONDS_EACH, so a run takes about targets / jobs times that.
JOBS=${FUZZ_JOBS:-$(nproc)}

# Runs one target and writes its report to $WORK/<target>/report; exits 1 on a finding.
run_target() {
    local target=$1 exe corpus artifacts log start status execs findings
    exe=$BIN/$(module "$target")
    corpus=$WORK/$target/corpus
    artifacts=$WORK/$target/findings
    mkdir -p "$corpus" "$artifacts"
    cp Tests/Fuzz/corpus/"$target"/* "$corpus"/
    log=$WORK/$target/log
    start=$(date +%s)
    # -timeout: one input slower than 5 s is a finding (a hang or a quadratic path);
    # leaks are not looked for (the Swift runtime keeps caches until exit), and Swift's own
    # backtracer stays off: it reads memory in ways ASan reports over the real finding.
    # A fixed seed (FUZZ_SEED, default 1) makes a run repeat the same mutations from the same
    # corpus: CI finds what a developer's run of the same length finds; vary it to explore.
    set +e
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "$exe" "$corpus" -seed="${FUZZ_SEED:-1}" -max_total_time="$SECONDS_EACH" -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 > "$log" 2>&1
    status=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
    findings=$(find "$artifacts" -type f | sort)
    {
        echo "fuzz $target: ${execs:-0} executions in $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) inputs"
        if [ $status -eq 0 ] && [ -z "$findings" ]; then exit 0; fi
        echo "fuzz $target: FOUND (libFuzzer exit $status), log $log"
        grep -E "fuzz property violated|ERROR: libFuzzer|ERROR: AddressSanitizer|Fatal error|SUMMARY|ALARM" "$log" | head -8 | sed 's/^/    /'
        for f in $findings; do
            echo "  reproducer $f ($(stat -c %s "$f") bytes):"
            python3 -c 'import sys; print("    " + repr(open(sys.argv[1], "rb").read(2000)))' "$f"
        done
        exit 1
    } > "$WORK/$target/report"
}

passed=0
failed=0
pending=($TARGETS)
while [ ${#pending[@]} -gt 0 ]; do
    batch=("${pending[@]:0:$JOBS}")
    pending=("${pending[@]:$JOBS}")
    pids=()
    for target in "${batch[@]}"; do
        run_target "$target" &
        pids+=($!)
    done
    for i in "${!batch[@]}"; do
        if wait "${pids[$i]}"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        cat "$WORK/${batch[$i]}/report" 2>/dev/null || echo "fuzz ${batch[$i]}: FAILED before libFuzzer ran"
    done
done
echo "fuzz: work files in $WORK"
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
