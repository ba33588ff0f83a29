#!/bin/sh
# Benchmarks Game thread-ring Python 3 #3 (Daniel Nanz, generators):
# orig/threadring.python3-3.python3 -> threadring.py
# Two changes: the ring size n_threads=503 comes from argv[2]; and `raise StopIteration` inside the
# generator becomes `return`, its equivalent since PEP 479 (Python >= 3.7 turns a StopIteration
# raised in a generator into RuntimeError, so the original dies with a traceback at the end).
# The file keeps the original's CRLF line ends. Usage: python3 threadring.py HOPS N
set -eu
cd "$(dirname "$0")"
sed -e 's/n_threads=503/n_threads=int(sys.argv[2])/' \
    -e 's/raise StopIteration/return/' \
    orig/threadring.python3-3.python3 > threadring.py
grep -q 'n_threads=int(sys.argv\[2\])' threadring.py
grep -q '^ *return' threadring.py
diff orig/threadring.python3-3.python3 threadring.py || true
