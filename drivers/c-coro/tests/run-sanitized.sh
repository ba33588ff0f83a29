#!/usr/bin/env bash
# Every workload, on small sizes and in the shapes that exercise the table, the slot, the lists
# behind it, the pools and the run queue's growth, under the AddressSanitizer and
# UndefinedBehaviorSanitizer build of the driver (make check). A report is fatal.
set -euo pipefail
bin=$1
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
run() {
    if ! out=$("$bin" "$@" 2>&1); then
        echo "run-sanitized: FAILED: $* :"; echo "$out" | tail -40; exit 1
    fi
}
run run ring n=1 m=5
run run ring n=3000 m=3 repeats=2 warmup=1 stats=1
run run ring n=1000 m=5 tokens=700
run run ring n=1000 m=5 tokens=1000 burst=1
run run ring n=50 m=1 sample_ms=20 samples=3
run run trace n=5 m=4 warmup=1
run run spawn n=5000 repeats=2
run run pingpong m=10000
run run fanin n=300 m=200
run run selective n=200 m=3 reverse=1
run run selective n=200 m=3 reverse=0
run run tree n=1
run run tree n=100000 repeats=2
run run tree n=4096 fanout=2
run run tree n=1000000 fanout=1000
echo "run-sanitized: every workload passed"
