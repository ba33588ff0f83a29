//! The hand-off: one value slot per thread. A hop writes the value into the next
//! thread's slot and unparks that thread (`Thread::unpark`, a futex wake when it is
//! asleep); the receiver takes the value from its own slot or parks until one comes.
//! No message object and no queue: the idiom of the Benchmarks Game thread-ring
//! programs, which pass one token. This driver also carries several tokens, so a
//! writer that finds the slot still full sets a "waiting" bit and parks; the owner
//! wakes it after taking the value.
//!
//! Early wake (only when this process may run on more than one CPU): after a hop has
//! put the value into its successor's slot it also unparks the successor's successor,
//! and a thread that returns from `park` to an empty slot yields (`sched_yield`) a
//! bounded number of times, re-reading the slot, before it parks again. The next
//! receiver is then already awake on the other CPU when the value lands, so the futex
//! wake-up latency is paid one hop ahead instead of on every hop's path (the
//! Benchmarks Game Rust #2 program opens each thread's gate two hops ahead for the
//! same reason). On one CPU a yielding waiter only delays the thread it waits for, so
//! neither is done there. For the woken thread the early unpark is a spurious
//! wake-up: it looks at its slot and goes back to sleep if nothing came, so every
//! wait stays a loop on the slot and a long wait still ends in `park`.
//!
//! Who writes slot i: its predecessor p(i-1 mod n) and the main thread (injection,
//! proof, tear-down); each has its own waiting bit, so no wake-up is lost.
//! 0 marks an empty slot and is never sent.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
use std::sync::OnceLock;
use std::thread::Thread;

#[derive(Clone, Copy)]
pub enum Writer {
    Predecessor = 1,
    Main = 2,
}

/// One cache line per slot, so that neighbours running on other cores do not
/// invalidate each other's slot when several tokens circulate.
#[repr(align(64))]
struct Slot {
    value: AtomicU64,
    waiting: AtomicU32,
    /// 1 while the owner is (about to be) parked in `take`: writers unpark it only then,
    /// so a thread that is running or yielding gets no stale wake-up token that would
    /// make its next `park` return at once.
    asleep: AtomicU32,
    /// set by the owning thread before it signals ready
    owner: OnceLock<Thread>,
}

pub struct Slots {
    s: Box<[Slot]>,
    main: Thread,
    /// yields a woken thread spends re-reading its empty slot before parking again;
    /// 0 = no early wake and no yielding (one CPU, or a ring of two)
    spin: u32,
    /// how many threads may yield-wait at once (the CPUs)
    spinners_max: u32,
    spinners: Spinners,
}

/// Threads yield-waiting now. With several tokens every CPU already has hops to run,
/// and each extra waiter would only take turns from them: past `spinners_max` a woken
/// thread parks again at once, and nobody is woken early (the rule Go's scheduler uses
/// for its spinning threads). Its own cache line: it is touched once per wake-up.
#[repr(align(64))]
struct Spinners(AtomicU32);

/// Bound on the yields after a wake-up: an early-woken thread waits about two hops
/// (a few microseconds, a few yields on an idle CPU); with several threads yielding
/// on one CPU each yield lets another run, so the bound is also a bound on how long
/// a waiter that was woken for nothing keeps a CPU busy before it parks.
const SPIN_YIELDS: u32 = 100;

impl Slots {
    /// Called on the main thread.
    pub fn new(n: usize) -> Slots {
        let s = (0..n)
            .map(|_| Slot { value: AtomicU64::new(0), waiting: AtomicU32::new(0), asleep: AtomicU32::new(0), owner: OnceLock::new() })
            .collect();
        // The affinity mask the orchestrator (or taskset) set: `cores=1` means one CPU.
        let cpus = std::thread::available_parallelism().map_or(1, |c| c.get());
        let spin = if cpus > 1 && n > 2 { SPIN_YIELDS } else { 0 };
        Slots {
            s,
            main: std::thread::current(),
            spin,
            spinners_max: cpus.min(u32::MAX as usize) as u32,
            spinners: Spinners(AtomicU32::new(0)),
        }
    }

    /// Called by slot i's thread before anything is sent to it.
    pub fn register(&self, i: usize) {
        let _ = self.s[i].owner.set(std::thread::current());
    }

    /// Take the value from slot i (the caller owns it), parking until there is one.
    #[inline]
    pub fn take(&self, i: usize) -> u64 {
        let me = &self.s[i];
        // Yields left; non-zero while this thread counts in `spinners`. Yield only after
        // a wake-up: straight after passing a value on, the next one is a lap away.
        let mut spins = 0;
        loop {
            // SeqCst here and in `put`: either the writer sees the slot empty or
            // this thread sees the writer's waiting bit (Dekker).
            let v = me.value.swap(0, SeqCst);
            if v != 0 {
                if spins != 0 {
                    self.spinners.0.fetch_sub(1, Relaxed);
                }
                if me.waiting.load(SeqCst) != 0 {
                    self.wake_writers(i);
                }
                return v;
            }
            if spins > 1 {
                spins -= 1;
                std::thread::yield_now();
                continue;
            }
            if spins == 1 {
                // bound reached: stop counting as a spinner (`spins` is set anew below)
                self.spinners.0.fetch_sub(1, Relaxed);
            }
            // Announce the sleep, then look once more: either this load sees the
            // writer's value or the writer sees `asleep` and unparks (Dekker again).
            me.asleep.store(1, SeqCst);
            if me.value.load(SeqCst) == 0 {
                std::thread::park();
            }
            me.asleep.store(0, Relaxed);
            spins = self.start_spin();
        }
    }

    /// After a wake-up: the yields to spend waiting, 0 if as many threads as there are
    /// CPUs are yield-waiting already (or there is one CPU).
    #[inline]
    fn start_spin(&self) -> u32 {
        if self.spin == 0 {
            return 0;
        }
        if self.spinners.0.fetch_add(1, Relaxed) < self.spinners_max {
            self.spin
        } else {
            self.spinners.0.fetch_sub(1, Relaxed);
            0
        }
    }

    #[cold]
    fn wake_writers(&self, i: usize) {
        let w = self.s[i].waiting.swap(0, SeqCst);
        if w & Writer::Predecessor as u32 != 0 {
            let prev = if i == 0 { self.s.len() - 1 } else { i - 1 };
            if let Some(t) = self.s[prev].owner.get() {
                t.unpark();
            }
        }
        if w & Writer::Main as u32 != 0 {
            self.main.unpark();
        }
    }

    /// Write v (non-zero) into slot i and wake its owner; wait while the slot is full.
    #[inline]
    pub fn put(&self, i: usize, v: u64, who: Writer) {
        let to = &self.s[i];
        if to.value.compare_exchange(0, v, SeqCst, Relaxed).is_err() {
            self.put_when_empty(i, v, who);
        }
        self.wake_owner(i);
    }

    /// After a hop's `put` into slot i: wake the owner of slot i+1, whose value is one
    /// hop away. Off the value's path (the successor already has it); nothing when
    /// that thread is not parked.
    #[inline]
    pub fn wake_early(&self, i: usize) {
        if self.spin != 0 && self.spinners.0.load(Relaxed) < self.spinners_max {
            self.wake_owner(if i + 1 == self.s.len() { 0 } else { i + 1 });
        }
    }

    /// Unpark slot i's owner if it is parked in `take` (a futex wake).
    #[inline]
    fn wake_owner(&self, i: usize) {
        let to = &self.s[i];
        if to.asleep.load(SeqCst) != 0 {
            // `asleep` is only set after the owner registered.
            if let Some(t) = to.owner.get() {
                t.unpark();
            }
        }
    }

    /// The slot is full (several tokens): announce this writer, retry, park until woken.
    #[cold]
    fn put_when_empty(&self, i: usize, v: u64, who: Writer) {
        let to = &self.s[i];
        loop {
            to.waiting.fetch_or(who as u32, SeqCst);
            if to.value.compare_exchange(0, v, SeqCst, Relaxed).is_ok() {
                return;
            }
            std::thread::park();
        }
    }
}
