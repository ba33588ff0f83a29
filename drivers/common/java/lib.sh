# Sourced by build.sh and run.sh: find a JDK >= 21.
# Order: $RINGBENCH_JAVA_HOME, then the newest JDK under /usr/lib/jvm, then java on PATH.
# Sets JDK_HOME and JDK_MAJOR, or prints a message on stderr and returns 1.

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
