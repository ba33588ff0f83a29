#!/usr/bin/env bash
# Build: `mvn package` (pom.xml: versions pinned there) on the driver's JDK: src/main/java and the JVM
# family library (drivers/common/java/src) into bin/ringbench-pekko.jar with javac --release 25
# -Xlint:all -Werror, the tests of src/test/java run (JUnit 5), Pekko and its dependencies copied
# from Maven Central (the local repository, ~/.m2, filled on the first build) into bin/lib;
# bin/jdk-home records the JDK. Another installation: its JDK, feature version and folder (lib.sh).
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
out=$JAVA_OUT_DEFAULT # bin/, or another installation's build folder (lib.sh)
[[ $out == /* ]] || out=$PWD/$out
rm -rf "$out.tmp"
opts=${MAVEN_OPTS:-}
# Maven runs on the driver's JDK; from JDK 23 on its own libraries' sun.misc.Unsafe calls are allowed
# without a warning (JDK 17 has no such option).
if (($(jdk_feature "$JDK_HOME") >= 23)); then opts="$opts --sun-misc-unsafe-memory-access=allow"; fi
JAVA_HOME=$JDK_HOME MAVEN_OPTS=$opts mvn -B -q -Dstyle.color=never -Dmaven.compiler.release="$JAVA_FEATURE" \
    -Dout.dir="$out.tmp" package >&2
rm -rf "$out.tmp"/{classes,test-classes,generated-sources,generated-test-sources,maven-archiver,maven-status,surefire-reports}
echo "$JDK_HOME" > "$out.tmp/jdk-home"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "built with $JDK_HOME (JDK $JAVA_FEATURE) and $(cd "$out/lib" && echo *.jar)" >&2
