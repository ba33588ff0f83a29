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
# -XX:+UseParallelGC: see README (measured against G1 and Serial).
# -XX:-UsePerfData: no hsperfdata file, a little less start-up work.
exec "$JDK_HOME/bin/java" $native -XX:-UsePerfData -XX:+UseParallelGC \
    ${RINGBENCH_JAVA_OPTS:-} -cp "$dir/bin" RingBench "$@"
