#!/bin/sh
# greenlet's own chain benchmark (benchmarks/chain.py of python-greenlet/greenlet) -> chain.py, run
# without pyperf: orig/chain.py is the fetched file, unchanged.
# Changes: `import pyperf` becomes `import sys` and `import time`, pyperf.perf_counter becomes
# time.perf_counter (the clock bm_chain reads around its loops); CHAIN_GREENLET_COUNT = 100000
# becomes int(sys.argv[1]); the pyperf Runner block at the end (which runs every benchmark of the
# file) becomes bm_chain(int(sys.argv[2])): N greenlets in a chain, the value passed from one end to
# the other (N switches), M times, each time through a freshly built chain. Nothing else.
# Usage: pypy3 chain.py N M
set -eu
cd "$(dirname "$0")"
sed -e 's/^import pyperf$/import sys\nimport time/' \
    -e 's/pyperf\.perf_counter/time.perf_counter/g' \
    -e 's/^CHAIN_GREENLET_COUNT = 100000$/CHAIN_GREENLET_COUNT = int(sys.argv[1])/' \
    -e '/^if __name__ == .__main__.:$/,$d' \
    orig/chain.py > chain.py
printf "if __name__ == '__main__':\n    bm_chain(int(sys.argv[2]))\n" >> chain.py
! grep -q pyperf chain.py
grep -q '^CHAIN_GREENLET_COUNT = int(sys.argv\[1\])$' chain.py
test "$(grep -c '^if __name__' chain.py)" = 1
diff orig/chain.py chain.py || true
