#!/bin/sh
# Build: compile src/*.java into bin/ with the newest JDK >= 21 found (see jdk.sh),
# and remember that JDK in bin/jdk-home so run.sh uses the same one.
set -eu
cd "$(dirname "$0")"
. ./jdk.sh
find_jdk javac
rm -rf bin
rm -rf bin.tmp
mkdir -p bin.tmp
if [ "$JDK_MAJOR" -ge 22 ]; then
    srcs="src/Flavor.java src/RingBench.java src/CpuFfm.java"   # FFM is final since 22
else
    srcs="src/Flavor.java src/RingBench.java"                  # CPU time falls back to the MXBean (10 ms ticks)
fi
"$JDK_HOME/bin/javac" -nowarn -encoding UTF-8 -d bin.tmp $srcs
echo "$JDK_HOME" > bin.tmp/jdk-home
mv bin.tmp bin
echo "built with $JDK_HOME (JDK $JDK_MAJOR)" >&2
