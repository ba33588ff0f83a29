// A plain CAF 0.17 ring, as a CAF user writes one: n event-based actors, each knowing its
// successor; a token of value n*m goes round, each actor sends v-1 on (`send`, the actor's
// mailbox) and quits after its m-th token. Options: -n N, -m M, and CAF's own
// (--scheduler.max-threads=...). Prints the receipts counted (n*m).
#include <atomic>
#include <cstdint>
#include <iostream>
#include <vector>

#include "caf/all.hpp"

using namespace caf;

namespace {

std::atomic<int64_t> receipts{0};

struct member_state {
  actor next;
  int64_t seen = 0;
};

behavior member(stateful_actor<member_state>* self, actor next, int64_t m) {
  self->state.next = std::move(next);
  return {
    [=](actor& next) { self->state.next = std::move(next); },
    [=](int64_t v) {
      if (v > 1)
        self->send(self->state.next, v - 1);
      if (++self->state.seen == m) {
        receipts += self->state.seen;
        self->quit();
      }
    },
  };
}

struct config : actor_system_config {
  int64_t n = 1000;
  int64_t m = 100;
  config() {
    opt_group{custom_options_, "global"}
      .add(n, "size,n", "actors in the ring")
      .add(m, "laps,m", "times the token goes round");
  }
};

void caf_main(actor_system& sys, const config& cfg) {
  const int64_t n = cfg.n, m = cfg.m;
  std::vector<actor> ring(static_cast<size_t>(n));
  ring[n - 1] = sys.spawn(member, actor{}, m);
  for (int64_t i = n - 2; i >= 0; --i)
    ring[i] = sys.spawn(member, ring[i + 1], m);
  anon_send(ring[n - 1], ring[0]); // close the ring
  anon_send(ring[0], n * m);
  ring.clear();
  sys.await_all_actors_done();
  std::cout << receipts.load() << std::endl;
}

} // namespace

CAF_MAIN()
