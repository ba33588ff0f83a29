# shellcheck shell=bash
# Shared by the Java drivers' build.sh, run.sh and check.sh (sourced, never run):
#
#   find_jdk            JDK_HOME := a JDK $JAVA_FEATURE (Temurin first), or one line on stderr and status 1
#   common_jar DEST     this folder's src/ compiled into DEST/ringbench-common.jar (what a driver
#                       in any JVM language compiles against and puts on its class path)
#   java_build          (in a driver folder) common_jar bin, the driver's src/ into bin/classes
#                       against it, the JDK recorded in bin/jdk-home
#   java_of DIR         JDK_HOME := the JDK that built DIR/bin (checked), or an error record on stdout and exit 1;
#                       JAVA_OUT := that folder
#   java_check KIND     (in a driver folder) lint-compile everything, shellcheck, the stress test
#                       of the hand-written primitives on KIND (platform or virtual) threads, the
#                       test of the context-switch counts (contract 4)
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

common_sources() { # the family's sources for this JDK: Native.java's FFM calls from JDK 22 on
    if [[ $JAVA_FEATURE =~ ^[0-9]+$ && $JAVA_FEATURE -lt 22 ]]; then
        find "$JAVA_COMMON/src" -name '*.java' ! -name Native.java
        echo "$JAVA_COMMON/jdk17/ringbench/driver/Native.java"
    else
        find "$JAVA_COMMON/src" -name '*.java'
    fi
}

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

common_jar() {
    local classes srcs=()
    classes=$(mktemp -d)
    mapfile -t srcs < <(common_sources | sort)
    "$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -d "$classes" "${srcs[@]}"
    "$JDK_HOME/bin/jar" --create --file "$1/ringbench-common.jar" -C "$classes" .
    rm -rf "$classes"
}

java_build() {
    find_jdk
    local out=$JAVA_OUT_DEFAULT
    rm -rf "$out.tmp"
    mkdir -p "$out.tmp/classes"
    common_jar "$out.tmp"
    local own=()
    mapfile -t own < <(find src -name '*.java' | sort)
    "$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -cp "$out.tmp/ringbench-common.jar" -d "$out.tmp/classes" "${own[@]}"
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

java_check() { # $1 = platform | virtual; $2 = seconds of stress (default 30)
    find_jdk
    local out srcs=()
    out=$(mktemp -d)
    trap 'rm -rf "$out"' RETURN
    mapfile -t srcs < <(find "$JAVA_COMMON/src" "$JAVA_COMMON/test" src -name '*.java' | sort)
    echo "javac ${JAVAC_FLAGS[*]}: ${#srcs[@]} files" >&2
    "$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -d "$out" "${srcs[@]}"
    if command -v shellcheck >/dev/null; then
        shellcheck -x "$JAVA_COMMON/lib.sh" ./*.sh
    else
        echo "shellcheck not found: shell scripts not linted" >&2
    fi
    "$JDK_HOME/bin/java" -XX:+UseG1GC -cp "$out" ringbench.threads.Stress "$1" "${2:-30}"
    "$JDK_HOME/bin/java" -XX:+UseG1GC --enable-native-access=ALL-UNNAMED -cp "$out" \
        ringbench.driver.ContextSwitchTest "$1"
}
