//! The ring's one-word messages, the same in every Rust driver:
//!
//! - `1 ..= 2^62-1`: a token carrying the hops it has left (n·m < 2^62); a process that
//!   receives 1 tells main `TOKEN_DONE` instead of passing it on.
//! - `STOP | sum`: the untimed proof after the timed phase, passed round once; each process
//!   adds its receipt count, the last one sends the sum to main.
//! - trace: the token's value in the low 32 bits, the sender's index + 1 above (n, m <= 100).
//!
//! 0 is never sent.

use crate::out::Rec;

pub const STOP: u64 = 1 << 63;
/// Sent to main when a token finishes (sums are < 2^62, so they cannot be mistaken for it).
pub const TOKEN_DONE: u64 = u64::MAX;

/// A trace token: `value` hops left, sent by process `from` (-1: the main process).
#[inline]
pub fn trace_encode(value: u64, from: i64) -> u64 {
    value | (((from + 1) as u64) << 32)
}

/// (hops left, sender's index) of a trace token.
#[inline]
pub fn trace_decode(msg: u64) -> (u64, i64) {
    (msg & 0xffff_ffff, (msg >> 32) as i64 - 1)
}

/// The `hop` record process `to` prints as the trace token reaches it: `left` is the value it
/// carried, `total` = n·m, `n` the ring's size.
pub fn emit_hop(total: u64, n: u64, left: u64, from: i64, to: u64) {
    let hop = total - left + 1;
    Rec::new("hop").int("hop", hop).int("lap", (hop - 1) / n + 1).int("from", from).int("to", to).emit();
}
