#!/bin/sh
# Makes actor_creation.cpp from orig/actor_creation.cpp. The one change: the tree's size is read
# as its leaves N (a power of 2, the last argument; POW = log2(N) + 1, so 2N - 1 actors) instead
# of POW, and CAF's own options may come before it (--scheduler.max-threads=..., which CAF 0.17's
# parser reads only before the first positional argument). Nothing else.
# Run: {dir}/actor_creation --scheduler.max-threads={cores} {n}
set -eu
cd "$(dirname "$0")"
sed -e 's/^  if (argc != 2)$/  if (argc < 2)/' \
    -e 's/^  s_num = static_cast<uint32_t>(std::stoi(argv\[1\]));$/  for (s_num = 1; (1ull << (s_num - 1)) < std::stoull(argv[argc - 1]); ++s_num) {}/' \
    orig/actor_creation.cpp > actor_creation.cpp
# The change must have applied (an unexpected original fails here, not at run time).
grep -q '^  if (argc < 2)$' actor_creation.cpp && grep -q 'std::stoull(argv\[argc - 1\])' actor_creation.cpp \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
