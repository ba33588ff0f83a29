//! The start gate: a count the main process waits on. Each process arrives once (ready,
//! just before its first blocking receive; or exited); the last arrival wakes main by the
//! runtime's own means (`Wake`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;

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
}
