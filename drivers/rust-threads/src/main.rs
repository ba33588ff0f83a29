//! ringbench driver: one OS thread per process. Variants (`--variant=`):
//! `channel` (std::sync::mpsc, message passing, std's defaults), `handoff` (the value
//! written into the next thread's slot, which is then unparked) and `tuned` (channel
//! with 32 KiB stacks and a futex hash table sized by the thread count).
//! See README.md and docs/driver-contract.md.

mod handoff;

use handoff::{Slots, Writer};
use ringbench_common::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

// Allocation failure -> a `limit` error record (exit 3) rather than an abort.
#[global_allocator]
static ALLOC: LimitAlloc = LimitAlloc;

/// Stack reserved per thread in the tuned variant (virtual; only touched pages become
/// resident). The other variants take std's default (2 MiB, or RUST_MIN_STACK).
const TUNED_STACK_SIZE: usize = 32 * 1024;
/// Memory mappings each std thread adds: stack + its guard page, plus the
/// signal stack std installs for stack-overflow reports + its guard page.
const MAPS_PER_THREAD: u64 = 4;
/// Capacity of the receiver's inbox in `fanin` (back-pressure on the senders).
const FANIN_CAP: usize = 1024;

const VERSION: &str = env!("RB_RUSTC_VERSION");

#[derive(Clone, Copy, PartialEq, Eq)]
enum HopKind {
    Channel,
    Handoff,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Channel,
    Handoff,
    Tuned,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Channel => "channel",
            Variant::Handoff => "handoff",
            Variant::Tuned => "tuned",
        }
    }
    fn hop(self) -> HopKind {
        match self {
            Variant::Handoff => HopKind::Handoff,
            Variant::Channel | Variant::Tuned => HopKind::Channel,
        }
    }
}

/// 0 = std's default stack size; set once in `main` before any thread is spawned.
static STACK_SIZE: AtomicUsize = AtomicUsize::new(0);

fn stack_size_bytes() -> u64 {
    match STACK_SIZE.load(Ordering::Relaxed) {
        0 => std::env::var("RUST_MIN_STACK").ok().and_then(|v| v.parse().ok()).unwrap_or(2 << 20),
        s => s as u64,
    }
}

fn spawn_thread<F: FnOnce() + Send + 'static>(f: F) -> std::io::Result<JoinHandle<()>> {
    let b = std::thread::Builder::new();
    match STACK_SIZE.load(Ordering::Relaxed) {
        0 => b.spawn(f),
        s => b.stack_size(s).spawn(f),
    }
}

fn spawn_failed(e: std::io::Error, made: u64, wanted: u64) -> Fail {
    Fail {
        kind: Kind::Limit,
        message: format!(
            "thread creation failed after {} of {} threads: {}; the bound is one of kernel.threads-max, \
             kernel.pid_max, vm.max_map_count (sysctl -w ...), ulimit -u, the cgroup pids.max, or memory",
            made, wanted, e
        ),
    }
}

/// A count the main thread waits on: each thread arrives once (ready just before its
/// first blocking receive, or exited); the last arrival unparks main. park/unpark keep
/// an unpark that comes first, so none is lost.
struct Gate {
    arrived: AtomicU64,
    want: u64,
    main: Thread,
}

impl Gate {
    fn new(want: u64) -> Arc<Gate> {
        Arc::new(Gate { arrived: AtomicU64::new(0), want, main: std::thread::current() })
    }
    #[inline]
    fn arrive(&self) {
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.want {
            self.main.unpark();
        }
    }
    /// Returns the number of arrivals seen.
    fn wait(&self) -> u64 {
        loop {
            let a = self.arrived.load(Ordering::Acquire);
            if a >= self.want {
                return a;
            }
            std::thread::park();
        }
    }
}

// ---------------------------------------------------------------- messages
//
// Every ring message is one u64 (a channel slot or a hand-off slot holds one word):
//   1 ..= 2^62-1   a token with its remaining value (n·m < 2^62)
//   STOP | sum     the proof: the running sum of receipt counts (< 2^62)
//   ABORT          tear-down after a failed spawn: pass it on and exit
//   trace          value | (sender's index + 1) << 32  (n, m <= 100)
//   continuous     any other non-zero value; nobody decodes it
// 0 is never sent: it marks an empty hand-off slot.
const STOP: u64 = 1 << 63;
const ABORT: u64 = u64::MAX;
/// Sent to main when a token finishes (sums are < 2^62, so they cannot collide).
const TOKEN_DONE: u64 = u64::MAX;

/// One process's side of a hop: its own inbox and the way to its successor.
trait Hop: Send + 'static {
    /// Called first in the process's thread (a hand-off slot records its owner).
    fn start(&self) {}
    /// Blocks until a message arrives; ABORT when the ring is gone.
    fn recv(&mut self) -> u64;
    fn send(&self, v: u64);
}

/// std::sync::mpsc: the receiver's own channel and a sender to the successor's.
struct ChanHop {
    inbox: Receiver<u64>,
    next: Sender<u64>,
}

impl Hop for ChanHop {
    #[inline]
    fn recv(&mut self) -> u64 {
        self.inbox.recv().unwrap_or(ABORT)
    }
    #[inline]
    fn send(&self, v: u64) {
        let _ = self.next.send(v);
    }
}

/// Hand-off: take the value from this thread's slot; write into the successor's and unpark
/// it, then (on more than one CPU) unpark the successor's successor, one hop early.
struct SlotHop {
    slots: Arc<Slots>,
    me: usize,
    next: usize,
}

impl Hop for SlotHop {
    fn start(&self) {
        self.slots.register(self.me);
    }
    #[inline]
    fn recv(&mut self) -> u64 {
        self.slots.take(self.me)
    }
    #[inline]
    fn send(&self, v: u64) {
        self.slots.put(self.next, v, Writer::Predecessor);
        self.slots.wake_early(self.next);
    }
}

/// What every ring thread shares with main.
struct Shared {
    ready: Arc<Gate>,
    main: Sender<u64>,
    /// the ring's size (trace numbers its laps with it)
    n: u64,
}

// ---------------------------------------------------------------- ring processes
//
// One function per use, so that the measured ring's loop carries nothing it does not need.

/// The measured ring: count the receipt, finish the token or pass v-1 on.
fn ring_node<H: Hop>(mut h: H, sh: Arc<Shared>, last: bool) {
    h.start();
    sh.ready.arrive();
    let mut count: u64 = 0;
    loop {
        let v = h.recv();
        if v < STOP {
            count += 1;
            if v == 1 {
                let _ = sh.main.send(TOKEN_DONE);
            } else {
                h.send(v - 1);
            }
        } else {
            return end(v, count, &h, &sh, last);
        }
    }
}

/// The proof (add this thread's receipts, the last one tells main) or the abort (pass it on).
#[inline(never)]
fn end<H: Hop>(v: u64, count: u64, h: &H, sh: &Shared, last: bool) {
    if v == ABORT {
        h.send(ABORT);
    } else if last {
        let _ = sh.main.send((v & !STOP) + count);
    } else {
        h.send(STOP | ((v & !STOP) + count));
    }
}

/// trace: the ring with the sender's index in the message, printing each hop as it happens
/// (`print` is false in warm-ups).
fn trace_node<H: Hop>(mut h: H, sh: Arc<Shared>, last: bool, me: u64, total: u64, print: bool) {
    h.start();
    sh.ready.arrive();
    let mut count: u64 = 0;
    loop {
        let msg = h.recv();
        if msg >= STOP {
            return end(msg, count, &h, &sh, last);
        }
        count += 1;
        let v = msg & 0xffff_ffff;
        let from = (msg >> 32) as i64 - 1;
        if print {
            let hop = total - v + 1;
            Rec::new("hop").int("hop", hop).int("lap", (hop - 1) / sh.n + 1).int("from", from).int("to", me).emit();
        }
        if v == 1 {
            let _ = sh.main.send(TOKEN_DONE);
        } else {
            h.send((v - 1) | ((me + 1) << 32));
        }
    }
}

/// Continuous mode: tokens circulate for ever; p0 adds a lap each time one passes.
fn spin_node<H: Hop>(mut h: H, sh: Arc<Shared>, laps: Option<Arc<AtomicU64>>) {
    h.start();
    sh.ready.arrive();
    loop {
        let v = h.recv();
        if v == ABORT {
            return h.send(ABORT);
        }
        if let Some(l) = &laps {
            l.fetch_add(1, Ordering::Relaxed);
        }
        h.send(v);
    }
}

/// Which body the ring's threads run.
#[derive(Clone)]
enum Body {
    Ring,
    /// (n·m, print the hops)
    Trace(u64, bool),
    Spin(Arc<AtomicU64>),
}

fn run_node<H: Hop>(h: H, sh: Arc<Shared>, body: &Body, i: u64, n: u64) {
    let last = i + 1 == n;
    match body {
        Body::Ring => ring_node(h, sh, last),
        Body::Trace(total, print) => trace_node(h, sh, last, i, *total, *print),
        Body::Spin(laps) => spin_node(h, sh, if i == 0 { Some(laps.clone()) } else { None }),
    }
}

/// Main's way into the ring: senders to (or the slots of) the processes it injects at.
enum Entries {
    Chan(Vec<Sender<u64>>),
    Slots(Arc<Slots>, Vec<usize>),
}

impl Entries {
    /// Send v to the e-th entry process (0 = p0).
    fn send(&self, e: usize, v: u64) {
        match self {
            Entries::Chan(tx) => {
                let _ = tx[e].send(v);
            }
            Entries::Slots(s, idx) => s.put(idx[e], v, Writer::Main),
        }
    }
}

struct Ring {
    entries: Entries,
    handles: Vec<JoinHandle<()>>,
    done: Receiver<u64>,
    ready: u64,
}

/// Spawn p0 … p(n-1), p(i) sending to p((i+1) mod n), and wait until each has signalled
/// ready. With channels, channel i+1 and thread i are made one after the other, in ring
/// order. `entries`: the ascending process indices main injects at (starting with 0).
/// A failed spawn tears down what exists (ABORT passed round from p0) and reports `limit`.
fn build_ring(hop: HopKind, n: u64, entries: &[u64], body: Body) -> Result<Ring, Fail> {
    let (main_tx, done) = channel::<u64>();
    let sh = Arc::new(Shared { ready: Gate::new(n), main: main_tx, n });
    let mut handles = Vec::with_capacity(n as usize);
    let mut failed = None;
    let ring_entries = match hop {
        HopKind::Channel => {
            let (tx0, rx0) = channel::<u64>();
            let mut want = entries.iter().copied().peekable();
            let mut kept = Vec::with_capacity(entries.len());
            if want.next_if_eq(&0).is_some() {
                kept.push(tx0.clone());
            }
            let mut my_rx = Some(rx0);
            for i in 0..n {
                let (next, next_rx) = if i + 1 < n {
                    let (t, r) = channel::<u64>();
                    (t, Some(r))
                } else {
                    (tx0.clone(), None)
                };
                if want.next_if_eq(&(i + 1)).is_some() {
                    kept.push(next.clone());
                }
                let Some(inbox) = my_rx.take() else { unreachable!() };
                let (sh, body) = (sh.clone(), body.clone());
                match spawn_thread(move || run_node(ChanHop { inbox, next }, sh, &body, i, n)) {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        failed = Some(spawn_failed(e, i, n));
                        break;
                    }
                }
                my_rx = next_rx;
            }
            Entries::Chan(kept)
        }
        HopKind::Handoff => {
            let slots = Arc::new(Slots::new(n as usize));
            for i in 0..n {
                let h = SlotHop { slots: slots.clone(), me: i as usize, next: ((i + 1) % n) as usize };
                let (sh, body) = (sh.clone(), body.clone());
                match spawn_thread(move || run_node(h, sh, &body, i, n)) {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        failed = Some(spawn_failed(e, i, n));
                        break;
                    }
                }
            }
            Entries::Slots(slots, entries.iter().map(|&e| e as usize).collect())
        }
    };
    if let Some(f) = failed {
        if !handles.is_empty() {
            ring_entries.send(0, ABORT);
        }
        for h in handles {
            let _ = h.join();
        }
        return Err(f);
    }
    let ready = sh.ready.wait();
    Ok(Ring { entries: ring_entries, handles, done, ready })
}

/// The untimed proof: a stop message goes round once collecting receipt counts.
fn prove(ring: Ring) -> Result<u64, Fail> {
    ring.entries.send(0, STOP);
    let sum = loop {
        match ring.done.recv() {
            Ok(TOKEN_DONE) => continue,
            Ok(s) => break s,
            Err(_) => return fail(Kind::Failure, "ring threads exited before the proof completed"),
        }
    };
    for h in ring.handles {
        if h.join().is_err() {
            return fail(Kind::Failure, "a ring thread panicked");
        }
    }
    Ok(sum)
}

/// Indices main injects at: spread (j·n div tokens, distinct as tokens <= n) or p0 alone (burst).
fn entry_indices(p: &Params) -> Vec<u64> {
    let k = if p.burst { 1 } else { p.tokens };
    (0..k).map(|j| p.injection_index(j)).collect()
}

fn ring(hop: HopKind, p: &Params, mem: &mut MemProbe) -> Result<Out, Fail> {
    let (n, m, tokens) = (p.n, p.m, p.tokens);
    mem.before();
    let setup = Phase::start();
    let ring = build_ring(hop, n, &entry_indices(p), Body::Ring)?;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();

    let value = n * m;
    let run = Phase::start();
    for j in 0..tokens {
        ring.entries.send(if p.burst { 0 } else { j as usize }, value);
    }
    for _ in 0..tokens {
        if ring.done.recv() != Ok(TOKEN_DONE) {
            return fail(Kind::Failure, "ring broke during the message phase");
        }
    }
    let (run_ns, run_cpu_ns) = run.stop();

    let ready = ring.ready;
    let count = prove(ring)?;
    if count != n * m * tokens {
        return fail(
            Kind::Failure,
            format!("count mismatch: processes counted {} receipts, expected {}", count, n * m * tokens),
        );
    }
    Ok(Out { count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

fn trace(hop: HopKind, p: &Params, print: bool, mem: &mut MemProbe) -> Result<Out, Fail> {
    let (n, total) = (p.n, p.n * p.m);
    mem.before();
    let setup = Phase::start();
    let ring = build_ring(hop, n, &[0], Body::Trace(total, print))?;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    ring.entries.send(0, total); // from = -1: the main process
    if ring.done.recv() != Ok(TOKEN_DONE) {
        return fail(Kind::Failure, "ring broke during the trace");
    }
    let (run_ns, run_cpu_ns) = run.stop();
    let ready = ring.ready;
    let count = prove(ring)?;
    if count != total {
        return fail(Kind::Failure, format!("count mismatch: {} receipts, expected {}", count, total));
    }
    Ok(Out { count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; print samples; exit 0.
fn continuous(hop: HopKind, p: &Params) -> Result<(), Fail> {
    let n = p.n;
    let laps = Arc::new(AtomicU64::new(0));
    let ring = build_ring(hop, n, &entry_indices(p), Body::Spin(laps.clone()))?;
    let t0 = Instant::now();
    for j in 0..p.tokens {
        ring.entries.send(if p.burst { 0 } else { j as usize }, 1);
    }
    for seq in 1..=p.samples {
        let deadline = t0 + Duration::from_millis(p.sample_ms * seq);
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
        let l = laps.load(Ordering::Relaxed);
        let elapsed = t0.elapsed().as_nanos() as u64;
        Rec::new("sample").int("seq", seq).int("elapsed_ns", elapsed).int("count", l * n).emit();
    }
    std::process::exit(0);
}

// ---------------------------------------------------------------- spawn

/// n threads, each signals ready and blocks in a receive on its own channel; then,
/// untimed, main sends each its message and joins them.
fn spawn(n: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    mem.before();
    let setup = Phase::start();
    let ready = Gate::new(n);
    let mut wake = Vec::with_capacity(n as usize);
    let mut handles = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (t, r) = channel::<()>();
        let ready = ready.clone();
        match spawn_thread(move || {
            ready.arrive();
            let _ = r.recv();
        }) {
            Ok(h) => {
                handles.push(h);
                wake.push(t);
            }
            Err(e) => {
                drop(wake); // disconnects: every waiting thread's recv returns
                for h in handles {
                    let _ = h.join();
                }
                return Err(spawn_failed(e, i, n));
            }
        }
    }
    let count = ready.wait();
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    for t in &wake {
        let _ = t.send(());
    }
    for h in handles {
        let _ = h.join();
    }
    if count != n {
        return fail(Kind::Failure, format!("ready count {} != {}", count, n));
    }
    Ok(Out { count, ready: count, setup_ns, setup_cpu_ns, ..Default::default() })
}

// ---------------------------------------------------------------- pingpong

const PING: u64 = 1;
const START: u64 = 2;

/// A waits for main's start, then m times: send a ping to B, receive B's answer.
/// B counts the pings and answers each. Channel variant: one std channel each way;
/// hand-off variant: a 2-slot ring (A = slot 0, B = slot 1).
fn pingpong(hop: HopKind, m: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    mem.before();
    let setup = Phase::start();
    match hop {
        HopKind::Channel => {
            let (a_tx, a_rx) = channel::<u64>();
            let (b_tx, b_rx) = channel::<u64>();
            let a = ChanHop { inbox: a_rx, next: b_tx };
            let b = ChanHop { inbox: b_rx, next: a_tx.clone() };
            pingpong_with(a, b, Entries::Chan(vec![a_tx]), m, mem, setup)
        }
        HopKind::Handoff => {
            let s = Arc::new(Slots::new(2));
            let a = SlotHop { slots: s.clone(), me: 0, next: 1 };
            let b = SlotHop { slots: s.clone(), me: 1, next: 0 };
            pingpong_with(a, b, Entries::Slots(s, vec![0]), m, mem, setup)
        }
    }
}

/// `kick`: main's way into A; `setup`: the spawn phase, started before the channels were made.
fn pingpong_with<H: Hop>(
    mut a: H,
    mut b: H,
    kick: Entries,
    m: u64,
    mem: &mut MemProbe,
    setup: Phase,
) -> Result<Out, Fail> {
    let ready = Gate::new(2);
    let (main_tx, main_rx) = channel::<u64>(); // A: TOKEN_DONE when finished; B: its count
    let (ready_a, main_a) = (ready.clone(), main_tx.clone());
    let ta = spawn_thread(move || {
        a.start();
        ready_a.arrive();
        if a.recv() != START {
            return a.send(ABORT);
        }
        for _ in 0..m {
            a.send(PING);
            if a.recv() != PING {
                return a.send(ABORT);
            }
        }
        let _ = main_a.send(TOKEN_DONE);
        a.send(STOP);
    })
    .map_err(|e| spawn_failed(e, 0, 2))?;
    let ready_b = ready.clone();
    let tb = match spawn_thread(move || {
        b.start();
        ready_b.arrive();
        let mut count = 0u64;
        while b.recv() == PING {
            count += 1;
            b.send(PING);
        }
        let _ = main_tx.send(count);
    }) {
        Ok(h) => h,
        Err(e) => {
            kick.send(0, ABORT);
            let _ = ta.join();
            return Err(spawn_failed(e, 1, 2));
        }
    };
    let nready = ready.wait();
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    kick.send(0, START);
    if main_rx.recv() != Ok(TOKEN_DONE) {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let (run_ns, run_cpu_ns) = run.stop();
    let count = match main_rx.recv() {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    let _ = ta.join();
    let _ = tb.join();
    if count != m {
        return fail(Kind::Failure, format!("pingpong: B counted {} round trips, expected {}", count, m));
    }
    Ok(Out { count, ready: nready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

// ---------------------------------------------------------------- fanin

/// One receiver and n senders over a bounded std channel in both variants: many
/// writers into one reader need a queue, which a one-value hand-off slot is not.
fn fanin(n: u64, m: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    let total = n * m;
    mem.before();
    let setup = Phase::start();
    let ready = Gate::new(n + 1);
    let (r_tx, r_rx) = sync_channel::<u64>(FANIN_CAP);
    let (main_tx, main_rx) = channel::<u64>();
    let ready_r = ready.clone();
    let receiver = spawn_thread(move || {
        ready_r.arrive();
        let mut count = 0u64;
        while count < total {
            if r_rx.recv().is_err() {
                break;
            }
            count += 1;
        }
        let _ = main_tx.send(count);
    })
    .map_err(|e| spawn_failed(e, 0, n + 1))?;
    let mut starts = Vec::with_capacity(n as usize);
    let mut handles = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (s_tx, s_rx) = channel::<bool>();
        let (out, ready) = (r_tx.clone(), ready.clone());
        match spawn_thread(move || {
            ready.arrive();
            if let Ok(true) = s_rx.recv() {
                for _ in 0..m {
                    if out.send(1).is_err() {
                        return;
                    }
                }
            }
        }) {
            Ok(h) => {
                handles.push(h);
                starts.push(s_tx);
            }
            Err(e) => {
                for s in &starts {
                    let _ = s.send(false);
                }
                for h in handles {
                    let _ = h.join();
                }
                drop(r_tx); // the receiver sees disconnection and exits
                let _ = receiver.join();
                return Err(spawn_failed(e, i + 1, n + 1));
            }
        }
    }
    drop(r_tx);
    let nready = ready.wait();
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    for s in &starts {
        let _ = s.send(true);
    }
    let count = match main_rx.recv() {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let (run_ns, run_cpu_ns) = run.stop();
    for h in handles {
        let _ = h.join();
    }
    let _ = receiver.join();
    if count != total {
        return fail(Kind::Failure, format!("fanin: received {} messages, expected {}", count, total));
    }
    Ok(Out { count, ready: nready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

// ---------------------------------------------------------------- main

fn describe(v: Variant) {
    let runtime = match v {
        Variant::Channel => "Rust std::thread + std::sync::mpsc",
        Variant::Handoff => "Rust std::thread + hand-off slot (thread::park/unpark)",
        Variant::Tuned => "Rust std::thread + std::sync::mpsc (32 KiB stacks, futex hash per thread)",
    };
    Rec::new("describe")
        .int("contract", 2)
        .str("name", "rust-threads")
        .str("runtime", runtime)
        .str("version", VERSION)
        .strs("workloads", &["ring", "spawn", "pingpong", "fanin", "trace"])
        .strs("features", &["tokens", "continuous", "stats"])
        .str("variant", v.name())
        .emit();
}

fn threads_needed(p: &Params) -> u64 {
    match p.workload.as_str() {
        "pingpong" => 2,
        "fanin" => p.n + 1,
        _ => p.n,
    }
}

fn run(p: Params, variant: Variant) -> Result<(), Fail> {
    let hop = variant.hop();
    if p.workload == "selective" {
        return fail(
            Kind::Unsupported,
            "selective: Rust channels have no selective receive (a receive that skips \
             non-matching messages); recv() always takes the oldest message",
        );
    }
    let threads = threads_needed(&p);
    // RINGBENCH_NO_PRECHECK=1 skips the pre-launch checks (to test the tear-down
    // path taken when thread creation itself fails).
    if std::env::var_os("RINGBENCH_NO_PRECHECK").is_none() {
        check_thread_limits(threads, MAPS_PER_THREAD)?;
    }
    let futex_slots = futex_hash_setup(threads, variant == Variant::Tuned);
    if p.sample_ms > 0 {
        return continuous(hop, &p);
    }
    let mut mem = MemProbe::new(true);
    for it in 0..(p.warmup + p.repeats) {
        let measured = it >= p.warmup;
        let ru0 = rusage();
        let out = match p.workload.as_str() {
            "ring" => ring(hop, &p, &mut mem)?,
            "spawn" => spawn(p.n, &mut mem)?,
            "pingpong" => pingpong(hop, p.m, &mut mem)?,
            "fanin" => fanin(p.n, p.m, &mut mem)?,
            "trace" => trace(hop, &p, measured, &mut mem)?,
            _ => unreachable!(),
        };
        if !measured {
            continue;
        }
        let iteration = it - p.warmup + 1;
        emit_result(&p, iteration, &out, &mem);
        if p.stats {
            let ru1 = rusage();
            Rec::new("stats")
                .int("iteration", iteration)
                .int("voluntary_ctx_switches", ru1.ru_nvcsw - ru0.ru_nvcsw)
                .int("involuntary_ctx_switches", ru1.ru_nivcsw - ru0.ru_nivcsw)
                .int("minor_faults", ru1.ru_minflt - ru0.ru_minflt)
                .int("threads_spawned", threads)
                .int("stack_size_bytes", stack_size_bytes())
                .int("futex_hash_slots", futex_slots)
                .int("peak_rss_bytes", status_field("VmHWM:").unwrap_or(0) * 1024)
                .emit();
        }
    }
    Ok(())
}

/// Since Linux 6.16 a process gets a private futex hash table sized by the CPU count, not
/// the thread count (16 buckets on 2 CPUs), so every wake-up walks a chain that grows with
/// N. The tuned variant asks for a bucket per thread (older kernels reject the call, which
/// changes nothing); the others leave the kernel's default. RINGBENCH_FUTEX_HASH_SLOTS
/// overrides either for experiments (-1: the kernel's default, 0: the global table).
/// Returns the slots asked for (-1 = none).
fn futex_hash_setup(threads: u64, tuned: bool) -> i64 {
    const PR_FUTEX_HASH: libc::c_int = 78;
    const PR_FUTEX_HASH_SET_SLOTS: libc::c_ulong = 1;
    let mut slots = if tuned { threads.next_power_of_two().clamp(16, 1 << 22) as i64 } else { -1 };
    if let Some(v) = std::env::var("RINGBENCH_FUTEX_HASH_SLOTS").ok().and_then(|v| v.trim().parse().ok()) {
        slots = v;
    }
    if slots >= 0 {
        unsafe {
            libc::prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong);
        }
    }
    slots
}

fn main() {
    install_panic_hook();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut variant = Variant::Channel;
    while let Some(a) = args.first().filter(|a| a.starts_with("--")).cloned() {
        match a.as_str() {
            "--variant=channel" => variant = Variant::Channel,
            "--variant=handoff" => variant = Variant::Handoff,
            "--variant=tuned" => variant = Variant::Tuned,
            _ => die(&Fail {
                kind: Kind::BadParam,
                message: format!(
                    "unknown option '{}' (known: --variant=channel, --variant=handoff, --variant=tuned)",
                    a
                ),
            }),
        }
        args.remove(0);
    }
    if variant == Variant::Tuned {
        STACK_SIZE.store(TUNED_STACK_SIZE, Ordering::Relaxed);
    }
    let r = match parse_args(&args) {
        Ok(Command::Describe) => {
            describe(variant);
            Ok(())
        }
        Ok(Command::Run(p)) => run(p, variant),
        Err(f) => Err(f),
    };
    if let Err(f) = r {
        die(&f);
    }
}
