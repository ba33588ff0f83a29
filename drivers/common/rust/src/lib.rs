//! Contract plumbing shared by the Rust ringbench drivers (docs/driver-contract.md):
//! JSON Lines output and error records, argument parsing with the contract's bounds,
//! clocks, the memory probe around the first spawn phase, result records, OS-thread
//! limit checks, and an allocator that turns an allocation failure into a `limit` error.
//!
//! Nothing here runs inside a timed phase except the clock reads that delimit it.

mod alloc;
mod out;
mod params;
mod report;
mod sys;

pub use alloc::LimitAlloc;
pub use out::{die, fail, install_panic_hook, Fail, Kind, Rec};
pub use params::{parse_args, parse_run, Command, Params, WORKLOADS};
pub use report::{emit_result, MemProbe, Out, Phase};
pub use sys::{check_thread_limits, cpu_ns, kernel_stack_bytes, rss_bytes, rusage, status_field};
