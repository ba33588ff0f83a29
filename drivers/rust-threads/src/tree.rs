//! tree (the skynet shape): an OS thread per process. A process covering more than one leaf
//! makes a std channel, spawns its `fanout` children with a sender each, receives their
//! sums in whatever order they come, sends the total to its parent and, after that, joins
//! its children; a leaf sends its ordinal. The same channel in every variant: `fanout`
//! writers into one reader need a queue, which a one-value hand-off slot is not.

use crate::spawn_thread;
use ringbench_common::{fail, tree, Fail, Kind, Out, Params, TreePhase};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, OnceLock};

/// Sent up instead of a sum when a spawn failed somewhere below (sums are < 2^62).
const FAILED: u64 = u64::MAX;

/// The first failed spawn's error, for the `limit` record.
type Failure = Arc<OnceLock<std::io::Error>>;

fn node(first: u64, leaves: u64, fanout: u64, parent: Sender<u64>, failure: Failure) {
    if leaves == 1 {
        let _ = parent.send(first);
        return;
    }
    let (tx, rx) = channel::<u64>();
    let mut children = Vec::with_capacity(fanout as usize);
    let mut failed = false;
    for (f, l) in tree::children(first, leaves, fanout) {
        let (tx, failure2) = (tx.clone(), failure.clone());
        match spawn_thread(move || node(f, l, fanout, tx, failure2)) {
            Ok(h) => children.push(h),
            Err(e) => {
                let _ = failure.set(e);
                failed = true;
                break;
            }
        }
    }
    drop(tx);
    let mut sum = 0u64;
    for _ in 0..children.len() {
        match rx.recv() {
            Ok(FAILED) | Err(_) => failed = true,
            Ok(v) => sum += v,
        }
    }
    let _ = parent.send(if failed { FAILED } else { sum });
    for c in children {
        let _ = c.join();
    }
}

pub fn run(p: &Params) -> Result<Out, Fail> {
    let (tx, rx) = channel::<u64>();
    let failure: Failure = Arc::new(OnceLock::new());
    let (n, fanout, f) = (p.n, p.fanout, failure.clone());
    let phase = TreePhase::start();
    let root = match spawn_thread(move || node(0, n, fanout, tx, f)) {
        Ok(h) => h,
        Err(e) => {
            let _ = failure.set(e);
            return Err(limit(&failure, p));
        }
    };
    let sum = rx.recv().unwrap_or(FAILED);
    let timed = phase.stop();
    let _ = root.join(); // every thread has ended: each joined its children
    if sum == FAILED {
        return Err(limit(&failure, p));
    }
    Ok(timed.end(sum))
}

fn limit(failure: &Failure, p: &Params) -> Fail {
    match failure.get() {
        Some(e) => Fail {
            kind: Kind::Limit,
            message: format!(
                "tree: thread creation failed ({}) with {} processes to run; the bound is one of \
                 kernel.threads-max, kernel.pid_max, vm.max_map_count (sysctl -w ...), ulimit -u, \
                 the cgroup pids.max, or memory",
                e,
                p.processes()
            ),
        },
        None => fail::<()>(Kind::Failure, "tree: a process vanished before sending its sum").unwrap_err(),
    }
}
