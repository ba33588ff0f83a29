#!/usr/bin/env bash
# The launcher named in driver.toml: run.sh --variant=stock|parkbox|handoff|tuned describe | run <workload> key=value ...
# It picks the variant's JVM options and execs the JDK that built bin/, so the JVM takes this
# process's place and receives the orchestrator's parent-death signal (contract section 8).
set -euo pipefail
dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common/java/lib.sh
. "$dir/../common/java/lib.sh"
java_of "$dir"

variant=stock
if [[ ${1:-} == --variant=* ]]; then variant=${1#--variant=}; fi
case $variant in
    # The JVM as it comes, with its default collector for a server-class machine named, so that
    # a run pinned to one CPU does not get the serial collector instead (README).
    stock | parkbox | handoff) opts=(-XX:+UseG1GC) ;;
    # README: the source of each setting.
    tuned) opts=(-XX:+UseParallelGC -Xmn2g -XX:+UseCompactObjectHeaders -Djdk.trackAllThreads=false -XX:-UsePerfData) ;;
    # An unknown variant: the driver answers bad_param.
    *) opts=() ;;
esac
# [limits.heap] in driver.toml: set only for a cell whose processes need more than the
# JVM's default maximum heap (a quarter of the RAM).
if [[ -n ${RINGBENCH_JAVA_HEAP_MB:-} ]]; then opts+=("-Xmx${RINGBENCH_JAVA_HEAP_MB}m"); fi
exec "$JDK_HOME/bin/java" --enable-native-access=ALL-UNNAMED "${opts[@]}" \
    -cp "$JAVA_OUT/ringbench-java-virtual.jar" ringbench.javavirtual.Main "$@"
