// The stock variant: one async function per process, each owning a promise mailbox (mailbox.js).
// A process is called like any async function: it runs at once, up to its first `await`, and is
// then suspended by V8 until the Promise it awaits is resolved; its continuation runs as a
// microtask. One event loop on one thread runs every process.
import { performance } from 'node:perf_hooks';
import { ENDLESS_TOKEN, HopLog, printSample, tokenStarts } from './contract.js';
import { Mailbox } from './mailbox.js';

// The gate: each process arrives (counts one) just before its first receive (one event loop, so
// a plain counter). A process runs from its call up to its first `await`, so when main's spawning
// loop ends every process here has arrived, suspended in its first receive, and main goes straight
// on. Were one still short of its receive (a test's process that sleeps first), main waits at the
// gate (untilArrived) and the arrival that completes the count wakes it, once.
let arrived = 0;
let want = 0; // the count main waits for (0: main is not waiting)
let wake = null; // the resolve function of the Promise main awaits at the gate

function arrive() {
  if (++arrived === want) {
    const w = wake;
    want = 0;
    wake = null;
    w();
  }
}

// Main at the gate, short of n arrivals: a Promise the n-th arrival resolves.
function untilArrived(n) {
  want = n;
  return new Promise((resolve) => {
    wake = resolve;
  });
}

function resetGate() {
  arrived = want = 0;
  wake = null;
}

// One process of the ring (and, with main as its successor, of spawn). Exported for the test of the
// spawn phase's boundary (test/), which wraps it.
//
// A hop: the sender's `w(v - 1)` fulfils this process's Promise, which queues its continuation as
// one microtask; the sender then finds its own queue empty, makes a new Promise and suspends at
// `await`; the microtask resumes this process with the value: one compare, one receipt count.
// v <= 0 is the proof, minus the receipts counted so far: main sends 0 to p0, the only process that
// ever receives 0; each process subtracts its count, passes it on and ends, and p0 waits for it to
// come back round and sends main the sum. (Few parameters and locals: V8 saves them at each await.)
export async function ringProcess(box, next, main) {
  let count = 0;
  arrive();
  for (;;) {
    const q = box.q;
    const v = q !== null && q.size !== 0 ? q.shift() : await box.wait();
    if (v > 1) {
      count++;
      next.send(v - 1);
    } else if (v === 1) {
      count++;
      main.send(0); // a token finished
    } else {
      next.send(v - count);
      if (v === 0) main.send(-(await box.receive()));
      return;
    }
  }
}

// p0 in continuous mode: counts the laps, and wakes main when a sample is due. Main cannot sleep
// on a timer while the ring runs (microtasks run before timers), so p0 reads the clock every
// `laps.every` laps (about every 1,000 hops) and sends main the count when the time has come.
async function ringHeadContinuous(box, next, laps, main) {
  arrive();
  for (;;) {
    const q = box.q;
    const v = q !== null && q.size !== 0 ? q.shift() : await box.wait();
    next.send(v);
    if (++laps.count >= laps.check) {
      laps.check = laps.count + laps.every;
      if (performance.now() >= laps.due) {
        laps.due = Infinity;
        main.send(laps.count);
        await null; // let main run even when p0's own queue is never empty (n = 1)
      }
    }
  }
}

async function pinger(box, pong, main, m) {
  arrive();
  await box.receive(); // the start signal
  for (let i = 0; i < m; i++) {
    pong.send(1);
    await box.receive();
  }
  pong.send(0);
  main.send(0); // done
}

async function ponger(box, ping, main) {
  let count = 0;
  arrive();
  while (await box.receive()) {
    count++;
    ping.send(1);
  }
  main.send(count); // the round trips it counted
}

async function faninReceiver(box, main, total) {
  let count = 0;
  arrive();
  while (count < total) {
    const q = box.q;
    if (q !== null && q.size !== 0) q.shift();
    else await box.wait();
    count++;
  }
  main.send(count);
}

async function faninSender(box, to, m) {
  arrive();
  await box.receive(); // the start signal
  for (let i = 0; i < m; i++) to.send(1); // a send never blocks
}

// Covers leaves lo .. lo+n-1: an async function per child, sums their messages, sends the sum to
// its parent and ends. A child runs as soon as it is called, up to its first await: a leaf sends
// its ordinal and ends inside its parent's loop; an inner node suspends at its first receive.
async function treeNode(lo, n, fanout, parent) {
  if (n > 1) {
    const box = new Mailbox();
    const k = n / fanout;
    for (let i = 0; i < fanout; i++) treeNode(lo + i * k, k, fanout, box);
    let sum = 0;
    for (let i = 0; i < fanout; i++) sum += await box.receive();
    parent.send(sum);
  } else {
    parent.send(lo);
  }
}

// A ring process of the trace: the token carries its sender's index; each hop is printed here.
async function traceProcess(i, box, next, main, log) {
  arrive();
  for (;;) {
    const [v, sender] = await box.receive();
    if (v === 0) return; // released after the run
    log.hop(sender, i);
    if (v === 1) {
      main.send(0);
      return;
    }
    next.send([v - 1, i]);
  }
}

function mailboxes(n) {
  const boxes = [];
  for (let i = 0; i < n; i++) boxes.push(new Mailbox());
  return boxes;
}

export class Stock {
  constructor() {
    resetGate();
  }

  reset() {
    resetGate();
  }

  async ring(p, meter) {
    const n = p.n;
    const continuous = p.sample_ms > 0;
    const main = new Mailbox();
    const laps = { count: 0, check: 1, every: Math.ceil(1024 / n), due: Infinity };
    meter.spawnBegins();
    const boxes = mailboxes(n);
    for (let i = 0; i < n; i++) { // in ring order: each runs to its first receive as it is called
      const next = boxes[i + 1 < n ? i + 1 : 0];
      if (continuous && i === 0) ringHeadContinuous(boxes[0], next, laps, main);
      else ringProcess(boxes[i], next, main);
    }
    if (arrived < n) await untilArrived(n);
    meter.spawnEnds(arrived);
    const starts = tokenStarts(p);
    if (continuous) return this.samples(p, boxes, starts, laps, main);
    const v = n * p.m;
    meter.runBegins();
    for (const k of starts) boxes[k].send(v);
    for (let j = 0; j < starts.length; j++) await main.receive();
    meter.runEnds();
    boxes[0].send(0); // the proof
    return await main.receive();
  }

  async samples(p, boxes, starts, laps, main) {
    const period = p.sample_ms;
    const t0 = performance.now();
    const start = process.hrtime.bigint();
    for (const k of starts) boxes[k].send(ENDLESS_TOKEN);
    for (let seq = 1; seq <= p.samples; seq++) {
      laps.due = t0 + seq * period;
      await main.receive();
      printSample(seq, Number(process.hrtime.bigint() - start), laps.count * p.n);
    }
    return null;
  }

  // n ring processes whose successor is main: each holds what a ring process holds. proc is the
  // process (ringProcess; the test of the boundary passes one that is slow to arrive).
  async spawn(p, meter, _measured, proc = ringProcess) {
    const n = p.n;
    const main = new Mailbox();
    meter.spawnBegins();
    const boxes = mailboxes(n);
    for (let i = 0; i < n; i++) proc(boxes[i], main, main);
    if (arrived < n) await untilArrived(n);
    meter.spawnEnds(arrived);
    for (const box of boxes) box.send(-1); // the stop message: each answers main and ends
    for (let i = 0; i < n; i++) await main.receive();
    return meter.ready;
  }

  async pingpong(p, meter) {
    const main = new Mailbox();
    const a = new Mailbox();
    const b = new Mailbox();
    meter.spawnBegins();
    pinger(a, b, main, p.m);
    ponger(b, a, main);
    if (arrived < 2) await untilArrived(2);
    meter.spawnEnds(arrived);
    meter.runBegins();
    a.send(1);
    await main.receive(); // A is done
    meter.runEnds();
    return await main.receive(); // B's count
  }

  async fanin(p, meter) {
    const { n, m } = p;
    const main = new Mailbox();
    const to = new Mailbox();
    meter.spawnBegins();
    faninReceiver(to, main, n * m);
    const boxes = mailboxes(n);
    for (const box of boxes) faninSender(box, to, m);
    if (arrived < n + 1) await untilArrived(n + 1);
    meter.spawnEnds(arrived);
    meter.runBegins();
    for (const box of boxes) box.send(1); // the start signal
    const count = await main.receive();
    meter.runEnds();
    return count;
  }

  async tree(p, meter) {
    const main = new Mailbox();
    meter.treeBegins();
    treeNode(0, p.n, p.fanout, main);
    const total = await main.receive();
    meter.treeEnds();
    return total;
  }

  async trace(p, meter, emitHops) {
    const { n, m } = p;
    const main = new Mailbox();
    const log = new HopLog(n, emitHops);
    meter.spawnBegins();
    const boxes = mailboxes(n);
    for (let i = 0; i < n; i++) traceProcess(i, boxes[i], boxes[(i + 1) % n], main, log);
    if (arrived < n) await untilArrived(n);
    meter.spawnEnds(arrived);
    meter.runBegins();
    boxes[0].send([n * m, -1]);
    await main.receive();
    meter.runEnds();
    // release the others: the process that ended the token has returned
    const last = (n * m - 1) % n;
    for (let i = 0; i < n; i++) if (i !== last) boxes[i].send([0, -2]);
    return log.hops;
  }
}
