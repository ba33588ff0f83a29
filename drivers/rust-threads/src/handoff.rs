//! The hand-off: one value slot per thread. A hop writes the value into the next
//! thread's slot and unparks that thread (`Thread::unpark`, a futex wake when it is
//! asleep); the receiver takes the value from its own slot or parks until one comes.
//! No message object and no queue: the idiom of the Benchmarks Game thread-ring
//! programs, which pass one token. This driver also carries several tokens, so a
//! writer that finds the slot still full sets a "waiting" bit and parks; the owner
//! wakes it after taking the value.
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
    /// set by the owning thread before it signals ready
    owner: OnceLock<Thread>,
}

pub struct Slots {
    s: Box<[Slot]>,
    main: Thread,
}

impl Slots {
    /// Called on the main thread.
    pub fn new(n: usize) -> Slots {
        let s = (0..n)
            .map(|_| Slot { value: AtomicU64::new(0), waiting: AtomicU32::new(0), owner: OnceLock::new() })
            .collect();
        Slots { s, main: std::thread::current() }
    }

    /// Called by slot i's thread before anything is sent to it.
    pub fn register(&self, i: usize) {
        let _ = self.s[i].owner.set(std::thread::current());
    }

    /// Take the value from slot i (the caller owns it), parking until there is one.
    #[inline]
    pub fn take(&self, i: usize) -> u64 {
        let me = &self.s[i];
        loop {
            // SeqCst here and in `put`: either the writer sees the slot empty or
            // this thread sees the writer's waiting bit (Dekker).
            let v = me.value.swap(0, SeqCst);
            if v != 0 {
                if me.waiting.load(SeqCst) != 0 {
                    self.wake_writers(i);
                }
                return v;
            }
            std::thread::park();
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
        // Before its owner registered (tear-down after a failed spawn) there is no
        // one to wake: the owner looks at its slot before it first parks.
        if let Some(t) = to.owner.get() {
            t.unpark();
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
