#!/usr/bin/env bash
# The driver's own checks: `mvn -o verify` (offline: the build filled the local repository) into a
# temporary folder, which compiles the family library (javac -Xlint:all -Werror) and the Kotlin
# sources (kotlinc -Werror -Wextra) and runs src/test/kotlin: the gate (Gate.kt) under concurrency on
# Dispatchers.Default and on runBlocking's event loop (GateTest), and the spawn boundary through the
# Meter: a process that starts 200 ms late delays setup_ns as long, and as main wakes every process
# is suspended in its first receive (GateTest, on a counting dispatcher), ktlint (ktlint_official,
# .editorconfig) and detekt (its default rules) over every Kotlin source; the shell scripts
# (shellcheck, which must be installed);
# then every workload on both schedulers in the edge cases of the ring (tokens = n spread, a burst
# of n tokens into p0, many iterations in one process), each of which must prove its count; a run
# that does not end within 60 s (a lost wake-up, a deadlock) fails. The channels and the scheduler
# are kotlinx.coroutines'; the gate is the driver's own.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
JAVA_HOME=$JDK_HOME MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -B -q -o -Dstyle.color=never -Dkotlin.compiler.daemon=false -Dout.dir="$out" verify >&2
echo "mvn -o verify: javac -Xlint:all -Werror, kotlinc -Werror -Wextra, ktlint, detekt, $(grep -ho 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' "$out"/surefire-reports/*.txt | head -1)" >&2
java_shellcheck
[[ -f bin/ringbench-kotlin.jar ]] || ./build.sh
runs=(
    "ring n=300 m=5 tokens=300 repeats=3"
    "ring n=200 m=5 tokens=200 burst=1 repeats=3"
    "ring n=10000 m=2 tokens=7 repeats=2"
    "spawn n=20000 repeats=2"
    "pingpong m=20000 repeats=2"
    "fanin n=200 m=100 repeats=2"
    "tree n=10000 repeats=2"
    "tree n=1024 fanout=2 repeats=3"
)
for variant in stock single-thread; do
    for r in "${runs[@]}"; do
        read -ra args <<<"$r"
        if ! res=$(timeout 60 ./run.sh --variant="$variant" run "${args[@]}"); then
            echo "FAIL: $variant $r" >&2
            printf '%s\n' "$res" >&2
            exit 1
        fi
        if grep -q '"type":"error"' <<<"$res"; then
            echo "FAIL: $variant $r: $res" >&2
            exit 1
        fi
        echo "ok: $variant $r ($(grep -c '"type":"result"' <<<"$res") results)" >&2
    done
done
