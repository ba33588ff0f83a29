#!/usr/bin/env bash
# Every workload of every variant, on small sizes and on one and two scheduler threads, under the
# AddressSanitizer + UndefinedBehaviorSanitizer build of the driver (ctest). A report is
# fatal (exit 66); a count the actors cannot prove is the driver's own `failure`.
set -euo pipefail
bin=$1
# the check's result: every node a run started has ended with it (no peer left behind)
peers_before=$(pgrep -cf -- "--caf-peer" || true)
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
        # the ring across nodes (nodes.cpp): peers of the same build, their stdout the driver's
        run --variant=$v run ring n=20 m=20 nodes=2 cores=$c
        run --variant=$v run ring n=20 m=5 tokens=3 burst=1 nodes=2 node_placement=1 repeats=2 warmup=1 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 nodes=2 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 stats=1 cores=$c
        run --variant=$v run trace n=3 m=2 nodes=2 node_placement=1 repeats=2 warmup=1 cores=$c
    done
done
# three nodes, each pair connected (stock only: tuned's workers never sleep, and three spinning
# processes on a 2-CPU machine make the check slow without testing anything more)
run run ring n=7 m=13 tokens=3 nodes=3 cores=1
run run ring n=9 m=2 nodes=3 node_placement=1 repeats=2 cores=2
peers_after=$(pgrep -cf -- "--caf-peer" || true)
if [ "$peers_after" -gt "$peers_before" ]; then
    echo "run-sanitized: FAILED: $((peers_after - peers_before)) peer node(s) outlived their driver"; exit 1
fi
echo "run-sanitized: every workload of every variant passed"
