//! ringbench driver: one OS thread per process, messages over channels.
//! See README.md and docs/driver-contract.md.

mod common;

use common::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[cfg(feature = "crossbeam")]
mod chan {
    pub use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
    pub type BSender<T> = Sender<T>;
    pub const IMPL: &str = "crossbeam-channel";
}
#[cfg(not(feature = "crossbeam"))]
mod chan {
    pub use std::sync::mpsc::{channel as unbounded, sync_channel as bounded, Receiver, Sender};
    pub type BSender<T> = std::sync::mpsc::SyncSender<T>;
    pub const IMPL: &str = "std::sync::mpsc";
}
use chan::*;

/// Stack reserved per thread (virtual; only touched pages become resident).
const STACK_SIZE: usize = 32 * 1024;
/// Memory mappings each std thread adds: stack + its guard page, plus the
/// signal stack std installs for stack-overflow reports + its guard page.
const MAPS_PER_THREAD: u64 = 4;
/// Rough memory per idle thread for the pre-launch check: resident stack and
/// TLS pages (~11 KiB measured) plus the kernel's own stack and task struct.
const BYTES_PER_THREAD: u64 = 40 * 1024;
/// Capacity of the receiver's inbox in `fanin` (back-pressure on the senders).
const FANIN_CAP: usize = 1024;

const VERSION: &str = env!("RB_RUSTC_VERSION");

fn spawn_thread<F: FnOnce() + Send + 'static>(f: F) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().stack_size(STACK_SIZE).spawn(f)
}

fn spawn_failed(e: std::io::Error, made: usize, wanted: u64) -> Fail {
    Fail {
        kind: Kind::Limit,
        message: format!(
            "thread creation failed after {} of {} threads: {}; the bound is one of kernel.threads-max, \
             kernel.pid_max, vm.max_map_count (sysctl -w ...), ulimit -u, the cgroup pids.max, or memory",
            made, wanted, e
        ),
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
    /// tear-down after a failed spawn: exit at once
    Abort,
}

const _: () = assert!(std::mem::size_of::<Msg>() == 16);

enum Done {
    Token,
    Sum(u64),
}

struct Node {
    inbox: Receiver<Msg>,
    next: Sender<Msg>,
    main: Sender<Done>,
    /// continuous mode: p0's lap counter
    laps: Option<Arc<AtomicU64>>,
    /// trace: own index and n·m (to number the hops); None otherwise
    trace: Option<(i64, u64, u64)>,
}

impl Node {
    fn run(self) {
        let mut count: u64 = 0;
        while let Ok(msg) = self.inbox.recv() {
            match msg {
                Msg::Tok(v) => {
                    count += 1;
                    if v == 1 {
                        let _ = self.main.send(Done::Token);
                    } else {
                        let _ = self.next.send(Msg::Tok(v - 1));
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
                        let _ = self.next.send(Msg::Trace(v - 1, me as i32));
                    }
                }
                Msg::Spin => {
                    if let Some(l) = &self.laps {
                        l.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = self.next.send(Msg::Spin);
                }
                Msg::Stop(sum, left) => {
                    let sum = sum + count;
                    if left <= 1 {
                        let _ = self.main.send(Done::Sum(sum));
                    } else {
                        let _ = self.next.send(Msg::Stop(sum, left - 1));
                    }
                    return;
                }
                Msg::Abort => return,
            }
        }
    }
}

struct Ring {
    inboxes: Vec<Sender<Msg>>,
    handles: Vec<JoinHandle<()>>,
    done: Receiver<Done>,
}

/// Spawn the ring; on a failed spawn, tear down what exists and report `limit`.
/// trace: Some((n-for-printing or 0 when silent, n·m)).
fn build_ring(n: u64, laps: Option<Arc<AtomicU64>>, trace: Option<(u64, u64)>) -> Result<Ring, Fail> {
    let nu = n as usize;
    let (done_tx, done_rx) = unbounded::<Done>();
    let mut inboxes = Vec::with_capacity(nu);
    let mut rxs = Vec::with_capacity(nu);
    for _ in 0..nu {
        let (t, r) = unbounded::<Msg>();
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
        match spawn_thread(move || node.run()) {
            Ok(h) => handles.push(h),
            Err(e) => {
                for t in &inboxes[..i] {
                    let _ = t.send(Msg::Abort);
                }
                for h in handles {
                    let _ = h.join();
                }
                return Err(spawn_failed(e, i, n));
            }
        }
    }
    Ok(Ring { inboxes, handles, done: done_rx })
}

/// The untimed proof: a stop message goes round once collecting receipt counts.
fn prove(ring: Ring, n: u64) -> Result<u64, Fail> {
    let _ = ring.inboxes[0].send(Msg::Stop(0, n as u32));
    let sum = loop {
        match ring.done.recv() {
            Ok(Done::Sum(s)) => break s,
            Ok(Done::Token) => continue,
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

fn ring(n: u64, m: u64, tokens: u64) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let ring = build_ring(n, None, None)?;
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();

    let value = n * m;
    let c1 = cpu_ns();
    let t1 = Instant::now();
    for j in 0..tokens {
        let _ = ring.inboxes[(j * n / tokens) as usize].send(Msg::Tok(value));
    }
    for _ in 0..tokens {
        match ring.done.recv() {
            Ok(Done::Token) => {}
            _ => return fail(Kind::Failure, "ring broke during the message phase"),
        }
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;

    let count = prove(ring, n)?;
    if count != n * m * tokens {
        return fail(
            Kind::Failure,
            format!("count mismatch: processes counted {} receipts, expected {}", count, n * m * tokens),
        );
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

fn trace(n: u64, m: u64, print: bool) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let total = n * m;
    let ring = build_ring(n, None, Some((if print { n } else { 0 }, total)))?;
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    let _ = ring.inboxes[0].send(Msg::Trace(total as u32, -1));
    match ring.done.recv() {
        Ok(Done::Token) => {}
        _ => return fail(Kind::Failure, "ring broke during the trace"),
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    let count = prove(ring, n)?;
    if count != total {
        return fail(Kind::Failure, format!("count mismatch: {} receipts, expected {}", count, total));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; print samples; exit 0.
fn continuous(p: &Params) -> Result<(), Fail> {
    let n = p.n;
    let laps = Arc::new(AtomicU64::new(0));
    let ring = build_ring(n, Some(laps.clone()), None)?;
    let t0 = Instant::now();
    for j in 0..p.tokens {
        let _ = ring.inboxes[(j * n / p.tokens) as usize].send(Msg::Spin);
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

fn spawn(n: u64) -> Result<Out, Fail> {
    let nu = n as usize;
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (ready_tx, ready_rx) = unbounded::<()>();
    let mut wake = Vec::with_capacity(nu);
    let mut handles = Vec::with_capacity(nu);
    for i in 0..nu {
        let (t, r) = unbounded::<()>();
        let ready = ready_tx.clone();
        match spawn_thread(move || {
            let _ = ready.send(());
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
    drop(ready_tx);
    let mut count = 0u64;
    while count < n {
        if ready_rx.recv().is_err() {
            return fail(Kind::Failure, "threads exited before saying ready");
        }
        count += 1;
    }
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    for t in &wake {
        let _ = t.send(());
    }
    for h in handles {
        let _ = h.join();
    }
    if count != n {
        return fail(Kind::Failure, format!("ready count {} != {}", count, n));
    }
    Ok(Out { count, setup_ns, setup_cpu_ns, rss_before, rss_after, ..Default::default() })
}

// ---------------------------------------------------------------- pingpong

enum Pp {
    Start,
    Ping,
    Pong,
    Stop,
}
enum PpMain {
    Done,
    Count(u64),
}

fn pingpong(m: u64) -> Result<Out, Fail> {
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (a_tx, a_rx) = unbounded::<Pp>();
    let (b_tx, b_rx) = unbounded::<Pp>();
    let (main_tx, main_rx) = unbounded::<PpMain>();
    let (a_to_b, main_a) = (b_tx.clone(), main_tx.clone());
    let a = spawn_thread(move || {
        if !matches!(a_rx.recv(), Ok(Pp::Start)) {
            return;
        }
        for _ in 0..m {
            let _ = a_to_b.send(Pp::Ping);
            if !matches!(a_rx.recv(), Ok(Pp::Pong)) {
                return;
            }
        }
        let _ = main_a.send(PpMain::Done);
        let _ = a_to_b.send(Pp::Stop);
    })
    .map_err(|e| spawn_failed(e, 0, 2))?;
    let b_to_a = a_tx.clone();
    let b = match spawn_thread(move || {
        let mut count = 0u64;
        while let Ok(msg) = b_rx.recv() {
            match msg {
                Pp::Ping => {
                    count += 1;
                    let _ = b_to_a.send(Pp::Pong);
                }
                Pp::Stop => break,
                _ => {}
            }
        }
        let _ = main_tx.send(PpMain::Count(count));
    }) {
        Ok(h) => h,
        Err(e) => {
            let _ = a_tx.send(Pp::Stop);
            let _ = a.join();
            return Err(spawn_failed(e, 1, 2));
        }
    };
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    let _ = a_tx.send(Pp::Start);
    if !matches!(main_rx.recv(), Ok(PpMain::Done)) {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    let count = match main_rx.recv() {
        Ok(PpMain::Count(c)) => c,
        _ => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    drop(b_tx);
    let _ = a.join();
    let _ = b.join();
    if count != m {
        return fail(Kind::Failure, format!("pingpong: B counted {} round trips, expected {}", count, m));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

// ---------------------------------------------------------------- fanin

fn fanin(n: u64, m: u64) -> Result<Out, Fail> {
    let nu = n as usize;
    let total = n * m;
    let rss_before = rss_bytes();
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (r_tx, r_rx): (BSender<u64>, Receiver<u64>) = bounded(FANIN_CAP);
    let (main_tx, main_rx) = unbounded::<u64>();
    let receiver = spawn_thread(move || {
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
    let mut starts = Vec::with_capacity(nu);
    let mut handles = Vec::with_capacity(nu);
    for i in 0..nu {
        let (s_tx, s_rx) = unbounded::<bool>();
        let out = r_tx.clone();
        match spawn_thread(move || {
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
    let setup_ns = t0.elapsed().as_nanos() as u64;
    let setup_cpu_ns = cpu_ns() - c0;
    let rss_after = rss_bytes();
    let c1 = cpu_ns();
    let t1 = Instant::now();
    for s in &starts {
        let _ = s.send(true);
    }
    let count = match main_rx.recv() {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let run_ns = t1.elapsed().as_nanos() as u64;
    let run_cpu_ns = cpu_ns() - c1;
    for h in handles {
        let _ = h.join();
    }
    let _ = receiver.join();
    if count != total {
        return fail(Kind::Failure, format!("fanin: received {} messages, expected {}", count, total));
    }
    Ok(Out { count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after })
}

// ---------------------------------------------------------------- main

fn describe() {
    Rec::new("describe")
        .int("contract", 1)
        .str("name", "rust-threads")
        .str("runtime", &format!("Rust std::thread + {}", IMPL))
        .str("version", VERSION)
        .strs("workloads", &["ring", "spawn", "pingpong", "fanin", "trace"])
        .strs("features", &["tokens", "continuous", "stats"])
        .str("variant", "")
        .emit();
}

fn threads_needed(p: &Params) -> u64 {
    match p.workload.as_str() {
        "pingpong" => 2,
        "fanin" => p.n + 1,
        _ => p.n,
    }
}

fn run(p: Params) -> Result<(), Fail> {
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
        check_memory(threads, BYTES_PER_THREAD, "threads")?;
    }
    futex_hash_setup(threads);
    if p.sample_ms > 0 {
        return continuous(&p);
    }
    for it in 0..(p.warmup + p.repeats) {
        let measured = it >= p.warmup;
        let ru0 = rusage();
        let out = match p.workload.as_str() {
            "ring" => ring(p.n, p.m, p.tokens)?,
            "spawn" => spawn(p.n)?,
            "pingpong" => pingpong(p.m)?,
            "fanin" => fanin(p.n, p.m)?,
            "trace" => trace(p.n, p.m, measured)?,
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
            Rec::new("stats")
                .int("iteration", it - p.warmup + 1)
                .int("voluntary_ctx_switches", ru1.ru_nvcsw - ru0.ru_nvcsw)
                .int("involuntary_ctx_switches", ru1.ru_nivcsw - ru0.ru_nivcsw)
                .int("minor_faults", ru1.ru_minflt - ru0.ru_minflt)
                .int("threads_spawned", threads)
                .int("stack_size_bytes", STACK_SIZE)
                .int("peak_rss_bytes", status_field("VmHWM:").unwrap_or(0) * 1024)
                .emit();
        }
    }
    Ok(())
}

/// Since Linux 6.16 a process gets a private futex hash table sized by the CPU count, not the
/// thread count (16 buckets here), so every wake-up walks a chain that grows with N. Ask for a
/// bucket per thread, as drivers/c-pthreads does; older kernels reject the call, which is harmless.
fn futex_hash_setup(threads: u64) {
    const PR_FUTEX_HASH: libc::c_int = 78;
    const PR_FUTEX_HASH_SET_SLOTS: libc::c_ulong = 1;
    let slots = threads.next_power_of_two().clamp(16, 1 << 22) as libc::c_ulong;
    unsafe {
        libc::prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0 as libc::c_ulong, 0 as libc::c_ulong);
    }
}

fn main() {
    install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("describe") if args.len() == 1 => {
            describe();
            Ok(())
        }
        Some("describe") => fail(Kind::BadParam, "describe takes no arguments"),
        Some("run") => parse_run(&args[1..]).and_then(run),
        Some(v) => fail(Kind::BadParam, format!("unknown verb '{}' (usage: describe | run <workload> key=value ...)", v)),
        None => fail(Kind::BadParam, "no verb given (usage: describe | run <workload> key=value ...)"),
    };
    if let Err(f) = r {
        die(&f);
    }
}
