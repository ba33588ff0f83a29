#!/usr/bin/env bash
# Build: Pekko and its dependencies from Maven Central into bin/lib (mvn dependency:copy-dependencies
# with pom.xml, versions pinned there), drivers/common/java/src into bin/ringbench-common.jar, this
# folder's src/ into bin/classes against both (javac --release 25, warnings as errors); bin/jdk-home
# records the JDK.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
rm -rf bin.tmp
mkdir -p bin.tmp/classes bin.tmp/lib
mvn -q -B dependency:copy-dependencies -DoutputDirectory=bin.tmp/lib -DincludeScope=runtime >&2
common_jar bin.tmp
own=()
mapfile -t own < <(find src -name '*.java' | sort)
"$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -cp "bin.tmp/ringbench-common.jar:bin.tmp/lib/*" -d bin.tmp/classes "${own[@]}"
echo "$JDK_HOME" > bin.tmp/jdk-home
rm -rf bin
mv bin.tmp bin
echo "built with $JDK_HOME (JDK $JAVA_FEATURE) and $(cd bin/lib && echo *.jar)" >&2
