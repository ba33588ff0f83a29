#!/usr/bin/env bash
# Every workload of every variant, on small sizes and on one and two scheduler threads, under the
# AddressSanitizer + UndefinedBehaviorSanitizer build of the driver (ctest). A report is
# fatal (exit 66); a count the actors cannot prove is the driver's own `failure`.
set -euo pipefail
bin=$1
export ASAN_OPTIONS=halt_on_error=1:exitcode=66:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=66:print_stacktrace=1
run() {
    if ! out=$("$bin" "$@" 2>&1); then
        echo "run-sanitized: FAILED: $* :"; echo "$out" | tail -40; exit 1
    fi
}
for v in stock tuned; do
    for c in 1 2; do
        run --variant=$v run ring n=20 m=50 cores=$c
        run --variant=$v run ring n=1 m=7 cores=$c
        run --variant=$v run ring n=20 m=20 tokens=5 cores=$c
        run --variant=$v run ring n=20 m=20 tokens=7 burst=1 repeats=2 warmup=1 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 cores=$c
        run --variant=$v run trace n=3 m=2 cores=$c
        run --variant=$v run spawn n=500 repeats=2 cores=$c
        run --variant=$v run pingpong m=2000 cores=$c
        run --variant=$v run fanin n=8 m=500 cores=$c
        run --variant=$v run selective n=30 m=3 reverse=0 cores=$c
        run --variant=$v run selective n=30 m=3 reverse=1 repeats=2 cores=$c
        run --variant=$v run tree n=100 cores=$c
        run --variant=$v run tree n=64 fanout=2 repeats=2 cores=$c
        run --variant=$v run tree n=1 cores=$c
    done
done
echo "run-sanitized: every workload of every variant passed"
