// pingpong (docs/driver-contract.md, section 3): A sends to B, B answers A, m round trips.
#include "caf_driver.hpp"

using namespace caf;

namespace rb {
namespace {

struct pong_state {
  int64_t count = 0; // round trips, as B counts them
};

// B: answers each ping by returning the reply (CAF sends a handler's result back to the sender).
behavior pong(stateful_actor<pong_state>* self, actor main, gate* g) {
  g->arrive(self);
  return {
    [=](ping_atom) {
      ++self->state.count;
      return pong_atom::value;
    },
    [=](stop_atom) {
      self->send(main, sum_atom::value, self->state.count);
      self->quit();
    },
  };
}

struct ping_state {
  actor main, peer;
  int64_t left = 0; // round trips still to make
};

// A: on the start signal sends the first ping, and another on each answer until m are done.
behavior ping(stateful_actor<ping_state>* self, actor main, actor peer, gate* g) {
  self->state.main = std::move(main);
  self->state.peer = std::move(peer);
  g->arrive(self);
  return {
    [=](start_atom, int64_t m) {
      self->state.left = m;
      self->send(self->state.peer, ping_atom::value);
    },
    [=](pong_atom) {
      auto& s = self->state;
      if (--s.left > 0)
        self->send(s.peer, ping_atom::value);
      else
        self->send(s.main, done_atom::value);
    },
    [=](stop_atom) { self->quit(); },
  };
}

} // namespace

void pingpong_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  gate g{2, self};
  rb_spawn_begin(r);
  auto b = sys().spawn(pong, main, &g);
  auto a = sys().spawn(ping, main, b, &g);
  const int64_t ready = g.wait(self);
  rb_spawn_end(r);
  counts.running_after_spawn = static_cast<int64_t>(sys().registry().running());
  r->ready = ready;
  rb_run_begin(r);
  self->send(a, start_atom::value, p->m);
  self->receive([](done_atom) {});
  rb_run_end(r);
  self->send(a, stop_atom::value);
  self->send(b, stop_atom::value);
  self->receive([&](sum_atom, int64_t count) { r->count = count; });
  await_exits();
}

} // namespace rb
