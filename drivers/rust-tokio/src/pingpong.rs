//! pingpong: tasks A and B, one unbounded mpsc channel each way; m round trips.

use crate::{new_gate, wait};
use ringbench_common::{fail, Fail, Kind, Out, Phase, SpawnPhase};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

pub async fn pingpong(m: u64) -> Result<Out, Fail> {
    let setup = SpawnPhase::start();
    let gate = Arc::new(new_gate(2));
    let (start_tx, start_rx) = oneshot::channel::<()>();
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let (count_tx, count_rx) = oneshot::channel::<u64>();
    let (ping_tx, mut ping_rx) = mpsc::unbounded_channel::<bool>(); // true = ping, false = stop
    let (pong_tx, mut pong_rx) = mpsc::unbounded_channel::<()>();
    let gate_a = gate.clone();
    tokio::spawn(async move {
        gate_a.arrive();
        if start_rx.await.is_err() {
            return;
        }
        for _ in 0..m {
            let _ = ping_tx.send(true);
            if pong_rx.recv().await.is_none() {
                return;
            }
        }
        let _ = done_tx.send(());
        let _ = ping_tx.send(false);
    });
    let gate_b = gate.clone();
    tokio::spawn(async move {
        gate_b.arrive();
        let mut count = 0u64;
        while let Some(true) = ping_rx.recv().await {
            count += 1;
            let _ = pong_tx.send(());
        }
        let _ = count_tx.send(count);
    });
    let nready = wait(&gate).await;
    let setup = setup.end();
    let run = Phase::start();
    let _ = start_tx.send(());
    if done_rx.await.is_err() {
        return fail(Kind::Failure, "pingpong: A did not finish");
    }
    let run = run.stop();
    let count = match count_rx.await {
        Ok(c) => c,
        Err(_) => return fail(Kind::Failure, "pingpong: B did not report its count"),
    };
    Ok(Out { count, ready: nready, setup, run })
}
