# shellcheck shell=bash
# Shared by the Java drivers' build.sh, run.sh and check.sh (sourced, never run):
#
#   find_jdk            JDK_HOME := a JDK $JAVA_FEATURE (Temurin first), or one line on stderr and status 1
#   maven_package NAME  (in a driver folder with a pom.xml) `mvn package` on the JDK, for its feature
#                       version, into the build folder: bin/ringbench-NAME.jar (the driver and this
#                       folder's src/), bin/lib if the pom copies jars there; the JDK in bin/jdk-home
#   java_of DIR         JDK_HOME := the JDK that built DIR/bin (checked), or an error record on stdout and exit 1;
#                       JAVA_OUT := that folder
#   java_shellcheck     (in a driver folder) shellcheck over its *.sh and this file; when it is
#                       not installed, one line on stderr and status 1 (never a silent skip)
#   java_check KIND [S] (in a driver folder) lint-compile everything, shellcheck, the stress test
#                       of the hand-written primitives on KIND (platform or virtual) threads (3 s;
#                       S seconds, default 30, with RINGBENCH_SLOW=1: `make test-slow`), the
#                       test of the context-switch counts (contract 4), the test of the spawn
#                       boundary (contract 3: a process 200 ms late to the gate delays setup_ns)
#
# Another installation (the manifests' [installation], README "Compare versions of a runtime"):
# RINGBENCH_JDK names its home, whose feature version the build targets (javac --release), and
# RINGBENCH_JAVA_OUT the folder the build writes and the launcher reads instead of the driver's bin/.
# Below JDK 22 (no FFM API) the C calls of jdk17/ringbench/driver/Native.java are none: CPU time and
# context switches come from the JDK's own fallbacks (drivers/common/java/README.md).

# The JDK the Java drivers are built for (javac --release) and run on: one feature version.
JAVA_FEATURE=25
JAVA_COMMON=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)

jdk_feature() { # $1 = a JDK home; prints its feature version (25 for 25.0.3), or nothing
    local v=""
    if [[ -r $1/release ]]; then
        v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
    fi
    printf '%s' "$v"
}

if [[ -n ${RINGBENCH_JDK:-} ]]; then
    JAVA_FEATURE=$(jdk_feature "$RINGBENCH_JDK")
    JAVA_FEATURE=${JAVA_FEATURE:-unknown}
fi
# javac: the standard release build, every lint warning an error.
JAVAC_FLAGS=(--release "$JAVA_FEATURE" -encoding UTF-8 -Xlint:all -Werror)
JAVA_OUT_DEFAULT=bin
if [[ -n ${RINGBENCH_JAVA_OUT:-} ]]; then JAVA_OUT_DEFAULT=$RINGBENCH_JAVA_OUT; fi

find_jdk() {
    local h p
    if [[ -n ${RINGBENCH_JDK:-} ]]; then
        if [[ -x $RINGBENCH_JDK/bin/javac ]]; then
            JDK_HOME=$RINGBENCH_JDK
            return 0
        fi
        echo "no JDK at $RINGBENCH_JDK (no bin/javac)" >&2
        return 1
    fi
    for h in /usr/lib/jvm/temurin-"$JAVA_FEATURE"-jdk* /usr/lib/jvm/*; do
        if [[ -x $h/bin/javac && $(jdk_feature "$h") == "$JAVA_FEATURE" ]]; then
            JDK_HOME=$h
            return 0
        fi
    done
    if p=$(command -v javac 2>/dev/null); then
        h=$(dirname -- "$(dirname -- "$(readlink -f -- "$p")")")
        if [[ $(jdk_feature "$h") == "$JAVA_FEATURE" ]]; then
            JDK_HOME=$h
            return 0
        fi
    fi
    echo "no JDK $JAVA_FEATURE found in /usr/lib/jvm or on PATH: install Temurin $JAVA_FEATURE (https://adoptium.net)" >&2
    return 1
}

maven_package() {
    find_jdk
    local out=$JAVA_OUT_DEFAULT opts=${MAVEN_OPTS:-}
    [[ $out == /* ]] || out=$PWD/$out
    rm -rf "$out.tmp"
    # Maven runs on the JDK built for (another installation's too: the pom's profiles follow it); from
    # JDK 23 on, its own libraries' sun.misc.Unsafe calls are allowed without a warning (17 has no such option).
    if (($(jdk_feature "$JDK_HOME") >= 23)); then opts="$opts --sun-misc-unsafe-memory-access=allow"; fi
    JAVA_HOME=$JDK_HOME MAVEN_OPTS=$opts mvn -B -q -Dstyle.color=never -Dmaven.compiler.release="$JAVA_FEATURE" \
        -Dout.dir="$out.tmp" package >&2
    rm -rf "$out.tmp"/{classes,test-classes,generated-sources,generated-test-sources,maven-archiver,maven-status,surefire-reports}
    [[ -f $out.tmp/ringbench-$1.jar ]]
    echo "$JDK_HOME" > "$out.tmp/jdk-home"
    rm -rf "$out"
    mv "$out.tmp" "$out"
    echo "built with $JDK_HOME (JDK $JAVA_FEATURE) into $out" >&2
}

java_of() {
    JDK_HOME=""
    JAVA_OUT=$1/bin
    if [[ -n ${RINGBENCH_JAVA_OUT:-} ]]; then JAVA_OUT=$RINGBENCH_JAVA_OUT; fi
    if [[ -r $JAVA_OUT/jdk-home ]]; then
        JDK_HOME=$(<"$JAVA_OUT/jdk-home")
    fi
    if [[ -z $JDK_HOME || ! -x $JDK_HOME/bin/java || $(jdk_feature "$JDK_HOME") != "$JAVA_FEATURE" ]]; then
        echo "{\"type\":\"error\",\"kind\":\"failure\",\"message\":\"no JDK $JAVA_FEATURE recorded in bin/jdk-home: rebuild the driver (ringbench build $(basename -- "$1"))\"}"
        exit 1
    fi
}

java_shellcheck() { # (in a driver folder) shellcheck over its scripts and this file; missing fails
    if ! command -v shellcheck >/dev/null; then
        echo "check: shellcheck not found (Debian's shellcheck, in the driver's apt list)" >&2
        return 1
    fi
    shellcheck -x "$JAVA_COMMON/lib.sh" ./*.sh
}

# The stress test's length: short in the default check; the long soak, the length that was seen to
# catch a seeded lost wake-up (7 of 8 runs at 30 s, 3 of 8 at 10 s), with RINGBENCH_SLOW=1.
JAVA_STRESS_SHORT_S=3

java_check() { # $1 = platform | virtual; $2 = seconds of the long soak (default 30)
    find_jdk
    local out srcs=() seconds=$JAVA_STRESS_SHORT_S
    if [[ ${RINGBENCH_SLOW:-} == 1 ]]; then seconds=${2:-30}; fi
    out=$(mktemp -d)
    trap 'rm -rf "$out"' RETURN
    mapfile -t srcs < <(find "$JAVA_COMMON/src" "$JAVA_COMMON/test" src -name '*.java' | sort)
    echo "javac ${JAVAC_FLAGS[*]}: ${#srcs[@]} files" >&2
    # javac's own JVM with the client compiler only and the serial collector: half the CPU for
    # a one-shot compile of this size; the lint and the classes are the same.
    "$JDK_HOME/bin/javac" -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "${JAVAC_FLAGS[@]}" -d "$out" "${srcs[@]}"
    java_shellcheck
    "$JDK_HOME/bin/java" -XX:+UseG1GC -cp "$out" ringbench.threads.Stress "$1" "$seconds"
    "$JDK_HOME/bin/java" -XX:+UseG1GC --enable-native-access=ALL-UNNAMED -cp "$out" \
        ringbench.driver.ContextSwitchTest "$1"
    "$JDK_HOME/bin/java" -XX:+UseG1GC --enable-native-access=ALL-UNNAMED -cp "$out" \
        ringbench.driver.SpawnBoundaryTest "$1"
}
