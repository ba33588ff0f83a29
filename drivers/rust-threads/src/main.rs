//! ringbench driver: one OS thread per process (std::thread). Variants (`--variant=`):
//! `stock` (std::sync::mpsc channels, std as it comes), `handoff` (the value written into
//! the next thread's slot, which is then unparked) and `tuned` (stock with 32 KiB stacks,
//! a futex hash table sized by the thread count, and the tuned build). The contract's
//! plumbing is ringbench-common's; this crate holds the workloads. See README.md.

mod fanin;
mod handoff;
mod hop;
mod pingpong;
mod ring;
mod tree;

use hop::HopKind;
use ringbench_common::{
    build_profile, check_thread_limits, locked_version, serve, Driver, Fail, Kind, LimitAlloc, Out, Params, Rec, Spec,
    Workload,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

// Allocation failure -> a `limit` error record (exit 3) rather than an abort.
#[global_allocator]
static ALLOC: LimitAlloc = LimitAlloc;

const SPEC: Spec = Spec {
    name: "rust-threads",
    variants: &["stock", "handoff", "tuned"],
    tuned_build: &["tuned"],
    workloads: &[Workload::Ring, Workload::Spawn, Workload::Pingpong, Workload::Fanin, Workload::Tree, Workload::Trace],
    unsupported: &[(
        Workload::Selective,
        "Rust channels have no selective receive (a receive that skips non-matching messages); \
         recv() always takes the oldest message",
    )],
    features: &["tokens", "continuous", "stats"],
    collector: "",
    os_threads: true,
};

/// Stack reserved per thread in the tuned variant (virtual; only touched pages become
/// resident). The others take std's default (2 MiB).
const TUNED_STACK_SIZE: usize = 32 * 1024;
/// Memory mappings each std thread adds: stack + its guard page, plus the signal stack std
/// installs for stack-overflow reports + its guard page.
const MAPS_PER_THREAD: u64 = 4;

/// 0 = std's default stack size; set in `prepare` before any thread is spawned.
static STACK_SIZE: AtomicUsize = AtomicUsize::new(0);

pub fn spawn_thread<F: FnOnce() + Send + 'static>(f: F) -> std::io::Result<JoinHandle<()>> {
    let b = std::thread::Builder::new();
    match STACK_SIZE.load(Ordering::Relaxed) {
        0 => b.spawn(f),
        s => b.stack_size(s).spawn(f),
    }
}

pub fn spawn_failed(e: std::io::Error, made: u64, wanted: u64) -> Fail {
    Fail {
        kind: Kind::Limit,
        message: format!(
            "thread creation failed after {} of {} threads: {}; the bound is one of kernel.threads-max, \
             kernel.pid_max, vm.max_map_count (sysctl -w ...), ulimit -u, the cgroup pids.max, or memory",
            made, wanted, e
        ),
    }
}

struct Threads {
    variant: &'static str,
    hop: HopKind,
    tuned: bool,
    threads: u64,
    futex_slots: i64,
}

impl Driver for Threads {
    fn runtime(&self) -> String {
        match self.variant {
            "handoff" => "Rust std::thread + hand-off slot (thread::park/unpark)".into(),
            "tuned" => format!(
                "Rust std::thread + std::sync::mpsc (32 KiB stacks, futex hash per thread; {} build)",
                build_profile()
            ),
            _ => "Rust std::thread + std::sync::mpsc".into(),
        }
    }

    fn version(&self) -> String {
        let libc = locked_version(env!("RB_LOCKED"), "libc").unwrap_or("?");
        format!("{} (libc crate {})", env!("RB_RUSTC_VERSION"), libc)
    }

    fn prepare(&mut self, p: &Params) -> Result<(), Fail> {
        self.threads = p.processes();
        check_thread_limits(self.threads, MAPS_PER_THREAD)?;
        if self.tuned {
            STACK_SIZE.store(TUNED_STACK_SIZE, Ordering::Relaxed);
            self.futex_slots = futex_hash_slots(self.threads);
        }
        Ok(())
    }

    fn iteration(&mut self, p: &Params, warmup: bool) -> Result<Out, Fail> {
        match p.workload {
            Workload::Ring => ring::ring(self.hop, p),
            Workload::Spawn => ring::spawn(self.hop, p),
            Workload::Pingpong => pingpong::pingpong(self.hop, p.m),
            Workload::Fanin => fanin::fanin(p.n, p.m),
            Workload::Tree => tree::run(p),
            Workload::Trace => ring::trace(self.hop, p, !warmup),
            Workload::Selective => unreachable!("not in SPEC.workloads"),
        }
    }

    fn continuous(&mut self, p: &Params) -> Result<(), Fail> {
        ring::continuous(self.hop, p)
    }

    fn stats(&self, rec: Rec) -> Rec {
        rec.int("threads_spawned", self.threads)
            .int("stack_size_bytes", STACK_SIZE.load(Ordering::Relaxed))
            .int("futex_hash_slots", self.futex_slots)
    }
}

/// Since Linux 6.16 a process gets a private futex hash table sized by the CPU count, not
/// the thread count (16 buckets on 2 CPUs), so every wake-up walks a chain that grows with
/// N. The tuned variant asks for a bucket per thread (older kernels reject the call, which
/// changes nothing). Returns the slots asked for (-1 = the kernel's default, in the others).
fn futex_hash_slots(threads: u64) -> i64 {
    const PR_FUTEX_HASH: libc::c_int = 78;
    const PR_FUTEX_HASH_SET_SLOTS: libc::c_ulong = 1;
    let slots = threads.next_power_of_two().clamp(16, 1 << 22);
    unsafe {
        libc::prctl(
            PR_FUTEX_HASH,
            PR_FUTEX_HASH_SET_SLOTS,
            slots as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
    slots as i64
}

fn main() {
    serve(&SPEC, |variant| Threads {
        variant,
        hop: if variant == "handoff" { HopKind::Handoff } else { HopKind::Channel },
        tuned: variant == "tuned",
        threads: 0,
        futex_slots: -1,
    })
}
