// Perf (docs/driver-contract.md, section 11): the user's own JavaScript in a tight loop.
//
//   node driver.js [--variant=NAME] perf /tmp/job.json
//
// The main thread reads the job, checks every snippet (lib/perf-code.js: what each piece is, its
// arity) and prints `ready`; then, one snippet after another, it starts the snippet's job (a worker
// thread that runs init and, at the end, done) and its workers (worker threads, an isolate each, that
// run init_runner and then the runner's loop, compiled once with new Function: lib/perf-worker.js),
// releases them together, samples their counts on absolute deadlines (a SharedArrayBuffer, one slot
// a worker, stored after each chunk of iterations), reads the orchestrator's answers on stdin, stops
// the workers (a stop flag read between chunks; terminated if one does not stop) and prints every
// record. No user code runs on the main thread but the check (definitions' top level, function
// expressions evaluated for their arity); what the code prints goes to stderr.
import fs from 'node:fs';
import readline from 'node:readline';
import v8 from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DriverError, emit, procStatus, setRecordsFd } from './contract.js';
import { HOOKS, Snippet, setupIsolate } from './perf-code.js';

const KEYS = ['perf', 'mode', 'snippets', 'concurrency', 'loop', 'samples', 'sample_ms', 'warmup', 'ask',
  'max_samples', 'min', 'max', 'processes', 'code_path', 'stats', 'cores'];
const SNIPPET_KEYS = ['snippet', 'runner', 'init', 'init_runner', 'done', 'file'];
const MODES = ['continuous', 'timed', 'squeeze', 'check'];
const WORKER = new URL('./perf-worker.js', import.meta.url);
const now = process.hrtime.bigint;

// ---------------------------------------------------------------- the job file

function bad(message) {
  return new DriverError('bad_param', message);
}

function exactKeys(d, keys, what) {
  const missing = keys.find((k) => !Object.hasOwn(d, k));
  const unknown = Object.keys(d).find((k) => !keys.includes(k));
  if (missing !== undefined) throw bad(`${what} has no key ${missing}`);
  if (unknown !== undefined) throw bad(`${what} has an unknown key ${unknown}`);
}

function int(d, key, lo, hi) {
  const v = d[key];
  if (!Number.isInteger(v) || v < lo || v > hi) throw bad(`${key} must be an integer in ${lo}..${hi}, got ${JSON.stringify(v)}`);
}

export function readJob(file) {
  let job;
  try {
    job = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw bad(e.code ? `cannot read the job file ${file}: ${e.message}` : `the job file is not JSON: ${e.message}`);
  }
  if (job === null || typeof job !== 'object' || Array.isArray(job)) throw bad('the job file is not a JSON object');
  const { records, ...rest } = job; // optional: the descriptor the records go to (stdout without it)
  exactKeys(rest, KEYS, 'the job');
  if (records !== undefined) int(job, 'records', 3, 2 ** 20);
  int(job, 'perf', 1, 1);
  if (!MODES.includes(job.mode)) throw bad(`unknown mode ${JSON.stringify(job.mode)} (continuous, timed, squeeze or check)`);
  for (const [key, lo, hi] of [['concurrency', 1, 2 ** 27], ['loop', 0, 2 ** 62], ['samples', 1, 1e6],
    ['sample_ms', 1, 86_400_000], ['warmup', 0, 1e6], ['max_samples', 1, 1e6], ['min', 1, 2 ** 27],
    ['max', 1, 2 ** 27], ['cores', 1, 1024]]) {
    int(job, key, lo, hi);
  }
  for (const key of ['ask', 'processes', 'stats']) {
    if (typeof job[key] !== 'boolean') throw bad(`${key} must be true or false`);
  }
  if (!Array.isArray(job.code_path) || !job.code_path.every((p) => typeof p === 'string')) {
    throw bad('code_path must be a list of strings');
  }
  if (!Array.isArray(job.snippets) || !job.snippets.length) throw bad('snippets must be a non-empty list');
  for (const s of job.snippets) {
    if (s === null || typeof s !== 'object' || Array.isArray(s)) throw bad('each snippet must be a JSON object');
    exactKeys(s, SNIPPET_KEYS, 'a snippet');
    int(s, 'snippet', 1, 1e6);
    if (typeof s.runner !== 'string' || !HOOKS.every((h) => s[h] === null || typeof s[h] === 'string')) {
      throw bad(`snippet ${s.snippet}: the runner and hooks must be strings`);
    }
  }
  if (job.processes) {
    throw new DriverError('unsupported', 'Node workers are worker_threads, an isolate each, that share no lock: ' +
      'there are no OS-process workers (processes: true is for runtimes whose threads share one lock)');
  }
  if (job.loop > Number.MAX_SAFE_INTEGER) {
    throw new DriverError('unsupported', `loop = ${job.loop} is past 2^53 - 1, the largest integer a JavaScript Number counts exactly`);
  }
  return job;
}

// ---------------------------------------------------------------- records and answers

// A failure of the snippet's code: the record, and the driver ends at once (every worker with it).
function failure(k, phase, message) {
  emit({ type: 'error', kind: 'failure', snippet: k, phase, message });
  process.exit(1);
}

function phase(k, name) {
  emit({ type: 'phase', snippet: k, phase: name });
}

// The orchestrator's answers on stdin, one line each: more or enough (end of input: enough).
class Answers {
  constructor() {
    this.lines = [];
    this.waiting = null;
    this.closed = false;
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', (line) => this.push(line.trim()));
    rl.on('close', () => { this.closed = true; this.push(null); });
  }

  push(line) {
    if (line !== null) this.lines.push(line);
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve();
    }
  }

  async next() {
    while (!this.lines.length && !this.closed) await new Promise((resolve) => { this.waiting = resolve; });
    if (!this.lines.length) return 'enough';
    const word = this.lines.shift();
    if (word !== 'more' && word !== 'enough') throw bad(`expected more or enough on stdin, got ${JSON.stringify(word)}`);
    return word;
  }
}

// ---------------------------------------------------------------- worker threads

// A worker thread of one snippet: its messages, its failure (the failure record, at once), its end.
function start(k, workerData, onMessage) {
  const t = new Worker(WORKER, { workerData });
  t.phase = workerData.role === 'job' ? 'init' : 'init_runner';
  t.stopping = false;
  t.exited = new Promise((resolve) => t.once('exit', resolve));
  t.on('message', (m) => {
    if (m.type === 'failure') failure(k, m.phase, m.message);
    if (m.type === 'timed_done' || m.type === 'done_ok') t.stopping = true; // its work is over: it may end now
    onMessage(m);
  });
  t.on('error', (e) => failure(k, t.phase, `${e?.name ?? 'Error'}: ${e?.message ?? e}`));
  t.on('exit', (code) => {
    if (!t.stopping) failure(k, t.phase, `a worker thread of the snippet ended (exit code ${code})`);
  });
  return t;
}

// The next message of that type from the thread.
function message(t, type) {
  return new Promise((resolve) => {
    const listener = (m) => {
      if (m.type !== type) return;
      t.off('message', listener);
      resolve(m);
    };
    t.on('message', listener);
  });
}

async function sleepUntil(deadline) {
  for (let left = deadline - now(); left > 0n; left = deadline - now()) {
    await sleep(Math.max(1, Math.ceil(Number(left) / 1e6)));
  }
}

// ---------------------------------------------------------------- measuring

async function measure(job, spec, answers) {
  const k = spec.snippet;
  phase(k, 'init');
  const jobThread = start(k, { role: 'job', spec, codePath: job.code_path }, () => {});
  const { value: init } = await message(jobThread, 'init_done');
  if (job.mode === 'timed') {
    await timed(job, spec, init);
  } else {
    const steps = [];
    if (job.mode === 'continuous') steps.push(job.concurrency);
    else for (let c = job.min; c <= job.max; c++) steps.push(c);
    await sampled(job, spec, init, steps, answers);
  }
  phase(k, 'done');
  jobThread.phase = 'done';
  const finished = message(jobThread, 'done_ok');
  jobThread.postMessage({ type: 'done' });
  await finished;
  await jobThread.terminate();
  emit({ type: 'finished', snippet: k });
}

async function timed(job, spec, init) {
  const k = spec.snippet;
  phase(k, 'init_runner');
  const control = new Int32Array(new SharedArrayBuffer(8));
  let results = 0;
  const t = start(k, { role: 'timed', spec, codePath: job.code_path, init, control, batch: 1, loop: job.loop,
    warmup: job.warmup, samples: job.samples }, (m) => {
    if (m.type !== 'result') return;
    results++;
    emit({ type: 'result', workload: 'perf', snippet: k, iteration: m.iteration, loop: job.loop, count: job.loop,
      run_ns: m.ns, run_cpu_ns: m.cpu_ns });
  });
  await message(t, 'ready');
  phase(k, 'running');
  t.phase = 'runner';
  const done = message(t, 'timed_done');
  release(control, 1);
  await done;
  await t.terminate();
  if (results !== job.samples) failure(k, 'runner', `${results} of ${job.samples} timed samples reported`);
  emit({ type: 'total', snippet: k, count: job.loop * (job.warmup + job.samples) });
}

function release(control, batch) {
  Atomics.store(control, 1, batch);
  Atomics.notify(control, 1);
}

async function sampled(job, spec, init, steps, answers) {
  const k = spec.snippet;
  const capacity = job.mode === 'squeeze' ? Math.max(job.concurrency, job.max) : job.concurrency;
  const counts = new BigInt64Array(new SharedArrayBuffer(8 * capacity));
  const control = new Int32Array(new SharedArrayBuffer(8));
  const heap = job.stats ? new BigInt64Array(new SharedArrayBuffer(32 * capacity)) : null;
  const threads = [];
  const count = () => {
    let n = 0;
    for (let i = 0; i < threads.length; i++) n += Number(Atomics.load(counts, i));
    return n;
  };
  const stats = heap ? new HeapStats(heap, () => threads.length) : null;
  const t0 = now();
  for (let step = 1; step <= steps.length; step++) {
    const want = steps[step - 1];
    phase(k, 'init_runner');
    const batch = [];
    for (let slot = threads.length; slot < want; slot++) {
      const t = start(k, { role: 'runner', spec, codePath: job.code_path, init, counts, control, slot, batch: step,
        chunkMs: job.sample_ms / 100, heap }, () => {});
      batch.push(message(t, 'ready'));
      threads.push(t);
    }
    await Promise.all(batch);
    phase(k, 'running');
    for (const t of threads) t.phase = 'runner';
    release(control, step);
    const startNs = now();
    sample(k, step, want, 0, startNs - t0, count());
    await takeSamples(job, k, step, want, t0, startNs, count, stats, answers);
    if (step === steps.length) break;
    emit({ type: 'step', snippet: k, step, concurrency: want });
    if (await answers.next() === 'enough') break;
  }
  // Stop: each worker ends after its chunk; one stuck inside an iteration is terminated.
  Atomics.store(control, 0, 1);
  for (const t of threads) t.stopping = true;
  const deadline = sleep(Math.max(1000, 2 * job.sample_ms)).then(() => 'late');
  await Promise.all(threads.map(async (t) => {
    if (await Promise.race([t.exited, deadline]) === 'late') await t.terminate();
  }));
  emit({ type: 'total', snippet: k, count: count() });
}

async function takeSamples(job, k, step, conc, t0, startNs, count, stats, answers) {
  const { warmup: w, samples: n, ask, max_samples: most } = job;
  const period = BigInt(job.sample_ms) * 1_000_000n;
  const last = w + (ask ? Math.max(n, most) : n);
  for (let seq = 1; ; seq++) {
    await sleepUntil(startNs + BigInt(seq) * period);
    sample(k, step, conc, seq, now() - t0, count());
    stats?.emit(k, step, seq);
    if (seq >= last) return;
    if (ask && seq - w >= n && await answers.next() === 'enough') return;
  }
}

function sample(k, step, conc, seq, elapsedNs, count) {
  emit({ type: 'sample', snippet: k, step, concurrency: conc, seq, elapsed_ns: Number(elapsedNs), count });
}

// -v: V8's heap after each sample, the workers' isolates together (each publishes its figures every
// ~10 % of the sample period, lib/perf-worker.js) with the main thread's; their collections and
// pauses over the sample (v8.GCProfiler in each worker); the process's memory and threads.
class HeapStats {
  constructor(heap, workers) {
    this.heap = heap;
    this.workers = workers;
    this.before = [0, 0];
  }

  emit(k, step, seq) {
    const h = v8.getHeapStatistics();
    let used = h.used_heap_size;
    let total = h.total_heap_size;
    let collections = 0;
    let pause = 0;
    for (let i = 0; i < this.workers(); i++) {
      used += Number(Atomics.load(this.heap, 4 * i));
      total += Number(Atomics.load(this.heap, 4 * i + 1));
      collections += Number(Atomics.load(this.heap, 4 * i + 2));
      pause += Number(Atomics.load(this.heap, 4 * i + 3));
    }
    const st = procStatus();
    emit({
      type: 'stats', workload: 'perf', snippet: k, step, seq, isolates: this.workers() + 2,
      gc_count: collections - this.before[0], gc_pause_ns: pause - this.before[1],
      heap_used: used, heap_total: total, heap_limit: h.heap_size_limit, rss: st.VmRSS, threads: st.Threads,
    });
    this.before = [collections, pause];
  }
}

// ---------------------------------------------------------------- entry

// `perf <job.json>`: the exit status (errors end the driver through DriverError or a failure record).
export async function perf(argv) {
  if (argv.length !== 1) throw bad('usage: driver.js [--variant=NAME] perf <job.json>');
  const job = readJob(argv[0]);
  if (job.records !== undefined) setRecordsFd(job.records);
  let require;
  try {
    require = await setupIsolate(job.code_path);
  } catch (e) {
    throw bad(`code_path (--require): ${e?.message ?? e}`);
  }
  const snippets = job.snippets.map((s) => new Snippet(s));
  for (const s of snippets) {
    try {
      await s.load(require);
    } catch (e) {
      if (e instanceof DriverError) throw e;
      throw bad(`snippet ${s.k}: ${e?.name ?? 'Error'}: ${e?.message ?? e}`);
    }
  }
  emit({ type: 'ready', snippets: snippets.length, runner_arity: snippets.map((s) => s.runner.arity) });
  if (job.mode === 'check') return 0;
  const answers = new Answers();
  for (const spec of job.snippets) await measure(job, spec, answers);
  return 0;
}
