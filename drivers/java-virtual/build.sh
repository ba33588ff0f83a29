#!/bin/sh
# Build: the shared sources (drivers/common/java/src) and this folder's src/Flavor.java,
# compiled into this folder's bin/ with the newest JDK >= 21 found; bin/jdk-home
# remembers that JDK so run.sh uses the same one.
set -eu
cd "$(dirname "$0")"
JAVA_COMMON=$(cd ../common/java && pwd)
. "$JAVA_COMMON/lib.sh"
java_build
