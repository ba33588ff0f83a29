//! ringbench driver: one tokio task per process, messages over tokio::sync::mpsc channels.
//! Two variants: `--flavor=current-thread` and `--flavor=multi-thread` (worker_threads = cores).
//! See README.md and docs/driver-contract.md.

use ringbench_common::*;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, Notify};

// Allocation failure -> a `limit` error record (exit 3) rather than an abort.
#[global_allocator]
static ALLOC: LimitAlloc = LimitAlloc;

/// The ring's channels: unbounded (default) or bounded to one message per process
/// (feature `bounded`, kept to re-measure the comparison in README.md).
#[cfg(not(feature = "bounded"))]
mod chan {
    use tokio::sync::mpsc;
    pub type Tx<M = u64> = mpsc::UnboundedSender<M>;
    pub type Rx<M = u64> = mpsc::UnboundedReceiver<M>;
    pub const IMPL: &str = "unbounded mpsc";
    pub fn channel<M>() -> (Tx<M>, Rx<M>) {
        mpsc::unbounded_channel()
    }
}
#[cfg(feature = "bounded")]
mod chan {
    use tokio::sync::mpsc;
    pub type Tx<M = u64> = mpsc::Sender<M>;
    pub type Rx<M = u64> = mpsc::Receiver<M>;
    pub const IMPL: &str = "bounded mpsc (capacity 1)";
    pub fn channel<M>() -> (Tx<M>, Rx<M>) {
        mpsc::channel(1)
    }
}
use chan::{Rx, Tx};

/// `send!(tx, m)`: send m on a ring channel. A macro rather than an async fn, so that the unbounded
/// send, which never waits, is a plain call with no future and no await point in the caller's state
/// machine (an `async fn` wrapper cost the ring's loop 4 instructions a hop under callgrind).
#[cfg(not(feature = "bounded"))]
macro_rules! send {
    ($tx:expr, $m:expr) => {{
        let _ = $tx.send($m); // never waits: a push on the receiver's queue plus its wake-up
    }};
}
#[cfg(feature = "bounded")]
macro_rules! send {
    ($tx:expr, $m:expr) => {{
        let _ = $tx.send($m).await; // waits for the one slot when the receiver has not taken the last
    }};
}

/// Capacity of the receiver's inbox in `fanin` (back-pressure on the senders).
const FANIN_CAP: usize = 1024;

const VERSION: &str = env!("RB_VERSION");

// ---------------------------------------------------------------- messages
//
// Every ring message is one u64, so a channel's first block (32 slots, allocated
// with the channel) stays small and a hop moves one word:
//   1 ..= 2^62-1   a token with its remaining value (n·m < 2^62)
//   STOP | sum     the proof: the running sum of receipt counts (< 2^62)
//   trace          value | (sender's index + 1) << 32  (n, m <= 100)
//   continuous     any non-zero value; nobody decodes it
const STOP: u64 = 1 << 63;
/// Sent to main when a token finishes (sums are < 2^62, so they cannot collide).
const TOKEN_DONE: u64 = u64::MAX;

/// The measured ring's message: the same word, as a type of its own. The channel's receive is
/// generic in the message type; with a type no other channel carries, the ring's receive is
/// compiled for the ring alone and inlined into its loop (with u64 it was one out-of-line copy
/// shared with main's and the other workloads' channels: ~50 more instructions a hop, ~9 %,
/// under callgrind; README.md, "Side by side").
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Hop(u64);

impl From<u64> for Hop {
    #[inline(always)]
    fn from(v: u64) -> Hop {
        Hop(v)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    CurrentThread,
    MultiThread,
}

impl Flavor {
    fn name(self) -> &'static str {
        match self {
            Flavor::CurrentThread => "current-thread",
            Flavor::MultiThread => "multi-thread",
        }
    }
}

/// A count the main task waits on: each process arrives once (e.g. ready before its
/// first receive); the last arrival wakes main. Notify keeps the wake-up as a permit
/// if main is not waiting yet, so none is lost.
struct Gate {
    arrived: AtomicU64,
    want: u64,
    all: Notify,
}

impl Gate {
    fn new(want: u64) -> Arc<Gate> {
        Arc::new(Gate { arrived: AtomicU64::new(0), want, all: Notify::new() })
    }
    #[inline]
    fn arrive(&self) {
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.want {
            self.all.notify_one();
        }
    }
    /// Returns the number of arrivals seen.
    async fn wait(&self) -> u64 {
        if self.arrived.load(Ordering::Acquire) < self.want {
            self.all.notified().await;
        }
        self.arrived.load(Ordering::Acquire)
    }
}

/// What every ring process shares with main: the ready gate and main's inbox.
struct Shared {
    ready: Arc<Gate>,
    main: mpsc::UnboundedSender<u64>,
}

// ---------------------------------------------------------------- ring processes
//
// One function per use, so that the measured ring's loop carries nothing it does not need.

/// The measured ring: count the receipt, finish the token or pass v-1 on.
async fn ring_node(mut inbox: Rx<Hop>, next: Tx<Hop>, sh: Arc<Shared>, last: bool) {
    sh.ready.arrive();
    let mut count: u64 = 0;
    while let Some(Hop(v)) = inbox.recv().await {
        if v < STOP {
            count += 1;
            if v == 1 {
                let _ = sh.main.send(TOKEN_DONE);
            } else {
                send!(&next, Hop(v - 1));
            }
        } else {
            return forward_stop(v, count, &next, &sh, last).await;
        }
    }
}

/// The proof: add this process's receipts to the running sum; the last process tells main.
#[inline(never)]
async fn forward_stop<M: From<u64>>(v: u64, count: u64, next: &Tx<M>, sh: &Shared, last: bool) {
    let sum = (v & !STOP) + count;
    if last {
        let _ = sh.main.send(sum);
    } else {
        send!(next, M::from(STOP | sum));
    }
}

/// trace: the ring with the sender's index in the message, printing each hop as it happens
/// (`print` is false in warm-ups).
#[allow(clippy::too_many_arguments)]
async fn trace_node(mut inbox: Rx, next: Tx, sh: Arc<Shared>, last: bool, me: u64, n: u64, total: u64, print: bool) {
    sh.ready.arrive();
    let mut count: u64 = 0;
    while let Some(msg) = inbox.recv().await {
        if msg >= STOP {
            return forward_stop(msg, count, &next, &sh, last).await;
        }
        count += 1;
        let v = msg & 0xffff_ffff;
        let from = (msg >> 32) as i64 - 1;
        if print {
            let hop = total - v + 1;
            Rec::new("hop").int("hop", hop).int("lap", (hop - 1) / n + 1).int("from", from).int("to", me).emit();
        }
        if v == 1 {
            let _ = sh.main.send(TOKEN_DONE);
        } else {
            send!(&next, (v - 1) | ((me + 1) << 32));
        }
    }
}

/// Continuous mode: tokens circulate for ever; p0 adds a lap each time one passes.
async fn spin_node(mut inbox: Rx, next: Tx, sh: Arc<Shared>, laps: Option<Arc<AtomicU64>>) {
    sh.ready.arrive();
    while let Some(v) = inbox.recv().await {
        if let Some(l) = &laps {
            l.fetch_add(1, Ordering::Relaxed);
        }
        send!(&next, v);
    }
}

struct Ring<M> {
    /// senders to the processes main injects at, in ascending index order; p0's first
    entries: Vec<Tx<M>>,
    done: mpsc::UnboundedReceiver<u64>,
    ready: u64,
}

/// Spawn p0 … p(n-1) (p(i) holding a sender to p(i+1) mod n) and wait until every one
/// has signalled ready. Channel i+1 and task i are allocated one after the other, in
/// ring order, so a token walks memory upwards. `entries`: the ascending process
/// indices main needs a sender to (must start with 0).
async fn build_ring<M, F, Fut>(n: u64, entries: &[u64], mut node: F) -> Ring<M>
where
    F: FnMut(u64, Rx<M>, Tx<M>, Arc<Shared>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (main_tx, done) = mpsc::unbounded_channel::<u64>();
    let sh = Arc::new(Shared { ready: Gate::new(n), main: main_tx });
    let (tx0, rx0) = chan::channel();
    let mut want = entries.iter().copied().peekable();
    let mut kept = Vec::with_capacity(entries.len());
    if want.next_if_eq(&0).is_some() {
        kept.push(tx0.clone());
    }
    let mut my_rx = Some(rx0);
    for i in 0..n {
        let (next_tx, next_rx) = if i + 1 < n {
            let (t, r) = chan::channel();
            (t, Some(r))
        } else {
            (tx0.clone(), None)
        };
        if want.next_if_eq(&(i + 1)).is_some() {
            kept.push(next_tx.clone());
        }
        let Some(rx) = my_rx.take() else { unreachable!() };
        tokio::spawn(node(i, rx, next_tx, sh.clone()));
        my_rx = next_rx;
    }
    drop(tx0);
    let ready = sh.ready.wait().await;
    Ring { entries: kept, done, ready }
}

/// The untimed proof: a stop message goes round once collecting receipt counts.
async fn prove<M: From<u64>>(mut ring: Ring<M>) -> Result<u64, Fail> {
    send!(&ring.entries[0], M::from(STOP));
    loop {
        match ring.done.recv().await {
            Some(TOKEN_DONE) => continue,
            Some(sum) => return Ok(sum),
            None => return fail(Kind::Failure, "ring tasks ended before the proof completed"),
        }
    }
}

/// Indices main injects at: spread (j·n div tokens, distinct as tokens <= n) or p0 alone (burst).
fn entry_indices(p: &Params) -> Vec<u64> {
    let k = if p.burst { 1 } else { p.tokens };
    (0..k).map(|j| p.injection_index(j)).collect()
}

async fn ring(p: &Params, mem: &mut MemProbe) -> Result<Out, Fail> {
    let (n, m, tokens) = (p.n, p.m, p.tokens);
    mem.before();
    let setup = Phase::start();
    let entries = entry_indices(p);
    let mut ring = build_ring(n, &entries, |i, rx, tx, sh| ring_node(rx, tx, sh, i + 1 == n)).await;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();

    let value = n * m;
    let run = Phase::start();
    for j in 0..tokens {
        let e = if p.burst { 0 } else { j as usize };
        send!(&ring.entries[e], Hop(value));
    }
    for _ in 0..tokens {
        if ring.done.recv().await != Some(TOKEN_DONE) {
            return fail(Kind::Failure, "ring broke during the message phase");
        }
    }
    let (run_ns, run_cpu_ns) = run.stop();

    let ready = ring.ready;
    let count = prove(ring).await?;
    if count != n * m * tokens {
        return fail(
            Kind::Failure,
            format!("count mismatch: processes counted {} receipts, expected {}", count, n * m * tokens),
        );
    }
    Ok(Out { count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

async fn trace(p: &Params, print: bool, mem: &mut MemProbe) -> Result<Out, Fail> {
    let (n, total) = (p.n, p.n * p.m);
    mem.before();
    let setup = Phase::start();
    let mut ring =
        build_ring(n, &[0], |i, rx, tx, sh| trace_node(rx, tx, sh, i + 1 == n, i, n, total, print)).await;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    send!(&ring.entries[0], total); // from = -1: the main process
    if ring.done.recv().await != Some(TOKEN_DONE) {
        return fail(Kind::Failure, "ring broke during the trace");
    }
    let (run_ns, run_cpu_ns) = run.stop();
    let ready = ring.ready;
    let count = prove(ring).await?;
    if count != total {
        return fail(Kind::Failure, format!("count mismatch: {} receipts, expected {}", count, total));
    }
    Ok(Out { count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; print samples; exit 0.
async fn continuous(p: &Params) -> Result<(), Fail> {
    let n = p.n;
    let laps = Arc::new(AtomicU64::new(0));
    let entries = entry_indices(p);
    let ring = build_ring(n, &entries, |i, rx, tx, sh| {
        spin_node(rx, tx, sh, if i == 0 { Some(laps.clone()) } else { None })
    })
    .await;
    let t0 = tokio::time::Instant::now();
    for j in 0..p.tokens {
        let e = if p.burst { 0 } else { j as usize };
        send!(&ring.entries[e], 1);
    }
    for seq in 1..=p.samples {
        tokio::time::sleep_until(t0 + Duration::from_millis(p.sample_ms * seq)).await;
        let l = laps.load(Ordering::Relaxed);
        let elapsed = t0.elapsed().as_nanos() as u64;
        Rec::new("sample").int("seq", seq).int("elapsed_ns", elapsed).int("count", l * n).emit();
    }
    std::process::exit(0);
}

// ---------------------------------------------------------------- spawn

/// n tasks, each signals ready and waits for its message (a oneshot); then, untimed,
/// main releases them and waits until all have exited.
async fn spawn(n: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    mem.before();
    let setup = Phase::start();
    let ready = Gate::new(n);
    let exited = Gate::new(n);
    let mut wake = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (t, r) = oneshot::channel::<()>();
        let (ready, exited) = (ready.clone(), exited.clone());
        tokio::spawn(async move {
            ready.arrive();
            let _ = r.await;
            exited.arrive();
        });
        wake.push(t);
    }
    let count = ready.wait().await;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    for t in wake {
        let _ = t.send(());
    }
    exited.wait().await;
    if count != n {
        return fail(Kind::Failure, format!("ready count {} != {}", count, n));
    }
    Ok(Out { count, ready: count, setup_ns, setup_cpu_ns, ..Default::default() })
}

// ---------------------------------------------------------------- pingpong

async fn pingpong(m: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    mem.before();
    let setup = Phase::start();
    let ready = Gate::new(2);
    let (start_tx, start_rx) = oneshot::channel::<()>();
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let (count_tx, count_rx) = oneshot::channel::<u64>();
    let (ping_tx, mut ping_rx) = mpsc::unbounded_channel::<bool>(); // true = ping, false = stop
    let (pong_tx, mut pong_rx) = mpsc::unbounded_channel::<()>();
    let ready_a = ready.clone();
    tokio::spawn(async move {
        ready_a.arrive();
        if start_rx.await.is_err() {
            return;
        }
        for _ in 0..m {
            let _ = ping_tx.send(true);
            if pong_rx.recv().await.is_none() {
                return;
            }
        }
        let _ = done_tx.send(());
        let _ = ping_tx.send(false);
    });
    let ready_b = ready.clone();
    tokio::spawn(async move {
        ready_b.arrive();
        let mut count = 0u64;
        while let Some(true) = ping_rx.recv().await {
            count += 1;
            let _ = pong_tx.send(());
        }
        let _ = count_tx.send(count);
    });
    let nready = ready.wait().await;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    let _ = start_tx.send(());
    if done_rx.await.is_err() {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let (run_ns, run_cpu_ns) = run.stop();
    let count = match count_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    if count != m {
        return fail(Kind::Failure, format!("pingpong: B counted {} round trips, expected {}", count, m));
    }
    Ok(Out { count, ready: nready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

// ---------------------------------------------------------------- fanin

async fn fanin(n: u64, m: u64, mem: &mut MemProbe) -> Result<Out, Fail> {
    let total = n * m;
    mem.before();
    let setup = Phase::start();
    let ready = Gate::new(n + 1);
    let exited = Gate::new(n);
    let (r_tx, mut r_rx) = mpsc::channel::<u64>(FANIN_CAP);
    let (main_tx, main_rx) = oneshot::channel::<u64>();
    let ready_r = ready.clone();
    tokio::spawn(async move {
        ready_r.arrive();
        let mut count = 0u64;
        while count < total {
            if r_rx.recv().await.is_none() {
                break;
            }
            count += 1;
        }
        let _ = main_tx.send(count);
    });
    let mut starts = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (s_tx, s_rx) = oneshot::channel::<()>();
        let (out, ready, exited) = (r_tx.clone(), ready.clone(), exited.clone());
        tokio::spawn(async move {
            ready.arrive();
            if s_rx.await.is_ok() {
                for _ in 0..m {
                    if out.send(1).await.is_err() {
                        break;
                    }
                }
            }
            exited.arrive();
        });
        starts.push(s_tx);
    }
    drop(r_tx);
    let nready = ready.wait().await;
    let (setup_ns, setup_cpu_ns) = setup.stop();
    mem.after();
    let run = Phase::start();
    for s in starts {
        let _ = s.send(());
    }
    let count = match main_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let (run_ns, run_cpu_ns) = run.stop();
    exited.wait().await;
    if count != total {
        return fail(Kind::Failure, format!("fanin: received {} messages, expected {}", count, total));
    }
    Ok(Out { count, ready: nready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns })
}

// ---------------------------------------------------------------- main

fn describe(flavor: Flavor) {
    Rec::new("describe")
        .int("contract", 2)
        .str("name", "rust-tokio")
        .str("runtime", &format!("Rust tokio ({} runtime, {})", flavor.name(), chan::IMPL))
        .str("version", VERSION)
        .strs("workloads", &["ring", "spawn", "pingpong", "fanin", "trace"])
        .strs("features", &["tokens", "continuous", "stats"])
        .str("variant", flavor.name())
        .emit();
}

async fn iterations(p: Params, flavor: Flavor, workers: u64) -> Result<(), Fail> {
    if p.sample_ms > 0 {
        return continuous(&p).await;
    }
    let mut mem = MemProbe::new(false);
    for it in 0..(p.warmup + p.repeats) {
        let measured = it >= p.warmup;
        let ru0 = rusage();
        let out = match p.workload.as_str() {
            "ring" => ring(&p, &mut mem).await?,
            "spawn" => spawn(p.n, &mut mem).await?,
            "pingpong" => pingpong(p.m, &mut mem).await?,
            "fanin" => fanin(p.n, p.m, &mut mem).await?,
            "trace" => trace(&p, measured, &mut mem).await?,
            _ => unreachable!(),
        };
        if !measured {
            continue;
        }
        let iteration = it - p.warmup + 1;
        emit_result(&p, iteration, &out, &mem);
        if p.stats {
            let ru1 = rusage();
            let metrics = tokio::runtime::Handle::current().metrics();
            Rec::new("stats")
                .int("iteration", iteration)
                .int("num_workers", metrics.num_workers())
                .int("num_alive_tasks", metrics.num_alive_tasks())
                .int("global_queue_depth", metrics.global_queue_depth())
                .int("worker_threads_requested", if flavor == Flavor::MultiThread { workers } else { 0 })
                .int("os_threads", status_field("Threads:").unwrap_or(0))
                .int("voluntary_ctx_switches", ru1.ru_nvcsw - ru0.ru_nvcsw)
                .int("involuntary_ctx_switches", ru1.ru_nivcsw - ru0.ru_nivcsw)
                .int("minor_faults", ru1.ru_minflt - ru0.ru_minflt)
                .int("peak_rss_bytes", status_field("VmHWM:").unwrap_or(0) * 1024)
                .emit();
        }
    }
    Ok(())
}

fn run(p: Params, flavor: Flavor) -> Result<(), Fail> {
    if p.workload == "selective" {
        return fail(
            Kind::Unsupported,
            "selective: tokio channels have no selective receive (a receive that skips \
             non-matching messages); recv() always takes the oldest message",
        );
    }
    let workers = p
        .cores
        .unwrap_or_else(|| std::thread::available_parallelism().map(|c| c.get() as u64).unwrap_or(1));
    let mut b = match flavor {
        Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        Flavor::MultiThread => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(workers as usize);
            b
        }
    };
    // Only continuous mode sleeps; the timer driver is not started for the others.
    if p.sample_ms > 0 {
        b.enable_time();
    }
    let rt = match b.build() {
        Ok(rt) => rt,
        Err(e) => {
            return fail(
                Kind::Limit,
                format!("could not start the tokio runtime ({} worker threads): {}", workers, e),
            )
        }
    };
    // The main process is itself a task: spawned tasks then go to a worker's local
    // queue rather than the global injection queue.
    let r = rt.block_on(async move {
        match tokio::spawn(iterations(p, flavor, workers)).await {
            Ok(r) => r,
            Err(e) => fail(Kind::Failure, format!("main task failed: {}", e)),
        }
    });
    // Tear-down of a runtime holding millions of finished tasks is not measured; skip it.
    std::mem::forget(rt);
    r
}

fn main() {
    install_panic_hook();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flavor = Flavor::MultiThread;
    while let Some(a) = args.first().filter(|a| a.starts_with("--")).cloned() {
        match a.as_str() {
            "--flavor=current-thread" => flavor = Flavor::CurrentThread,
            "--flavor=multi-thread" => flavor = Flavor::MultiThread,
            _ => die(&Fail {
                kind: Kind::BadParam,
                message: format!("unknown option '{}' (known: --flavor=current-thread, --flavor=multi-thread)", a),
            }),
        }
        args.remove(0);
    }
    let r = match parse_args(&args) {
        Ok(Command::Describe) => {
            describe(flavor);
            Ok(())
        }
        Ok(Command::Run(p)) => run(p, flavor),
        Err(f) => Err(f),
    };
    if let Err(f) = r {
        die(&f);
    }
}
