//! Timed phases, the memory rule, and the `result` record.
//!
//! The memory rule (contract sections 3 and 4): memory is read around the first spawn phase
//! of the driver process only (the warm-up's when there is one); later iterations echo those
//! figures, so a per-process figure is never read after an earlier iteration let the
//! allocator reuse memory. Rust has no collector, so nothing runs before the readings.

use crate::out::Rec;
use crate::params::{Params, Workload};
use crate::sys::{cpu_ns, status_fields};
use std::sync::Mutex;
use std::time::Instant;

/// The clock the `*_ns` figures are read from (`describe`'s `clock`).
pub const CLOCK: &str = "std::time::Instant (CLOCK_MONOTONIC); CPU: CLOCK_PROCESS_CPUTIME_ID";

/// Wall and CPU time of one phase.
pub struct Phase {
    t0: Instant,
    c0: u64,
}

impl Phase {
    pub fn start() -> Phase {
        let c0 = cpu_ns();
        Phase { t0: Instant::now(), c0 }
    }
    /// (wall ns, CPU ns) since `start`
    pub fn stop(&self) -> (u64, u64) {
        let ns = self.t0.elapsed().as_nanos() as u64;
        (ns, cpu_ns().saturating_sub(self.c0))
    }
}

/// The spawn phase of ring, spawn, pingpong, fanin and trace: memory is read just before
/// it starts and just after it ends, on the process's first spawn phase.
pub struct SpawnPhase(Phase);

impl SpawnPhase {
    pub fn start() -> SpawnPhase {
        before();
        SpawnPhase(Phase::start())
    }
    /// (setup ns, setup CPU ns); then reads the memory of the processes, alive and idle.
    pub fn end(self) -> (u64, u64) {
        let t = self.0.stop();
        after();
        t
    }
}

/// The tree's one timed phase: memory before; on the first tree, the kernel's peak-RSS mark
/// reset; after the phase (`stop`, then `end` once the driver has tidied up, untimed)
/// VmRSS and VmHWM (the peak).
pub struct TreePhase(Phase);

impl TreePhase {
    pub fn start() -> TreePhase {
        if before() {
            // Refused (old kernels, some sandboxes): VmHWM is then the process's peak so far.
            let _ = std::fs::write("/proc/self/clear_refs", "5");
        }
        TreePhase(Phase::start())
    }
    /// The phase ends: the main process has the root's sum.
    pub fn stop(self) -> TreeTimed {
        let (run_ns, run_cpu_ns) = self.0.stop();
        TreeTimed { run_ns, run_cpu_ns }
    }
}

pub struct TreeTimed {
    run_ns: u64,
    run_cpu_ns: u64,
}

impl TreeTimed {
    /// Reads the memory after the tree; an `Out` with the root's sum as its count.
    pub fn end(self, sum: u64) -> Out {
        after();
        Out { count: sum, run_ns: self.run_ns, run_cpu_ns: self.run_cpu_ns, ..Default::default() }
    }
}

/// What one iteration measured.
#[derive(Default, Debug)]
pub struct Out {
    pub count: u64,
    /// ready signals the main process saw when the spawn phase ended
    pub ready: u64,
    pub setup_ns: u64,
    pub run_ns: u64,
    pub setup_cpu_ns: u64,
    pub run_cpu_ns: u64,
}

#[derive(Clone, Copy, Default)]
struct Snapshot {
    rss: u64,
    threads: u64,
    hwm: u64,
}

impl Snapshot {
    fn read() -> Snapshot {
        let [rss, threads, hwm] = status_fields(["VmRSS:", "Threads:", "VmHWM:"]);
        Snapshot { rss: rss * 1024, threads, hwm: hwm * 1024 }
    }
}

/// (before, after) of the process's first spawn phase.
static MEMORY: Mutex<(Option<Snapshot>, Option<Snapshot>)> = Mutex::new((None, None));

/// Reads the memory before the process's first spawn phase; true the first time.
fn before() -> bool {
    let mut m = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
    if m.0.is_none() {
        m.0 = Some(Snapshot::read());
        return true;
    }
    false
}

fn after() {
    let mut m = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
    if m.1.is_none() {
        m.1 = Some(Snapshot::read());
    }
}

/// One `result` record: every workload key echoed with defaults filled in, then the figures;
/// `threads`: the driver runs one OS thread per process (threads_before/after).
pub(crate) fn emit_result(p: &Params, iteration: u64, out: &Out, threads: bool) {
    let mut r = Rec::new("result").str("workload", p.workload.name()).int("iteration", iteration);
    r = match p.workload {
        Workload::Ring => r.int("n", p.n).int("m", p.m).int("tokens", p.tokens).int("burst", p.burst as u8),
        Workload::Spawn => r.int("n", p.n),
        Workload::Pingpong => r.int("m", p.m),
        Workload::Selective => r.int("n", p.n).int("m", p.m).int("reverse", p.reverse),
        Workload::Tree => r.int("n", p.n).int("fanout", p.fanout),
        Workload::Fanin | Workload::Trace => r.int("n", p.n).int("m", p.m),
    };
    let (b, a) = {
        let m = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
        (m.0.unwrap_or_default(), m.1.unwrap_or_default())
    };
    r = r.int("count", out.count);
    if p.workload != Workload::Tree {
        r = r.int("ready", out.ready);
    }
    r = r
        .int("setup_ns", out.setup_ns)
        .int("run_ns", out.run_ns)
        .int("setup_cpu_ns", out.setup_cpu_ns)
        .int("run_cpu_ns", out.run_cpu_ns)
        .int("rss_before", b.rss)
        .int("rss_after", a.rss);
    if p.workload == Workload::Tree {
        r = r.int("rss_peak", a.hwm);
    }
    if threads {
        r = r.int("threads_before", b.threads).int("threads_after", a.threads);
    }
    r.emit();
}
