#!/bin/sh
# Turns orig/skynet.py into skynet.py. The one change: the depth (LEVELS, 6: 10^6 leaves) from the
# first argument instead of the constant. Nothing else: a coroutine per node, its children gathered
# with asyncio.as_completed (a task each), summed in completion order; the root's sum asserted.
# Run: python3 skynet.py {depth}
set -eu
cd "$(dirname "$0")"
sed -e 's|^LEVELS = 6$|import sys\
LEVELS = int(sys.argv[1]) if len(sys.argv) > 1 else 6|' \
    -e 's|    assert got == 499999500000|    assert got == (SONS ** LEVELS) * (SONS ** LEVELS - 1) // 2|' \
    orig/skynet.py > skynet.py
grep -q '^LEVELS = int(sys.argv\[1\])' skynet.py && grep -q 'SONS \*\* LEVELS - 1' skynet.py \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
