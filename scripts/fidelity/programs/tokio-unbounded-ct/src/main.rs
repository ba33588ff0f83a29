// A plain tokio ring (written here for ringbench issue 10): n tasks joined by unbounded
// tokio::sync::mpsc channels (the channel drivers/rust-tokio uses). One token carrying
// n*m is decremented at every hop; the task that receives 1 tells main. n*m hops in all.
// Usage: ring N M            current-thread runtime
//        ring N M WORKERS    multi-thread runtime with WORKERS worker threads
use tokio::sync::mpsc;

async fn relay(
    mut inbox: mpsc::UnboundedReceiver<u64>,
    next: mpsc::UnboundedSender<u64>,
    done: mpsc::UnboundedSender<()>,
) {
    while let Some(v) = inbox.recv().await {
        if v == 1 {
            done.send(()).unwrap();
            return;
        }
        next.send(v - 1).unwrap();
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
