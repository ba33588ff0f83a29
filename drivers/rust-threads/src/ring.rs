//! The ring and what is built like it: `ring`, `trace`, continuous mode, and `spawn`, whose
//! idle processes are ring processes that never get a token.

use crate::handoff::Slots;
use crate::hop::{ChanHop, Entries, Hop, HopKind, SlotHop, ABORT};
use crate::{spawn_failed, spawn_thread};
use ringbench_common::msg::{emit_hop, trace_decode, trace_encode, STOP, TOKEN_DONE};
use ringbench_common::{fail, Fail, Gate, Kind, Out, Params, Samples, SpawnPhase};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};

/// What every ring thread shares with main.
struct Shared {
    gate: Gate<Thread>,
    main: Sender<u64>,
    /// the ring's size (trace numbers its laps with it)
    n: u64,
}

// One function per use, so that the measured ring's loop carries nothing it does not need.

/// The measured ring: count the receipt, finish the token or pass v-1 on.
fn ring_node<H: Hop>(mut h: H, sh: Arc<Shared>, last: bool) {
    h.start();
    sh.gate.arrive();
    let mut count: u64 = 0;
    loop {
        let v = h.recv();
        if v < STOP {
            count += 1;
            if v == 1 {
                let _ = sh.main.send(TOKEN_DONE);
            } else {
                h.send(v - 1);
            }
        } else {
            return end(v, count, &h, &sh, last);
        }
    }
}

/// The proof (add this thread's receipts, the last one tells main) or the abort (pass it on).
#[inline(never)]
fn end<H: Hop>(v: u64, count: u64, h: &H, sh: &Shared, last: bool) {
    if v == ABORT {
        h.send(ABORT);
    } else if last {
        let _ = sh.main.send((v & !STOP) + count);
    } else {
        h.send(STOP | ((v & !STOP) + count));
    }
}

/// trace: the ring with the sender's index in the message, printing each hop as it happens
/// (`print` is false in warm-ups).
fn trace_node<H: Hop>(mut h: H, sh: Arc<Shared>, last: bool, me: u64, total: u64, print: bool) {
    h.start();
    sh.gate.arrive();
    let mut count: u64 = 0;
    loop {
        let msg = h.recv();
        if msg >= STOP {
            return end(msg, count, &h, &sh, last);
        }
        count += 1;
        let (v, from) = trace_decode(msg);
        if print {
            emit_hop(total, sh.n, v, from, me);
        }
        if v == 1 {
            let _ = sh.main.send(TOKEN_DONE);
        } else {
            h.send(trace_encode(v - 1, me as i64));
        }
    }
}

/// Continuous mode: tokens circulate for ever; p0 adds a lap each time one passes.
fn lap_node<H: Hop>(mut h: H, sh: Arc<Shared>, laps: Option<Arc<AtomicU64>>) {
    h.start();
    sh.gate.arrive();
    loop {
        let v = h.recv();
        if v == ABORT {
            return h.send(ABORT);
        }
        if let Some(l) = &laps {
            l.fetch_add(1, Ordering::Relaxed);
        }
        h.send(v);
    }
}

/// Which body the ring's threads run.
#[derive(Clone)]
enum Body {
    Ring,
    /// (n·m, print the hops)
    Trace(u64, bool),
    Laps(Arc<AtomicU64>),
}

fn run_node<H: Hop>(h: H, sh: Arc<Shared>, body: &Body, i: u64, n: u64) {
    let last = i + 1 == n;
    match body {
        Body::Ring => ring_node(h, sh, last),
        Body::Trace(total, print) => trace_node(h, sh, last, i, *total, *print),
        Body::Laps(laps) => lap_node(h, sh, if i == 0 { Some(laps.clone()) } else { None }),
    }
}

struct Ring {
    entries: Entries,
    handles: Vec<JoinHandle<()>>,
    done: Receiver<u64>,
    ready: u64,
}

/// Spawn p0 … p(n-1), p(i) sending to p((i+1) mod n), and wait until each has arrived
/// at the gate. With channels, channel i+1 and thread i are made one after the other, in ring
/// order. `entries`: the ascending process indices main injects at (starting with 0).
/// A failed spawn tears down what exists (ABORT passed round from p0) and reports `limit`.
/// Each thread first runs `before(i)` (the workloads: nothing; a test: a process slow to arrive).
fn build_ring<B>(hop: HopKind, n: u64, entries: &[u64], body: Body, before: B) -> Result<Ring, Fail>
where
    B: Fn(u64) + Copy + Send + 'static,
{
    let (main_tx, done) = channel::<u64>();
    let sh = Arc::new(Shared { gate: Gate::for_this_thread(n), main: main_tx, n });
    let mut handles = Vec::with_capacity(n as usize);
    let mut failed = None;
    let ring_entries = match hop {
        HopKind::Channel => {
            let (tx0, rx0) = channel::<u64>();
            let mut want = entries.iter().copied().peekable();
            let mut kept = Vec::with_capacity(entries.len());
            if want.next_if_eq(&0).is_some() {
                kept.push(tx0.clone());
            }
            let mut my_rx = Some(rx0);
            for i in 0..n {
                let (next, next_rx) = if i + 1 < n {
                    let (t, r) = channel::<u64>();
                    (t, Some(r))
                } else {
                    (tx0.clone(), None)
                };
                if want.next_if_eq(&(i + 1)).is_some() {
                    kept.push(next.clone());
                }
                let Some(inbox) = my_rx.take() else { unreachable!() };
                let (sh, body) = (sh.clone(), body.clone());
                match spawn_thread(move || {
                    before(i);
                    run_node(ChanHop { inbox, next }, sh, &body, i, n)
                }) {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        failed = Some(spawn_failed(e, i, n));
                        break;
                    }
                }
                my_rx = next_rx;
            }
            Entries::Chan(kept)
        }
        HopKind::Handoff => {
            let slots = Arc::new(Slots::new(n as usize));
            for i in 0..n {
                let h = SlotHop { slots: slots.clone(), me: i as usize, next: ((i + 1) % n) as usize };
                let (sh, body) = (sh.clone(), body.clone());
                match spawn_thread(move || {
                    before(i);
                    run_node(h, sh, &body, i, n)
                }) {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        failed = Some(spawn_failed(e, i, n));
                        break;
                    }
                }
            }
            Entries::Slots(slots, entries.iter().map(|&e| e as usize).collect())
        }
    };
    if let Some(f) = failed {
        if !handles.is_empty() {
            ring_entries.send(0, ABORT);
        }
        for h in handles {
            let _ = h.join();
        }
        return Err(f);
    }
    let ready = sh.gate.wait();
    Ok(Ring { entries: ring_entries, handles, done, ready })
}

/// The untimed proof: a stop message goes round once collecting receipt counts; every
/// thread exits after passing it on.
fn prove(ring: Ring) -> Result<u64, Fail> {
    ring.entries.send(0, STOP);
    let sum = loop {
        match ring.done.recv() {
            Ok(TOKEN_DONE) => continue,
            Ok(sum) => break sum,
            Err(_) => return fail(Kind::Failure, "ring threads ended before the proof completed"),
        }
    };
    for h in ring.handles {
        let _ = h.join();
    }
    Ok(sum)
}

pub fn ring(hop: HopKind, p: &Params) -> Result<Out, Fail> {
    let (n, m, tokens) = (p.n, p.m, p.tokens);
    let setup = SpawnPhase::start();
    let ring = build_ring(hop, n, &p.entry_indices(), Body::Ring, |_| ())?;
    let setup = setup.end();

    let run = ringbench_common::Phase::start();
    for j in 0..tokens {
        ring.entries.send(p.entry_of(j), n * m);
    }
    for _ in 0..tokens {
        if ring.done.recv() != Ok(TOKEN_DONE) {
            return fail(Kind::Failure, "ring broke during the message phase");
        }
    }
    let run = run.stop();
    let ready = ring.ready;
    let count = prove(ring)?;
    Ok(Out { count, ready, setup, run })
}

pub fn trace(hop: HopKind, p: &Params, print: bool) -> Result<Out, Fail> {
    let total = p.n * p.m;
    let setup = SpawnPhase::start();
    let ring = build_ring(hop, p.n, &[0], Body::Trace(total, print), |_| ())?;
    let setup = setup.end();
    let run = ringbench_common::Phase::start();
    ring.entries.send(0, trace_encode(total, -1));
    if ring.done.recv() != Ok(TOKEN_DONE) {
        return fail(Kind::Failure, "ring broke during the trace");
    }
    let run = run.stop();
    let ready = ring.ready;
    let count = prove(ring)?;
    Ok(Out { count, ready, setup, run })
}

/// n ring processes, each arrives at the gate and blocks in its first receive: a ring that gets no
/// token. Untimed, the stop message releases them (each passes it on and exits).
pub fn spawn(hop: HopKind, p: &Params) -> Result<Out, Fail> {
    spawn_with(hop, p, |_| ())
}

/// spawn, each process thread first running `before(i)` (the tests' late process).
fn spawn_with<B: Fn(u64) + Copy + Send + 'static>(hop: HopKind, p: &Params, before: B) -> Result<Out, Fail> {
    let setup = SpawnPhase::start();
    let ring = build_ring(hop, p.n, &[0], Body::Ring, before)?;
    let setup = setup.end();
    let ready = ring.ready;
    if prove(ring)? != 0 {
        return fail(Kind::Failure, "spawn: an idle process counted a receipt");
    }
    Ok(Out { count: ready, ready, setup, ..Default::default() })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; main prints the samples.
pub fn continuous(hop: HopKind, p: &Params) -> Result<(), Fail> {
    let laps = Arc::new(AtomicU64::new(0));
    let ring = build_ring(hop, p.n, &p.entry_indices(), Body::Laps(laps.clone()), |_| ())?;
    let mut samples = Samples::start(p);
    for j in 0..p.tokens {
        ring.entries.send(p.entry_of(j), 1);
    }
    while let Some(deadline) = samples.next_deadline() {
        let now = std::time::Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
        samples.emit(laps.load(Ordering::Relaxed));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SLOW: Duration = Duration::from_millis(200);

    fn params(n: u64) -> Params {
        Params { n, ..Params::defaults(ringbench_common::Workload::Spawn) }
    }

    /// spawn of n processes with p0's thread `SLOW` late to the gate, for each hop.
    fn spawn_one_late(n: u64) -> Vec<Out> {
        let late = |i: u64| {
            if i == 0 {
                std::thread::sleep(SLOW)
            }
        };
        [HopKind::Channel, HopKind::Handoff].into_iter().map(|hop| spawn_with(hop, &params(n), late).unwrap()).collect()
    }

    /// A process slow to arrive at the gate (to its first receive) delays the spawn boundary;
    /// when main wakes from the gate every process has arrived, the late one too.
    #[test]
    fn a_process_slow_to_its_receive_delays_the_spawn_boundary() {
        ringbench_common::assert_spawn_boundary(SLOW, spawn_one_late);
    }
}
