#!/usr/bin/env bash
# Build: `mvn package` (pom.xml: versions pinned there) on the driver's JDK: src/main/java and the JVM
# family library (drivers/common/java/src) into bin/ringbench-pekko.jar with javac --release 25
# -Xlint:all -Werror, the tests of src/test/java run (JUnit 5), Pekko and its dependencies copied
# from Maven Central (the local repository, ~/.m2, filled on the first build) into bin/lib;
# bin/jdk-home records the JDK. Another installation: its JDK, feature version and folder
# (lib.sh's maven_package).
# Then a short training run of the driver itself writes bin/ringbench-pekko.jsa, an application
# class-data sharing archive of the classes it loaded (README, "Start-up"), which run.sh maps.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
maven_package pekko

# The training: one batch session through run.sh (the same JVM options as every run) with each
# workload once, small, a sampled ring, stats and a refused line; its exit writes the archive.
out=$JAVA_OUT_DEFAULT
[[ $out == /* ]] || out=$PWD/$out
cds=$out/ringbench-pekko.jsa
log=$(mktemp)
trap 'rm -f "$log"' EXIT
lines=(
    "ring n=100 m=10 cores=1 stats=1" "ring n=100 m=10 tokens=4 repeats=2 warmup=1"
    "ring n=100 sample_ms=20 samples=1" "spawn n=1000" "tree n=81 fanout=3" "pingpong m=100"
    "fanin n=10 m=10" "trace n=5 m=2" "ring n=0 m=1"
)
# Every line ends with exit 0 but the last, refused (2).
want="$(printf '0 %.0s' "${lines[@]:1}")2"
# Neither the heap maximum nor the JVM's options variables of the build's environment: the archive
# is made under the options a run has (a run under others is refused it, silently, and runs
# without).
printf '%s\n' "${lines[@]}" | tr ' ' '\t' |
    env -u RINGBENCH_JAVA_HEAP_MB -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u JDK_JAVA_OPTIONS \
        ./run.sh --cds-train --variant=stock batch >"$log" 2>&1 || true
got=$(sed -n 's/^{"type":"done","exit":\([0-9]*\)}$/\1/p' "$log" | paste -sd ' ')
if [[ $got != "$want" ]]; then
    rm -f "$cds" "$cds.jdk"
    echo "the training run for the class-data sharing archive failed; its output:" >&2
    cat "$log" >&2
    exit 1
fi
if [[ -s $cds ]]; then
    echo "class-data sharing archive: $(du -k "$cds" | cut -f1) KiB into $cds" >&2
else # a JVM that cannot write one (no base archive of its own): runs start without
    rm -f "$cds" "$cds.jdk"
    why=$(grep -m1 -i 'cds' "$log" || true)
    echo "no class-data sharing archive: $JDK_HOME did not write one ($why)" >&2
fi
