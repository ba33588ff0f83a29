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
out=$JAVA_OUT_DEFAULT # bin/, or another installation's build folder (lib.sh)
rm -rf "$out.tmp"
mkdir -p "$out.tmp/classes" "$out.tmp/lib"
mvn -q -B dependency:copy-dependencies -DoutputDirectory="$out.tmp/lib" -DincludeScope=runtime >&2
common_jar "$out.tmp"
own=()
mapfile -t own < <(find src -name '*.java' | sort)
"$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -cp "$out.tmp/ringbench-common.jar:$out.tmp/lib/*" -d "$out.tmp/classes" "${own[@]}"
echo "$JDK_HOME" > "$out.tmp/jdk-home"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "built with $JDK_HOME (JDK $JAVA_FEATURE) and $(cd "$out/lib" && echo *.jar)" >&2
