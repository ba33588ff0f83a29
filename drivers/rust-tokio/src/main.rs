//! ringbench driver: one tokio task per process, messages over tokio::sync channels.
//! Two variants: `--flavor=current-thread` and `--flavor=multi-thread` (worker_threads = cores).
//! See README.md and docs/driver-contract.md.

mod common;

use common::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The ring's channels: unbounded (default) or bounded to `tokens` (feature `bounded`).
#[cfg(not(feature = "bounded"))]
mod chan {
    use tokio::sync::mpsc;
    pub type Tx<T> = mpsc::UnboundedSender<T>;
    pub type Rx<T> = mpsc::UnboundedReceiver<T>;
    pub const IMPL: &str = "unbounded mpsc";
    pub fn channel<T>(_cap: usize) -> (Tx<T>, Rx<T>) {
        mpsc::unbounded_channel()
    }
    #[inline(always)]
    pub async fn send<T>(tx: &Tx<T>, m: T) {
        let _ = tx.send(m);
    }
}
#[cfg(feature = "bounded")]
mod chan {
    use tokio::sync::mpsc;
    pub type Tx<T> = mpsc::Sender<T>;
    pub type Rx<T> = mpsc::Receiver<T>;
    pub const IMPL: &str = "bounded mpsc";
    pub fn channel<T>(cap: usize) -> (Tx<T>, Rx<T>) {
        mpsc::channel(cap)
    }
    #[inline(always)]
    pub async fn send<T>(tx: &Tx<T>, m: T) {
        let _ = tx.send(m).await;
    }
}
use chan::{Rx, Tx};

/// Rough memory per ring process (task + its channel, whose first block of 32
/// message slots is allocated with it), for the pre-launch check: ~1.8 KiB measured.
const BYTES_PER_RING_TASK: u64 = 2048;
/// Rough memory per task holding only a oneshot (spawn, fanin): ~0.5 KiB measured.
const BYTES_PER_TASK: u64 = 640;
/// Capacity of the receiver's inbox in `fanin` (back-pressure on the senders).
const FANIN_CAP: usize = 1024;

const VERSION: &str = env!("RB_VERSION");

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

// ---------------------------------------------------------------- ring

enum Msg {
    /// a token with its remaining value
    Tok(u64),
    /// trace token: remaining value and the sender's index (trace has n, m <= 100)
    Trace(u32, i32),
    /// continuous-mode token
    Spin,
    /// the proof: running sum of receipts, processes left to visit (n <= 10^7)
    /// (u32 keeps every message at 16 bytes, so channel blocks stay small)
    Stop(u64, u32),
}

const _: () = assert!(std::mem::size_of::<Msg>() == 16);

enum Done {
    Token,
    Sum(u64),
}

struct Node {
    inbox: Rx<Msg>,
    next: Tx<Msg>,
    main: mpsc::UnboundedSender<Done>,
    /// continuous mode: p0's lap counter
    laps: Option<Arc<AtomicU64>>,
    /// trace: own index, n (0 = silent), n·m
    trace: Option<(i64, u64, u64)>,
}

impl Node {
    async fn run(mut self) {
        let mut count: u64 = 0;
        while let Some(msg) = self.inbox.recv().await {
            match msg {
                Msg::Tok(v) => {
                    count += 1;
                    if v == 1 {
                        let _ = self.main.send(Done::Token);
                    } else {
                        chan::send(&self.next, Msg::Tok(v - 1)).await;
                    }
                }
                Msg::Trace(v, from) => {
                    count += 1;
                    let (me, n, total) = self.trace.unwrap();
                    if n > 0 {
                        let hop = total - v as u64 + 1;
                        Rec::new("hop")
                            .int("hop", hop)
                            .int("lap", (hop - 1) / n + 1)
                            .int("from", from)
                            .int("to", me)
                            .emit();
                    }
                    if v == 1 {
                        let _ = self.main.send(Done::Token);
                    } else {
                        chan::send(&self.next, Msg::Trace(v - 1, me as i32)).await;
                    }
                }
                Msg::Spin => {
                    if let Some(l) = &self.laps {
                        l.fetch_add(1, Ordering::Relaxed);
                    }
                    chan::send(&self.next, Msg::Spin).await;
                }
                Msg::Stop(sum, left) => {
                    let sum = sum + count;
                    if left <= 1 {
                        let _ = self.main.send(Done::Sum(sum));
                    } else {
                        chan::send(&self.next, Msg::Stop(sum, left - 1)).await;
                    }
                    return;
                }
            }
        }
    }
}

struct Ring {
    inboxes: Vec<Tx<Msg>>,
    handles: Vec<JoinHandle<()>>,
    done: mpsc::UnboundedReceiver<Done>,
}

fn build_ring(n: u64, cap: u64, laps: Option<Arc<AtomicU64>>, trace: Option<(u64, u64)>) -> Ring {
    let nu = n as usize;
    let (done_tx, done_rx) = mpsc::unbounded_channel::<Done>();
    let mut inboxes = Vec::with_capacity(nu);
    let mut rxs = Vec::with_capacity(nu);
    for _ in 0..nu {
        let (t, r) = chan::channel::<Msg>(cap as usize);
        inboxes.push(t);
        rxs.push(r);
    }
    let mut handles = Vec::with_capacity(nu);
    for (i, inbox) in rxs.into_iter().enumerate() {
        let node = Node {
            inbox,
            next: inboxes[(i + 1) % nu].clone(),
            main: done_tx.clone(),
            laps: if i == 0 { laps.clone() } else { None },
            trace: trace.map(|(pn, total)| (i as i64, pn, total)),
        };
        handles.push(tokio::spawn(node.run()));
    }
    Ring { inboxes, handles, done: done_rx }
}

async fn prove(mut ring: Ring, n: u64) -> Result<u64, Fail> {
    chan::send(&ring.inboxes[0], Msg::Stop(0, n as u32)).await;
    let sum = loop {
        match ring.done.recv().await {
            Some(Done::Sum(s)) => break s,
            Some(Done::Token) => continue,
            None => return fail(Kind::Failure, "ring tasks ended before the proof completed"),
        }
    };
    for h in ring.handles {
        if h.await.is_err() {
            return fail(Kind::Failure, "a ring task failed");
        }
    }
    Ok(sum)
}

#[derive(Default)]
struct Out {
    count: u64,
    setup_ns: u64,
    run_ns: u64,
    setup_cpu_ns: u64,
    run_cpu_ns: u64,
    rss_before: u64,
    rss_after: u64,
}

async fn ring(n: u64, m: u64, tokens: u64) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let mut ring = build_ring(n, tokens, None, None);
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();

    let value = n * m;
    let c1 = cpu_ns();
    let t1 = Instant::now();
    for j in 0..tokens {
        chan::send(&ring.inboxes[(j * n / tokens) as usize], Msg::Tok(value)).await;
    }
    for _ in 0..tokens {
        match ring.done.recv().await {
            Some(Done::Token) => {}
            _ => return fail(Kind::Failure, "ring broke during the message phase"),
        }
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;

    let count = prove(ring, n).await?;
    if count != n * m * tokens {
        return fail(
            Kind::Failure,
            format!("count mismatch: processes counted {} receipts, expected {}", count, n * m * tokens),
        );
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

async fn trace(n: u64, m: u64, print: bool) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let total = n * m;
    let mut ring = build_ring(n, 1, None, Some((if print { n } else { 0 }, total)));
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    chan::send(&ring.inboxes[0], Msg::Trace(total as u32, -1)).await;
    match ring.done.recv().await {
        Some(Done::Token) => {}
        _ => return fail(Kind::Failure, "ring broke during the trace"),
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    let count = prove(ring, n).await?;
    if count != total {
        return fail(Kind::Failure, format!("count mismatch: {} receipts, expected {}", count, total));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; print samples; exit 0.
async fn continuous(p: &Params) -> Result<(), Fail> {
    let n = p.n;
    let laps = Arc::new(AtomicU64::new(0));
    let ring = build_ring(n, p.tokens, Some(laps.clone()), None);
    let t0 = tokio::time::Instant::now();
    for j in 0..p.tokens {
        chan::send(&ring.inboxes[(j * n / p.tokens) as usize], Msg::Spin).await;
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

async fn spawn(n: u64) -> Result<Out, Fail> {
    let nu = n as usize;
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<()>();
    let mut wake = Vec::with_capacity(nu);
    let mut handles = Vec::with_capacity(nu);
    for _ in 0..nu {
        let (t, r) = oneshot::channel::<()>();
        let ready = ready_tx.clone();
        handles.push(tokio::spawn(async move {
            let _ = ready.send(());
            let _ = r.await;
        }));
        wake.push(t);
    }
    drop(ready_tx);
    let mut count = 0u64;
    while count < n {
        if ready_rx.recv().await.is_none() {
            return fail(Kind::Failure, "tasks ended before saying ready");
        }
        count += 1;
    }
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    for t in wake {
        let _ = t.send(());
    }
    for h in handles {
        let _ = h.await;
    }
    Ok(Out { count, setup_ns, setup_cpu_ns, rss_before, rss_after, ..Default::default() })
}

// ---------------------------------------------------------------- pingpong

async fn pingpong(m: u64) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (start_tx, start_rx) = oneshot::channel::<()>();
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let (count_tx, count_rx) = oneshot::channel::<u64>();
    let (ping_tx, mut ping_rx) = mpsc::unbounded_channel::<bool>(); // true = ping, false = stop
    let (pong_tx, mut pong_rx) = mpsc::unbounded_channel::<()>();
    let a = tokio::spawn(async move {
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
    let b = tokio::spawn(async move {
        let mut count = 0u64;
        while let Some(true) = ping_rx.recv().await {
            count += 1;
            let _ = pong_tx.send(());
        }
        let _ = count_tx.send(count);
    });
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    let _ = start_tx.send(());
    if done_rx.await.is_err() {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    let count = match count_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    let _ = a.await;
    let _ = b.await;
    if count != m {
        return fail(Kind::Failure, format!("pingpong: B counted {} round trips, expected {}", count, m));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

// ---------------------------------------------------------------- fanin

async fn fanin(n: u64, m: u64) -> Result<Out, Fail> {
    let nu = n as usize;
    let total = n * m;
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (r_tx, mut r_rx) = mpsc::channel::<u64>(FANIN_CAP);
    let (main_tx, main_rx) = oneshot::channel::<u64>();
    let receiver = tokio::spawn(async move {
        let mut count = 0u64;
        while count < total {
            if r_rx.recv().await.is_none() {
                break;
            }
            count += 1;
        }
        let _ = main_tx.send(count);
    });
    let mut starts = Vec::with_capacity(nu);
    let mut handles = Vec::with_capacity(nu);
    for _ in 0..nu {
        let (s_tx, s_rx) = oneshot::channel::<()>();
        let out = r_tx.clone();
        handles.push(tokio::spawn(async move {
            if s_rx.await.is_ok() {
                for _ in 0..m {
                    if out.send(1).await.is_err() {
                        return;
                    }
                }
            }
        }));
        starts.push(s_tx);
    }
    drop(r_tx);
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    for s in starts {
        let _ = s.send(());
    }
    let count = match main_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    for h in handles {
        let _ = h.await;
    }
    let _ = receiver.await;
    if count != total {
        return fail(Kind::Failure, format!("fanin: received {} messages, expected {}", count, total));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

// ---------------------------------------------------------------- main

fn describe(flavor: Flavor) {
    Rec::new("describe")
        .int("contract", 1)
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
    for it in 0..(p.warmup + p.repeats) {
        let measured = it >= p.warmup;
        let ru0 = rusage();
        let out = match p.workload.as_str() {
            "ring" => ring(p.n, p.m, p.tokens).await?,
            "spawn" => spawn(p.n).await?,
            "pingpong" => pingpong(p.m).await?,
            "fanin" => fanin(p.n, p.m).await?,
            "trace" => trace(p.n, p.m, measured).await?,
            _ => unreachable!(),
        };
        if !measured {
            continue;
        }
        let mut r = Rec::new("result").str("workload", &p.workload).int("iteration", it - p.warmup + 1);
        r = match p.workload.as_str() {
            "ring" => r.int("n", p.n).int("m", p.m).int("tokens", p.tokens),
            "spawn" => r.int("n", p.n),
            "pingpong" => r.int("m", p.m),
            _ => r.int("n", p.n).int("m", p.m),
        };
        r.int("count", out.count)
            .int("setup_ns", out.setup_ns)
            .int("run_ns", out.run_ns)
            .int("setup_cpu_ns", out.setup_cpu_ns)
            .int("run_cpu_ns", out.run_cpu_ns)
            .int("rss_before", out.rss_before)
            .int("rss_after", out.rss_after)
            .emit();
        if p.stats {
            let ru1 = rusage();
            let metrics = tokio::runtime::Handle::current().metrics();
            Rec::new("stats")
                .int("iteration", it - p.warmup + 1)
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
    let tasks = match p.workload.as_str() {
        "pingpong" => 2,
        "fanin" => p.n + 1,
        _ => p.n,
    };
    if std::env::var_os("RINGBENCH_NO_PRECHECK").is_none() {
        let per = match p.workload.as_str() {
            "ring" | "trace" => BYTES_PER_RING_TASK,
            _ => BYTES_PER_TASK,
        };
        check_memory(tasks, per, "tasks")?;
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
    let rt = match b.enable_time().build() {
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
    let r = match args.first().map(String::as_str) {
        Some("describe") if args.len() == 1 => {
            describe(flavor);
            Ok(())
        }
        Some("describe") => fail(Kind::BadParam, "describe takes no arguments"),
        Some("run") => parse_run(&args[1..]).and_then(|p| run(p, flavor)),
        Some(v) => fail(Kind::BadParam, format!("unknown verb '{}' (usage: describe | run <workload> key=value ...)", v)),
        None => fail(Kind::BadParam, "no verb given (usage: describe | run <workload> key=value ...)"),
    };
    if let Err(f) = r {
        die(&f);
    }
}
