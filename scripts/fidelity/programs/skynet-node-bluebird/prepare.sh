#!/bin/sh
# skynet's Node program (atemerev/skynet, node-bluebird/skynet.js at 374f8cb), fetched into
# orig/skynet.js. The change: the tree's size and fanout from argv (default 1,000,000 and 10, as
# published) instead of the constants; bluebird pinned at 3.7.2 (the program's package.json asks
# for ^3.3.1) and installed with npm. Nothing else: it still runs sync, sync warmed-up, async and
# async warmed-up, and prints each sum and console.time figure.
set -eu
cd "$(dirname "$0")"
sed -e 's/^const div = 10$/const div = Number(process.argv[3] || 10)/' \
    -e 's/(0, 1000000, div)/(0, size, div)/g' \
    -e "s/^const Promise = require('bluebird')$/&\nconst size = Number(process.argv[2] || 1000000)/" \
    orig/skynet.js > skynet.js
grep -q 'process.argv\[2\]' skynet.js && grep -q 'process.argv\[3\]' skynet.js
! grep -q '1000000, div' skynet.js
cat > package.json <<'JSON'
{ "name": "skynet-node", "private": true, "dependencies": { "bluebird": "3.7.2" } }
JSON
npm install --no-audit --no-fund --silent
