//! fanin: one receiver and n senders over a bounded std channel, in every variant: many
//! writers into one reader need a queue, which a one-value hand-off slot is not.

use crate::{spawn_failed, spawn_thread};
use ringbench_common::{fail, Fail, Gate, Kind, Out, Phase, SpawnPhase};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::Arc;

/// Capacity of the receiver's inbox (back-pressure on the senders).
const FANIN_CAP: usize = 1024;

pub fn fanin(n: u64, m: u64) -> Result<Out, Fail> {
    let total = n * m;
    let setup = SpawnPhase::start();
    let gate = Arc::new(Gate::for_this_thread(n + 1));
    let (r_tx, r_rx) = sync_channel::<u64>(FANIN_CAP);
    let (main_tx, main_rx) = channel::<u64>();
    let gate_r = gate.clone();
    let receiver = spawn_thread(move || {
        gate_r.arrive();
        let mut count = 0u64;
        while count < total {
            if r_rx.recv().is_err() {
                break;
            }
            count += 1;
        }
        let _ = main_tx.send(count);
    })
    .map_err(|e| spawn_failed(e, 0, n + 1))?;
    let mut starts = Vec::with_capacity(n as usize);
    let mut handles = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (s_tx, s_rx) = channel::<bool>();
        let (out, gate) = (r_tx.clone(), gate.clone());
        match spawn_thread(move || {
            gate.arrive();
            if let Ok(true) = s_rx.recv() {
                for _ in 0..m {
                    if out.send(1).is_err() {
                        return;
                    }
                }
            }
        }) {
            Ok(h) => {
                handles.push(h);
                starts.push(s_tx);
            }
            Err(e) => {
                for s in &starts {
                    let _ = s.send(false);
                }
                for h in handles {
                    let _ = h.join();
                }
                drop(r_tx); // the receiver sees disconnection and exits
                let _ = receiver.join();
                return Err(spawn_failed(e, i + 1, n + 1));
            }
        }
    }
    drop(r_tx);
    let nready = gate.wait();
    let setup = setup.end();
    let run = Phase::start();
    for s in &starts {
        let _ = s.send(true);
    }
    let count = match main_rx.recv() {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let run = run.stop();
    for h in handles {
        let _ = h.join();
    }
    let _ = receiver.join();
    Ok(Out { count, ready: nready, setup, run })
}
