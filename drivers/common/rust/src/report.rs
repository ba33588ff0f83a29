//! Timed phases, the memory rule, and the `result` record.
//!
//! The memory rule (contract sections 3 and 4): memory is read around the first spawn phase
//! of the driver process only (the warm-up's when there is one); later iterations echo those
//! figures, so a per-process figure is never read after an earlier iteration let the
//! allocator reuse memory. Rust has no collector, so nothing runs before the readings.

use crate::out::Rec;
use crate::params::{Params, Workload};
use crate::sys::{cpu_ns, ctx_switches, status_fields};
use std::sync::Mutex;
use std::time::Instant;

/// The clock the `*_ns` figures are read from (`describe`'s `clock`).
pub const CLOCK: &str = "std::time::Instant (CLOCK_MONOTONIC); CPU: CLOCK_PROCESS_CPUTIME_ID";

/// What one timed phase measured: wall and CPU time, and the context switches of the whole
/// process (every thread) over it.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Span {
    pub ns: u64,
    pub cpu_ns: u64,
    /// voluntary context switches (`ru_nvcsw`): a thread blocked, waiting for something
    pub vcsw: u64,
    /// involuntary context switches (`ru_nivcsw`): a thread was preempted
    pub ivcsw: u64,
}

/// One timed phase. The context switches are read before the clocks at the start and after
/// them at the end, so the `getrusage` calls add nothing to the timed interval.
pub struct Phase {
    t0: Instant,
    c0: u64,
    cs0: (u64, u64),
}

impl Phase {
    pub fn start() -> Phase {
        let cs0 = ctx_switches();
        let c0 = cpu_ns();
        Phase { t0: Instant::now(), c0, cs0 }
    }
    /// What the phase measured since `start`.
    pub fn stop(&self) -> Span {
        let ns = self.t0.elapsed().as_nanos() as u64;
        let cpu_ns = cpu_ns().saturating_sub(self.c0);
        let (v, iv) = ctx_switches();
        Span { ns, cpu_ns, vcsw: v.saturating_sub(self.cs0.0), ivcsw: iv.saturating_sub(self.cs0.1) }
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
    /// What the spawn phase measured; then reads the memory of the processes, alive and idle.
    pub fn end(self) -> Span {
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
        TreeTimed(self.0.stop())
    }
}

pub struct TreeTimed(Span);

impl TreeTimed {
    /// Reads the memory after the tree; an `Out` with the root's sum as its count.
    pub fn end(self, sum: u64) -> Out {
        after();
        // one timed phase: the spawn phase's figures stay 0
        Out { count: sum, run: self.0, ..Default::default() }
    }
}

/// What one iteration measured.
#[derive(Default, Debug)]
pub struct Out {
    pub count: u64,
    /// arrivals at the gate the main process saw when the spawn phase ended
    pub ready: u64,
    /// the spawn phase (0 for spawn-free workloads: tree)
    pub setup: Span,
    /// the message phase (0 for spawn)
    pub run: Span,
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
        .int("setup_ns", out.setup.ns)
        .int("run_ns", out.run.ns)
        .int("setup_cpu_ns", out.setup.cpu_ns)
        .int("run_cpu_ns", out.run.cpu_ns)
        .int("setup_vcsw", out.setup.vcsw)
        .int("setup_ivcsw", out.setup.ivcsw)
        .int("run_vcsw", out.run.vcsw)
        .int("run_ivcsw", out.run.ivcsw)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_counts_the_context_switches_of_the_whole_process() {
        // Main blocks in join while another thread sleeps: both block, so the process makes
        // at least two voluntary switches inside the phase (other tests' threads can only add).
        let phase = Phase::start();
        std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_millis(5))).join().unwrap();
        let span = phase.stop();
        assert!(span.vcsw >= 2, "{:?}", span);
        assert!(span.ns >= 5_000_000, "{:?}", span);
    }
}
