// Perf (docs/driver-contract.md, section 11): a worker thread, an isolate of its own, started by
// lib/perf.js. Its role is one of:
//   job     runs init, sends its value (structured clone), waits; runs done when told, then says so.
//   runner  runs init_runner, says it is ready, waits to be released (Atomics.wait), then iterates
//           until the stop flag is set, its count in its slot of the shared counts (continuous, squeeze).
//   timed   runs init_runner, is released, runs the timed samples, each reported as it ends.
// A hook or the runner that throws: a `failure` message with the runtime's own text and the phase.
import v8 from 'node:v8';
import { parentPort, workerData as w } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Snippet, continuousLoop, errorText, setupIsolate, timedLoop } from './perf-code.js';

let phase = w.role === 'job' ? 'init' : 'init_runner';

function fail(e) {
  parentPort.postMessage({ type: 'failure', phase, message: errorText(e) });
  process.exit(1);
}

// An exception thrown later by the snippet's own callbacks (a timer, a rejected promise) is its failure too.
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

try {
  const require = await setupIsolate(w.codePath);
  const snippet = new Snippet(w.spec);
  await snippet.load(require, w.role === 'job' ? ['init', 'done'] : ['init_runner', 'runner']);
  if (w.role === 'job') await job(snippet);
  else await worker(snippet);
} catch (e) {
  fail(e);
}

async function job(snippet) {
  const value = snippet.hooks.init ? await snippet.hooks.init.value([]) : undefined;
  try {
    parentPort.postMessage({ type: 'init_done', value });
  } catch (e) {
    throw new Error(`${errorText(e)} (init's value goes to the workers by structured clone)`, { cause: e });
  }
  parentPort.once('message', async () => {
    phase = 'done';
    try {
      if (snippet.hooks.done) await snippet.hooks.done.value([value]);
      parentPort.postMessage({ type: 'done_ok' });
    } catch (e) {
      fail(e);
    }
  });
}

async function worker(snippet) {
  const ir = snippet.hooks.init_runner;
  const a = ir ? await ir.value([w.init]) : undefined;
  const ctx = { f: snippet.runner.func, a };
  parentPort.postMessage({ type: 'ready' });
  const control = w.control; // [0]: stop, [1]: the last batch released
  while (Atomics.load(control, 1) < w.batch) Atomics.wait(control, 1, Atomics.load(control, 1));
  phase = 'runner';
  if (w.role === 'timed') {
    Object.assign(ctx, {
      loop: w.loop, plan: w.warmup + w.samples, hr: process.hrtime.bigint,
      cpu: () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; },
      report: (i, ns, cpuNs) => {
        if (i > w.warmup) parentPort.postMessage({ type: 'result', iteration: i - w.warmup, ns: Number(ns), cpu_ns: cpuNs });
      },
    });
    timedLoop(snippet.runner)(ctx);
    parentPort.postMessage({ type: 'timed_done' });
    return;
  }
  Object.assign(ctx, {
    counts: w.counts, slot: w.slot, control, now: () => performance.now(), chunkMs: w.chunkMs, maxChunk: 2 ** 30,
  });
  if (w.heap) ctx.heap = heapPublisher(w.heap, w.slot);
  continuousLoop(snippet.runner, Boolean(w.heap))(ctx);
  process.exit(0); // stopped: the count is in its slot
}

// -v: this isolate's heap and its collections since it started (v8.GCProfiler), in its slot of the
// shared figures: [used, total, collections, pause ns] per worker.
function heapPublisher(heap, slot) {
  const profiler = new v8.GCProfiler();
  profiler.start();
  let collections = 0;
  let pauseUs = 0;
  return () => {
    for (const s of profiler.stop()?.statistics ?? []) {
      collections++;
      pauseUs += s.cost;
    }
    profiler.start();
    const h = v8.getHeapStatistics();
    const base = 4 * slot;
    Atomics.store(heap, base, BigInt(h.used_heap_size));
    Atomics.store(heap, base + 1, BigInt(h.total_heap_size));
    Atomics.store(heap, base + 2, BigInt(collections));
    Atomics.store(heap, base + 3, BigInt(Math.round(pauseUs * 1000)));
  };
}
