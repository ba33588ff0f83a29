#!/bin/sh
# skynet's Node program (atemerev/skynet, node-bluebird/skynet.js at 374f8cb), fetched into
# orig/skynet.js, on the runtime's own Promise: the line `const Promise = require('bluebird')`
# removed, so Promise.all and .then are V8's. The tree's size and fanout from argv (default
# 1,000,000 and 10, as published). Its second, "warmed-up" tree is not built (the first result is
# printed again), so that a process builds one tree as the driver's iteration does. Nothing else.
set -eu
cd "$(dirname "$0")"
sed -e 's/^const div = 10$/const div = Number(process.argv[3] || 10)/' \
    -e 's/(0, 1000000, div)/(0, size, div)/g' \
    -e "s/^const Promise = require('bluebird')$/const size = Number(process.argv[2] || 1000000)/" \
    -e 's/^    return skynetAsync(0, size, div)$/    return res/' \
    orig/skynet.js > skynet.js
grep -q 'process.argv\[2\]' skynet.js && grep -q 'process.argv\[3\]' skynet.js
! grep -q 'bluebird' skynet.js
! grep -q '1000000, div' skynet.js
! grep -q 'return skynetAsync(0, size' skynet.js
