// fanin (docs/driver-contract.md, section 3): n senders, m messages each, into one receiver.
#include "caf_driver.hpp"

using namespace caf;

namespace rb {
namespace {

struct receiver_state {
  int64_t count = 0, want = 0;
};

behavior receiver(stateful_actor<receiver_state>* self, actor main, int64_t want, gate* g) {
  self->state.want = want;
  g->arrive(self);
  return {
    [=](int64_t) {
      auto& s = self->state;
      if (++s.count == s.want)
        self->send(main, done_atom::value, s.count);
    },
  };
}

// A sender waits for the start signal, then sends its m messages in one go and waits to be told
// to exit (the runtime's own exit message).
behavior sender(event_based_actor* self, actor to, int64_t m, gate* g) {
  g->arrive(self);
  return {
    [=](start_atom) {
      for (int64_t i = 0; i < m; i++)
        self->send(to, i);
    },
  };
}

} // namespace

void fanin_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  const int64_t n = p->n;
  std::vector<actor> senders(static_cast<size_t>(n));
  gate g{n + 1, self};
  rb_spawn_begin(r);
  auto to = sys().spawn(receiver, main, n * p->m, &g);
  for (int64_t i = 0; i < n; i++)
    senders[i] = sys().spawn(sender, to, p->m, &g);
  const int64_t ready = g.wait(self);
  rb_spawn_end(r);
  counts.running_after_spawn = static_cast<int64_t>(sys().registry().running());
  r->ready = ready;
  rb_run_begin(r);
  for (auto& s : senders)
    self->send(s, start_atom::value);
  self->receive([&](done_atom, int64_t count) { r->count = count; });
  rb_run_end(r);
  for (auto& s : senders)
    self->send_exit(s, exit_reason::user_shutdown);
  self->send_exit(to, exit_reason::user_shutdown);
  senders.clear();
  await_exits();
}

} // namespace rb
