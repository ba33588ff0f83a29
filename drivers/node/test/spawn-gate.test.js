// The spawn phase's boundary (contract section 3), run by the manifest's `check` under Node's own
// test runner (node --expose-gc --test test/). As the spawn phase's clocks stop (Meter.spawnEnds)
// every process has arrived at the gate and is suspended in its first receive (its mailbox holds
// the resolve function of the Promise it awaits), and a process that sleeps 200 ms before it
// arrives holds the reported set-up time (setup_ns) back by as long. A main that went on without
// waiting at the gate, or woke one arrival early, ends the phase while the slow process sleeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Meter } from '../lib/contract.js';
import { Stock, ringProcess } from '../lib/stock.js';

const DELAY_MS = 200;

// A Meter that counts, as the spawn phase's clocks stop, the processes waiting in their receive.
class Probe extends Meter {
  constructor(boxes) {
    super();
    this.boxes = boxes;
    this.waiting = -1;
  }

  spawnEnds(ready) {
    super.spawnEnds(ready);
    this.waiting = this.boxes.filter((box) => box.w !== null).length;
  }
}

// One spawn phase of the workload's own code, its processes ringProcess behind a wrapper that
// records each mailbox and makes the process started slow-th (if any) sleep before it runs.
async function spawnOnce(n, slow) {
  const boxes = [];
  let started = 0;
  const proc = async (box, next, main) => {
    boxes.push(box);
    if (started++ === slow) {
      // at least DELAY_MS by the clock the meter reads (a timer may fire a little early)
      const until = performance.now() + DELAY_MS;
      while (performance.now() < until) await sleep(until - performance.now());
    }
    return ringProcess(box, next, main);
  };
  const meter = new Probe(boxes);
  const rt = new Stock();
  const count = await rt.spawn({ n }, meter, true, proc);
  rt.reset();
  return { count, ready: meter.ready, waiting: meter.waiting, setupMs: meter.setupNs / 1e6 };
}

test('spawn ends with every process arrived and waiting in its first receive', async () => {
  for (const n of [1, 2, 100, 5000]) {
    const r = await spawnOnce(n, -1);
    assert.deepEqual([r.count, r.ready, r.waiting], [n, n, n], `n=${n}: ${JSON.stringify(r)}`);
  }
});

test('a process slow to arrive at the gate delays the end of spawn by as long', async () => {
  for (const n of [1, 2, 1000]) {
    for (const slow of new Set([0, n - 1])) {
      const r = await spawnOnce(n, slow);
      const what = `n=${n}, process ${slow} ${DELAY_MS} ms slow: ${JSON.stringify(r)}`;
      assert.deepEqual([r.count, r.ready, r.waiting], [n, n, n], what);
      assert.ok(r.setupMs >= DELAY_MS, what);
    }
  }
});
