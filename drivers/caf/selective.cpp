// selective (docs/driver-contract.md, section 3): main collects one reply from each worker by
// selective receive, in worker order or in reverse. README.md, "Idiom": CAF's `skip`.
#include "caf_driver.hpp"

using namespace caf;

namespace rb {
namespace {

// A worker answers each request with its index (the result goes back to the sender).
behavior worker(event_based_actor* self, int64_t index, gate* g) {
  g->arrive(self);
  return {
    [=](request_atom) { return make_result(reply_atom::value, index); },
  };
}

struct collector_state {
  std::vector<actor> workers;
  int64_t rounds = 0, round = 0, want = 0, count = 0;
  bool reverse = false;
  actor main;
};

using collector_actor = stateful_actor<collector_state>;

void send_requests(collector_actor* self) {
  auto& s = self->state;
  for (auto& w : s.workers)
    self->send(w, request_atom::value);
  s.want = s.reverse ? static_cast<int64_t>(s.workers.size()) - 1 : 0;
}

// The contract's main process in the message phase, an event-based actor: each round it sends
// every worker a request, then takes the replies one worker at a time. A reply from another
// worker than the one it waits for is skipped: CAF leaves it in the mailbox (its cache), and
// after each reply it takes, it reads the mailbox again from the oldest message left.
behavior collector(collector_actor* self, actor main, bool reverse) {
  self->state.main = std::move(main);
  self->state.reverse = reverse;
  self->send(self->state.main, ready_atom::value);
  return {
    [=](std::vector<actor>& workers) { self->state.workers = std::move(workers); },
    [=](start_atom, int64_t rounds) {
      self->state.rounds = rounds;
      send_requests(self);
    },
    [=](reply_atom, int64_t index) -> result<void> {
      auto& s = self->state;
      if (index != s.want)
        return skip;
      ++s.count;
      const auto n = static_cast<int64_t>(s.workers.size());
      s.want += s.reverse ? -1 : 1;
      if (s.want < 0 || s.want == n) {
        if (++s.round < s.rounds)
          send_requests(self);
        else
          self->send(s.main, done_atom::value, s.count);
      }
      return unit;
    },
  };
}

} // namespace

void selective_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  const int64_t n = p->n;
  // main's actor exists before the spawn phase (it is the main process, not one of the n)
  auto coll = sys().spawn(collector, main, p->reverse != 0);
  self->receive([](ready_atom) {});
  std::vector<actor> workers(static_cast<size_t>(n));
  gate g{n, self};
  rb_spawn_begin(r);
  for (int64_t i = 0; i < n; i++)
    workers[i] = sys().spawn(worker, i, &g);
  const int64_t ready = g.wait(self);
  rb_spawn_end(r);
  counts.running_after_spawn = static_cast<int64_t>(sys().registry().running());
  r->ready = ready;
  self->send(coll, workers); // untimed: the collector learns its workers
  rb_run_begin(r);
  self->send(coll, start_atom::value, p->m);
  self->receive([&](done_atom, int64_t count) { r->count = count; });
  rb_run_end(r);
  for (auto& w : workers)
    self->send_exit(w, exit_reason::user_shutdown);
  self->send_exit(coll, exit_reason::user_shutdown);
  workers.clear();
  await_exits();
}

} // namespace rb
