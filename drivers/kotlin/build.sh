#!/usr/bin/env bash
# Build: `mvn verify` (pom.xml: kotlin-maven-plugin 2.4.21, kotlinx-coroutines-core 1.11.0, ktlint
# 1.8.0, detekt 1.23.8, every version pinned there) on the driver's JDK: the JVM family library
# (drivers/common/java/src, javac --release 25 -Xlint:all -Werror) and src/main/kotlin (-Werror
# -Wextra, JVM target 25) into bin/ringbench-kotlin.jar, the tests of src/test/kotlin run (JUnit 5),
# ktlint and detekt over the sources, the runtime jars from Maven Central (the local repository,
# ~/.m2, filled on the first build, so that check.sh runs offline) into bin/lib; bin/jdk-home
# records the JDK.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
rm -rf bin.tmp
# Maven runs on the driver's JDK; its own libraries (guava) use sun.misc.Unsafe, which JDK 25 warns of.
JAVA_HOME=$JDK_HOME MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -B -q -Dstyle.color=never -Dkotlin.compiler.daemon=false -Dout.dir="$PWD/bin.tmp" verify >&2
rm -rf bin.tmp/{antrun,classes,test-classes,generated-sources,generated-test-sources,maven-archiver,maven-status,surefire-reports}
echo "$JDK_HOME" > bin.tmp/jdk-home
rm -rf bin
mv bin.tmp bin
echo "built with $JDK_HOME (JDK $JAVA_FEATURE), Kotlin 2.4.21, kotlinx.coroutines 1.11.0" >&2
