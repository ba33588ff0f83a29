#!/usr/bin/env bash
# Re-runs every measurement quoted in docs/results.md, into results/published.db, and writes each
# run's Markdown table to docs/results/<name>.md. Usage: scripts/measure-results.sh [NAME...]
# (no NAME: all). Takes a long time; run it on an idle machine.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/.cargo/bin:$PATH"
DB=results/published.db
RB=.venv/bin/ringbench
OUT=docs/results

measure() {  # measure NAME ringbench-args...
  local name=$1; shift
  if [ -n "$ONLY" ] && ! grep -qw -- "$name" <<<"$ONLY"; then return; fi
  echo "== $name: ringbench $*" >&2
  $RB "$@" --db "$DB" > "$OUT/$name.txt" 2>&1
  local run
  run=$(sqlite3 "$DB" "SELECT max(id) FROM runs" 2>/dev/null || .venv/bin/python -c "import sqlite3;print(sqlite3.connect('$DB').execute('select max(id) from runs').fetchone()[0])")
  { echo "Command: \`ringbench $*\` (run $run in $DB)"; echo; $RB export "$run" --format markdown --db "$DB"; } > "$OUT/$name.md"
}
ONLY="${*:-}"

# issue 2/3: the ring at four sizes, every driver (M fixed per N; see docs/results.md)
measure ring-1k      run ring -r all -n 1000    -m 1000 --repeat 3
measure ring-10k     run ring -r all -n 10000   -m 100  --repeat 3
measure ring-100k    run ring -r all -n 100000  -m 10   --repeat 3
measure ring-1m      run ring -r all -n 1000000 -m 2    --repeat 3 --warmup 0
measure bench        bench
# issue 4: the workload catalogue
measure spawn        run spawn    -r all -n 100000 --repeat 3
measure memory       run memory   -r all -n 10000  --repeat 3
measure msgcost      sweep msgcost -r erlang,go,c-coro,rust-tokio,java-virtual -n 2,100,10000,1000000 --hops 2000000 --repeat 3
measure pingpong     run pingpong -r all -m 100000 --repeat 3
measure fanin        run fanin    -r all -n 1000 -m 1000 --repeat 3
measure selective    sweep selective -r all -n 1000,4000 -m 1 --repeat 3
measure tokens       run ring -r all -n 10000 -m 10 --tokens 4 --repeat 3
# issue 5: harness modes
measure continuous   run ring -r erlang,go -n 1000 --continuous --samples 5 --sample-ms 500
measure cv           run ring -r c-coro -n 1000 --continuous --samples 3 --sample-ms 200 --cv 0.02
measure squeeze      run ring -r erlang,go -n 1000 --squeeze --max 8 --sample-ms 300 --cores all
measure inprocess    run ring -r java-virtual,go -n 10000 -m 100 --in-process --repeat 5 -v
# issue 6: a sweep of every driver, for the report
measure sweep        sweep ring -r all -n 1000,10000 -m 10,100 --repeat 3
