//! The hand-off: one value slot per thread. A hop writes the value into the next thread's
//! slot and unparks that thread if it is parked (`Thread::unpark`, a futex wake); the
//! receiver takes the value from its own slot, or parks at once until one comes. No message
//! object and no queue: the idiom of the Benchmarks Game thread-ring programs, which pass
//! one token. This driver also carries several tokens, so a writer that finds the slot
//! still full sets its "waiting" bit and parks; the owner wakes it after taking the value.
//!
//! Who writes slot i: its predecessor p(i-1 mod n) and the main thread (injection, proof,
//! tear-down); each has its own waiting bit, so no wake-up is lost. 0 marks an empty slot
//! and is never sent.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
use std::sync::OnceLock;
use std::thread::Thread;

#[derive(Clone, Copy)]
pub enum Writer {
    Predecessor = 1,
    Main = 2,
}

/// One cache line per slot, so that neighbours running on other cores do not invalidate
/// each other's slot when several tokens circulate.
#[repr(align(64))]
struct Slot {
    value: AtomicU64,
    waiting: AtomicU32,
    /// 1 while the owner is (about to be) parked in `take`: writers unpark it only then, so
    /// a running owner pays no futex call and gets no stale wake-up.
    asleep: AtomicU32,
    /// set by the owning thread before it arrives at the gate
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
            .map(|_| Slot {
                value: AtomicU64::new(0),
                waiting: AtomicU32::new(0),
                asleep: AtomicU32::new(0),
                owner: OnceLock::new(),
            })
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
            // SeqCst here and in `put`: either the writer sees the slot empty or this
            // thread sees the writer's waiting bit (Dekker).
            let v = me.value.swap(0, SeqCst);
            race_point();
            if v != 0 {
                if me.waiting.load(SeqCst) != 0 {
                    self.wake_writers(i);
                }
                return v;
            }
            // Announce the sleep, then look once more: either this load sees the writer's
            // value or the writer sees `asleep` and unparks (Dekker again). `park` may
            // return early (a stale unpark): the loop looks at the slot again.
            me.asleep.store(1, SeqCst);
            race_point();
            if me.value.load(SeqCst) == 0 {
                std::thread::park();
            }
            me.asleep.store(0, Relaxed);
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
        race_point();
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
            race_point();
            to.waiting.fetch_or(who as u32, SeqCst);
            race_point();
            if to.value.compare_exchange(0, v, SeqCst, Relaxed).is_ok() {
                return;
            }
            std::thread::park();
        }
    }
}

/// Between two steps of the protocol, where another thread's step makes a lost wake-up if the
/// protocol is wrong, the stress test's build sometimes yields or spins: a window of nanoseconds
/// becomes one of a time slice. The driver's build has no such call.
#[cfg(not(test))]
#[inline(always)]
fn race_point() {}

#[cfg(test)]
fn race_point() {
    stress::race_point();
}

/// A randomized stress test of the hand-off (the `check` command runs it): rings of 2 to 7
/// threads (half of them 2 or 3, where a put most often meets its receiver mid-take) carrying 1
/// to n tokens, injected by main at random slots while earlier tokens circulate, threads that
/// sometimes yield or spin a little between a take and a put and at every race point above,
/// half the rounds on one CPU. A lost wake-up shows as a ring that stops: every wait for main
/// has a deadline. Every receipt is counted, so a lost or doubled value shows too. 4 s by
/// default, 40 s with RINGBENCH_SLOW set (`make test-slow`).
#[cfg(test)]
mod stress {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::AtomicU64;
    use std::sync::mpsc::{channel, RecvTimeoutError};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    const END: u64 = u64::MAX;
    const DONE: u64 = u64::MAX;
    const DEADLINE: Duration = Duration::from_secs(20);

    /// The test's length: 4 s by default (`make test`), 40 s with RINGBENCH_SLOW set to
    /// anything but "" or "0" (`make test-slow`'s soak).
    fn budget() -> Duration {
        match std::env::var("RINGBENCH_SLOW") {
            Ok(v) if !v.is_empty() && v != "0" => Duration::from_secs(40),
            _ => Duration::from_secs(4),
        }
    }

    /// Seeds each thread's race-point generator (the test sets it from its own seed).
    static RACE_SEED: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static RACE_RNG: Cell<u64> = Cell::new(
            RACE_SEED.fetch_add(0x9e37_79b9_7f4a_7c15, Relaxed).wrapping_mul(0xbf58_476d_1ce4_e5b9) | 1
        );
    }

    /// One in eight race points yields, one in eight spins up to 127 times.
    pub(super) fn race_point() {
        let r = RACE_RNG.with(|c| {
            let mut rng = Rng(c.get());
            let r = rng.next();
            c.set(rng.0);
            r
        });
        match r & 7 {
            0 => std::thread::yield_now(),
            1 => (0..(r >> 3) & 127).for_each(|_| std::hint::spin_loop()),
            _ => {}
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, k: u64) -> u64 {
            self.next() % k
        }
    }

    fn pin_to_one_cpu() {
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(0, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    fn jitter(rng: &mut Rng) {
        match rng.below(16) {
            0 => std::thread::yield_now(),
            1 => (0..rng.below(200)).for_each(|_| std::hint::spin_loop()),
            _ => {}
        }
    }

    /// One ring: n threads, `tokens` tokens of `hops` hops each, injected at random slots.
    fn round(n: usize, tokens: u64, hops: u64, seed: u64) {
        let slots = Arc::new(Slots::new(n));
        let (done_tx, done) = channel::<u64>();
        let gate = Arc::new(ringbench_common::Gate::for_this_thread(n as u64));
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (s, done_tx, gate) = (slots.clone(), done_tx.clone(), gate.clone());
                std::thread::spawn(move || {
                    let mut rng = Rng(seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    s.register(i);
                    gate.arrive();
                    let next = (i + 1) % n;
                    let mut count = 0u64;
                    loop {
                        let v = s.take(i);
                        if v == END {
                            s.put(next, END, Writer::Predecessor);
                            let _ = done_tx.send(count);
                            return;
                        }
                        count += 1;
                        jitter(&mut rng);
                        if v == 1 {
                            let _ = done_tx.send(DONE);
                        } else {
                            s.put(next, v - 1, Writer::Predecessor);
                        }
                    }
                })
            })
            .collect();
        gate.wait();
        let mut rng = Rng(seed);
        for _ in 0..tokens {
            slots.put(rng.below(n as u64) as usize, hops, Writer::Main);
            if rng.below(4) == 0 {
                std::thread::yield_now();
            }
        }
        for t in 0..tokens {
            match done.recv_timeout(DEADLINE) {
                Ok(DONE) => {}
                Ok(c) => panic!("a thread ended early with count {}", c),
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "lost wake-up: token {} of {} never finished (n={}, hops={}, seed={:#x})",
                        t + 1,
                        tokens,
                        n,
                        hops,
                        seed
                    )
                }
                Err(e) => panic!("{}", e),
            }
        }
        slots.put(0, END, Writer::Main);
        let mut receipts = 0;
        for _ in 0..n {
            match done.recv_timeout(DEADLINE) {
                Ok(DONE) => panic!("a token finished twice"),
                Ok(c) => receipts += c,
                Err(e) => panic!("the end message was lost (n={}, seed={:#x}): {}", n, seed, e),
            }
        }
        handles.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(receipts, tokens * hops, "n={} tokens={} hops={} seed={:#x}", n, tokens, hops, seed);
    }

    #[test]
    fn randomized_rings_lose_no_wake_up_and_no_value() {
        let seed0 =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1;
        let budget = budget();
        eprintln!("hand-off stress: seed {:#x}, {:?} on all CPUs then one", seed0, budget);
        RACE_SEED.store(seed0, Relaxed);
        let mut rng = Rng(seed0);
        let mut hops_total = 0u64;
        let mut rounds = 0u64;
        for one_cpu in [false, true] {
            // the rounds on one CPU run in a thread of their own, pinned (threads inherit it)
            let seed = rng.next() | 1;
            let (r, h) = std::thread::spawn(move || {
                if one_cpu {
                    pin_to_one_cpu();
                }
                let mut rng = Rng(seed);
                let t0 = Instant::now();
                let (mut rounds, mut hops_total) = (0u64, 0u64);
                // at least 50 rings, however slow a loaded machine makes them
                while t0.elapsed() < budget / 2 || rounds < 50 {
                    let sizes = if rng.below(2) == 0 { 2 } else { 6 };
                    let n = 2 + rng.below(sizes) as usize;
                    let tokens = 1 + rng.below(n as u64);
                    let hops = 1 + rng.below(3000);
                    round(n, tokens, hops, rng.next() | 1);
                    rounds += 1;
                    hops_total += tokens * hops;
                }
                (rounds, hops_total)
            })
            .join()
            .unwrap();
            rounds += r;
            hops_total += h;
        }
        eprintln!("hand-off stress: {} rings, {} hand-offs", rounds, hops_total);
    }
}
