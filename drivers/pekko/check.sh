#!/usr/bin/env bash
# The driver's own checks: `mvn -o verify` (offline: the build filled the local repository) into a
# temporary folder, which compiles the driver and the JVM family library with every javac lint
# warning an error (-Xlint:all -Werror) and runs src/test/java: the gate (one wake; a slow arrival
# delays it), the end of the message phase, the proof, the tree's root and gracefulStop under a
# dispatcher of 4 threads (CoordinatorTest), the ring across nodes' layout, wire messages and spread
# coordinator (NodesTest); then the shell scripts (shellcheck; its absence fails the check).
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
opts=${MAVEN_OPTS:-}
if (($(jdk_feature "$JDK_HOME") >= 23)); then opts="$opts --sun-misc-unsafe-memory-access=allow"; fi
JAVA_HOME=$JDK_HOME MAVEN_OPTS=$opts mvn -B -q -o -Dstyle.color=never -Dmaven.compiler.release="$JAVA_FEATURE" \
    -Dout.dir="$out" verify >&2
echo "mvn -o verify: javac -Xlint:all -Werror, $(grep -ho 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' "$out"/surefire-reports/*.txt | paste -sd ";" -)" >&2
java_shellcheck
