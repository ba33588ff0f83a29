#!/usr/bin/env bash
# Every workload of every variant, on small sizes, under the ThreadSanitizer build of the driver
# (make check). TSAN_OPTIONS makes a report fatal (exit 66).
set -euo pipefail
bin=$1
run() {
    if ! out=$("$bin" "$@" 2>&1); then
        echo "run-tsan: FAILED: $* :"; echo "$out" | tail -40; exit 1
    fi
}
for v in stock handoff tuned; do
    run --variant=$v run ring n=20 m=50
    run --variant=$v run ring n=20 m=20 tokens=5
    run --variant=$v run ring n=20 m=20 tokens=7 burst=1 repeats=2 warmup=1 stats=1
    run --variant=$v run ring n=20 sample_ms=50 samples=2
    run --variant=$v run trace n=3 m=2
    run --variant=$v run spawn n=50 repeats=2
    run --variant=$v run pingpong m=2000
    run --variant=$v run fanin n=8 m=500
    run --variant=$v run tree n=100
    run --variant=$v run tree n=64 fanout=2 repeats=2
done
echo "run-tsan: every workload of every variant passed"
