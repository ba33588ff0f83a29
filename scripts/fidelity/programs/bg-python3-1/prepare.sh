#!/bin/sh
# Benchmarks Game thread-ring Python 3 #1 (Antti Kervinen): orig/threadring.python3 -> threadring.py
# The one change: the ring size THREADS = 503 becomes argv[2] (sys is imported first, because the
# original imports it only after that line). Usage: python3 threadring.py HOPS N
set -eu
cd "$(dirname "$0")"
sed 's/^THREADS = 503$/import sys\nTHREADS = int(sys.argv[2])/' orig/threadring.python3 > threadring.py
grep -q '^THREADS = int(sys.argv\[2\])$' threadring.py
diff orig/threadring.python3 threadring.py || true
