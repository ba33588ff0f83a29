#!/usr/bin/env bash
# Build: `mvn package` (pom.xml: versions pinned there) on the driver's JDK: src/main/java and the JVM
# family library (drivers/common/java/src) into bin/ringbench-pekko.jar with javac --release 25
# -Xlint:all -Werror, the tests of src/test/java run (JUnit 5), Pekko and its dependencies copied
# from Maven Central (the local repository, ~/.m2, filled on the first build) into bin/lib;
# bin/jdk-home records the JDK. Another installation: its JDK, feature version and folder
# (lib.sh's maven_package).
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
maven_package pekko
