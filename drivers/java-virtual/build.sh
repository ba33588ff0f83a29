#!/usr/bin/env bash
# Build: `mvn package` (pom.xml, every plugin pinned) on the driver's JDK: src/main/java and the JVM
# family library (drivers/common/java/src) into bin/ringbench-java-virtual.jar (javac --release 25
# -Xlint:all -Werror); bin/jdk-home records the JDK. Another installation: its JDK, feature version
# and folder (lib.sh's maven_package).
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
maven_package java-virtual
