#!/usr/bin/env bash
# The driver's own checks (driver.toml `check`): every file parses (node --check), ESLint's
# recommended rules with warnings as errors, shellcheck over the scripts (Debian's, in the manifest's
# apt list: missing, it fails), the stress test of the mailbox and the test of the spawn phase's
# boundary (test/).
set -euo pipefail
cd "$(dirname "$0")"
for f in *.js lib/*.js test/*.js; do
  /usr/bin/node --check "$f"
done
node_modules/.bin/eslint --max-warnings 0 .
shellcheck ./*.sh
/usr/bin/node --expose-gc --test test/
