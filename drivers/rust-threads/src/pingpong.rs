//! pingpong: A and B, a round trip m times. Stock: one std channel each way; hand-off: a
//! two-slot ring (A = slot 0, B = slot 1).

use crate::handoff::Slots;
use crate::hop::{ChanHop, Entries, Hop, HopKind, SlotHop, ABORT};
use crate::{spawn_failed, spawn_thread};
use ringbench_common::msg::{STOP, TOKEN_DONE};
use ringbench_common::{fail, Fail, Gate, Kind, Out, Phase, SpawnPhase};
use std::sync::mpsc::channel;
use std::sync::Arc;

const PING: u64 = 1;
const START: u64 = 2;

pub fn pingpong(hop: HopKind, m: u64) -> Result<Out, Fail> {
    let setup = SpawnPhase::start();
    match hop {
        HopKind::Channel => {
            let (a_tx, a_rx) = channel::<u64>();
            let (b_tx, b_rx) = channel::<u64>();
            let a = ChanHop { inbox: a_rx, next: b_tx };
            let b = ChanHop { inbox: b_rx, next: a_tx.clone() };
            pingpong_with(a, b, Entries::Chan(vec![a_tx]), m, setup)
        }
        HopKind::Handoff => {
            let s = Arc::new(Slots::new(2));
            let a = SlotHop { slots: s.clone(), me: 0, next: 1 };
            let b = SlotHop { slots: s.clone(), me: 1, next: 0 };
            pingpong_with(a, b, Entries::Slots(s, vec![0]), m, setup)
        }
    }
}

/// A waits for main's start, then m times: send a ping to B, receive B's answer. B counts
/// the pings and answers each. `kick`: main's way into A.
fn pingpong_with<H: Hop>(mut a: H, mut b: H, kick: Entries, m: u64, setup: SpawnPhase) -> Result<Out, Fail> {
    let gate = Arc::new(Gate::for_this_thread(2));
    let (main_tx, main_rx) = channel::<u64>(); // A: TOKEN_DONE when finished; B: its count
    let (gate_a, main_a) = (gate.clone(), main_tx.clone());
    let ta = spawn_thread(move || {
        a.start();
        gate_a.arrive();
        if a.recv() != START {
            return a.send(ABORT);
        }
        for _ in 0..m {
            a.send(PING);
            if a.recv() != PING {
                return a.send(ABORT);
            }
        }
        let _ = main_a.send(TOKEN_DONE);
        a.send(STOP);
    })
    .map_err(|e| spawn_failed(e, 0, 2))?;
    let gate_b = gate.clone();
    let tb = match spawn_thread(move || {
        b.start();
        gate_b.arrive();
        let mut count = 0u64;
        while b.recv() == PING {
            count += 1;
            b.send(PING);
        }
        let _ = main_tx.send(count);
    }) {
        Ok(h) => h,
        Err(e) => {
            kick.send(0, ABORT);
            let _ = ta.join();
            return Err(spawn_failed(e, 1, 2));
        }
    };
    let nready = gate.wait();
    let setup = setup.end();
    let run = Phase::start();
    kick.send(0, START);
    if main_rx.recv() != Ok(TOKEN_DONE) {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let run = run.stop();
    let count = match main_rx.recv() {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    let _ = ta.join();
    let _ = tb.join();
    Ok(Out { count, ready: nready, setup, run })
}
