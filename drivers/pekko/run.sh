#!/usr/bin/env bash
# The launcher named in driver.toml: run.sh --variant=stock|tuned describe | run <workload> key=value ...
# It picks the variant's JVM options and execs the JDK that built bin/, so the JVM takes this
# process's place and receives the orchestrator's parent-death signal (contract section 8).
# The variant's Pekko settings are made in code (Main.config), not here.
set -euo pipefail
dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common/java/lib.sh
. "$dir/../common/java/lib.sh"
java_of "$dir"

# The JVM as it comes, with its default collector for a server-class machine named, so that a run
# pinned to one CPU does not get the serial collector instead (README).
opts=(-XX:+UseG1GC)
# [limits.heap] in driver.toml: set only for a cell whose processes need more than the
# JVM's default maximum heap (a quarter of the RAM).
if [[ -n ${RINGBENCH_JAVA_HEAP_MB:-} ]]; then opts+=("-Xmx${RINGBENCH_JAVA_HEAP_MB}m"); fi
# --sun-misc-unsafe-memory-access=allow: Pekko 1.7 reads field offsets through sun.misc.Unsafe;
# JDK 25 allows it as it comes and only warns on stderr, once per call site. This keeps stderr quiet.
# The option exists from JDK 23 on (an older JDK, another installation, neither has nor needs it).
if (($(jdk_feature "$JDK_HOME") >= 23)); then opts=(--sun-misc-unsafe-memory-access=allow "${opts[@]}"); fi
exec "$JDK_HOME/bin/java" --enable-native-access=ALL-UNNAMED "${opts[@]}" \
    -cp "$JAVA_OUT/ringbench-pekko.jar:$JAVA_OUT/lib/*" ringbench.pekko.Main "$@"
