//! fanin: one receiver task and n senders over a bounded mpsc channel (back-pressure on the
//! senders instead of n·m queued messages).

use crate::{new_gate, wait};
use ringbench_common::{fail, Fail, Kind, Out, Phase, SpawnPhase};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Capacity of the receiver's inbox.
const FANIN_CAP: usize = 1024;

pub async fn fanin(n: u64, m: u64) -> Result<Out, Fail> {
    let total = n * m;
    let setup = SpawnPhase::start();
    let gate = Arc::new(new_gate(n + 1));
    let exited = Arc::new(new_gate(n));
    let (r_tx, mut r_rx) = mpsc::channel::<u64>(FANIN_CAP);
    let (main_tx, main_rx) = oneshot::channel::<u64>();
    let gate_r = gate.clone();
    tokio::spawn(async move {
        gate_r.arrive();
        let mut count = 0u64;
        while count < total {
            if r_rx.recv().await.is_none() {
                break;
            }
            count += 1;
        }
        let _ = main_tx.send(count);
    });
    let mut starts = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (s_tx, s_rx) = oneshot::channel::<()>();
        let (out, gate, exited) = (r_tx.clone(), gate.clone(), exited.clone());
        tokio::spawn(async move {
            gate.arrive();
            if s_rx.await.is_ok() {
                for _ in 0..m {
                    if out.send(1).await.is_err() {
                        break;
                    }
                }
            }
            exited.arrive();
        });
        starts.push(s_tx);
    }
    drop(r_tx);
    let nready = wait(&gate).await;
    let setup = setup.end();
    let run = Phase::start();
    for s in starts {
        let _ = s.send(());
    }
    let count = match main_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "fanin: receiver vanished"),
    };
    let run = run.stop();
    wait(&exited).await;
    Ok(Out { count, ready: nready, setup, run })
}
