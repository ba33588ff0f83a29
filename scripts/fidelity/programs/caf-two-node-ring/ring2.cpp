// A plain two-node CAF 0.17 ring (written here): ring2 N M K PLACEMENT CORES
//
// caf-plain-ring's ring spread over K actor systems on loopback, as a CAF user connects them with
// the middleman: each other node (this program again, `ring2 --peer CORES`, started by main and
// ending with it) publishes a spawner actor on 127.0.0.1 at a port the OS picks (io::publish) and
// prints the port; main reaches each spawner with io::remote_actor, asks it to spawn its members
// (process i on node i mod K, interleaved, PLACEMENT 1; i*K div N, contiguous, 0), spawns its own,
// tells every member its successor, and has the other nodes connect to each other. A token of
// value N*M goes round; each member sends v-1 on to its successor (`send`, the same call whether it
// is here or on another node); the member that gets 1 tells main, which ends: N*M hops. With
// CORES = 1 (ringbench pins this process to one CPU) each peer is pinned apart, to the other online
// CPUs (highest first), as the driver pins its nodes. Peers end when main does: PR_SET_PDEATHSIG
// and EOF on their stdin. Prints nothing, unless built with -DRING2_COUNT: then it prints the
// receipts counted on every node and those whose sender was on another node.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <csignal>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caf/all.hpp"
#include "caf/io/all.hpp"

using namespace caf;

namespace {

using spawn_atom_t = atom_constant<atom("spawnm")>;
using count_atom = atom_constant<atom("count")>;
using connect_atom_t = atom_constant<atom("connectp")>;

std::atomic<int64_t> receipts{0}, crossed{0};

struct member_state {
  actor next;
};

// A member: its successor arrives in a message; the token goes on as v - 1, the last one tells main.
// (`node`, `from`: the counting build's only, to count the receipts whose sender is elsewhere.)
behavior member(stateful_actor<member_state>* self, actor main, int64_t node, int64_t pred_node) {
  return {
    [=](actor& next) { self->state.next = std::move(next); },
    [=](int64_t v) {
#ifdef RING2_COUNT
      receipts++;
      if (pred_node != node)
        crossed++;
#else
      (void)node, (void)pred_node;
#endif
      if (v > 1)
        self->send(self->state.next, v - 1);
      else
        self->send(main, v);
    },
  };
}

int64_t node_of(int64_t i, int64_t n, int64_t k, int64_t placement) {
  return placement == 0 ? i * k / n : i % k;
}

// A peer's spawner: spawns members on its node; connects to another peer; reports its counts.
behavior spawner(event_based_actor* self) {
  return {
    [=](spawn_atom_t, const actor& main, int64_t node, const std::vector<int64_t>& preds) {
      std::vector<actor> out;
      for (int64_t p : preds)
        out.push_back(self->spawn(member, main, node, p));
      return out;
    },
    [=](connect_atom_t, uint16_t port) { // untimed, before the token
      auto rp = self->make_response_promise<int64_t>();
      self->request(self->system().middleman().actor_handle(), infinite, connect_atom::value,
                    std::string{"127.0.0.1"}, port)
        .then([=](const node_id&, strong_actor_ptr&, const std::set<std::string>&) mutable { rp.deliver(int64_t{0}); },
              [=](error&) mutable { rp.deliver(int64_t{1}); });
      return rp;
    },
    [=](count_atom) { return make_message(receipts.load(), crossed.load()); },
  };
}

int peer(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  actor_system_config cfg;
  cfg.load<io::middleman>();
  cfg.add_message_type<std::vector<int64_t>>("std::vector<int64_t>"); // the members' predecessors' nodes
  cfg.set("scheduler.max-threads", static_cast<size_t>(argc > 2 ? atoi(argv[2]) : 1));
  actor_system sys{cfg};
  auto port = io::publish(sys.spawn(spawner), 0, "127.0.0.1");
  if (!port)
    return 1;
  printf("%u\n", static_cast<unsigned>(*port));
  fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) // main's pipe: EOF when it ends
    ;
  _exit(0);
}

struct started {
  pid_t pid;
  int ctl;
  uint16_t port;
};

// Start peer j: this program with --peer, stdin a pipe from main, stdout a pipe to read its port.
started start_peer(const char* self_exe, int64_t j, int64_t cores, int cpu) {
  int ctl[2], out[2];
  if (pipe(ctl) != 0 || pipe(out) != 0)
    exit(1);
  const std::string c = std::to_string(cores);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(1);
    dup2(ctl[0], 0), dup2(out[1], 1);
    close(ctl[1]), close(out[0]);
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
    }
    execl(self_exe, self_exe, "--peer", c.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ctl[0]), close(out[1]);
  FILE* f = fdopen(out[0], "r");
  unsigned port = 0;
  if (!f || fscanf(f, "%u", &port) != 1) {
    fprintf(stderr, "ring2: node %lld did not start\n", static_cast<long long>(j));
    exit(1);
  }
  fclose(f);
  return {pid, ctl[1], static_cast<uint16_t>(port)};
}

} // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--peer")
    return peer(argc, argv);
  if (argc != 6) {
    fprintf(stderr, "usage: ring2 N M K PLACEMENT CORES\n");
    return 2;
  }
  const int64_t n = atoll(argv[1]), m = atoll(argv[2]), k = atoll(argv[3]), placement = atoll(argv[4]),
                cores = atoll(argv[5]);
  if (n < 1 || m < 1 || k < 1 || k > n || placement < 0 || placement > 1 || cores < 1) {
    fprintf(stderr, "ring2: N >= K >= 1, M >= 1, PLACEMENT 0 or 1, CORES >= 1\n");
    return 2;
  }
  // the CPUs of the peers: with one CPU of our own, the others, highest first (round-robin)
  std::vector<int> cpus;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (cores == 1 && sched_getaffinity(0, sizeof mine, &mine) == 0 && CPU_COUNT(&mine) == 1) {
    int own = 0;
    while (!CPU_ISSET(own, &mine))
      own++;
    cpus.push_back(own);
    for (int c = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1; c >= 0; c--)
      if (c != own)
        cpus.push_back(c);
  }
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0)
    return 1;
  exe[len] = 0;
  std::vector<started> peers;
  for (int64_t j = 1; j < k; j++)
    peers.push_back(start_peer(exe, j, cores,
                               cpus.empty() ? -1 : cpus[static_cast<size_t>(j) % cpus.size()]));

  actor_system_config cfg;
  cfg.load<io::middleman>();
  cfg.add_message_type<std::vector<int64_t>>("std::vector<int64_t>"); // the members' predecessors' nodes
  cfg.set("scheduler.max-threads", static_cast<size_t>(cores));
  {
    actor_system sys{cfg};
    scoped_actor self{sys};
    actor main = self;
    std::vector<actor> spawners{actor{}};
    for (auto& p : peers) {
      auto s = io::remote_actor(sys, "127.0.0.1", p.port);
      if (!s) {
        fprintf(stderr, "ring2: cannot reach a node: %s\n", sys.render(s.error()).c_str());
        return 1;
      }
      spawners.push_back(*s);
    }
    // every pair of peers connected, so a hop between two of them goes straight
    for (size_t a = 1; a < spawners.size(); a++)
      for (size_t b = a + 1; b < spawners.size(); b++)
        self->request(spawners[a], infinite, connect_atom_t::value, peers[b - 1].port)
          .receive([](int64_t) {}, [](error&) {});
    // the members: node j's in index order, spawned there
    std::vector<actor> ring(static_cast<size_t>(n));
    for (int64_t j = 0; j < k; j++) {
      std::vector<int64_t> idx, preds;
      for (int64_t i = 0; i < n; i++)
        if (node_of(i, n, k, placement) == j)
          idx.push_back(i), preds.push_back(node_of((i + n - 1) % n, n, k, placement));
      std::vector<actor> got;
      if (j == 0) {
        for (int64_t p : preds)
          got.push_back(sys.spawn(member, main, j, p));
      } else {
        self->request(spawners[j], infinite, spawn_atom_t::value, main, j, preds)
          .receive([&](std::vector<actor>& v) { got = std::move(v); },
                   [&](error& e) {
                     fprintf(stderr, "ring2: node %lld cannot spawn: %s\n", static_cast<long long>(j),
                             sys.render(e).c_str());
                     exit(1);
                   });
      }
      for (size_t x = 0; x < idx.size(); x++)
        ring[idx[x]] = got[x];
    }
    for (int64_t i = 0; i < n; i++)
      self->send(ring[i], ring[(i + 1) % n]);
    self->send(ring[0], n * m);
    self->receive([](int64_t) {});
#ifdef RING2_COUNT
    int64_t total = receipts.load(), cross = crossed.load();
    for (int64_t j = 1; j < k; j++)
      self->request(spawners[j], infinite, count_atom::value)
        .receive([&](int64_t r, int64_t c) { total += r, cross += c; }, [](error&) {});
    printf("receipts %lld cross %lld\n", static_cast<long long>(total), static_cast<long long>(cross));
    fflush(stdout);
#endif
    for (int64_t i = 0; i < n; i++)
      if (node_of(i, n, k, placement) == 0)
        self->send_exit(ring[i], exit_reason::user_shutdown);
    ring.clear();
  }
  for (auto& p : peers)
    close(p.ctl); // the peers end
  return 0;
}
