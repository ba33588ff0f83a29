// A plain tokio ring plus a receipt count per hop and the driver's STOP test (written here for
// ringbench issue 10): tokio-unbounded-ct with the per-hop bookkeeping the driver contract asks of
// every driver; the untimed proof lap that sums the counts is left out. Otherwise: n tasks joined by unbounded
// tokio::sync::mpsc channels (the channel drivers/rust-tokio uses). One token carrying
// n*m is decremented at every hop; the task that receives 1 tells main. n*m hops in all.
// Usage: ring N M            current-thread runtime
//        ring N M WORKERS    multi-thread runtime with WORKERS worker threads
use tokio::sync::mpsc;

/// Values at or above this are the stop message, as in the driver.
const STOP: u64 = 1 << 63;

async fn relay(
    mut inbox: mpsc::UnboundedReceiver<u64>,
    next: mpsc::UnboundedSender<u64>,
    done: mpsc::UnboundedSender<()>,
) {
    let mut count: u64 = 0;
    while let Some(v) = inbox.recv().await {
        if v < STOP {
            count += 1;
            if v == 1 {
                done.send(()).unwrap();
                std::hint::black_box(count);
                return;
            }
            next.send(v - 1).unwrap();
        } else {
            std::hint::black_box(count);
            return;
        }
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: ring N M [WORKERS]"))
        .collect();
    let (n, m) = (args[0], args[1] as u64);
    let rt = match args.get(2) {
        None => tokio::runtime::Builder::new_current_thread().build(),
        Some(&w) => tokio::runtime::Builder::new_multi_thread().worker_threads(w).build(),
    }
    .unwrap();

    rt.block_on(async move {
        let (done_tx, mut done_rx) = mpsc::unbounded_channel();
        let (first, mut inbox) = mpsc::unbounded_channel();
        for _ in 1..n {
            let (next, next_inbox) = mpsc::unbounded_channel();
            tokio::spawn(relay(inbox, next, done_tx.clone()));
            inbox = next_inbox;
        }
        tokio::spawn(relay(inbox, first.clone(), done_tx));

        first.send(n as u64 * m).unwrap();
        done_rx.recv().await.unwrap();
    });
    println!("hops: {}", n as u64 * m);
}
