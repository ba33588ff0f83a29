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

variant=stock
case ${1:-} in --variant=*) variant=${1#--variant=}; shift ;; esac
case $variant in
    stock)
        # The JVM as it comes: its default collector (G1 here), default thread
        # stacks (-Xss, 1 MiB), the kernel's default futex hash.
        opts="" ;;
    handoff)
        # The JVM as it comes, with the Benchmarks Game thread-ring idiom instead
        # of the mailbox: a value slot per thread + LockSupport.unpark (README).
        opts="-Dringbench.mailbox=slot" ;;
    tuned)
        # What a user running thousands of platform threads would set (README):
        # ParallelGC, 256 KiB requested stacks (HotSpot rounds up to its minimum),
        # a futex hash sized by the thread count (prctl), no hsperfdata file.
        opts="-XX:+UseParallelGC -XX:-UsePerfData -Dringbench.stack=262144 -Dringbench.futexHash=true" ;;
    *)
        echo "{\"type\":\"error\",\"kind\":\"bad_param\",\"message\":\"unknown variant '$variant' (known: stock, handoff, tuned)\"}"
        exit 2 ;;
esac
# shellcheck disable=SC2086  # the option lists are meant to be split into words
exec "$JDK_HOME/bin/java" $JAVA_NATIVE $opts -Dringbench.variant="$variant" \
    ${RINGBENCH_JAVA_OPTS:-} -cp "$dir/bin" RingBench "$@"
