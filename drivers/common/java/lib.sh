# Shell helpers shared by drivers/java-threads and drivers/java-virtual; each
# driver's build.sh and run.sh set JAVA_COMMON to this folder, then source this
# file (it is never run on its own).
#
#   find_jdk [javac]   sets JDK_HOME and JDK_MAJOR to a JDK >= 21: $RINGBENCH_JAVA_HOME,
#                      else the newest under /usr/lib/jvm, else `java` on PATH
#   java_build         compiles this folder's src/ plus the driver's own src/ into the
#                      driver's bin/ (run from the driver folder) and records the JDK
#   java_runtime DIR   finds the JDK that built DIR/bin (or prints an error record and exits)

jdk_major() { # $1 = a JDK home; prints its major version (or nothing)
    _v=""
    if [ -r "$1/release" ]; then
        _v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release" | head -n 1)
    fi
    if [ -z "$_v" ] && [ -x "$1/bin/java" ]; then
        _v=$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)
    fi
    case $_v in 1.*) _v=${_v#1.} ;; esac
    _v=${_v%%[!0-9]*}
    [ -n "$_v" ] && echo "$_v"
}

find_jdk() { # $1 = "javac" when a compiler is needed
    _tool=${1:-java}
    if [ -n "${RINGBENCH_JAVA_HOME:-}" ]; then
        _m=$(jdk_major "$RINGBENCH_JAVA_HOME")
        if [ -x "$RINGBENCH_JAVA_HOME/bin/$_tool" ] && [ -n "$_m" ] && [ "$_m" -ge 21 ]; then
            JDK_HOME=$RINGBENCH_JAVA_HOME; JDK_MAJOR=$_m; return 0
        fi
        echo "RINGBENCH_JAVA_HOME=$RINGBENCH_JAVA_HOME is not a JDK >= 21 with bin/$_tool" >&2
        return 1
    fi
    JDK_HOME=""; JDK_MAJOR=0
    for _h in /usr/lib/jvm/*; do
        [ -x "$_h/bin/$_tool" ] || continue
        _m=$(jdk_major "$_h")
        [ -n "$_m" ] || continue
        if [ "$_m" -ge 21 ] && [ "$_m" -gt "$JDK_MAJOR" ]; then JDK_HOME=$_h; JDK_MAJOR=$_m; fi
    done
    if [ -z "$JDK_HOME" ] && _p=$(command -v "$_tool" 2>/dev/null); then
        _h=$(dirname "$(dirname "$(readlink -f "$_p")")")
        _m=$(jdk_major "$_h")
        if [ -n "$_m" ] && [ "$_m" -ge 21 ]; then JDK_HOME=$_h; JDK_MAJOR=$_m; fi
    fi
    if [ -z "$JDK_HOME" ]; then
        echo "no JDK >= 21 found (set RINGBENCH_JAVA_HOME, or install one under /usr/lib/jvm)" >&2
        return 1
    fi
    return 0
}

java_build() { # run inside the driver folder: common sources + ./src/*.java -> ./bin
    find_jdk javac
    _common=$JAVA_COMMON/src
    # Ffm (clock_gettime and prctl through the Foreign Function & Memory API) needs
    # JDK >= 22, where FFM is final; on 21 RingBench falls back to the MXBean clock.
    _srcs="$_common/RingBench.java"
    [ "$JDK_MAJOR" -ge 22 ] && _srcs="$_srcs $_common/Ffm.java"
    rm -rf bin bin.tmp
    mkdir -p bin.tmp
    # shellcheck disable=SC2086  # word splitting of the source list is wanted
    "$JDK_HOME/bin/javac" -nowarn -encoding UTF-8 -d bin.tmp $_srcs src/*.java
    echo "$JDK_HOME" > bin.tmp/jdk-home
    mv bin.tmp bin
    echo "built with $JDK_HOME (JDK $JDK_MAJOR)" >&2
}

java_runtime() { # $1 = the driver folder; sets JDK_HOME, JDK_MAJOR and JAVA_NATIVE
    if [ -z "${RINGBENCH_JAVA_HOME:-}" ] && [ -r "$1/bin/jdk-home" ]; then
        RINGBENCH_JAVA_HOME=$(cat "$1/bin/jdk-home")
    fi
    if ! find_jdk java 2>/dev/null; then
        echo '{"type":"error","kind":"failure","message":"no JDK >= 21 found: set RINGBENCH_JAVA_HOME to one (and rebuild)"}'
        exit 1
    fi
    # Lets Ffm call clock_gettime/prctl without the JVM's restricted-method warning.
    JAVA_NATIVE=""
    [ "$JDK_MAJOR" -ge 22 ] && JAVA_NATIVE="--enable-native-access=ALL-UNNAMED"
    return 0
}
