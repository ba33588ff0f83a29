#!/bin/sh
# KRoC's Stackless Python multi-token ring (tests/ccsp-comparisons/stackless/mtring.py of
# github.com/concurrency/kroc, C.G. Ritson 2008, GPL v2 or later; unchanged from its first commit
# f066c55 to 4676039) -> mtring.py, run by pypy3 on PyPy's own stackless module.
# orig/mtring.py is the original, checked by its SHA-256; it is taken, the first that works, from
# orig/ (saved by hand), from a bare git copy of KRoC ($KROC_GIT_DIR, default the snapshot the
# session's `fetch` tool puts in /work/.mirror), or from raw.githubusercontent.com.
# The change, nothing else:
#   - `elements = 256` (the ring's size, a constant) -> `elements = int(sys.argv[3])`;
#   - after root prints its sum, two lines check it: the sum the ring must produce or exit 1
#     (SystemExit raised in root propagates out of stackless.run()). Token i (1..T) is sent by root
#     with the value i and goes round cycles + 1 times, gaining 1 at each of the N - 1 element
#     tasklets per lap and 1 at root each time root forwards it (cycles times), so
#     sum = T(T + 1)/2 + T((cycles + 1)(N - 1) + cycles).
# Its hops: a start-up lap (the value 1 once round), T tokens x (cycles + 1) laps, a shut-down lap
# (0 once round): N(T(M + 1) + 2) hops for M = cycles, N x M x T plus a constant N(T + 2) at fixed
# N and T, which the differential method cancels. It prints "start", "end" and the sum, nothing per hop.
# Usage: pypy3 mtring.py CYCLES TOKENS N   (the original's two arguments, then the ring's size;
# TOKENS < N - 1: with a token at every element the synchronous channels deadlock)
set -eu
cd "$(dirname "$0")"
commit=46760395fa80aff0d320191db0bfe3deaa97f1bf
path=tests/ccsp-comparisons/stackless/mtring.py
sum=ede2227b03ed6277a73cfa2c9dfdf321b79f6f5142fae3ec233c028ba7e5027b
gitdir=${KROC_GIT_DIR:-/work/.mirror/concurrency+kroc/repo}
mkdir -p orig
if ! test -s orig/mtring.py; then
    if git --git-dir="$gitdir" cat-file -e "$commit:$path" 2>/dev/null; then
        git --git-dir="$gitdir" show "$commit:$path" > orig/mtring.py.part
    elif ! curl -fsSL --max-time 30 -o orig/mtring.py.part \
            "https://raw.githubusercontent.com/concurrency/kroc/$commit/$path"; then
        rm -f orig/mtring.py.part
        echo "prepare.sh: cannot fetch KRoC's $path; save github.com/concurrency/kroc/blob/$commit/$path as $PWD/orig/mtring.py (or set KROC_GIT_DIR to a clone of KRoC) and run prepare again" >&2
        exit 1
    fi
    mv orig/mtring.py.part orig/mtring.py
fi
echo "$sum  orig/mtring.py" | sha256sum -c --quiet \
    || { echo "prepare.sh: orig/mtring.py is not KRoC's text at ${commit%${commit#???????}}" >&2; exit 1; }
tab=$(printf '\t')
sed -e 's/^elements = 256$/elements = int(sys.argv[3])/' \
    -e "/^${tab}sys\.stdout\.write(str(sum) + \"\\\\n\")\$/a\\
${tab}want = tokens * (tokens + 1) // 2 + tokens * ((int(sys.argv[1]) + 1) * (elements - 1) + int(sys.argv[1]))\\
${tab}if sum != want: raise SystemExit(\"mtring: sum %d, expected %d\" % (sum, want))" \
    orig/mtring.py > mtring.py
# Three lines differ, each as planned.
if [ "$(diff orig/mtring.py mtring.py | grep -c '^>' || true)" != 3 ] \
    || ! grep -q '^elements = int(sys.argv\[3\])$' mtring.py \
    || [ "$(grep -c '^	want = \|^	if sum != want: raise SystemExit' mtring.py)" != 2 ]; then
    echo "prepare.sh: the change did not apply to orig/mtring.py as expected" >&2
    diff orig/mtring.py mtring.py >&2 || true
    exit 1
fi
diff orig/mtring.py mtring.py || true
