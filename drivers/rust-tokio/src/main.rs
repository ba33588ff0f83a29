//! ringbench driver: one tokio task per process, messages over tokio::sync::mpsc channels.
//! Variants (`--variant=`): `multi-thread` (worker_threads = cores), `current-thread`, and
//! `tuned` (multi-thread with the scheduler intervals tokio's documentation offers for
//! tasks that poll quickly, and the tuned build). The contract's plumbing is
//! ringbench-common's; this crate holds the workloads. See README.md.

mod fanin;
mod pingpong;
mod ring;
mod tree;

use ringbench_common::{
    build_profile, fail, locked_version, serve, Driver, Fail, Gate, Kind, LimitAlloc, Out, Params, Rec, Spec, Wake,
    Workload,
};
use tokio::runtime::{Builder, Runtime};
use tokio::sync::Notify;

// Allocation failure -> a `limit` error record (exit 3) rather than an abort.
#[global_allocator]
static ALLOC: LimitAlloc = LimitAlloc;

const SPEC: Spec = Spec {
    name: "rust-tokio",
    variants: &["multi-thread", "current-thread", "tuned"],
    tuned_build: &["tuned"],
    workloads: &[Workload::Ring, Workload::Spawn, Workload::Pingpong, Workload::Fanin, Workload::Tree, Workload::Trace],
    unsupported: &[(
        Workload::Selective,
        "tokio channels have no selective receive (a receive that skips non-matching messages); \
         recv() always takes the oldest message",
    )],
    features: &["tokens", "continuous", "stats"],
    collector: "",
    os_threads: false,
};

/// The tuned variant's scheduler intervals (tokio::runtime::Builder, README): both default to
/// 61 and to a self-tuned value of at most 127 ticks on the multi-thread scheduler; the
/// documentation advises higher values when tasks complete their polls quickly.
const TUNED_EVENT_INTERVAL: u32 = 1024;
const TUNED_GLOBAL_QUEUE_INTERVAL: u32 = 1024;

/// The start gate's wake-up: tokio's Notify keeps a `notify_one` as a permit if main is not
/// waiting yet, so none is lost.
pub struct Notified(Notify);

impl Wake for Notified {
    fn wake(&self) {
        self.0.notify_one();
    }
}

/// The gate of one iteration's tasks.
pub type TaskGate = Gate<Notified>;

pub fn new_gate(want: u64) -> TaskGate {
    Gate::new(want, Notified(Notify::new()))
}

/// Wait until every process has arrived; the arrivals seen.
pub async fn wait(g: &TaskGate) -> u64 {
    if !g.is_open() {
        g.waker().0.notified().await;
    }
    g.arrived()
}

struct Tokio {
    variant: &'static str,
    rt: Option<Runtime>,
    workers: u64,
}

impl Tokio {
    fn multi_thread(&self) -> bool {
        self.variant != "current-thread"
    }
}

impl Driver for Tokio {
    fn runtime(&self) -> String {
        match self.variant {
            "tuned" => format!(
                "Rust tokio (multi-thread runtime, event_interval {}, global_queue_interval {}; {} build), unbounded mpsc",
                TUNED_EVENT_INTERVAL,
                TUNED_GLOBAL_QUEUE_INTERVAL,
                build_profile()
            ),
            v => format!("Rust tokio ({} runtime), unbounded mpsc", v),
        }
    }

    fn version(&self) -> String {
        let tokio = locked_version(env!("RB_LOCKED"), "tokio").unwrap_or("?");
        format!("tokio {} ({})", tokio, env!("RB_RUSTC_VERSION"))
    }

    fn prepare(&mut self, p: &Params) -> Result<(), Fail> {
        self.workers = p.cores.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |c| c.get() as u64));
        let mut b = if self.multi_thread() {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(self.workers as usize);
            b
        } else {
            Builder::new_current_thread()
        };
        if self.variant == "tuned" {
            b.event_interval(TUNED_EVENT_INTERVAL).global_queue_interval(TUNED_GLOBAL_QUEUE_INTERVAL);
        }
        // Only continuous mode sleeps; the timer driver is not started for the others.
        if p.continuous() {
            b.enable_time();
        }
        match b.build() {
            Ok(rt) => {
                self.rt = Some(rt);
                Ok(())
            }
            Err(e) => {
                fail(Kind::Limit, format!("could not start the tokio runtime ({} worker threads): {}", self.workers, e))
            }
        }
    }

    fn iteration(&mut self, p: &Params, warmup: bool) -> Result<Out, Fail> {
        let p = p.clone();
        // The main process is itself a task, so that the tasks it spawns go to a worker's
        // local queue (multi-thread) rather than the global injection queue.
        self.main_task(async move {
            match p.workload {
                Workload::Ring => ring::ring(&p).await,
                Workload::Spawn => ring::spawn(&p).await,
                Workload::Pingpong => pingpong::pingpong(p.m).await,
                Workload::Fanin => fanin::fanin(p.n, p.m).await,
                Workload::Tree => tree::run(&p).await,
                Workload::Trace => ring::trace(&p, !warmup).await,
                Workload::Selective => unreachable!("not in SPEC.workloads"),
            }
        })
    }

    fn continuous(&mut self, p: &Params) -> Result<(), Fail> {
        let p = p.clone();
        self.main_task(async move { ring::continuous(&p).await })
    }

    fn stats(&self, rec: Rec) -> Rec {
        let Some(rt) = &self.rt else { return rec };
        let m = rt.metrics();
        rec.int("num_workers", m.num_workers())
            .int("num_alive_tasks", m.num_alive_tasks())
            .int("global_queue_depth", m.global_queue_depth())
            .int("worker_threads_requested", if self.multi_thread() { self.workers } else { 0 })
    }
}

impl Tokio {
    /// Run `f` as the main process's task and wait for it.
    fn main_task<T: Send + 'static>(
        &self,
        f: impl std::future::Future<Output = Result<T, Fail>> + Send + 'static,
    ) -> Result<T, Fail> {
        let Some(rt) = &self.rt else { return fail(Kind::Failure, "the runtime was not built") };
        rt.block_on(async move {
            match tokio::spawn(f).await {
                Ok(r) => r,
                Err(e) => fail(Kind::Failure, format!("main task failed: {}", e)),
            }
        })
    }
}

fn main() {
    // The runtime is never torn down: the crate exits the process after the last record
    // (dropping millions of finished tasks is no part of a measurement).
    serve(&SPEC, |variant| Tokio { variant, rt: None, workers: 0 })
}
