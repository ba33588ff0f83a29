// ringbench driver: Node.js, one async function per process awaiting a promise mailbox.
//
//   node driver.js [--variant=stock|tuned] describe | run <workload> key=value ... | perf <job.json>
//
// The contract lives in lib/contract.js, the processes and workloads in lib/stock.js, the mailbox
// in lib/mailbox.js, perf (the user's own code, contract section 11) in lib/perf.js. Variants
// (README.md): stock is Node as it comes; tuned is the same program with the V8 settings the Node.js
// documentation recommends for throughput (driver.toml, NODE_OPTIONS).
import os from 'node:os';
import { nodeVersion, serve } from './lib/contract.js';
import { Stock } from './lib/stock.js';

await serve({
  name: 'node',
  runtime: 'Node.js',
  version: nodeVersion(),
  workloads: ['ring', 'spawn', 'pingpong', 'fanin', 'tree', 'trace'],
  features: ['tokens', 'continuous', 'stats', 'perf'],
  variants: ['stock', 'tuned'],
  cpus: () => os.availableParallelism(),
  prepare: () => new Stock(),
  perf: async (args) => (await import('./lib/perf.js')).perf(args),
  selectiveReason: 'a JavaScript promise mailbox has no selective receive: a receive takes the next message ' +
    'in FIFO order, and a receive that skips messages that do not match would have to be written here',
});
