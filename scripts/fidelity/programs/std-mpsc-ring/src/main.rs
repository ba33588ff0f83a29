// A plain thread ring (written here for ringbench issue 10): n OS threads joined by
// std::sync::mpsc channels. One token carrying n*m is decremented at every hop; the
// thread that receives 1 tells main. n*m hops in all.
// Usage: ring N M
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;

fn relay(inbox: Receiver<u64>, next: Sender<u64>, done: Sender<()>) {
    for v in inbox {
        if v == 1 {
            done.send(()).unwrap();
            return;
        }
        next.send(v - 1).unwrap();
    }
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: ring N M"))
        .collect();
    let (n, m) = (args[0], args[1]);

    let (done_tx, done_rx) = channel();
    let (first, mut inbox) = channel();
    for _ in 1..n {
        let (next, next_inbox) = channel();
        let done = done_tx.clone();
        thread::spawn(move || relay(inbox, next, done));
        inbox = next_inbox;
    }
    let last_next = first.clone();
    thread::spawn(move || relay(inbox, last_next, done_tx));

    first.send(n * m).unwrap();
    done_rx.recv().unwrap();
    println!("hops: {}", n * m);
}
