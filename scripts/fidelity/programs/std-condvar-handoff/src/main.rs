// A plain hand-off thread ring (written here for ringbench issue 10): n OS threads,
// each with one slot (a Mutex<u64>, 0 = empty) and a Condvar. A hop writes the value
// into the next thread's slot and notifies its Condvar; the owner waits on its
// Condvar until its slot is non-empty. One token carrying n*m is decremented at
// every hop; the thread that receives 1 tells main. n*m hops in all.
// Usage: ring N M
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

struct Slot {
    value: Mutex<u64>,
    ready: Condvar,
}

impl Slot {
    fn put(&self, v: u64) {
        *self.value.lock().unwrap() = v;
        self.ready.notify_one();
    }

    fn take(&self) -> u64 {
        let mut v = self.value.lock().unwrap();
        while *v == 0 {
            v = self.ready.wait(v).unwrap();
        }
        std::mem::take(&mut *v)
    }
}

fn relay(me: Arc<Slot>, next: Arc<Slot>, done: Sender<()>) {
    loop {
        let v = me.take();
        if v == 1 {
            done.send(()).unwrap();
            return;
        }
        next.put(v - 1);
    }
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: ring N M"))
        .collect();
    let (n, m) = (args[0], args[1]);

    let slots: Vec<Arc<Slot>> = (0..n)
        .map(|_| Arc::new(Slot { value: Mutex::new(0), ready: Condvar::new() }))
        .collect();
    let (done_tx, done_rx) = channel();
    for i in 0..n as usize {
        let (me, next) = (slots[i].clone(), slots[(i + 1) % n as usize].clone());
        let done = done_tx.clone();
        thread::spawn(move || relay(me, next, done));
    }

    slots[0].put(n * m);
    done_rx.recv().unwrap();
    println!("hops: {}", n * m);
}
