#!/bin/sh
# Launcher: runs the driver on the JDK it was built with (bin/jdk-home), or on
# $RINGBENCH_JAVA_HOME, or on the newest JDK >= 21 found (see jdk.sh).
# Extra JVM options for experiments: RINGBENCH_JAVA_OPTS (appended last, so they win).
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
. "$dir/jdk.sh"
if [ -z "${RINGBENCH_JAVA_HOME:-}" ] && [ -r "$dir/bin/jdk-home" ]; then
    RINGBENCH_JAVA_HOME=$(cat "$dir/bin/jdk-home")
fi
if ! find_jdk java 2>/dev/null; then
    echo '{"type":"error","kind":"failure","message":"no JDK >= 21 found: set RINGBENCH_JAVA_HOME to one (and rebuild)"}'
    exit 1
fi
native=""
[ "$JDK_MAJOR" -ge 22 ] && native="--enable-native-access=ALL-UNNAMED"
# Compact object headers (product flag since JDK 25): ~15% less heap per virtual thread.
compact=""
[ "$JDK_MAJOR" -ge 25 ] && compact="-XX:+UseCompactObjectHeaders"
# Scheduler: one carrier thread per core ({cores} via RINGBENCH_CORES, else nproc).
# Heap: virtual-thread stacks live in the heap (~0.7 KB per parked thread), so a
# 2 GiB young generation keeps a million spawns free of GC copying, and the heap
# may use 60% of RAM (10M threads need ~7 GiB). ParallelGC: measured against G1
# and Serial (README). -XX:-UsePerfData: no hsperfdata file.
cores=${RINGBENCH_CORES:-$(nproc 2>/dev/null || echo 1)}
exec "$JDK_HOME/bin/java" $native -XX:-UsePerfData -XX:+UseParallelGC $compact \
    -Xmn2g -XX:MaxRAMPercentage=60 \
    -Djdk.virtualThreadScheduler.parallelism="$cores" \
    ${RINGBENCH_JAVA_OPTS:-} -cp "$dir/bin" RingBench "$@"
