//! The ring and what is built like it: `ring`, `trace`, continuous mode, and `spawn`, whose
//! idle processes are ring processes that never get a token. Every process is a task that
//! owns the receiver of its own unbounded mpsc channel and a sender to its successor's.

use crate::{new_gate, wait, TaskGate};
use ringbench_common::msg::{emit_hop, trace_decode, trace_encode, STOP, TOKEN_DONE};
use ringbench_common::{fail, Fail, Kind, Out, Params, Phase, Samples, SpawnPhase};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Rx, UnboundedSender as Tx};

/// The measured ring's message: one word, as a type of its own. tokio's receive is generic in
/// the message type; with a type no other channel carries, the ring's receive is compiled for
/// the ring alone and inlined into its loop (with u64 it was one out-of-line copy shared with
/// main's channel and the other workloads': ~50 more instructions a hop under callgrind).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Hop(u64);

impl From<u64> for Hop {
    #[inline(always)]
    fn from(v: u64) -> Hop {
        Hop(v)
    }
}

/// What every ring process shares with main: the gate and main's inbox.
pub struct Shared {
    gate: TaskGate,
    main: Tx<u64>,
}

// One function per use, so that the measured ring's loop carries nothing it does not need.
// Sending on an unbounded channel never waits: a plain call, no await point in the loop.

/// The measured ring: count the receipt, finish the token or pass v-1 on.
async fn ring_node(mut inbox: Rx<Hop>, next: Tx<Hop>, sh: Arc<Shared>, last: bool) {
    sh.gate.arrive();
    let mut count: u64 = 0;
    while let Some(Hop(v)) = inbox.recv().await {
        if v < STOP {
            count += 1;
            if v == 1 {
                let _ = sh.main.send(TOKEN_DONE);
            } else {
                let _ = next.send(Hop(v - 1));
            }
        } else {
            return forward_stop(v, count, &next, &sh, last);
        }
    }
}

/// The proof: add this process's receipts to the running sum; the last process tells main.
#[inline(never)]
fn forward_stop<M: From<u64>>(v: u64, count: u64, next: &Tx<M>, sh: &Shared, last: bool) {
    let sum = (v & !STOP) + count;
    if last {
        let _ = sh.main.send(sum);
    } else {
        let _ = next.send(M::from(STOP | sum));
    }
}

/// trace: the ring with the sender's index in the message, printing each hop as it happens
/// (`print` is false in warm-ups).
#[allow(clippy::too_many_arguments)]
async fn trace_node(
    mut inbox: Rx<u64>,
    next: Tx<u64>,
    sh: Arc<Shared>,
    last: bool,
    me: u64,
    n: u64,
    total: u64,
    print: bool,
) {
    sh.gate.arrive();
    let mut count: u64 = 0;
    while let Some(msg) = inbox.recv().await {
        if msg >= STOP {
            return forward_stop(msg, count, &next, &sh, last);
        }
        count += 1;
        let (v, from) = trace_decode(msg);
        if print {
            emit_hop(total, n, v, from, me);
        }
        if v == 1 {
            let _ = sh.main.send(TOKEN_DONE);
        } else {
            let _ = next.send(trace_encode(v - 1, me as i64));
        }
    }
}

/// Continuous mode: tokens circulate for ever; p0 adds a lap each time one passes.
async fn lap_node(mut inbox: Rx<u64>, next: Tx<u64>, sh: Arc<Shared>, laps: Option<Arc<AtomicU64>>) {
    sh.gate.arrive();
    while let Some(v) = inbox.recv().await {
        if let Some(l) = &laps {
            l.fetch_add(1, Ordering::Relaxed);
        }
        let _ = next.send(v);
    }
}

struct Ring<M> {
    /// senders to the processes main injects at, in ascending index order; p0's first
    entries: Vec<Tx<M>>,
    done: Rx<u64>,
    ready: u64,
}

/// Spawn p0 … p(n-1) (p(i) holding a sender to p(i+1) mod n) and wait until every one has
/// arrived at the gate. Channel i+1 and task i are allocated one after the other, in ring order,
/// so a token walks memory upwards. `entries`: the ascending process indices main needs a
/// sender to (starting with 0).
async fn build_ring<M, F, Fut>(n: u64, entries: &[u64], mut node: F) -> Ring<M>
where
    F: FnMut(u64, Rx<M>, Tx<M>, Arc<Shared>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (main_tx, done) = unbounded_channel::<u64>();
    let sh = Arc::new(Shared { gate: new_gate(n), main: main_tx });
    let (tx0, rx0) = unbounded_channel();
    let mut want = entries.iter().copied().peekable();
    let mut kept = Vec::with_capacity(entries.len());
    if want.next_if_eq(&0).is_some() {
        kept.push(tx0.clone());
    }
    let mut my_rx = Some(rx0);
    for i in 0..n {
        let (next_tx, next_rx) = if i + 1 < n {
            let (t, r) = unbounded_channel();
            (t, Some(r))
        } else {
            (tx0.clone(), None)
        };
        if want.next_if_eq(&(i + 1)).is_some() {
            kept.push(next_tx.clone());
        }
        let Some(rx) = my_rx.take() else { unreachable!() };
        tokio::spawn(node(i, rx, next_tx, sh.clone()));
        my_rx = next_rx;
    }
    drop(tx0);
    let ready = wait(&sh.gate).await;
    Ring { entries: kept, done, ready }
}

/// The untimed proof: a stop message goes round once collecting receipt counts; every task
/// ends after passing it on.
async fn prove<M: From<u64>>(mut ring: Ring<M>) -> Result<u64, Fail> {
    let _ = ring.entries[0].send(M::from(STOP));
    loop {
        match ring.done.recv().await {
            Some(TOKEN_DONE) => continue,
            Some(sum) => return Ok(sum),
            None => return fail(Kind::Failure, "ring tasks ended before the proof completed"),
        }
    }
}

pub async fn ring(p: &Params) -> Result<Out, Fail> {
    let (n, m) = (p.n, p.m);
    let setup = SpawnPhase::start();
    let mut ring = build_ring(n, &p.entry_indices(), |i, rx, tx, sh| ring_node(rx, tx, sh, i + 1 == n)).await;
    let setup = setup.end();

    let run = Phase::start();
    for j in 0..p.tokens {
        let _ = ring.entries[p.entry_of(j)].send(Hop(n * m));
    }
    for _ in 0..p.tokens {
        if ring.done.recv().await != Some(TOKEN_DONE) {
            return fail(Kind::Failure, "ring broke during the message phase");
        }
    }
    let run = run.stop();
    let ready = ring.ready;
    let count = prove(ring).await?;
    Ok(Out { count, ready, setup, run })
}

pub async fn trace(p: &Params, print: bool) -> Result<Out, Fail> {
    let (n, total) = (p.n, p.n * p.m);
    let setup = SpawnPhase::start();
    let mut ring = build_ring(n, &[0], |i, rx, tx, sh| trace_node(rx, tx, sh, i + 1 == n, i, n, total, print)).await;
    let setup = setup.end();
    let run = Phase::start();
    let _ = ring.entries[0].send(trace_encode(total, -1));
    if ring.done.recv().await != Some(TOKEN_DONE) {
        return fail(Kind::Failure, "ring broke during the trace");
    }
    let run = run.stop();
    let ready = ring.ready;
    let count = prove(ring).await?;
    Ok(Out { count, ready, setup, run })
}

/// n ring processes, each arrives at the gate and waits in its first receive: a ring that gets no
/// token. Untimed, the stop message releases them (each passes it on and ends).
pub async fn spawn(p: &Params) -> Result<Out, Fail> {
    let n = p.n;
    spawn_of(p, |i, rx, tx, sh| ring_node(rx, tx, sh, i + 1 == n)).await
}

/// spawn with the processes' code given: the ring's node (the workload), or a test's node that
/// is slow to reach it.
async fn spawn_of<F, Fut>(p: &Params, node: F) -> Result<Out, Fail>
where
    F: FnMut(u64, Rx<Hop>, Tx<Hop>, Arc<Shared>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let setup = SpawnPhase::start();
    let ring = build_ring(p.n, &[0], node).await;
    let setup = setup.end();
    let ready = ring.ready;
    if prove(ring).await? != 0 {
        return fail(Kind::Failure, "spawn: an idle process counted a receipt");
    }
    Ok(Out { count: ready, ready, setup, ..Default::default() })
}

/// Continuous mode: tokens circulate for ever; p0 counts laps; main prints the samples.
pub async fn continuous(p: &Params) -> Result<(), Fail> {
    let laps = Arc::new(AtomicU64::new(0));
    let ring =
        build_ring(p.n, &p.entry_indices(), |i, rx, tx, sh| lap_node(rx, tx, sh, (i == 0).then(|| laps.clone()))).await;
    let mut samples = Samples::start(p);
    for j in 0..p.tokens {
        let _ = ring.entries[p.entry_of(j)].send(1);
    }
    while let Some(deadline) = samples.next_deadline() {
        tokio::time::sleep_until(deadline.into()).await;
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

    /// spawn of n processes, p0's task `SLOW` late to the gate (it sleeps before it runs the
    /// ring's node), on each of tokio's schedulers.
    fn spawn_one_late(n: u64) -> Vec<Out> {
        let runtimes = [
            tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap(),
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().unwrap(),
        ];
        runtimes
            .iter()
            .map(|rt| {
                rt.block_on(async {
                    let late = move |i: u64, rx, tx, sh| async move {
                        if i == 0 {
                            tokio::time::sleep(SLOW).await;
                        }
                        ring_node(rx, tx, sh, i + 1 == n).await
                    };
                    tokio::spawn(async move { spawn_of(&params(n), late).await.unwrap() }).await.unwrap()
                })
            })
            .collect()
    }

    /// A process slow to arrive at the gate (to its first receive) delays the spawn boundary;
    /// when main wakes from the gate every process has arrived, the late one too.
    #[test]
    fn a_process_slow_to_its_receive_delays_the_spawn_boundary() {
        ringbench_common::assert_spawn_boundary(SLOW, spawn_one_late);
    }
}
