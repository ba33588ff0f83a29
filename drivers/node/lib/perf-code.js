// Perf (docs/driver-contract.md, section 11): what a piece of the user's JavaScript is, how it is
// loaded and run, and the loops a worker runs. Shared by the main thread (which checks every snippet
// before `ready`) and the worker threads (lib/perf-worker.js), so both read code the same way.
//
// A piece of code (a runner or a hook) is one of:
// - a reference `module:name` or `module:name/N` (`node:crypto:randomUUID`): that export of the module,
//   required from the working directory;
// - function definitions: a line that starts with `function NAME(` (or `async function`); the first
//   such function is the one meant, the others and the top-level statements are its helpers;
// - a function expression: an arrow (`(a, s) => s + 1`) or `function (a) {...}`;
// - an expression (`Math.random()`) or statements (`xs.push(1); xs.pop()`): a runner's are inlined in
//   the loop; a hook's value is the expression's value, or the statements' completion value, as eval
//   gives it; they run as a script in the isolate's global scope, so what init_runner declares
//   (`var xs = ...`, `const xs = ...`) is seen by a runner written as statements.
// A function's arity is its `length` (the parameters before the first default), or N.
import path from 'node:path';
import vm from 'node:vm';
import util from 'node:util';
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { DriverError, writeAll } from './contract.js';

export const HOOKS = ['init', 'init_runner', 'done'];
const REFERENCE = /^(\S+):([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\/([0-9]+))?$/;
const DECLARATION = /^(?:async[ \t]+)?function[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)[ \t]*\(/m;
const FUNCTION_EXPRESSION = /^(?:async\s+)?function\b/;
const ARROW = /^(?:async\s*)?(?:\((?:[^()]|\([^()]*\))*\)|[A-Za-z_$][\w$]*)\s*=>/;

// ---------------------------------------------------------------- the isolate

// Every isolate that runs snippet code: what the code prints goes to stderr, written at once (the main
// thread's records go to the job's `records` descriptor); `require` is a global, resolving from the working
// directory; the job's `code_path` modules are loaded first, as `node --require` loads them.
export async function setupIsolate(codePath) {
  const toStderr = (chunk, encoding, cb) => {
    writeAll(typeof chunk === 'string' ? chunk : Buffer.from(chunk), 2);
    (typeof encoding === 'function' ? encoding : cb)?.();
    return true;
  };
  process.stdout.write = toStderr;
  const sink = new Writable({ write: (chunk, _enc, cb) => toStderr(chunk, cb) });
  globalThis.console = new Console({ stdout: sink, stderr: sink });
  const require = createRequire(path.join(process.cwd(), '[ringbench perf]'));
  globalThis.require = require;
  for (const p of codePath) await loadModule(require, p);
  return require;
}

async function loadModule(require, name) {
  try {
    return require(name);
  } catch (e) {
    if (e.code !== 'ERR_REQUIRE_ESM') throw e;
    return import(pathToFileURL(require.resolve(name)).href);
  }
}

// The runtime's own one line for a thrown value: `TypeError: x is not a function`.
export function errorText(e) {
  if (e !== null && typeof e === 'object' && typeof e.message === 'string' && typeof e.name === 'string') {
    return `${e.name}: ${e.message}`;
  }
  return `Uncaught ${util.inspect(e)}`;
}

// V8's compiler message with the line it names (the first line of a SyntaxError's stack is
// `<filename>:<line>`).
function syntaxText(e) {
  const line = /:(\d+)\n/.exec(e.stack ?? '');
  return `${line ? `line ${line[1]}: ` : ''}${errorText(e)}`;
}

// ---------------------------------------------------------------- what a piece of code is

export class Code {
  constructor(snippet, what, text) {
    this.snippet = snippet;
    this.what = what;
    this.text = text;
    this.filename = `snippet ${snippet} ${what}`;
    this.func = null;
    const trimmed = text.trim();
    if (!trimmed) this.bad('no code');
    const ref = !trimmed.includes('\n') && REFERENCE.exec(trimmed);
    if (ref) {
      this.kind = 'reference';
      [, this.module, this.attr] = ref;
      this.arity = ref[3] === undefined ? null : Number(ref[3]);
      return;
    }
    const decl = DECLARATION.exec(text);
    if (decl) {
      this.compile(text);
      this.kind = 'definitions';
      this.name = decl[1];
      this.arity = null;
      return;
    }
    if (compiles(`(${text}\n)`)) {
      this.kind = FUNCTION_EXPRESSION.test(trimmed) || ARROW.test(trimmed) ? 'function' : 'expression';
      this.arity = this.kind === 'function' ? null : 0;
      return;
    }
    this.compile(text); // statements: V8's message if they do not compile (return, break outside a loop too)
    this.kind = 'statements';
    this.arity = 0;
  }

  bad(message) {
    throw new DriverError('bad_param', `snippet ${this.snippet}, ${this.what}: ${message}`);
  }

  compile(source) {
    try {
      new vm.Script(source, { filename: this.filename });
    } catch (e) {
      this.bad(syntaxText(e));
    }
  }

  // The function a reference, definitions or a function expression name (run: definitions' top-level
  // statements run here, in a scope of their own); its arity. Errors throw the runtime's own.
  async load(require) {
    if (this.kind === 'statements' || this.kind === 'expression') return;
    let f;
    if (this.kind === 'reference') {
      f = await loadModule(require, this.module);
      for (const part of this.attr.split('.')) f = f?.[part];
    } else if (this.kind === 'definitions') {
      f = new Function(`${this.text}\n;return ${this.name};`)();
    } else {
      f = vm.runInThisContext(`(${this.text}\n)`, { filename: this.filename });
    }
    if (typeof f !== 'function') this.bad(`${this.text.trim()} is not a function`);
    const kind = f.constructor?.name;
    if (kind === 'AsyncFunction' || kind === 'GeneratorFunction' || kind === 'AsyncGeneratorFunction') {
      this.bad(`${f.name || 'the function'} is ${kind === 'AsyncFunction' ? 'an async' : 'a generator'} function: ` +
        'its calls would not run its body to the end');
    }
    this.func = f;
    this.arity ??= f.length;
  }

  // A hook's value: the function called with the first `arity` of args, or the code run as a script
  // in the global scope (an expression's value, statements' completion value). A Promise is awaited.
  async value(args) {
    if (this.func) return await this.func(...args.slice(0, this.arity));
    const source = this.kind === 'expression' ? `(${this.text}\n)` : this.text;
    return await vm.runInThisContext(source, { filename: this.filename });
  }
}

function compiles(source) {
  try {
    new vm.Script(source);
    return true;
  } catch {
    return false;
  }
}

// A snippet's runner and hooks, read and their arities checked (erlperf's rules, contract section 11).
export class Snippet {
  constructor(spec) {
    this.k = spec.snippet;
    this.runner = new Code(this.k, 'runner', spec.runner);
    this.hooks = {};
    for (const h of HOOKS) if (spec[h] !== null) this.hooks[h] = new Code(this.k, h, spec[h]);
    this.checkArities();
  }

  // Load the pieces named (all by default: the main thread's check); the arities are checked again, a
  // reference's or a function's being known only now.
  async load(require, names = [...HOOKS, 'runner']) {
    for (const name of names) await (name === 'runner' ? this.runner : this.hooks[name])?.load(require);
    this.checkArities();
  }

  checkArities() {
    const k = this.k;
    const ra = this.runner.arity;
    const { init, init_runner: ir, done } = this.hooks;
    const bad = (m) => { throw new DriverError('bad_param', `snippet ${k}: ${m}`); };
    if (ra !== null && ra > 2) {
      bad(`the runner takes ${ra} arguments; it may take 0, 1 (init_runner's value) or 2 (that value and the state)`);
    }
    if (ra && !ir) bad(`runner/${ra} requires init_runner (it is given init_runner's value)`);
    if (init && init.arity) bad(`init takes no arguments (init/${init.arity})`);
    for (const [name, hook] of [['init_runner', ir], ['done', done]]) {
      if (!hook || hook.arity === null) continue;
      if (hook.arity > 1) bad(`${name} takes 0 or 1 argument (init's value), not ${hook.arity}`);
      if (hook.arity === 1 && !init) bad(`${name}/1 requires init (it is given init's value)`);
    }
  }
}

// ---------------------------------------------------------------- the loops

// The runner's place in a loop: an expression or statements inlined, a function called with
// init_runner's value (__rb_a) and the state (__rb_s).
function runnerStatement(runner) {
  if (runner.kind === 'expression') return `(${runner.text}\n);`;
  if (runner.kind === 'statements') return `{\n${runner.text}\n}`;
  return ['__rb_f();', '__rb_f(__rb_a);', '__rb_s = __rb_f(__rb_a, __rb_s);'][runner.arity];
}

// Continuous and squeeze: chunks of k iterations (k doubles from 1 until a chunk takes 1 % of the
// sample period), the worker's running count stored in its slot after each chunk; the stop flag read
// between chunks. With stats, the isolate's heap published every ~10 % of the period.
export function continuousLoop(runner, stats) {
  return new Function('__rb_w', `
    const __rb_f = __rb_w.f, __rb_a = __rb_w.a;
    let __rb_s = __rb_a;
    const __rb_counts = __rb_w.counts, __rb_slot = __rb_w.slot, __rb_control = __rb_w.control;
    const __rb_now = __rb_w.now, __rb_target = __rb_w.chunkMs, __rb_max = __rb_w.maxChunk;
    ${stats ? 'const __rb_heap = __rb_w.heap; let __rb_h = 0;' : ''}
    let __rb_k = 1, __rb_n = 0;
    while (Atomics.load(__rb_control, 0) === 0) {
      const __rb_t0 = __rb_now();
      for (let __rb_j = __rb_k; __rb_j > 0; __rb_j--) {
        ${runnerStatement(runner)}
      }
      __rb_n += __rb_k;
      Atomics.store(__rb_counts, __rb_slot, BigInt(__rb_n));
      const __rb_t1 = __rb_now();
      if (__rb_k < __rb_max && __rb_t1 - __rb_t0 < __rb_target) __rb_k += __rb_k;
      ${stats ? 'if (__rb_t1 - __rb_h >= 10 * __rb_target) { __rb_heap(); __rb_h = __rb_t1; }' : ''}
    }
    return __rb_n;
  `);
}

// Timed: `plan` samples of exactly `loop` iterations, each timed (wall and process CPU) and reported;
// runner/2's state starts afresh from init_runner's value each sample, as erlperf's timed samples do.
export function timedLoop(runner) {
  return new Function('__rb_w', `
    const __rb_f = __rb_w.f, __rb_a = __rb_w.a, __rb_loop = __rb_w.loop;
    const __rb_hr = __rb_w.hr, __rb_cpu = __rb_w.cpu;
    for (let __rb_i = 1; __rb_i <= __rb_w.plan; __rb_i++) {
      let __rb_s = __rb_a;
      const __rb_c0 = __rb_cpu();
      const __rb_t0 = __rb_hr();
      for (let __rb_j = __rb_loop; __rb_j > 0; __rb_j--) {
        ${runnerStatement(runner)}
      }
      const __rb_t1 = __rb_hr();
      const __rb_c1 = __rb_cpu();
      __rb_w.report(__rb_i, __rb_t1 - __rb_t0, __rb_c1 - __rb_c0);
    }
  `);
}
