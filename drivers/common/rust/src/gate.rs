//! The start gate: a count the main process waits on. Each process arrives once (ready,
//! just before its first blocking receive; or exited); the last arrival wakes main by the
//! runtime's own means (`Wake`).

use crate::Out;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;
use std::time::Duration;

/// How the last arrival wakes the waiting main process. The wake must be kept if main
/// is not waiting yet (`Thread::unpark` and tokio's `Notify::notify_one` both keep it).
pub trait Wake {
    fn wake(&self);
}

pub struct Gate<W> {
    arrived: AtomicU64,
    want: u64,
    waker: W,
}

impl<W: Wake> Gate<W> {
    pub fn new(want: u64, waker: W) -> Gate<W> {
        Gate { arrived: AtomicU64::new(0), want, waker }
    }
    #[inline]
    pub fn arrive(&self) {
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.want {
            self.waker.wake();
        }
    }
    /// Arrivals so far.
    pub fn arrived(&self) -> u64 {
        self.arrived.load(Ordering::Acquire)
    }
    pub fn is_open(&self) -> bool {
        self.arrived() >= self.want
    }
    pub fn waker(&self) -> &W {
        &self.waker
    }
}

impl Wake for Thread {
    fn wake(&self) {
        self.unpark();
    }
}

impl Gate<Thread> {
    /// A gate that wakes the calling thread.
    pub fn for_this_thread(want: u64) -> Gate<Thread> {
        Gate::new(want, std::thread::current())
    }
    /// Park until every process has arrived (from the thread that made the gate); the
    /// arrivals seen.
    pub fn wait(&self) -> u64 {
        while !self.is_open() {
            std::thread::park();
        }
        self.arrived()
    }
}

/// For a driver's tests of its spawn boundary (section 3): `spawn_one_late(n)` runs `spawn` of
/// n processes with p0 `late` late to the gate, once for each way the driver spawns. In every
/// run of n = 1, 2 and 100 the spawn phase lasts at least `late` (main is not woken before the
/// late process arrives) and main wakes with all n arrived.
pub fn assert_spawn_boundary(late: Duration, spawn_one_late: impl Fn(u64) -> Vec<Out>) {
    for n in [1u64, 2, 100] {
        for out in spawn_one_late(n) {
            assert!(out.setup.ns >= late.as_nanos() as u64, "n={n}: spawn ended after {} ns", out.setup.ns);
            assert_eq!(out.ready, n, "n={n}: main woke with {} of {n} arrived", out.ready);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_last_arrival_wakes_the_thread() {
        for want in [1u64, 2, 17] {
            let g = Arc::new(Gate::for_this_thread(want));
            let hs: Vec<_> = (0..want)
                .map(|_| {
                    let g = g.clone();
                    std::thread::spawn(move || g.arrive())
                })
                .collect();
            assert_eq!(g.wait(), want);
            hs.into_iter().for_each(|h| h.join().unwrap());
        }
    }

    const SLOW: std::time::Duration = std::time::Duration::from_millis(200);

    /// `want` processes arrive, the first `SLOW` late; the time main waited and the count it saw.
    fn one_late(want: u64) -> (std::time::Duration, u64) {
        let g = Arc::new(Gate::for_this_thread(want));
        let t0 = std::time::Instant::now();
        let hs: Vec<_> = (0..want)
            .map(|i| {
                let g = g.clone();
                std::thread::spawn(move || {
                    if i == 0 {
                        std::thread::sleep(SLOW);
                    }
                    g.arrive()
                })
            })
            .collect();
        let seen = g.wait();
        let waited = t0.elapsed();
        hs.into_iter().for_each(|h| h.join().unwrap());
        (waited, seen)
    }

    /// Contract 3's boundary: a process slow to arrive holds main at the gate as long.
    #[test]
    fn a_late_arrival_delays_the_wake() {
        for want in [1u64, 2, 50] {
            let (waited, _) = one_late(want);
            assert!(waited >= SLOW, "want {want}: main woke after {waited:?}, before the late arrival");
        }
    }

    /// When main wakes, every process has arrived (the late one too), not want - 1.
    #[test]
    fn main_wakes_with_every_arrival_counted() {
        for want in [1u64, 2, 50] {
            let (_, seen) = one_late(want);
            assert_eq!(seen, want, "main woke with {seen} of {want} arrivals");
        }
    }
}
