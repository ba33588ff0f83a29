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
# of n tokens into p0, many iterations in one process), each of which must prove its count, one
# batch (one JVM) per scheduler; a run that prints no record for 60 s (a lost wake-up, a deadlock)
# fails. The channels and the scheduler
# are kotlinx.coroutines'; the gate is the driver's own.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Maven's own JVM (javac, kotlinc and detekt run inside it) with the client compiler only and the
# serial collector: a short-lived tool JVM spends less CPU so; what it checks is the same.
JAVA_HOME=$JDK_HOME MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1 -XX:+UseSerialGC" \
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
# One JVM per scheduler: the batch verb serves each line as its own `run` (its processes built afresh,
# its count proved), then a done record; a line with no record for 60 s fails (a lost wake-up).
fifo=$out/records
mkfifo "$fifo"
for variant in stock single-thread; do
    printf '%s\n' "${runs[@]// /$'\t'}" | ./run.sh --variant="$variant" batch >"$fifo" &
    pid=$!
    exec {recs}<"$fifo"
    i=0 results=0
    while :; do
        IFS= read -r -t 60 -u "$recs" rec || {
            rc=$?
            if ((rc > 128)); then
                echo "FAIL: $variant ${runs[i]}: no record within 60 s" >&2
                kill "$pid"
                exit 1
            fi
            break
        }
        case $rec in
            *'"type":"result"'*) results=$((results + 1)) ;;
            *'"type":"done","exit":0}'*)
                echo "ok: $variant ${runs[i]} ($results results)" >&2
                i=$((i + 1)) results=0
                ;;
            *)
                echo "FAIL: $variant ${runs[i]:-(after the last run)}: $rec" >&2
                kill "$pid"
                exit 1
                ;;
        esac
    done
    exec {recs}<&-
    if ! wait "$pid" || ((i != ${#runs[@]})); then
        echo "FAIL: $variant: the batch ended after $i of ${#runs[@]} runs" >&2
        exit 1
    fi
done
