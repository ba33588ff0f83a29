//! What the Rust ringbench drivers share (docs/driver-contract.md): everything that is the
//! contract rather than a runtime's idiom. The verbs, `--variant=` and the iteration loop
//! (`serve`), parameters and bounds, the start gate, the ring's messages, the tree's
//! arithmetic, the clocks, the memory rule, the records, OS-thread limit checks, and an
//! allocator that turns an allocation failure into a `limit` error. A driver writes its
//! workloads (`Driver`) and nothing else.
//!
//! Nothing here runs inside a timed phase except the clock reads that delimit it and the
//! gate's one atomic add per process.

mod alloc;
mod gate;
pub mod msg;
mod out;
mod params;
mod report;
mod serve;
mod sys;
pub mod tree;

pub use alloc::LimitAlloc;
pub use gate::{assert_spawn_boundary, Gate, Wake};
pub use out::{fail, Fail, Kind, Rec};
pub use params::{Params, Workload, WORKLOADS};
pub use report::{Out, Phase, Span, SpawnPhase, TreePhase, TreeTimed, CLOCK};
pub use serve::{build_profile, locked_version, serve, Driver, Samples, Spec};
pub use sys::{check_thread_limits, status_field};
