#!/usr/bin/env bash
# The driver's own checks: every Java source of the driver and of drivers/common/java linted as an
# error (javac -Xlint:all -Werror) against the Pekko jars of bin/lib, and the shell scripts
# (shellcheck). The driver writes no concurrency primitive of its own (Pekko's mailboxes and
# dispatcher, the ask pattern for main's waits), so there is nothing of its own to stress-test.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")"
# shellcheck source=../common/java/lib.sh
. ../common/java/lib.sh
find_jdk
if [[ ! -d bin/lib ]]; then
    echo "bin/lib missing: build first (ringbench build pekko)" >&2
    exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
srcs=()
mapfile -t srcs < <(find "$JAVA_COMMON/src" src -name '*.java' | sort)
echo "javac ${JAVAC_FLAGS[*]}: ${#srcs[@]} files" >&2
"$JDK_HOME/bin/javac" "${JAVAC_FLAGS[@]}" -cp "bin/lib/*" -d "$out" "${srcs[@]}"
if command -v shellcheck >/dev/null; then
    shellcheck -x "$JAVA_COMMON/lib.sh" ./*.sh
else
    echo "shellcheck not found: shell scripts not linted" >&2
fi
