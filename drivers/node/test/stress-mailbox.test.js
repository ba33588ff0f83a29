// Stress test of the hand-written mailbox (lib/mailbox.js) and of the ring's inline receive
// (lib/stock.js), run by the manifest's `check` under Node's own test runner:
//
//   node --expose-gc --test test/          (STRESS_SECONDS=N sets the time per test)
//
// 1. Queue against an array model: random pushes and shifts across many growths and wrap-arounds.
// 2. Random message traffic between processes: tokens hop between processes (and to themselves) at
//    random; every message carries a per-sender sequence number, and each receiver checks that it
//    sees every sender's messages in order, none lost, none twice. Main injects every token back to
//    back and processes yield at random, so messages arrive both while the owner waits on its
//    Promise and while it does not (and a second message can arrive after the Promise is resolved
//    but before its owner has resumed).
// 3. Rings of random size with several tokens, spread or in a burst, and trees (Stock).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { Meter } from '../lib/contract.js';
import { Mailbox, Queue } from '../lib/mailbox.js';
import { Stock } from '../lib/stock.js';

// 1 s by default (1.75 s of stress in all), 2 s with RINGBENCH_SLOW=1 (`make test-slow`): each bug
// seeded to check the test (the queue's growth ignoring its head, its wrap-around off by one, a
// send that leaves the resolver set, the ring's inline receive waiting while a message is queued)
// fails it within STRESS_SECONDS=1, on a machine loaded ~5 times over its cores. Set it higher for
// a longer hunt.
const SECONDS = Number(process.env.STRESS_SECONDS ?? (process.env.RINGBENCH_SLOW === '1' ? 2 : 1));

// A small seeded generator (mulberry32), so that a failure names the seed that reproduces it.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return next;
}

function forSeconds(seconds, body) {
  const end = performance.now() + seconds * 1000;
  let seed = 0;
  while (performance.now() < end) body(seed++);
  return seed;
}

test('Queue keeps FIFO order across growth and wrap-around', () => {
  const runs = forSeconds(SECONDS / 4, (seed) => {
    const r = rng(seed);
    const q = new Queue();
    const model = [];
    let next = 0;
    for (let step = 0; step < 5000; step++) {
      if (r() < (seed % 3 === 0 ? 0.7 : 0.5)) {
        q.push(next);
        model.push(next++);
      } else if (model.length) {
        assert.equal(q.shift(), model.shift(), `seed ${seed}`);
      }
      assert.equal(q.size, model.length, `seed ${seed}`);
    }
    while (model.length) assert.equal(q.shift(), model.shift(), `seed ${seed}`);
  });
  assert.ok(runs > 0);
});

async function traffic(seed) {
  const r = rng(seed);
  const nproc = r.int(1, 60);
  const ntok = r.int(1, 3 * nproc);
  const boxes = Array.from({ length: nproc }, () => new Mailbox());
  const main = new Mailbox();
  const receipts = new Array(nproc).fill(0);
  const sent = Array.from({ length: nproc + 1 }, () => new Array(nproc).fill(0)); // main is last
  const STOP = null;

  const send = (sender, to, tid, left) => {
    sent[sender][to]++;
    boxes[to].send([sender, sent[sender][to], tid, left]);
  };

  async function proc(me) {
    const pr = rng(seed * 1000 + me + 1);
    const seen = new Map();
    for (;;) {
      const q = boxes[me].q; // the ring's inline receive, or the method, at random
      const msg = pr() < 0.5 ? await boxes[me].receive() : q !== null && q.size !== 0 ? q.shift() : await boxes[me].wait();
      if (msg === STOP) return;
      const [sender, seq, tid, left] = msg;
      assert.equal((seen.get(sender) ?? 0) + 1, seq, `seed ${seed}: process ${me} from ${sender}`);
      seen.set(sender, seq);
      receipts[me]++;
      if (left === 0) main.send(tid);
      else send(me, pr.int(0, nproc - 1), tid, left - 1);
      if (pr() < 0.2) await null; // yield to the others
    }
  }

  const done = [];
  const procs = boxes.map((_, i) => proc(i).catch((e) => main.send(e)));
  if (r() < 0.5) await null; // let them block first, or not
  let expected = 0;
  for (let tid = 0; tid < ntok; tid++) {
    const hops = r.int(0, 200);
    expected += hops + 1;
    send(nproc, r.int(0, nproc - 1), tid, hops);
  }
  for (let i = 0; i < ntok; i++) {
    const msg = await main.receive();
    if (msg instanceof Error) throw msg;
    done.push(msg);
  }
  done.sort((a, b) => a - b);
  assert.deepEqual(done, Array.from({ length: ntok }, (_, i) => i), `seed ${seed}`);
  for (const box of boxes) box.send(STOP);
  await Promise.all(procs);
  assert.equal(receipts.reduce((a, b) => a + b, 0), expected, `seed ${seed}`);
  return expected;
}

test('random traffic: every message once, in order per sender', async () => {
  const end = performance.now() + SECONDS * 1000;
  let seed = 0;
  let hops = 0;
  while (performance.now() < end) hops += await traffic(seed++);
  assert.ok(seed > 0 && hops > 0);
});

test('rings with several tokens (spread and burst) and trees count exactly', async () => {
  const end = performance.now() + (SECONDS / 2) * 1000;
  const rt = new Stock();
  for (let seed = 0; performance.now() < end; seed++) {
    const r = rng(seed);
    const n = r.int(1, 300);
    const p = { n, m: r.int(1, 5), tokens: r.int(1, n), burst: r.int(0, 1), sample_ms: 0 };
    const count = await rt.ring(p, new Meter());
    rt.reset();
    assert.equal(count, p.n * p.m * p.tokens, `seed ${seed}: ${JSON.stringify(p)}`);
    const fanout = r.int(2, 6);
    const leaves = fanout ** r.int(0, 4);
    assert.equal(await rt.tree({ n: leaves, fanout }, new Meter()), (leaves * (leaves - 1)) / 2, `seed ${seed}`);
  }
});
