#!/bin/sh
# Launcher named in driver.toml: run.sh --variant=stock|handoff|tuned describe | run <workload> key=value ...
# It runs the JVM that built bin/ (bin/jdk-home), or $RINGBENCH_JAVA_HOME, and
# execs it: the JVM takes this process's place, so the orchestrator's
# parent-death signal reaches it (contract section 8).
# Extra JVM options for experiments: RINGBENCH_JAVA_OPTS (appended last, so they win).
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
JAVA_COMMON=$(CDPATH= cd -- "$dir/../common/java" 2>/dev/null && pwd) || {
    echo '{"type":"error","kind":"failure","message":"drivers/common/java (the shared sources) is missing next to this driver"}'
    exit 1
}
. "$JAVA_COMMON/lib.sh"
java_runtime "$dir"

# Every variant: the scheduler gets one carrier thread per core asked for
# ({cores} via RINGBENCH_CORES, else nproc), as the contract's cores= asks.
cores=${RINGBENCH_CORES:-$(nproc 2>/dev/null || echo 1)}
# Every variant: the heap may grow to 60% of RAM instead of the JVM's default
# 25%. A limit, not tuning: parked virtual threads live in the heap (~0.7-0.9 KB
# each), so 10 M of them need ~8 GiB, more than 25% of this 24 GiB machine;
# below the old ceiling nothing changes (see README).
opts="-XX:MaxRAMPercentage=60"

variant=stock
case ${1:-} in --variant=*) variant=${1#--variant=}; shift ;; esac
case $variant in
    stock)
        # Otherwise the JVM as it comes: default collector (G1), default heap sizing.
        ;;
    handoff)
        # As stock, with the Benchmarks Game thread-ring idiom instead of the
        # mailbox: a value slot per thread + LockSupport.unpark (README).
        opts="$opts -Dringbench.mailbox=slot" ;;
    tuned)
        # What a user running millions of virtual threads would set (README):
        # ParallelGC, a 2 GiB young generation (a million spawns without a
        # copying collection), compact object headers (product flag since JDK 25),
        # no root container tracking every virtual thread, no hsperfdata file.
        opts="$opts -XX:+UseParallelGC -Xmn2g -Djdk.trackAllThreads=false -XX:-UsePerfData"
        [ "$JDK_MAJOR" -ge 25 ] && opts="$opts -XX:+UseCompactObjectHeaders" ;;
    *)
        echo "{\"type\":\"error\",\"kind\":\"bad_param\",\"message\":\"unknown variant '$variant' (known: stock, handoff, tuned)\"}"
        exit 2 ;;
esac
# shellcheck disable=SC2086  # the option lists are meant to be split into words
exec "$JDK_HOME/bin/java" $JAVA_NATIVE $opts -Djdk.virtualThreadScheduler.parallelism="$cores" \
    -Dringbench.variant="$variant" ${RINGBENCH_JAVA_OPTS:-} -cp "$dir/bin" RingBench "$@"
