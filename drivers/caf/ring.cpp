// ring, spawn, trace and the continuous ring (docs/driver-contract.md, section 3): one
// event-based actor per process, a hop is `send` into the successor's mailbox.
#include "caf_driver.hpp"

using namespace caf;

namespace rb {
namespace {

// What a ring process holds (and so what an idle process of `spawn` holds).
struct ring_state {
  actor next;        // the successor, p((i+1) mod n)
  actor main;        // where a finished token and the proof's total go
  int64_t count = 0; // tokens received
};

using ring_actor = stateful_actor<ring_state>;

// The proof (untimed): a stop message goes once round from p0; each process adds its count,
// passes it on and exits; the last (left == 1) gives the total to main.
template <class Self>
void stop(Self* self, int64_t left, int64_t sum) {
  auto& s = self->state;
  sum += s.count;
  if (left > 1)
    self->send(s.next, stop_atom::value, left - 1, sum);
  else
    self->send(s.main, sum_atom::value, sum);
  self->quit();
}

// A ring process: arrives at the gate, then waits for its first message (the behaviour).
behavior ring_proc(ring_actor* self, actor main, actor next, gate* g) {
  self->state.next = std::move(next);
  self->state.main = std::move(main);
  g->arrive(self);
  return {
    [=](int64_t v) {
      auto& s = self->state;
      ++s.count;
      if (v != 1)
        self->send(s.next, v - 1);
      else
        self->send(s.main, done_atom::value);
    },
    [=](next_atom, actor& next) { self->state.next = std::move(next); },
    [=](stop_atom, int64_t left, int64_t sum) { stop(self, left, sum); },
  };
}

// trace: the token carries its sender's index; the receiver prints the hop as it happens.
struct trace_state : ring_state {
  int64_t index = 0;
};

behavior trace_proc(stateful_actor<trace_state>* self, actor main, actor next, int64_t index,
                    const rb_params* p, bool print, gate* g) {
  self->state.next = std::move(next);
  self->state.main = std::move(main);
  self->state.index = index;
  g->arrive(self);
  return {
    [=](int64_t v, int64_t from) {
      auto& s = self->state;
      ++s.count;
      if (print)
        rb_trace_hop(p, v, from, s.index);
      if (v != 1)
        self->send(s.next, v - 1, s.index);
      else
        self->send(s.main, done_atom::value);
    },
    [=](next_atom, actor& next) { self->state.next = std::move(next); },
    [=](stop_atom, int64_t left, int64_t sum) { stop(self, left, sum); },
  };
}

// continuous mode, p0: count a lap each time a token that has been round passes (contract 5).
std::atomic<int64_t> laps{0};

behavior cont_head(ring_actor* self, actor main, actor next, gate* g) {
  self->state.next = std::move(next);
  self->state.main = std::move(main);
  g->arrive(self);
  return {
    [=](int64_t v) {
      ++self->state.count;
      if (v != RB_CONT_FRESH)
        laps.fetch_add(1, std::memory_order_relaxed);
      self->send(self->state.next, v - 1);
    },
    [=](next_atom, actor& next) { self->state.next = std::move(next); },
  };
}

int64_t read_laps(void*) {
  return laps.load(std::memory_order_relaxed);
}

// Spawn p(n-1) first, then p(n-2) ... p0 each with its successor, and close the ring with a
// message to p(n-1); the phase ends when every process has arrived at the gate.
// `make(i, next, g)` spawns p(i).
template <class Make>
std::vector<actor> spawn_ring(scoped_actor& self, const rb_params* p, rb_result* r, Make make) {
  const int64_t n = p->n;
  std::vector<actor> procs(static_cast<size_t>(n));
  gate g{n, self};
  rb_spawn_begin(r);
  for (int64_t i = n - 1; i >= 0; i--)
    procs[i] = make(i, i == n - 1 ? actor{} : procs[i + 1], &g);
  self->send(procs[n - 1], next_atom::value, procs[0]);
  const int64_t ready = g.wait(self);
  rb_spawn_end(r);
  counts.running_after_spawn = static_cast<int64_t>(sys().registry().running());
  r->ready = ready;
  return procs;
}

// The proof and the teardown: the stop message once round; every process has exited after.
int64_t prove(scoped_actor& self, std::vector<actor>& procs) {
  int64_t total = -1;
  self->send(procs[0], stop_atom::value, static_cast<int64_t>(procs.size()), int64_t{0});
  self->receive([&](sum_atom, int64_t sum) { total = sum; });
  procs.clear();
  await_exits();
  return total;
}

// The message phase: inject the tokens (each n*m), wait until every one finished.
template <class Inject>
void run_tokens(scoped_actor& self, const rb_params* p, rb_result* r, std::vector<actor>& procs,
                Inject inject) {
  rb_run_begin(r);
  for (int64_t j = 0; j < p->tokens; j++)
    inject(procs[rb_inject_at(p, j)]);
  int64_t done = 0;
  self->receive_for(done, p->tokens)([](done_atom) {});
  rb_run_end(r);
}

} // namespace

void ring_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  auto procs = spawn_ring(self, p, r, [&](int64_t, actor next, gate* g) {
    return sys().spawn(ring_proc, main, std::move(next), g);
  });
  const int64_t total = p->n * p->m;
  run_tokens(self, p, r, procs, [&](const actor& at) { self->send(at, total); });
  r->count = prove(self, procs);
}

void spawn_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  auto procs = spawn_ring(self, p, r, [&](int64_t, actor next, gate* g) {
    return sys().spawn(ring_proc, main, std::move(next), g);
  });
  r->count = r->ready;
  prove(self, procs); // release them all (untimed): each exits as the stop message passes
}

void trace_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  const bool print = r->iteration > 0; // warm-ups print no hops
  auto procs = spawn_ring(self, p, r, [&](int64_t i, actor next, gate* g) {
    return sys().spawn(trace_proc, main, std::move(next), i, p, print, g);
  });
  const int64_t total = p->n * p->m;
  run_tokens(self, p, r, procs, [&](const actor& at) { self->send(at, total, int64_t{-1}); });
  r->count = prove(self, procs);
}

void continuous_ring(const rb_params* p) {
  rb_result r{};
  scoped_actor self{sys()};
  actor main = self;
  auto procs = spawn_ring(self, p, &r, [&](int64_t i, actor next, gate* g) {
    return i == 0 ? sys().spawn(cont_head, main, std::move(next), g)
                  : sys().spawn(ring_proc, main, std::move(next), g);
  });
  const int64_t t0 = rb_mono_ns();
  for (int64_t j = 0; j < p->tokens; j++)
    self->send(procs[rb_inject_at(p, j)], int64_t{RB_CONT_FRESH});
  if (p->stats) // the cluster view of a ring on one node: node 0 alone (nodes.cpp)
    one_node_view_loop(p, t0, read_laps);
  rb_sample_loop(p, t0, read_laps, nullptr);
}

} // namespace rb
