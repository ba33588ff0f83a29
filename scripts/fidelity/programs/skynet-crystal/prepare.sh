#!/bin/sh
# Turns orig/skynet.cr (written for Crystal 0.x, 2016) into skynet.cr for Crystal 1.6. The changes:
# - the number of leaves from the first argument (default 1,000,000) and the fanout from the second
#   (default 10) instead of the constants 1_000_000 and 10;
# - `size/div` becomes `size//div`: since Crystal 0.31 `/` of two integers is a float division
#   (`//` is the integer division the program meant);
# - `Time.now` becomes `Time.monotonic`: Time.now was removed from Crystal (0.29 deprecated it); the
#   program subtracts two readings only, which a monotonic clock gives.
# Nothing else: one unbuffered Channel(Int64) per inner process, spawn per child, sum in arrival order.
# Run: {dir}/skynet {n} [fanout]; prints "Result: <sum> in <ms>ms."
set -eu
cd "$(dirname "$0")"
sed -e 's|size/div|size//div|g' \
    -e 's|Time\.now|Time.monotonic|g' \
    -e 's|^spawn skynet(c, 0_i64, 1_000_000, 10)$|spawn skynet(c, 0_i64, (ARGV[0]? \|\| 1_000_000).to_i, (ARGV[1]? \|\| 10).to_i)|' \
    orig/skynet.cr > skynet.cr
[ "$(grep -c 'size//div' skynet.cr)" = 2 ] && [ "$(grep -c 'Time.monotonic' skynet.cr)" = 2 ] \
    && grep -q '^spawn skynet(c, 0_i64, (ARGV\[0\]? || 1_000_000).to_i, (ARGV\[1\]? || 10).to_i)$' skynet.cr \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
