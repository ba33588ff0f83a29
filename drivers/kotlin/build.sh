#!/usr/bin/env bash
# Build: drivers/common/java/src into bin/ringbench-common.jar (javac --release 25), then this
# folder's src/ with the Kotlin compiler through Maven (pom.xml: kotlin-maven-plugin 2.4.21,
# -Werror, JVM target 25) into bin/classes, the runtime jars (kotlin-stdlib,
# kotlinx-coroutines-core-jvm 1.11.0) into bin/lib; bin/jdk-home records the JDK.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
rm -rf bin.tmp target
mkdir -p bin.tmp
common_jar bin.tmp
# Maven runs on the driver's JDK; its own libraries (guava) use sun.misc.Unsafe, which JDK 25 warns of.
JAVA_HOME=$JDK_HOME MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -B -q -Dstyle.color=never -Dkotlin.compiler.daemon=false -f pom.xml compile
mv target/classes bin.tmp/classes
rm -rf target
echo "$JDK_HOME" > bin.tmp/jdk-home
rm -rf bin
mv bin.tmp bin
echo "built with $JDK_HOME (JDK $JAVA_FEATURE), Kotlin 2.4.21, kotlinx.coroutines 1.11.0" >&2
