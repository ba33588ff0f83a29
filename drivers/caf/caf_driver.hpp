// ringbench-caf: what the workloads share (README.md). The protocol (parameters, verbs, the
// iteration loop, clocks, memory, records) is drivers/common/c's; these files hold only the actors.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/all.hpp"

#include "ringbench.h" // extern "C" inside

namespace rb {

// The message tags (CAF 0.17 atoms: a 64-bit constant, matched by type).
using ready_atom = caf::atom_constant<caf::atom("ready")>;   // -> main: a gate is full (selective: the collector is up)
using done_atom = caf::atom_constant<caf::atom("done")>;     // a token finished; a phase ended
using next_atom = caf::atom_constant<caf::atom("next")>;     // ring: your successor is this actor
using stop_atom = caf::atom_constant<caf::atom("stop")>;     // proof: add your count and pass it on
using sum_atom = caf::atom_constant<caf::atom("sum")>;       // the proof's total, to main
using start_atom = caf::atom_constant<caf::atom("start")>;   // a start signal
using request_atom = caf::atom_constant<caf::atom("request")>;
using reply_atom = caf::atom_constant<caf::atom("reply")>;

// How a spawn phase ends (docs/driver-contract.md, section 3), as in the other drivers: each
// process arrives at the gate from its init function, just before it returns its behaviour and so
// waits for its first message; the arrival that completes the count sends main one message. One
// atomic add per process and one wake-up of main, where n ready messages would wake main n times
// and end the phase on main's pace rather than the processes'. The gate lives on main's stack for
// the spawn phase; no process touches it after its arrival.
#ifdef RB_GATE_TEST
void gate_test_before_arrive(); // tests/gate.cpp's build only: a process late to the gate
#endif

class gate {
public:
  gate(int64_t want, caf::actor main) : want_(want), main_(std::move(main)) {}

  template <class Self>
  void arrive(Self* self) {
#ifdef RB_GATE_TEST
    gate_test_before_arrive();
#endif
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == want_)
      self->send(main_, ready_atom::value);
  }

  // main waits for the one wake-up; the ready signals seen when the phase ended
  int64_t wait(caf::scoped_actor& self) {
    self->receive([](ready_atom) {});
    return count_.load(std::memory_order_acquire);
  }

private:
  std::atomic<int64_t> count_{0};
  const int64_t want_;
  const caf::actor main_;
};

// The variants' names, the default first.
extern const char* const variants[];

// The TLS settings of a ring over nodes on other hosts (CAF 0.17's openssl.* settings).
struct tls_files {
  std::string certificate, key, passphrase, capath, cafile;
};

// The one actor system of the process, made by `prepare` (or nodes.cpp) from `cores` and the
// variant; `network` loads CAF's middleman (a ring across nodes), `tls` its OpenSSL module too.
void make_system(int64_t cores, const char* variant, bool network, const tls_files* tls = nullptr);
caf::actor_system& sys();

// stats=1: CAF's counts (the stats record's driver fields; a node of the cluster view).
void stats_into(rb_rec* rec);

// A ring across nodes (nodes.cpp, docs/driver-contract.md section 10): describe with `nodes`, a
// run with nodes > 1, or a peer node's role. Returns the exit status, or -1 when the invocation is
// rb_main's (the ring on one node, every other workload, every error rb_main reports).
int nodes_main(const rb_driver* d, int argc, char** argv);

// The continuous ring on one node with stats=1: samples, each followed by node 0's record of the
// cluster view (section 10). Never returns.
[[noreturn]] void one_node_view_loop(const rb_params* p, int64_t t0, int64_t (*laps)(void*));

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
