#!/bin/sh
# What `shards build --release` does with shard.yml, for a Crystal without shards (Debian's crystal
# package ships none): every target of shard.yml's `targets` built by `crystal build --release`
# (the standard release build) into bin/<target>. No dependencies to install (shard.yml has none;
# a `dependencies:` section is refused here rather than ignored).
set -eu
cd "$(dirname "$0")"
if grep -q '^\(development_\)\?dependencies:' shard.yml; then
    echo "build.sh: shard.yml has dependencies; build with shards (shards build --release)" >&2
    exit 1
fi
# the targets, as "name main" lines: two-space-indented names under `targets:`, each with its `main:`
targets=$(awk '
    /^[^ #]/ { in_targets = ($0 ~ /^targets:/) ; next }
    in_targets && /^  [A-Za-z0-9_-]+:[ ]*$/ { name = $1; sub(/:$/, "", name); next }
    in_targets && /^    main:/ { print name, $2 }
' shard.yml)
if [ -z "$targets" ]; then
    echo "build.sh: no targets in shard.yml" >&2
    exit 1
fi
mkdir -p bin
printf '%s\n' "$targets" | while read -r name main; do
    crystal build --release "$main" -o "bin/$name"
done
