//! tree (the skynet shape): a task per process. A process covering more than one leaf makes
//! an unbounded mpsc channel, spawns its `fanout` children with a sender each, receives
//! their sums in whatever order they come, sends the total to its parent and ends; a leaf
//! sends its ordinal.

use ringbench_common::{tree, Fail, Out, Params, TreePhase};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// Spawning through a plain function lets the async fn spawn copies of itself.
fn spawn_node(first: u64, leaves: u64, fanout: u64, parent: UnboundedSender<u64>) {
    tokio::spawn(node(first, leaves, fanout, parent));
}

async fn node(first: u64, leaves: u64, fanout: u64, parent: UnboundedSender<u64>) {
    if leaves == 1 {
        let _ = parent.send(first);
        return;
    }
    let (tx, mut rx) = unbounded_channel::<u64>();
    for (f, l) in tree::children(first, leaves, fanout) {
        spawn_node(f, l, fanout, tx.clone());
    }
    drop(tx);
    let mut sum = 0;
    for _ in 0..fanout {
        match rx.recv().await {
            Some(v) => sum += v,
            None => break, // a child vanished: the sum is short, and the count check says so
        }
    }
    let _ = parent.send(sum);
}

pub async fn run(p: &Params) -> Result<Out, Fail> {
    let (tx, mut rx) = unbounded_channel::<u64>();
    let phase = TreePhase::start();
    spawn_node(0, p.n, p.fanout, tx);
    let sum = rx.recv().await.unwrap_or(0);
    Ok(phase.stop().end(sum))
}
