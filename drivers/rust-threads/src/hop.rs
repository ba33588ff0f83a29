//! One process's side of a hop, in the variant's way: a std channel (`stock`, `tuned`) or
//! a hand-off slot (`handoff`).

use crate::handoff::{Slots, Writer};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

/// Tear-down after a failed spawn, or the release of `spawn`'s idle threads: pass it on and
/// exit (never a token, a proof or a trace message).
pub const ABORT: u64 = u64::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum HopKind {
    Channel,
    Handoff,
}

pub trait Hop: Send + 'static {
    /// Called first in the process's thread (a hand-off slot records its owner).
    fn start(&self) {}
    /// Blocks until a message arrives; ABORT when the ring is gone.
    fn recv(&mut self) -> u64;
    fn send(&self, v: u64);
}

/// std::sync::mpsc: the receiver of the process's own channel and a sender to the successor's.
pub struct ChanHop {
    pub inbox: Receiver<u64>,
    pub next: Sender<u64>,
}

impl Hop for ChanHop {
    #[inline]
    fn recv(&mut self) -> u64 {
        self.inbox.recv().unwrap_or(ABORT)
    }
    #[inline]
    fn send(&self, v: u64) {
        let _ = self.next.send(v);
    }
}

/// Hand-off: take the value from this thread's slot; write into the successor's and unpark it.
pub struct SlotHop {
    pub slots: Arc<Slots>,
    pub me: usize,
    pub next: usize,
}

impl Hop for SlotHop {
    fn start(&self) {
        self.slots.register(self.me);
    }
    #[inline]
    fn recv(&mut self) -> u64 {
        self.slots.take(self.me)
    }
    #[inline]
    fn send(&self, v: u64) {
        self.slots.put(self.next, v, Writer::Predecessor);
    }
}

/// Main's way into a ring: senders to (or the slots of) the processes it injects at.
pub enum Entries {
    Chan(Vec<Sender<u64>>),
    Slots(Arc<Slots>, Vec<usize>),
}

impl Entries {
    /// Send v to the e-th entry process (0 = p0).
    pub fn send(&self, e: usize, v: u64) {
        match self {
            Entries::Chan(tx) => {
                let _ = tx[e].send(v);
            }
            Entries::Slots(s, idx) => s.put(idx[e], v, Writer::Main),
        }
    }
}
