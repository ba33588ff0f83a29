// tree, the "skynet" benchmark (docs/driver-contract.md, section 3): an actor per node; a parent
// spawns its children, adds up their replies, sends the sum to its parent and exits.
#include "caf_driver.hpp"

using namespace caf;

namespace rb {
namespace {

struct node_state {
  actor parent;
  int64_t sum = 0, pending = 0; // replies still to come
};

using node_actor = stateful_actor<node_state>;

behavior node(node_actor* self, actor parent, int64_t first, int64_t leaves, int64_t fanout) {
  if (leaves == 1) {
    self->send(parent, first);
    return {}; // no behaviour: the actor exits
  }
  const int64_t step = leaves / fanout;
  actor me = self;
  for (int64_t k = 0; k < fanout; k++)
    self->spawn(node, me, first + k * step, step, fanout);
  self->state.parent = std::move(parent);
  self->state.pending = fanout;
  return {
    [=](int64_t value) {
      auto& s = self->state;
      s.sum += value;
      if (--s.pending == 0) {
        self->send(s.parent, s.sum);
        self->quit();
      }
    },
  };
}

} // namespace

void tree_iteration(const rb_params* p, rb_result* r) {
  scoped_actor self{sys()};
  actor main = self;
  rb_tree_begin(r);
  sys().spawn(node, main, int64_t{0}, p->n, p->fanout);
  self->receive([&](int64_t sum) { r->count = sum; });
  rb_tree_end(r);
  await_exits();
}

} // namespace rb
