//! Timed phases, the memory probe of the first spawn phase, and the `result` record.

use crate::out::Rec;
use crate::params::Params;
use crate::sys::{cpu_ns, kernel_stack_bytes, rss_bytes};
use std::time::Instant;

/// Wall and CPU time of one phase (monotonic clock; CLOCK_PROCESS_CPUTIME_ID).
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
    kernel_stack: u64,
}

impl Snapshot {
    fn read(kernel_stack: bool) -> Snapshot {
        Snapshot { rss: rss_bytes(), kernel_stack: if kernel_stack { kernel_stack_bytes() } else { 0 } }
    }
}

/// Memory read around the first spawn phase of the driver process only (the warm-up's
/// when there is one); later iterations echo those values, so a per-process figure is
/// never read after an earlier iteration let the allocator reuse memory.
pub struct MemProbe {
    kernel_stack: bool,
    before: Option<Snapshot>,
    after: Option<Snapshot>,
}

impl MemProbe {
    /// `kernel_stack`: also read KernelStack of /proc/meminfo (one-OS-thread-per-process drivers).
    pub fn new(kernel_stack: bool) -> MemProbe {
        MemProbe { kernel_stack, before: None, after: None }
    }
    /// Just before spawning; a no-op after the first time.
    pub fn before(&mut self) {
        if self.before.is_none() {
            self.before = Some(Snapshot::read(self.kernel_stack));
        }
    }
    /// When every process is alive and idle (Rust has no collector to run first);
    /// a no-op after the first time.
    pub fn after(&mut self) {
        if self.after.is_none() {
            self.after = Some(Snapshot::read(self.kernel_stack));
        }
    }
}

/// One `result` record: every workload key echoed with defaults filled in, then the figures.
pub fn emit_result(p: &Params, iteration: u64, out: &Out, mem: &MemProbe) {
    let mut r = Rec::new("result").str("workload", &p.workload).int("iteration", iteration);
    r = match p.workload.as_str() {
        "ring" => r.int("n", p.n).int("m", p.m).int("tokens", p.tokens).int("burst", p.burst as u8),
        "spawn" => r.int("n", p.n),
        "pingpong" => r.int("m", p.m),
        "selective" => r.int("n", p.n).int("m", p.m).int("reverse", p.reverse),
        _ => r.int("n", p.n).int("m", p.m),
    };
    let (b, a) = (mem.before.unwrap_or_default(), mem.after.unwrap_or_default());
    r = r
        .int("count", out.count)
        .int("ready", out.ready)
        .int("setup_ns", out.setup_ns)
        .int("run_ns", out.run_ns)
        .int("setup_cpu_ns", out.setup_cpu_ns)
        .int("run_cpu_ns", out.run_cpu_ns)
        .int("rss_before", b.rss)
        .int("rss_after", a.rss);
    if mem.kernel_stack {
        r = r.int("kernel_stack_before", b.kernel_stack).int("kernel_stack_after", a.kernel_stack);
    }
    r.emit();
}
