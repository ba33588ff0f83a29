#!/usr/bin/env bash
# Build: drivers/common/java/src into bin/ringbench-common.jar, this folder's src/ into
# bin/classes against it (javac --release 25, warnings as errors); bin/jdk-home records the JDK.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
java_build
