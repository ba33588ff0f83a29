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
feature=$(jdk_feature "$JDK_HOME")
if ((feature >= 23)); then opts=(--sun-misc-unsafe-memory-access=allow "${opts[@]}"); fi
# Application class-data sharing (README, "Start-up"): the build's training run (`run.sh
# --cds-train … batch`, build.sh) writes the classes it loaded, parsed and verified into an archive
# beside the jar; a run maps them instead of loading them from the jars, which shortens the JVM's
# start-up only (the code and the heap are the same). Used only when it is there and its sidecar
# .jdk names this JDK, the very build; a stale one (a jar rebuilt since, other options) the JVM
# refuses and runs without, its cds and aot logging (stdout by default, where the records go) off:
# neither stream says a word.
cds=$JAVA_OUT/ringbench-pekko.jsa
jdk_id="$JDK_HOME $(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$JDK_HOME/release")"
if [[ ${1:-} == --cds-train ]]; then
    shift
    opts+=("-XX:ArchiveClassesAtExit=$cds")
    printf '%s\n' "$jdk_id" > "$cds.jdk"
elif [[ -r $cds && -r $cds.jdk && $(<"$cds.jdk") == "$jdk_id" ]]; then
    opts+=(-Xshare:auto "-XX:SharedArchiveFile=$cds" '-Xlog:cds*=off')
    # The aot tag, which JDK 25 logs such refusals under too, is unknown to JDK 17 (it would not
    # start).
    if ((feature >= 25)); then opts+=('-Xlog:aot*=off'); fi
fi
exec "$JDK_HOME/bin/java" --enable-native-access=ALL-UNNAMED "${opts[@]}" \
    -cp "$JAVA_OUT/ringbench-pekko.jar:$JAVA_OUT/lib/*" ringbench.pekko.Main "$@"
