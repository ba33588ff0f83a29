#!/usr/bin/env bash
# The driver's own checks (driver.toml `check`): every file parses as the ES module it is, by V8
# (what `node --check` does for a module, vm.SourceTextModule, all files in one node process),
# ESLint's recommended rules with warnings as errors, shellcheck over the scripts (Debian's, in the
# manifest's apt list: missing, it fails), the stress test of the mailbox and the test of the spawn
# phase's boundary (test/).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck disable=SC2016 # the ${...} are JavaScript's, not the shell's
/usr/bin/node --experimental-vm-modules --no-warnings -e '
  const { readFileSync } = require("node:fs");
  const { SourceTextModule } = require("node:vm");
  let bad = 0;
  for (const f of process.argv.slice(1)) {
    try {
      new SourceTextModule(readFileSync(f, "utf8"), { identifier: f });
    } catch (e) {
      console.error(`${f}: ${e.name}: ${e.message}`);
      bad++;
    }
  }
  process.exit(bad ? 1 : 0);' -- *.js lib/*.js test/*.js
node_modules/.bin/eslint --max-warnings 0 .
shellcheck ./*.sh
/usr/bin/node --expose-gc --test test/
