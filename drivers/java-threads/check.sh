#!/usr/bin/env bash
# The driver's own checks: every Java source linted as an error (javac -Xlint:all -Werror),
# the shell scripts (shellcheck), and the stress test of the hand-written primitives on
# platform threads (3 s; its long soak, 30 s, with RINGBENCH_SLOW=1: `make test-slow`), the
# context-switch counts and the spawn boundary (drivers/common/java/test).
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
java_check platform 30
