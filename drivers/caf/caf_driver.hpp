// ringbench-caf: what the workloads share (README.md). The protocol (parameters, verbs, the
// iteration loop, clocks, memory, records) is drivers/common/c's; these files hold only the actors.
#pragma once

#include <cstdint>
#include <vector>

#include "caf/all.hpp"

#include "ringbench.h" // extern "C" inside

namespace rb {

// The message tags (CAF 0.17 atoms: a 64-bit constant, matched by type).
using ready_atom = caf::atom_constant<caf::atom("ready")>;   // process -> main: blocked in its first receive
using done_atom = caf::atom_constant<caf::atom("done")>;     // a token finished; a phase ended
using next_atom = caf::atom_constant<caf::atom("next")>;     // ring: your successor is this actor
using stop_atom = caf::atom_constant<caf::atom("stop")>;     // proof: add your count and pass it on
using sum_atom = caf::atom_constant<caf::atom("sum")>;       // the proof's total, to main
using start_atom = caf::atom_constant<caf::atom("start")>;   // a start signal
using request_atom = caf::atom_constant<caf::atom("request")>;
using reply_atom = caf::atom_constant<caf::atom("reply")>;

// The one actor system of the process, made by `prepare` from `cores` and the variant.
caf::actor_system& sys();

// The actors of one iteration all exited (untimed teardown): the registry's count of running
// actors is back to the system's own and main's scoped_actor. Called while main's actor lives.
void await_exits();

// The workloads, one iteration each (rb_driver.iteration).
void ring_iteration(const rb_params* p, rb_result* r);
void spawn_iteration(const rb_params* p, rb_result* r);
void trace_iteration(const rb_params* p, rb_result* r);
void continuous_ring(const rb_params* p);
void pingpong_iteration(const rb_params* p, rb_result* r);
void fanin_iteration(const rb_params* p, rb_result* r);
void selective_iteration(const rb_params* p, rb_result* r);
void tree_iteration(const rb_params* p, rb_result* r);

// What stats=1 adds: CAF's own counts, read at the end of the last spawn phase (untimed).
struct caf_counts {
  int64_t running_after_spawn = -1; // actor_registry::running() when the spawn phase ended
};
extern caf_counts counts;

} // namespace rb
