// A plain tokio ring (written here for ringbench issue 10): n tasks joined by bounded
// tokio::sync::mpsc channels of capacity 1. One token carrying n*m is decremented at
// every hop; the task that receives 1 tells main. n*m hops in all.
// Usage: ring N M            current-thread runtime
//        ring N M WORKERS    multi-thread runtime with WORKERS worker threads
use tokio::sync::mpsc;

async fn relay(mut inbox: mpsc::Receiver<u64>, next: mpsc::Sender<u64>, done: mpsc::Sender<()>) {
    while let Some(v) = inbox.recv().await {
        if v == 1 {
            done.send(()).await.unwrap();
            return;
        }
        next.send(v - 1).await.unwrap();
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
        let (done_tx, mut done_rx) = mpsc::channel(1);
        let (first, mut inbox) = mpsc::channel(1);
        for _ in 1..n {
            let (next, next_inbox) = mpsc::channel(1);
            tokio::spawn(relay(inbox, next, done_tx.clone()));
            inbox = next_inbox;
        }
        tokio::spawn(relay(inbox, first.clone(), done_tx));

        first.send(n as u64 * m).await.unwrap();
        done_rx.recv().await.unwrap();
    });
    println!("hops: {}", n as u64 * m);
}
