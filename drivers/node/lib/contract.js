// What a JavaScript driver shares with every driver: the contract, not the runtime's idiom
// (docs/driver-contract.md, version 4). The verbs and the `--variant=` option, parameters and
// bounds, the iteration loop, the clocks, the one collection between phases, the memory rule, the
// records. A driver hands `serve` its description and a `prepare(variant, workload, p)` that returns
// an object whose async methods are the workloads, each called as method(p, meter, emitHops) and
// returning the count it proved (a Number). Nothing here runs inside a timed phase except the clock
// reads that bound it. Standard library only.
import fs from 'node:fs';
import v8 from 'node:v8';
import { performance, PerformanceObserver, constants as perf } from 'node:perf_hooks';

export const CONTRACT = 4;
export const CLOCK =
  'process.hrtime.bigint (uv_hrtime: CLOCK_MONOTONIC); CPU: process.resourceUsage (getrusage, 1 us resolution)';
export const COLLECTOR = 'v8 orinoco';
const EXIT = { bad_param: 2, unknown_workload: 2, unsupported: 2, limit: 3, failure: 1 };

// A JavaScript Number counts exactly up to 2^53 - 1: the largest token value, count and sum here.
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;
// A token value for continuous mode: counted down by one per hop, it does not finish in any run
// (2^53 hops take years).
export const ENDLESS_TOKEN = MAX_EXACT;

// ---------------------------------------------------------------- output

// All of `text` to file descriptor `fd` (1 by default) at once, through a non-blocking pipe's EAGAIN.
export function writeAll(text, fd = 1) {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

function json(rec) {
  const parts = [];
  for (const [k, v] of Object.entries(rec)) parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${parts.join(',')}}`;
}

// Where records go: stdout, or a perf job's `records` descriptor (contract section 11), which a
// snippet's own writes to stdout cannot reach.
let recordsFd = 1;

export function setRecordsFd(fd) {
  recordsFd = fd;
}

// One JSON Lines record, written at once (fs.writeSync): never inside a timed phase.
export function emit(rec) {
  writeAll(json(rec) + '\n', recordsFd);
}

export function printSample(seq, elapsedNs, count) {
  emit({ type: 'sample', seq, elapsed_ns: elapsedNs, count });
}

// trace: counts the hops as the processes report them, and prints each unless a warm-up.
export class HopLog {
  constructor(n, printing) {
    this.n = n;
    this.printing = printing;
    this.hops = 0;
  }

  hop(sender, receiver) {
    this.hops++;
    if (this.printing) {
      emit({ type: 'hop', hop: this.hops, lap: Math.floor((this.hops - 1) / this.n) + 1, from: sender, to: receiver });
    }
  }
}

export class DriverError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

let dying = false;

// Print the error record and exit at once; the first caller's record is the only one.
export function die(kind, message) {
  if (!dying) {
    dying = true;
    emit({ type: 'error', kind, message });
  }
  process.exit(EXIT[kind]);
}

// ---------------------------------------------------------------- parameters (sections 2 and 6)

export const WORKLOAD_KEYS = {
  ring: ['n', 'm', 'tokens', 'burst'],
  spawn: ['n'],
  pingpong: ['m'],
  fanin: ['n', 'm'],
  selective: ['n', 'm', 'reverse'],
  tree: ['n', 'fanout'],
  trace: ['n', 'm'],
};
const REQUIRED = {
  ring: ['n', 'm'], // m may be left out in continuous mode
  spawn: ['n'],
  pingpong: ['m'],
  fanin: ['n', 'm'],
  selective: ['n', 'm'],
  tree: ['n'],
  trace: ['n', 'm'],
};
const KEY_DEFAULTS = { tokens: 1, burst: 0, reverse: 0, fanout: 10 };
const COMMON_KEYS = ['repeats', 'warmup', 'cores', 'sample_ms', 'samples', 'stats'];
const COMMON_DEFAULTS = { repeats: 1, warmup: 0, sample_ms: 0, samples: 3, stats: 0 };
// Inclusive. tokens is further bounded by n, trace's n and m by TRACE_MAX, tree's n by the power rule.
const BOUNDS = {
  n: [1, 100_000_000],
  m: [1, 1_000_000_000],
  tokens: [1, 100_000_000],
  burst: [0, 1],
  reverse: [0, 1],
  fanout: [2, 1_000],
  repeats: [1, 1_000_000],
  warmup: [0, 1_000_000],
  cores: [1, 1_024],
  sample_ms: [0, 86_400_000],
  samples: [1, 1_000_000],
  stats: [0, 1],
};
const TRACE_MAX = 100;
const MAX_HOPS = 1n << 62n;

function boundText(key, lo, hi) {
  return lo === 0 && hi === 1 ? `${key} must be 0 or 1` : `${key} must be an integer in ${lo}..${hi}`;
}

// key=value arguments to an object with every key of the workload and the common keys filled in.
export function parseParams(workload, args, cpus) {
  const allowed = WORKLOAD_KEYS[workload];
  const p = {};
  for (const a of args) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new DriverError('bad_param', `expected key=value, got '${a}'`);
    const key = a.slice(0, eq);
    const val = a.slice(eq + 1);
    if (!allowed.includes(key) && !COMMON_KEYS.includes(key)) {
      throw new DriverError('bad_param', `unknown key '${key}' for workload ${workload} ` +
        `(allowed: ${[...allowed, ...COMMON_KEYS].join(', ')})`);
    }
    if (Object.hasOwn(p, key)) throw new DriverError('bad_param', `key '${key}' given twice`);
    const lo = BOUNDS[key][0];
    const hi = workload === 'trace' && (key === 'n' || key === 'm') ? TRACE_MAX : BOUNDS[key][1];
    // ASCII digits only: no sign, no blanks, no other scripts' digits
    if (!/^[0-9]+$/.test(val)) throw new DriverError('bad_param', `${boundText(key, lo, hi)}, got '${val}'`);
    const v = val.length <= 15 ? Number(val) : hi + 1; // 15 digits are exact; longer is past every bound
    if (v < lo || v > hi) throw new DriverError('bad_param', `${boundText(key, lo, hi)}, got '${val}'`);
    p[key] = v;
  }
  const continuous = workload === 'ring' && (p.sample_ms ?? 0) > 0;
  for (const key of REQUIRED[workload]) {
    if (!Object.hasOwn(p, key) && !(continuous && key === 'm')) {
      throw new DriverError('bad_param', `missing required key '${key}' for workload ${workload}`);
    }
  }
  for (const key of allowed) if (Object.hasOwn(KEY_DEFAULTS, key)) p[key] ??= KEY_DEFAULTS[key];
  for (const [key, dflt] of Object.entries(COMMON_DEFAULTS)) p[key] ??= dflt;
  p.cores ??= Math.min(cpus, BOUNDS.cores[1]);
  if (workload === 'ring') {
    if (p.tokens > p.n) throw new DriverError('bad_param', `tokens must be an integer in 1..n (${p.n}), got '${p.tokens}'`);
    if (!continuous && BigInt(p.n) * BigInt(p.m) * BigInt(p.tokens) >= MAX_HOPS) {
      throw new DriverError('bad_param', 'n*m*tokens must be < 2^62');
    }
  }
  if ((workload === 'fanin' || workload === 'selective') && BigInt(p.n) * BigInt(p.m) >= MAX_HOPS) {
    throw new DriverError('bad_param', 'n*m must be < 2^62');
  }
  if (workload === 'tree') checkPowerOfFanout(p.n, p.fanout);
  if (p.sample_ms > 0 && workload !== 'ring') {
    throw new DriverError('unsupported', 'continuous mode (sample_ms>0) is defined only for ring');
  }
  return p;
}

// Valid requests that a JavaScript Number cannot count exactly (runs of more than 2^53 hops, years).
function checkExact(workload, p) {
  const exact = (what, value) => {
    if (value > BigInt(MAX_EXACT)) {
      throw new DriverError('unsupported', `${what} = ${value} is past 2^53 - 1, the largest integer a ` +
        'JavaScript Number counts exactly (a run of that many hops would take years)');
    }
  };
  if (workload === 'ring' && p.sample_ms === 0) exact('n*m*tokens', BigInt(p.n) * BigInt(p.m) * BigInt(p.tokens));
  if (workload === 'fanin') exact('n*m', BigInt(p.n) * BigInt(p.m));
}

// tree's n (leaves) must be fanout^k for some k >= 0.
function checkPowerOfFanout(n, fanout) {
  let power = 1;
  while (power < n) power *= fanout;
  if (power !== n) {
    throw new DriverError('bad_param', `tree's n (leaves) must be a power of the fanout ${fanout}, got ${n} ` +
      `(the nearest valid sizes are ${power / fanout} and ${power})`);
  }
}

// Where the ring's tokens are injected: spread (token j at p(j*n div tokens)), or all at p0 (burst).
export function tokenStarts(p) {
  const out = [];
  for (let j = 0; j < p.tokens; j++) out.push(p.burst ? 0 : Math.floor((j * p.n) / p.tokens));
  return out;
}

function expectedCount(workload, p) {
  switch (workload) {
    case 'ring': return p.n * p.m * p.tokens;
    case 'spawn': return p.n;
    case 'pingpong': return p.m;
    case 'tree': return (p.n * (p.n - 1)) / 2;
    default: return p.n * p.m; // fanin, selective, trace
  }
}

// ---------------------------------------------------------------- memory (section 3)

// VmRSS and VmHWM (bytes) and Threads of /proc/self/status.
export function procStatus() {
  const out = {};
  for (const line of fs.readFileSync('/proc/self/status', 'latin1').split('\n')) {
    if (line.startsWith('VmRSS:') || line.startsWith('VmHWM:')) {
      out[line.slice(0, 5)] = Number(line.split(/\s+/)[1]) * 1024;
    } else if (line.startsWith('Threads:')) {
      out.Threads = Number(line.split(/\s+/)[1]);
    }
  }
  return out;
}

// Reset the kernel's peak-RSS mark (VmHWM) to the current RSS.
function resetPeakRss() {
  fs.writeFileSync('/proc/self/clear_refs', '5');
}

// The one forced collection of the process: V8's gc(), exposed by --expose-gc (driver.toml).
// It runs once, after the first spawn phase (or tree), just before *_after is read; later
// iterations force none (a forced collection shrinks the heap the next timed phase regrows).
function collect() {
  globalThis.gc();
}

// The CPU time (ns, 1 us resolution) and the voluntary and involuntary context switches of the whole
// process (every thread), from one getrusage call (uv_getrusage). A phase reads it before its start
// clock and after its end clock, so no getrusage call falls inside the wall interval.
function usage() {
  const u = process.resourceUsage();
  return {
    cpu: (u.userCPUTime + u.systemCPUTime) * 1000,
    vcsw: u.voluntaryContextSwitches,
    ivcsw: u.involuntaryContextSwitches,
  };
}

const now = process.hrtime.bigint;

// ---------------------------------------------------------------- phases and memory rule (section 3)

// The clocks of one iteration's phases, and the memory of the process's first spawn (or tree).
// Ring-like workloads: spawnBegins / spawnEnds(ready) bound setup_ns; runBegins / runEnds bound
// run_ns. The tree: treeBegins / treeEnds bound run_ns; the peak is read just after. Memory is read
// around the first spawn phase (or tree) of the process only, *_after after the process's one
// forced collection, gc() (rememberAfter, untimed); every later iteration echoes those values and
// forces no collection. The collector stays on throughout.
export class Meter {
  constructor() {
    this.memory = null; // {rss_before, ...} of the first spawn phase or tree
    this.before = null;
    this.windows = [0, 0, 0, 0]; // performance.now() at the phase boundaries (stats: GCs per phase)
    this.reset();
  }

  reset() {
    this.ready = null;
    this.setupNs = this.setupCpuNs = this.runNs = this.runCpuNs = 0;
    this.setupVcsw = this.setupIvcsw = this.runVcsw = this.runIvcsw = 0; // tree: setup stays 0
    this.windows.fill(0);
  }

  rememberBefore() {
    if (this.memory === null) {
      this.before = procStatus();
      this.before.heap = v8.getHeapStatistics().used_heap_size;
    }
  }

  rememberAfter(extra) {
    if (this.memory === null) {
      collect();
      const st = procStatus();
      this.memory = {
        rss_before: this.before.VmRSS, rss_after: st.VmRSS, ...extra,
        runtime_mem_before: this.before.heap, runtime_mem_after: v8.getHeapStatistics().used_heap_size,
      };
    }
  }

  spawnBegins() {
    this.rememberBefore();
    this.windows[0] = performance.now();
    this.u0 = usage();
    this.t0 = now();
  }

  spawnEnds(ready) {
    const t1 = now();
    const u1 = usage();
    this.windows[1] = performance.now();
    this.setupNs = Number(t1 - this.t0);
    this.setupCpuNs = u1.cpu - this.u0.cpu;
    this.setupVcsw = u1.vcsw - this.u0.vcsw;
    this.setupIvcsw = u1.ivcsw - this.u0.ivcsw;
    this.ready = ready;
    this.rememberAfter({});
  }

  runBegins() {
    this.windows[2] = performance.now();
    this.u2 = usage();
    this.t2 = now();
  }

  runEnds() {
    const t3 = now();
    const u3 = usage();
    this.windows[3] = performance.now();
    this.runNs = Number(t3 - this.t2);
    this.runCpuNs = u3.cpu - this.u2.cpu;
    this.runVcsw = u3.vcsw - this.u2.vcsw;
    this.runIvcsw = u3.ivcsw - this.u2.ivcsw;
  }

  treeBegins() {
    if (this.memory === null) {
      this.rememberBefore();
      resetPeakRss();
    }
    this.runBegins();
  }

  treeEnds() {
    this.runEnds();
    const peak = this.memory === null ? procStatus().VmHWM : 0;
    this.rememberAfter({ rss_peak: peak });
  }
}

// ---------------------------------------------------------------- stats (section 4)

// V8's collections, as Node's perf_hooks report them ('gc' entries; the observer is attached only
// with stats=1): counted per phase by their start time, with their pause time.
const GC_KINDS = [
  [perf.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [perf.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [perf.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
];

class GcLog {
  constructor() {
    this.entries = [];
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.entries.push([e.startTime, e.duration, e.detail.kind]);
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  // The entries arrive on the event loop (setImmediate): let it turn, then take them.
  async take() {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    const out = this.entries;
    this.entries = [];
    return out;
  }
}

async function statsRecord(workload, iteration, meter, gcLog, rt) {
  const rec = { type: 'stats', workload, iteration };
  const entries = await gcLog.take();
  const [s0, s1, r0, r1] = meter.windows;
  for (const [phase, lo, hi] of [['spawn', s0, s1], ['run', r0, r1]]) {
    let pause = 0;
    for (const [kind, name] of GC_KINDS) {
      let count = 0;
      for (const [start, duration, k] of entries) {
        if (k === kind && start >= lo && start <= hi && hi > 0) {
          count++;
          pause += duration;
        }
      }
      rec[`gc_${phase}_${name}`] = count;
    }
    rec[`gc_${phase}_pause_ns`] = Math.round(pause * 1e6);
  }
  const h = v8.getHeapStatistics();
  rec.heap_used = h.used_heap_size;
  rec.heap_total = h.total_heap_size;
  rec.heap_limit = h.heap_size_limit;
  rec.heap_malloced = h.malloced_memory;
  rec.heap_external = h.external_memory;
  for (const s of v8.getHeapSpaceStatistics()) {
    if (s.space_name === 'new_space') rec.new_space_size = s.space_size;
    if (s.space_name === 'old_space') rec.old_space_used = s.space_used_size;
  }
  rec.rss_now = procStatus().VmRSS;
  Object.assign(rec, rt.stats?.() ?? {});
  return rec;
}

// ---------------------------------------------------------------- the driver program

function resultRecord(workload, iteration, p, count, meter) {
  const rec = { type: 'result', workload, iteration };
  for (const k of WORKLOAD_KEYS[workload]) rec[k] = p[k];
  rec.count = count;
  if (meter.ready !== null) rec.ready = meter.ready;
  Object.assign(rec, {
    setup_ns: meter.setupNs, run_ns: meter.runNs, setup_cpu_ns: meter.setupCpuNs, run_cpu_ns: meter.runCpuNs,
    setup_vcsw: meter.setupVcsw, setup_ivcsw: meter.setupIvcsw, run_vcsw: meter.runVcsw, run_ivcsw: meter.runIvcsw,
  });
  Object.assign(rec, meter.memory ?? {});
  return rec;
}

function takeVariant(argv, variants) {
  let variant = variants[0];
  if (argv.length && argv[0].startsWith('--')) {
    const opt = argv.shift();
    const name = opt.startsWith('--variant=') ? opt.slice('--variant='.length) : null;
    if (!variants.includes(name)) {
      throw new DriverError('bad_param', `unknown option '${opt}' (known: ${variants.map((v) => `--variant=${v}`).join(', ')})`);
    }
    variant = name;
  }
  return variant;
}

async function main(argv, d) {
  const variant = takeVariant(argv, d.variants);
  if (!argv.length) {
    throw new DriverError('bad_param', 'usage: driver.js [--variant=NAME] describe | run <workload> key=value... | perf <job.json>');
  }
  const verb = argv[0];
  if (verb === 'perf' && d.perf) return d.perf(argv.slice(1)); // the user's own code (section 11)
  if (verb === 'describe') {
    if (argv.length > 1) throw new DriverError('bad_param', 'describe takes no arguments');
    emit({
      type: 'describe', contract: CONTRACT, name: d.name, runtime: d.runtime, version: d.version,
      workloads: d.workloads, features: d.features, variant, clock: CLOCK, collector: COLLECTOR,
    });
    return 0;
  }
  if (verb !== 'run') throw new DriverError('bad_param', `unknown verb '${verb}' (expected describe or run)`);
  if (argv.length < 2) throw new DriverError('bad_param', `run needs a workload: ${Object.keys(WORKLOAD_KEYS).join(', ')}`);
  const workload = argv[1];
  if (!Object.hasOwn(WORKLOAD_KEYS, workload)) {
    throw new DriverError('unknown_workload', `unknown workload '${workload}' (this driver knows: ${Object.keys(WORKLOAD_KEYS).join(', ')})`);
  }
  const p = parseParams(workload, argv.slice(2), d.cpus());
  if (workload === 'selective' && d.selectiveReason) throw new DriverError('unsupported', d.selectiveReason);
  checkExact(workload, p);
  if (typeof globalThis.gc !== 'function') {
    throw new DriverError('failure', 'gc() is not exposed: the driver runs with --expose-gc (driver.toml [env] NODE_OPTIONS)');
  }
  const rt = d.prepare(variant, workload, p);
  const meter = new Meter();

  if (workload === 'ring' && p.sample_ms > 0) {
    await rt.ring(p, meter, false); // prints its samples
    return 0; // no teardown (contract section 5)
  }

  const gcLog = p.stats ? new GcLog() : null;
  const expect = expectedCount(workload, p);
  for (let it = 1 - p.warmup; it <= p.repeats; it++) {
    meter.reset();
    const count = await rt[workload](p, meter, it >= 1);
    if (count !== expect) throw new DriverError('failure', `${workload}: count ${count} != expected ${expect}`);
    rt.reset();
    if (it < 1) continue;
    emit(resultRecord(workload, it, p, count, meter)); // each result as its iteration ends
    if (gcLog) emit(await statsRecord(workload, it, meter, gcLog, rt));
  }
  return 0;
}

function fail(e) {
  if (e instanceof DriverError) die(e.kind, e.message);
  if (e instanceof RangeError && /call stack/.test(e.message)) die('failure', `stack overflow: ${e.message}`);
  process.stderr.write(`${e?.stack ?? e}\n`);
  die('failure', `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
}

// Run the driver program on process.argv and exit. `d`: name, runtime, version, workloads, features,
// variants (the first is the default), prepare(variant, workload, p), selectiveReason, cpus(), and
// perf(args), the `perf <job.json>` verb (section 11), where the driver has it.
export async function serve(d) {
  // A process that throws ends the driver with a failure record (its Promise is never awaited).
  process.on('unhandledRejection', fail);
  // Every process waits and nothing is in flight: main would wait for ever, and Node would exit.
  process.on('beforeExit', () => die('failure', 'deadlock: every process waits and no message is in flight'));
  let code;
  try {
    code = await main(process.argv.slice(2), d);
  } catch (e) {
    fail(e);
  }
  process.exit(code);
}

export function nodeVersion() {
  return `Node.js ${process.version} (V8 ${process.versions.v8}) (${process.execPath})`;
}
