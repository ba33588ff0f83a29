#!/bin/sh
# Benchmarks Game thread-ring Python 3 #2 (Kervinen, modified by Tupteq):
# orig/threadring.python3-2.python3 -> threadring.py
# The one change: the ring size 503 (and 502, the index of the last thread) come from argv[2].
# The file keeps the original's CRLF line ends. Usage: python3 threadring.py HOPS N
set -eu
cd "$(dirname "$0")"
sed -e 's/range(503)/range(int(sys.argv[2]))/' \
    -e 's/number < 502/number < int(sys.argv[2]) - 1/' \
    orig/threadring.python3-2.python3 > threadring.py
test "$(grep -c 'sys.argv\[2\]' threadring.py)" = 2
diff orig/threadring.python3-2.python3 threadring.py || true
