// A ring across nodes (docs/driver-contract.md, section 10; README.md, "A ring across nodes"):
// K OS processes on loopback, each an actor_system with CAF's middleman (libcaf_io, BASP over
// TCP). The driver's process is node 0; it starts the K-1 others itself (this binary in the peer
// role, --caf-peer), each publishes an agent actor on 127.0.0.1 at a port the OS picks and reports
// it on a pipe; node 0 reaches every agent with io::remote_actor and has every pair of peers
// connect (a full mesh), all before the first iteration. The ring's processes are spawned by the
// agents on their nodes; a hop to a process on another node is the same `send` to its actor
// handle, carried by the middleman. A peer ends when the driver does: PR_SET_PDEATHSIG (SIGKILL)
// and EOF on its stdin, the driver's control pipe.
//
// Nodes on other hosts (--hosts, the cluster file in RINGBENCH_CLUSTER): the user starts each one
// (this binary with --caf-node), its agent published over TLS with CAF's OpenSSL module; node 0
// reaches them with openssl::remote_actor (the TLS settings in the file CAF_TLS_SETTINGS names) and
// has them connect to each other through their agents. They stay up after the run.
//
// drivers/common/c describes `nodes` (rb_driver.nodes) and prints the records of a ring with K > 1
// (rb_print_result, rb_print_stats), but its loop runs K = 1 only: this file parses the two keys
// and runs the iterations of a ring with K > 1 (README.md, "A ring across nodes").
#include <cerrno>
#include <cstdarg>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caf/io/all.hpp"
#include "caf/openssl/all.hpp"

#include "caf_driver.hpp"

extern "C" {
#include "internal.h" // rb_mem_: the memory figures of the first spawn phase, echoed by every result
}

using namespace caf;

namespace rb {
namespace {

bool digits(const char* s);

using nspawn_atom = atom_constant<atom("nspawn")>;     // agent: spawn your ring processes
using nspawned_atom = atom_constant<atom("nspawned")>; // -> main: node j's processes
using nwire_atom = atom_constant<atom("nwire")>;       // your successor(s)
using nready_atom = atom_constant<atom("nready")>;     // -> main: node j's gate is full
using nsum_atom = atom_constant<atom("nsum")>;         // the proof's total and cross-node receipts
using nstop_atom = atom_constant<atom("nstop")>;       // the proof, carrying its sender's node
using nview0_atom = atom_constant<atom("nview0")>;     // the cluster view starts
using nview_atom = atom_constant<atom("nview")>;       // a node record, please
using nviewed_atom = atom_constant<atom("nviewed")>;   // -> main: one node's record
using nhello_atom = atom_constant<atom("nhello")>;     // a node's name (nodes on other hosts)
using nconnect_atom = atom_constant<atom("nconnect")>; // connect to the node at host:port

enum mode : int64_t { MODE_RING = 0, MODE_TRACE = 1, MODE_TRACE_QUIET = 2, MODE_CONTINUOUS = 3 };

// The layout (section 10): process i on node i*K div n (contiguous) or i mod K (interleaved).
int64_t node_of(int64_t i, int64_t n, int64_t k, int64_t placement) {
  return placement == 0 ? i * k / n : i % k;
}

// The processes of node j, in index order.
std::vector<int64_t> members(int64_t j, int64_t n, int64_t k, int64_t placement) {
  std::vector<int64_t> out;
  if (placement == 0) {
    for (int64_t i = (j * n + k - 1) / k; i < n && node_of(i, n, k, 0) == j; i++)
      out.push_back(i);
  } else {
    for (int64_t i = j; i < n; i += k)
      out.push_back(i);
  }
  return out;
}

// Crossing edges of a lap: contiguous K; interleaved every edge but the closing one when
// (n-1) mod K = 0.
int64_t cross_per_lap(int64_t n, int64_t k, int64_t placement) {
  if (k <= 1)
    return 0;
  return placement == 0 ? k : (n - 1) + ((n - 1) % k != 0 ? 1 : 0);
}

// A node's gate (section 3, per node): its processes arrive as they get their successor (so no
// token can reach one that does not know where to pass it); the arrival that completes the node's
// count sends main one message with it. Main sums the K counts.
class node_gate {
public:
  node_gate(int64_t want, actor main, int64_t node) : want_(want), main_(std::move(main)), node_(node) {}

  template <class Self>
  void arrive(Self* self) {
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == want_)
      self->send(main_, nready_atom::value, node_, count_.load(std::memory_order_acquire));
  }

private:
  std::atomic<int64_t> count_{0};
  const int64_t want_;
  const actor main_;
  const int64_t node_;
};

// Laps counted by this node's lowest-indexed ring process (continuous mode: node 0's is p0, whose
// count is the samples').
std::atomic<int64_t> node_laps{0};

// The hop record of a trace across nodes: section 3's, with the receiver's node.
void hop_record(int64_t n, int64_t m, int64_t v, int64_t from, int64_t to, int64_t node) {
  const int64_t hop = n * m - v + 1;
  rb_rec r;
  rb_rec_begin(&r, "hop");
  rb_rec_int(&r, "hop", hop);
  rb_rec_int(&r, "lap", (hop - 1) / n + 1);
  rb_rec_int(&r, "from", from);
  rb_rec_int(&r, "to", to);
  rb_rec_int(&r, "node", node);
  rb_rec_emit(&r);
}

// The ring processes of this node alive (their state is built at spawn and destroyed when they
// exit): main's teardown waits for node 0's to reach 0.
std::atomic<int64_t> live{0};

struct nproc_state {
  actor next;        // the successor, here or on another node
  actor main;        // node 0's main process
  int64_t count = 0; // tokens received
  nproc_state() { live.fetch_add(1, std::memory_order_relaxed); }
  ~nproc_state() { live.fetch_sub(1, std::memory_order_release); }
  nproc_state(const nproc_state&) = delete;
  nproc_state& operator=(const nproc_state&) = delete;
};

// A ring process of a ring across nodes: ring.cpp's ring_proc (the same hop: count, send v-1 to the
// successor's handle), trace_proc's hop with the sender's index, and a proof that counts the
// receipts that came from another node.
behavior nproc(stateful_actor<nproc_state>* self, actor main, int64_t index, int64_t node, int64_t n,
               int64_t m, int64_t md, std::atomic<int64_t>* laps, node_gate* g) {
  self->state.main = std::move(main);
  return {
    [=](int64_t v) {
      auto& s = self->state;
      ++s.count;
      if (laps && v != RB_CONT_FRESH)
        laps->fetch_add(1, std::memory_order_relaxed);
      if (v != 1)
        self->send(s.next, v - 1);
      else
        self->send(s.main, done_atom::value);
    },
    [=](int64_t v, int64_t from) {
      auto& s = self->state;
      ++s.count;
      if (md == MODE_TRACE)
        hop_record(n, m, v, from, index, node);
      if (v != 1)
        self->send(s.next, v - 1, index);
      else
        self->send(s.main, done_atom::value);
    },
    [=](nwire_atom, const actor& next) {
      self->state.next = next;
      g->arrive(self);
    },
    // the proof (untimed): add the count, and to the cross-node receipts if the predecessor (the
    // stop message's sender; for p0, main names p(n-1)'s node) is on another node
    [=](nstop_atom, int64_t left, int64_t sum, int64_t cross, int64_t from_node) {
      auto& s = self->state;
      sum += s.count;
      if (from_node != node)
        cross += s.count;
      if (left > 1)
        self->send(s.next, nstop_atom::value, left - 1, sum, cross, node);
      else
        self->send(s.main, nsum_atom::value, sum, cross);
      self->quit();
    },
  };
}

// What the cluster view reads of this OS process (README.md, "A ring across nodes").
int64_t rusage_cpu_ns() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (static_cast<int64_t>(u.ru_utime.tv_sec) + u.ru_stime.tv_sec) * 1000000000
         + (static_cast<int64_t>(u.ru_utime.tv_usec) + u.ru_stime.tv_usec) * 1000;
}

// TCP segments and bytes in and out over this process's TCP sockets (the middleman's connections):
// the kernel's TCP_INFO of each socket among /proc/self/fd.
struct wire {
  int64_t segs_in = 0, segs_out = 0, bytes_in = 0, bytes_out = 0;
};

wire wire_counts() {
  wire w;
  DIR* d = opendir("/proc/self/fd");
  if (!d)
    return w;
  while (struct dirent* e = readdir(d)) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
      continue;
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 || ti.tcpi_state != 1 /* ESTABLISHED */)
      continue;
    w.segs_in += ti.tcpi_segs_in;
    w.segs_out += ti.tcpi_segs_out;
    w.bytes_in += static_cast<int64_t>(ti.tcpi_bytes_received);
    w.bytes_out += static_cast<int64_t>(ti.tcpi_bytes_acked);
  }
  closedir(d);
  return w;
}

// A node's record of the cluster view, as the values of the node record's fields after `name`
// (view_names), read on the node: the view started at view_t0 (its clock), view_cpu0 its CPU time.
const char* const view_names[] = {"processes_in_ring", "elapsed_ns", "laps", "sched_active", "sched_total",
                                  "dist_in", "dist_out", "memory", "processes", "cpu_ns",
                                  "dist_bytes_in", "dist_bytes_out"};

message view_fields(int64_t in_ring, int64_t view_t0, int64_t view_cpu0, int64_t laps, int64_t cores) {
  const int64_t elapsed = rb_mono_ns() - view_t0, cpu = rusage_cpu_ns();
  const wire w = wire_counts();
  return make_message(in_ring, elapsed, laps, cpu - view_cpu0, elapsed * cores, w.segs_in, w.segs_out,
                      rb_rss_bytes(), static_cast<int64_t>(sys().registry().running()), cpu, w.bytes_in,
                      w.bytes_out);
}

void print_node(int64_t seq, int64_t j, const std::string& name, const message& v) {
  rb_rec r;
  rb_rec_begin(&r, "node");
  rb_rec_int(&r, "seq", seq);
  rb_rec_int(&r, "node", j);
  rb_rec_str(&r, "name", name.c_str());
  for (size_t f = 0; f < sizeof view_names / sizeof *view_names; f++)
    rb_rec_int(&r, view_names[f], v.get_as<int64_t>(f));
  rb_rec_emit(&r);
}

struct agent_state {
  std::unique_ptr<node_gate> gate;
  std::vector<actor> procs;     // spawned, not yet wired
  std::vector<actor_addr> ring; // the node's processes of the current ring
  actor main;               // that ring's main process (node 0's)
  int64_t j = 0;            // this node's index in that ring
  int64_t view_t0 = 0, view_cpu0 = 0, in_ring = 0;
};

// Each node's agent (node 0's too, in the driver's process): spawns and wires the node's ring
// processes, answers the cluster view, and (nodes on other hosts) says its name and connects to
// another node. A node started by the user serves one ring after another: when a ring's main
// process goes (its driver ended or was killed mid-run), the ring's processes here are ended.
behavior agent(stateful_actor<agent_state>* self, std::string name, int64_t cores) {
  self->set_down_handler([=](down_msg& dm) {
    auto& s = self->state;
    if (dm.source != s.main.address())
      return;
    for (auto& a : s.ring)
      self->send_exit(a, exit_reason::kill);
    s.ring.clear();
    s.procs.clear();
    s.main = nullptr;
  });
  return {
    [=](nspawn_atom, const actor& main, int64_t n, int64_t m, int64_t placement, int64_t md, int64_t j,
        int64_t k) {
      auto& s = self->state;
      for (auto& a : s.ring) // a ring that did not finish (its processes quit at its proof)
        self->send_exit(a, exit_reason::kill);
      s.ring.clear();
      if (s.main)
        self->demonitor(s.main);
      s.main = main, s.j = j;
      self->monitor(main);
      const auto mine = members(j, n, k, placement);
      s.gate.reset(new node_gate(static_cast<int64_t>(mine.size()), main, j));
      s.in_ring = static_cast<int64_t>(mine.size());
      node_laps.store(0, std::memory_order_relaxed);
      s.procs.clear();
      s.procs.reserve(mine.size());
      for (size_t x = 0; x < mine.size(); x++) {
        std::atomic<int64_t>* laps = md == MODE_CONTINUOUS && x == 0 ? &node_laps : nullptr;
        s.procs.push_back(self->spawn(nproc, main, mine[x], j, n, m, md, laps, s.gate.get()));
        s.ring.push_back(s.procs.back().address());
      }
      self->send(main, nspawned_atom::value, j, s.procs);
    },
    [=](nwire_atom, const std::vector<actor>& nexts) {
      auto& s = self->state;
      for (size_t x = 0; x < s.procs.size() && x < nexts.size(); x++)
        self->send(s.procs[x], nwire_atom::value, nexts[x]);
      s.procs.clear();
    },
    [=](nhello_atom) { return name; },
    // connect to the node at host:port over the same transport as this node's (TLS when the
    // OpenSSL module is loaded): "" once connected, else why not
    [=](nconnect_atom, const std::string& host, int64_t port) {
      auto rp = self->make_response_promise<std::string>();
      auto mm = self->system().has_openssl_manager() ? self->system().openssl_manager().actor_handle()
                                                     : self->system().middleman().actor_handle();
      self->request(mm, infinite, connect_atom::value, host, static_cast<uint16_t>(port))
        .then(
          [=](const node_id&, strong_actor_ptr& p, const std::set<std::string>&) mutable {
            rp.deliver(p ? std::string{} : std::string{"no actor published at that port"});
          },
          [=](error& e) mutable { rp.deliver(self->system().render(e)); });
      return rp;
    },
    [=](nview0_atom) {
      self->state.view_t0 = rb_mono_ns();
      self->state.view_cpu0 = rusage_cpu_ns();
    },
    [=](nview_atom, const actor& main) {
      auto& s = self->state;
      self->send(main, nviewed_atom::value, s.j,
                 view_fields(s.in_ring, s.view_t0, s.view_cpu0, node_laps.load(std::memory_order_relaxed), cores));
    },
  };
}

// ------------------------------------------------------------------------------- the cluster

struct peer {
  std::string host = "127.0.0.1"; // where its agent is published
  pid_t pid = -1; // a node this driver started; -1 for one on another host
  int ctl = -1;  // its stdin: commands; closing it ends the peer
  int reply = -1; // its fd 3: "port N", "ok"
  uint16_t port = 0;
  std::string name;
};

struct cluster {
  int64_t k = 1, placement = 0, cores = 1;
  bool remote = false; // nodes the user started (--hosts), reached over TLS
  std::string base; // ringbench_caf_<driver pid>
  std::vector<peer> peers; // [0] is node 0 (this process)
  std::vector<actor> agents;
  actor watcher;
};

cluster cl;
std::atomic<bool> stopping{false};

std::string node_name(int64_t j) {
  return cl.remote && j > 0 ? cl.peers[j].name : cl.base + "_" + std::to_string(j);
}

// Where node j is, for a message: its process and port, or host:port on another host.
std::string where(int64_t j) {
  const peer& pr = cl.peers[j];
  if (pr.pid > 0)
    return "its process " + std::to_string(pr.pid) + ", 127.0.0.1:" + std::to_string(pr.port);
  return pr.host + ":" + std::to_string(pr.port);
}

// A line from a peer's reply pipe, waiting at most `ms`; "" on EOF or timeout.
std::string read_line(int fd, int ms) {
  std::string line;
  const int64_t deadline = rb_mono_ns() + int64_t{ms} * 1000000;
  char c;
  for (;;) {
    const int64_t left = (deadline - rb_mono_ns()) / 1000000;
    if (left <= 0)
      return "";
    struct pollfd pf = {fd, POLLIN, 0};
    const int rc = poll(&pf, 1, static_cast<int>(left));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      return "";
    const ssize_t got = read(fd, &c, 1);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return "";
    if (c == '\n')
      return line;
    line += c;
  }
}

// The CPUs the nodes are pinned to (section 10): when this process may run on one CPU only (the
// orchestrator's cores=1), node j gets the j-th of [own, the other online CPUs, highest first],
// round-robin; otherwise none is pinned (-1).
std::vector<int> placement_cpus(int64_t k) {
  std::vector<int> out(static_cast<size_t>(k), -1);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
    return out;
  int own = 0;
  while (!CPU_ISSET(own, &set))
    own++;
  std::vector<int> order{own};
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (int c = static_cast<int>(online) - 1; c >= 0; c--)
    if (c != own)
      order.push_back(c);
  for (int64_t j = 0; j < k; j++)
    out[j] = order[j % static_cast<int64_t>(order.size())];
  if (k > static_cast<int64_t>(order.size()))
    fprintf(stderr, "ringbench-caf: %" PRId64 " nodes on %zu CPUs: nodes share CPUs (pinned round-robin)\n", k,
            order.size());
  return out;
}

// Start the peers (before this process has any thread: fork from the main thread, whose death is
// the one PR_SET_PDEATHSIG watches). Each is this binary: --caf-peer J K CORES VARIANT NAME.
void start_peers(const char* variant) {
  const auto cpus = placement_cpus(cl.k);
  const pid_t me = getpid();
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0)
    rb_failure("cannot read /proc/self/exe to start the other nodes: %s", strerror(errno));
  exe[len] = 0;
  for (int64_t j = 1; j < cl.k; j++) {
    peer& pr = cl.peers[j];
    pr.name = node_name(j);
    int ctl[2], rep[2];
    if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0)
      rb_failure("cannot make the pipes of node %" PRId64 ": %s", j, strerror(errno));
    const std::string sj = std::to_string(j), sk = std::to_string(cl.k), sc = std::to_string(cl.cores);
    const char* argv[] = {exe, "--caf-peer", sj.c_str(), sk.c_str(), sc.c_str(), variant, pr.name.c_str(), nullptr};
    const int cpu = cpus[j];
    const pid_t pid = fork();
    if (pid < 0)
      rb_failure("cannot start node %" PRId64 " (fork): %s", j, strerror(errno));
    if (pid == 0) { // the child: async-signal-safe calls only, then exec
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != me)
        _exit(1);
      if (dup2(ctl[0], 0) < 0 || (rep[1] == 3 ? fcntl(3, F_SETFD, 0) : dup2(rep[1], 3)) < 0)
        _exit(1);
      if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
      }
      execv(exe, const_cast<char* const*>(argv));
      _exit(127);
    }
    close(ctl[0]);
    close(rep[1]);
    pr.pid = pid, pr.ctl = ctl[1], pr.reply = rep[0];
  }
}

void peer_gone(int64_t j, const char* what) {
  if (cl.remote) // bad input: a node the user started that cannot be used (section 10)
    rb_bad_param("node %" PRId64 " of %" PRId64 " (%s) %s", j, cl.k, cl.peers[j].name.c_str(), what);
  rb_failure("node %" PRId64 " of %" PRId64 " (%s) %s (its process %d)", j, cl.k, cl.peers[j].name.c_str(), what,
             static_cast<int>(cl.peers[j].pid));
}

// The watcher: monitors every peer's agent; the first that goes down (its process gone, its
// connection dropped: CAF kills the node's proxies) ends the driver with a failure naming it.
// (`k`: CAF 0.17 spawns a function without arguments through a null shared_ptr<tuple<>>, which
// UBSan reports as a null reference; with one it does not.)
behavior watcher(event_based_actor* self, int64_t k) {
  self->set_down_handler([=](down_msg& dm) {
    if (stopping.load())
      return;
    for (int64_t j = 1; j < k; j++)
      if (cl.agents[j].address() == dm.source) {
        const std::string why = self->system().render(dm.reason);
        rb_failure("node %" PRId64 " of %" PRId64 " (%s) went down (%s): its ring processes and any token "
                   "they held are gone, so the run cannot finish (%s)",
                   j, k, node_name(j).c_str(), why.c_str(), where(j).c_str());
      }
  });
  return {
    [=](const actor& a) { self->monitor(a); },
  };
}

// Connect the cluster (untimed, before the first iteration): every peer's port, node 0's handle on
// each agent, then every pair of peers, then the watcher.
void connect_cluster() {
  cl.agents.resize(static_cast<size_t>(cl.k));
  cl.agents[0] = sys().spawn(agent, node_name(0), cl.cores);
  for (int64_t j = 1; j < cl.k; j++) {
    peer& pr = cl.peers[j];
    const std::string line = read_line(pr.reply, 60000);
    unsigned port = 0;
    if (sscanf(line.c_str(), "port %u", &port) != 1 || port == 0 || port > 65535)
      peer_gone(j, line.empty() ? "did not report its port within 60 s (it exited or hangs; its stderr says why)"
                                : ("reported '" + line + "' instead of its port").c_str());
    pr.port = static_cast<uint16_t>(port);
    auto a = io::remote_actor(sys(), "127.0.0.1", pr.port);
    if (!a)
      peer_gone(j, ("cannot be reached at 127.0.0.1:" + std::to_string(port) + ": " + sys().render(a.error()))
                     .c_str());
    cl.agents[j] = *a;
  }
  for (int64_t i = 1; i < cl.k; i++)
    for (int64_t j = i + 1; j < cl.k; j++) {
      const std::string cmd = "connect " + std::to_string(cl.peers[j].port) + "\n";
      if (write(cl.peers[i].ctl, cmd.data(), cmd.size()) != static_cast<ssize_t>(cmd.size()))
        peer_gone(i, "closed its control pipe");
      const std::string line = read_line(cl.peers[i].reply, 60000);
      if (line != "ok")
        peer_gone(i, ("could not connect to node " + std::to_string(j) + ": " + (line.empty() ? "no answer" : line))
                       .c_str());
    }
  cl.watcher = sys().spawn(watcher, cl.k);
  scoped_actor self{sys()};
  for (int64_t j = 1; j < cl.k; j++)
    self->send(cl.watcher, cl.agents[j]);
}

// ------------------------------------------------------------------- nodes on other hosts

const uint16_t default_port = 4381; // a node's port when --hosts names none

// printf into a string (a message of one line)
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// The TLS settings of a ring over nodes on other hosts: the [openssl] group of a CAF ini file (the
// keys a CAF 0.17 program's caf-application.ini takes: certificate, key, passphrase, cafile,
// capath), read here so that no line of it is ever echoed. The file must be readable by its owner
// alone (it may hold the key's passphrase). "" when they are usable, else why not (one line).
std::string read_tls(const char* path, tls_files& t) {
  struct stat st;
  if (!path || !*path)
    return fmt("no TLS settings: a ring over nodes on other hosts is kept private by CAF's OpenSSL module "
        "(README.md, \"A ring across nodes\")");
  if (stat(path, &st) != 0)
    return fmt("cannot read the TLS settings %s: %s", path, strerror(errno));
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return fmt("the TLS settings %s can be read by others (mode %04o): `chmod 600 %s` first", path,
        static_cast<unsigned>(st.st_mode & 07777), path);
  FILE* f = fopen(path, "r");
  if (!f)
    return fmt("cannot read the TLS settings %s: %s", path, strerror(errno));
  std::string group;
  char buf[4096];
  int line = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    std::string l(buf);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r' || l.back() == ' ' || l.back() == '\t'))
      l.pop_back();
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string::npos || l[b] == ';' || l[b] == '#')
      continue;
    l = l.substr(b);
    if (l[0] == '[') {
      group = l.substr(1, l.find(']') == std::string::npos ? 0 : l.find(']') - 1);
      continue;
    }
    const size_t eq = l.find('=');
    if (eq == std::string::npos)
      return fclose(f), fmt("line %d of %s is neither [group] nor key=value (its text is not shown)", line, path);
    std::string key = l.substr(0, eq), val = l.substr(eq + 1);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t'))
      key.pop_back();
    val = val.substr(std::min(val.size(), val.find_first_not_of(" \t")));
    if (val.size() >= 2 && val.front() == '"' && val.back() == '"')
      val = val.substr(1, val.size() - 2);
    if (group != "openssl")
      continue;
    if (key == "certificate")
      t.certificate = val;
    else if (key == "key")
      t.key = val;
    else if (key == "passphrase")
      t.passphrase = val;
    else if (key == "cafile")
      t.cafile = val;
    else if (key == "capath")
      t.capath = val;
    else
      return fclose(f), fmt("line %d of %s: [openssl] has no key '%s' (certificate, key, passphrase, cafile, "
                            "capath)", line, path, key.c_str());
  }
  fclose(f);
  // without a certificate CAF 0.17 falls back to anonymous TLS, and without a CA it trusts anyone
  if (t.certificate.empty() || t.key.empty() || (t.cafile.empty() && t.capath.empty()))
    return fmt("the TLS settings %s need certificate, key and cafile (or capath) in [openssl]: a node "
        "must prove who it is and check who the other is", path);
  for (const std::string* file : {&t.certificate, &t.key, &t.cafile})
    if (!file->empty() && access(file->c_str(), R_OK) != 0)
      return fmt("cannot read %s (named in %s): %s", file->c_str(), path, strerror(errno));
  return "";
}

// `[name@]host[:port]` of the cluster file's hosts= line (the orchestrator writes name@host[:port]).
void parse_host(peer& pr, const std::string& item) {
  const size_t at = item.find('@');
  pr.name = item;
  std::string hp = at == std::string::npos ? item : item.substr(at + 1);
  const size_t colon = hp.rfind(':');
  pr.port = default_port;
  if (colon != std::string::npos) {
    const std::string port = hp.substr(colon + 1);
    if (!digits(port.c_str()) || port.size() > 5 || atol(port.c_str()) < 1 || atol(port.c_str()) > 65535)
      rb_bad_param("the cluster file names the node '%s', whose port is not 1 ... 65535", item.c_str());
    pr.port = static_cast<uint16_t>(atol(port.c_str()));
    hp = hp.substr(0, colon);
  } else {
    pr.name += ":" + std::to_string(default_port);
  }
  pr.host = hp;
  if (hp.empty())
    rb_bad_param("the cluster file names the node '%s', which has no host", item.c_str());
}

// The nodes on other hosts, from the cluster file (section 10: lines key=value; hosts= the other
// nodes, comma-separated, node j the j-th; no cookie= line: the manifest says cookie = false).
std::vector<std::string> read_cluster(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f)
    rb_bad_param("cannot read the cluster file %s: %s", path, strerror(errno));
  std::vector<std::string> hosts;
  char buf[8192];
  while (fgets(buf, sizeof buf, f)) {
    if (strncmp(buf, "hosts=", 6) != 0)
      continue;
    std::string list(buf + 6);
    while (!list.empty() && (list.back() == '\n' || list.back() == '\r'))
      list.pop_back();
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = list.find(',', start);
      const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty())
        hosts.push_back(item);
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  fclose(f);
  if (hosts.empty())
    rb_bad_param("the cluster file %s has no hosts= line naming the other nodes", path);
  return hosts;
}

// Connect the user's nodes (untimed, before the first iteration): node 0 reaches each one's agent
// over TLS, checks its name, then has every pair of them connect (a full mesh), then the watcher.
// A node that cannot be reached, fails the TLS handshake or answers to another name is bad input.
void connect_remote() {
  cl.agents.resize(static_cast<size_t>(cl.k));
  cl.agents[0] = sys().spawn(agent, node_name(0), cl.cores);
  scoped_actor self{sys()};
  for (int64_t j = 1; j < cl.k; j++) {
    peer& pr = cl.peers[j];
    auto a = openssl::remote_actor(sys(), pr.host, pr.port);
    if (!a)
      peer_gone(j, ("cannot be reached over TLS at " + where(j) + " (not running there, or the TLS handshake "
                    "failed: each side's certificate must be signed by a CA in the other's cafile): "
                    + sys().render(a.error()))
                     .c_str());
    cl.agents[j] = *a;
    const std::string want = pr.name.substr(0, pr.name.find('@'));
    std::string name;
    self->request(*a, std::chrono::seconds(30), nhello_atom::value)
      .receive([&](const std::string& got) { name = got; },
               [&](error& e) { peer_gone(j, ("did not say its name: " + sys().render(e)).c_str()); });
    if (name != want)
      peer_gone(j, ("answers to the name '" + name + "' at " + where(j) + ", not '" + want + "'").c_str());
  }
  for (int64_t i = 1; i < cl.k; i++)
    for (int64_t j = i + 1; j < cl.k; j++) {
      std::string why;
      self->request(cl.agents[i], std::chrono::seconds(60), nconnect_atom::value, cl.peers[j].host,
                    static_cast<int64_t>(cl.peers[j].port))
        .receive([&](const std::string& w) { why = w; }, [&](error& e) { why = sys().render(e); });
      if (!why.empty())
        peer_gone(i, ("could not connect to node " + std::to_string(j) + " (" + where(j) + "): " + why).c_str());
    }
  cl.watcher = sys().spawn(watcher, cl.k);
  for (int64_t j = 1; j < cl.k; j++)
    self->send(cl.watcher, cl.agents[j]);
}

// Stop the peers (after the last iteration): EOF on each one's stdin, then reap it (SIGKILL after
// 5 s).
void stop_cluster() {
  stopping.store(true);
  if (cl.remote)
    return; // the user's nodes stay up; this driver's ring on them has ended with its proof
  for (int64_t j = 1; j < cl.k; j++)
    close(cl.peers[j].ctl);
  const int64_t deadline = rb_mono_ns() + 5000000000;
  for (int64_t j = 1; j < cl.k; j++) {
    int status;
    while (waitpid(cl.peers[j].pid, &status, WNOHANG) == 0) {
      if (rb_mono_ns() > deadline) {
        kill(cl.peers[j].pid, SIGKILL);
        waitpid(cl.peers[j].pid, &status, 0);
        break;
      }
      usleep(2000);
    }
  }
}

// ----------------------------------------------------------------------------- the iterations

// The spawn phase across nodes: each agent spawns its node's processes, main makes the ring of
// their handles and sends each agent its processes' successors; it ends when every node's gate is
// full. Returns the ring's handles in index order.
std::vector<actor> spawn_nodes(scoped_actor& self, const rb_params* p, rb_result* r, int64_t md) {
  const int64_t n = p->n, k = cl.k;
  actor main = self;
  rb_spawn_begin(r);
  for (int64_t j = 0; j < k; j++)
    self->send(cl.agents[j], nspawn_atom::value, main, n, p->m, cl.placement, md, j, k);
  std::vector<std::vector<actor>> got(static_cast<size_t>(k));
  int64_t i = 0;
  self->receive_for(i, k)([&](nspawned_atom, int64_t j, const std::vector<actor>& v) { got[j] = v; });
  std::vector<actor> procs(static_cast<size_t>(n));
  for (int64_t j = 0; j < k; j++) {
    const auto mine = members(j, n, k, cl.placement);
    for (size_t x = 0; x < mine.size(); x++)
      procs[mine[x]] = got[j][x];
  }
  for (int64_t j = 0; j < k; j++) {
    std::vector<actor> nexts;
    for (int64_t idx : members(j, n, k, cl.placement))
      nexts.push_back(procs[(idx + 1) % n]);
    self->send(cl.agents[j], nwire_atom::value, std::move(nexts));
  }
  int64_t ready = 0;
  i = 0;
  self->receive_for(i, k)([&](nready_atom, int64_t, int64_t c) { ready += c; });
  rb_spawn_end(r);
  counts.running_after_spawn = static_cast<int64_t>(sys().registry().running());
  r->ready = ready;
  return procs;
}

// One iteration of ring or trace across nodes; the proof's cross-node receipts in *cross.
void nodes_iteration(const rb_params* p, rb_result* r, int64_t* cross) {
  scoped_actor self{sys()};
  const bool trace = p->workload == RB_TRACE;
  const int64_t md = trace ? (r->iteration > 0 ? MODE_TRACE : MODE_TRACE_QUIET) : MODE_RING;
  auto procs = spawn_nodes(self, p, r, md);
  const int64_t n = p->n, total = n * p->m;
  rb_run_begin(r);
  for (int64_t j = 0; j < p->tokens; j++) {
    if (trace)
      self->send(procs[rb_inject_at(p, j)], total, int64_t{-1});
    else
      self->send(procs[rb_inject_at(p, j)], total);
  }
  int64_t done = 0;
  self->receive_for(done, p->tokens)([](done_atom) {});
  rb_run_end(r);
  // the proof: p0's predecessor is p(n-1)
  self->send(procs[0], nstop_atom::value, n, int64_t{0}, int64_t{0}, node_of(n - 1, n, cl.k, cl.placement));
  self->receive([&](nsum_atom, int64_t sum, int64_t x) { r->count = sum, *cross = x; });
  procs.clear();
  // node 0's processes have exited (untimed; the registry's running count also moves with the
  // middleman's own actors, so the ring's are counted apart)
  while (live.load(std::memory_order_acquire) > 0)
    usleep(50);
}

// The cluster view after sample `seq`: one node record per node, node 0 first.
void print_view(scoped_actor& self, int64_t seq) {
  actor main = self;
  for (int64_t j = 0; j < cl.k; j++)
    self->send(cl.agents[j], nview_atom::value, main);
  std::vector<message> views(static_cast<size_t>(cl.k));
  int64_t i = 0;
  self->receive_for(i, cl.k)([&](nviewed_atom, int64_t j, const message& v) { views[j] = v; });
  for (int64_t j = 0; j < cl.k; j++)
    print_node(seq, j, node_name(j), views[j]);
}

// Continuous mode across nodes (section 5): the ring as above, the tokens without end; p0 (node 0's
// first process) counts the laps; with stats=1 the cluster view follows every sample.
void nodes_continuous(const rb_params* p) {
  rb_result r{};
  scoped_actor self{sys()};
  auto procs = spawn_nodes(self, p, &r, MODE_CONTINUOUS);
  for (int64_t j = 0; j < cl.k; j++)
    self->send(cl.agents[j], nview0_atom::value);
  const int64_t t0 = rb_mono_ns(), step = p->sample_ms * 1000000;
  for (int64_t j = 0; j < p->tokens; j++)
    self->send(procs[rb_inject_at(p, j)], int64_t{RB_CONT_FRESH});
  int64_t prev = 0;
  for (int64_t s = 1; s <= p->samples; s++) {
    const int64_t due = t0 + s * step;
    const struct timespec ts = {static_cast<time_t>(due / 1000000000), static_cast<long>(due % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
      ;
    int64_t count = node_laps.load(std::memory_order_relaxed) * p->n;
    const int64_t now = rb_mono_ns();
    if (count < prev)
      count = prev;
    prev = count;
    rb_sample(s, now - t0, count);
    if (p->stats)
      print_view(self, s);
  }
  stop_cluster();
  rb_exit_ok();
}

} // namespace

// The continuous ring on one node (ring.cpp) with stats=1: section 5's samples, each followed by the
// cluster view of node 0 alone (section 10), the laps p0's.
void one_node_view_loop(const rb_params* p, int64_t t0, int64_t (*laps)(void*)) {
  const int64_t step = p->sample_ms * 1000000, cpu0 = rusage_cpu_ns();
  const std::string name = "ringbench_caf_" + std::to_string(getpid()) + "_0";
  int64_t prev = 0;
  for (int64_t s = 1; s <= p->samples; s++) {
    const int64_t due = t0 + s * step;
    const struct timespec ts = {static_cast<time_t>(due / 1000000000), static_cast<long>(due % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
      ;
    const int64_t l = laps(nullptr);
    int64_t count = l * p->n;
    const int64_t now = rb_mono_ns();
    if (count < prev)
      count = prev;
    prev = count;
    rb_sample(s, now - t0, count);
    print_node(s, 0, name, view_fields(p->n, t0, cpu0, l, p->cores));
  }
  rb_exit_ok();
}

namespace {

// -------------------------------------------------------------------------------- the peer

// A peer node (--caf-peer J K CORES VARIANT NAME): the actor system, its agent published on
// loopback at a port the OS picks (reported on fd 3), then commands on stdin until EOF, which
// ends it at once. Its stdout is the driver's: a trace's hop records go there whole.
int peer_main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (argc != 7) {
    fprintf(stderr, "ringbench-caf: --caf-peer J K CORES VARIANT NAME (started by the driver only)\n");
    return 2;
  }
  const int64_t cores = atoll(argv[4]); // J and K come with each ring (nspawn)
  make_system(cores, argv[5], true);
  // a peer prints no error record (its stdout is the driver's): out of memory, it says so on
  // stderr and ends, and the driver's watcher reports the node gone
  std::set_new_handler([] {
    static const char msg[] = "ringbench-caf: a peer node ran out of memory (operator new failed)\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
    }
    _exit(3);
  });
  auto a = sys().spawn(agent, std::string(argv[6]), cores);
  auto port = io::publish(a, 0, "127.0.0.1", false);
  if (!port) {
    dprintf(3, "error: cannot publish on 127.0.0.1: %s\n", sys().render(port.error()).c_str());
    _exit(1);
  }
  dprintf(3, "port %u\n", static_cast<unsigned>(*port));
  char line[256];
  FILE* in = stdin;
  while (fgets(line, sizeof line, in)) {
    unsigned other = 0;
    if (sscanf(line, "connect %u", &other) == 1) {
      auto b = io::remote_actor(sys(), "127.0.0.1", static_cast<uint16_t>(other));
      if (b)
        dprintf(3, "ok\n");
      else
        dprintf(3, "error: %s\n", sys().render(b.error()).c_str());
    }
  }
  fflush(stdout);
  _exit(0); // the driver closed the pipe (or ended): no teardown
}

// A node the user starts on another host (README.md, "A ring across nodes"):
//   ringbench-caf --caf-node --tls=FILE [--port=4381] [--bind=ADDR] [--name=ringbench] [--cores=C]
//                 [--variant=stock]
// its agent published over TLS (CAF's OpenSSL module, the settings of FILE) on ADDR (every
// interface by default) at the port; it serves one driver's ring after another until it is killed.
int node_main(int argc, char** argv) {
  const char* tls = nullptr;
  const char* bind = nullptr;
  std::string name = "ringbench", variant = variants[0];
  long port = default_port, cores = sysconf(_SC_NPROCESSORS_ONLN);
  for (int a = 2; a < argc; a++) {
    const char* v = strchr(argv[a], '=');
    const std::string key = v ? std::string(argv[a], v - argv[a]) : argv[a];
    v = v ? v + 1 : "";
    bool ok = *v != 0;
    if (key == "--tls")
      tls = v;
    else if (key == "--bind")
      bind = v;
    else if (key == "--name")
      name = v, ok = ok && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(v);
    else if (key == "--port")
      port = atol(v), ok = ok && digits(v) && strlen(v) <= 5 && port <= 65535; // 0: the OS picks
    else if (key == "--cores")
      cores = atol(v), ok = ok && digits(v) && strlen(v) <= 4 && cores >= 1;
    else if (key == "--variant") {
      variant = v, ok = false;
      for (int x = 0; variants[x]; x++)
        ok = ok || variant == variants[x];
    } else
      ok = false;
    if (!ok) {
      fprintf(stderr, "ringbench-caf: --caf-node: '%s' is not one of --tls=FILE --port=0..65535 --bind=ADDR "
                      "--name=[A-Za-z0-9_-]+ --cores=N --variant=stock|tuned\n", argv[a]);
      return 2;
    }
  }
  tls_files t;
  const std::string why = read_tls(tls, t);
  if (!why.empty()) {
    fprintf(stderr, "ringbench-caf: --caf-node: %s%s\n", why.c_str(), tls ? "" : " (give --tls=FILE)");
    return 2;
  }
  make_system(cores, variant.c_str(), true, &t);
  auto a = sys().spawn(agent, name, static_cast<int64_t>(cores));
  auto got = openssl::publish(a, static_cast<uint16_t>(port), bind, true);
  if (!got) {
    fprintf(stderr, "ringbench-caf: --caf-node: cannot publish on %s:%ld: %s\n", bind ? bind : "*", port,
            sys().render(got.error()).c_str());
    _exit(1);
  }
  fprintf(stderr, "ringbench-caf: node %s serves rings over TLS on %s:%u (%ld cores, variant %s); Ctrl-C ends it\n",
          name.c_str(), bind ? bind : "*", static_cast<unsigned>(*got), cores, variant.c_str());
  for (;;)
    pause();
}

// ----------------------------------------------------------------------------- the arguments

bool digits(const char* s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

} // namespace

int nodes_main(const rb_driver* d, int argc, char** argv) {
  rb_driver_ = d; // errors name the driver (rb_main sets it too)
  if (argc >= 2 && strcmp(argv[1], "--caf-peer") == 0)
    return peer_main(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "--caf-node") == 0)
    return node_main(argc, argv);
  // the options rb_main knows (--variant=); anything else is left to it
  int a = 1;
  const char* variant = variants[0];
  for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
    if (strncmp(argv[a], "--variant=", 10) != 0)
      return -1;
    int v = 0;
    while (variants[v] && strcmp(variants[v], argv[a] + 10) != 0)
      v++;
    if (!variants[v])
      return -1;
    variant = variants[v];
  }
  if (a + 1 >= argc || strcmp(argv[a], "run") != 0) // describe (with `nodes`: rb_driver.nodes) is rb_main's
    return -1;
  const char* workload = argv[a + 1];
  const int w = rb_workload_index(workload);
  if (w != RB_RING && w != RB_TRACE)
    return -1; // `nodes` is not a key of these: rb_main refuses it as any unknown key
  // take nodes= and node_placement= out; the rest is rb_main's (or rb_parse_params')
  int64_t k = 1, placement = 0;
  bool seen_k = false, seen_p = false;
  std::vector<char*> rest;
  for (int x = 0; x < a + 2; x++)
    rest.push_back(argv[x]);
  for (int x = a + 2; x < argc; x++) {
    const char* arg = argv[x];
    const bool is_k = strncmp(arg, "nodes=", 6) == 0, is_p = strncmp(arg, "node_placement=", 15) == 0;
    if (!is_k && !is_p) {
      rest.push_back(argv[x]);
      continue;
    }
    const char* key = is_k ? "nodes" : "node_placement";
    const char* val = arg + (is_k ? 6 : 15);
    if ((is_k && seen_k) || (is_p && seen_p))
      rb_bad_param("%s given twice", key);
    if (!digits(val) || strlen(val) > 4)
      rb_bad_param("%s must be a decimal integer (%s), got '%s'", key, is_k ? "1 ... 256" : "0 or 1", val);
    const int64_t v = atoll(val);
    if (is_k && (v < 1 || v > 256))
      rb_bad_param("nodes must be an integer in 1 ... 256, got '%s'", val);
    if (is_p && v > 1)
      rb_bad_param("node_placement must be 0 (contiguous) or 1 (interleaved), got '%s'", val);
    (is_k ? k : placement) = v, (is_k ? seen_k : seen_p) = true;
  }
  if (k == 1) {
    // nodes=1 is section 3's ring exactly: rb_main's, without the two keys
    if (!seen_k && !seen_p)
      return -1;
    rest.push_back(nullptr);
    return rb_main(d, static_cast<int>(rest.size()) - 1, rest.data());
  }
  rb_params p;
  char msg[512];
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int rc = rb_parse_params(workload, static_cast<int>(rest.size()) - (a + 2), rest.data() + a + 2,
                                 cpus > 0 ? cpus : 1, &p, msg, sizeof msg);
  if (rc != RB_OK)
    rb_fail(rc, "%s", msg);
  if (k > p.n)
    rb_bad_param("nodes (%" PRId64 ") cannot exceed n (%" PRId64 "): every node holds at least one process", k, p.n);
  // nodes on other hosts (--hosts): the cluster file names them, CAF_TLS_SETTINGS the TLS settings
  const char* hosts = getenv("RINGBENCH_CLUSTER");
  tls_files tls;
  if (hosts && *hosts) {
    if (w == RB_TRACE)
      rb_bad_param("caf traces a ring across nodes it starts itself only: the hop records of nodes on other "
                   "hosts would print there");
    const auto list = read_cluster(hosts);
    if (static_cast<int64_t>(list.size()) + 1 != k)
      rb_bad_param("nodes=%" PRId64 " but the cluster file names %zu other nodes (K = hosts + 1)", k, list.size());
    const std::string why = read_tls(getenv("CAF_TLS_SETTINGS"), tls);
    if (!why.empty())
      rb_bad_param("%s (%s)", why.c_str(),
                   getenv("CAF_TLS_SETTINGS") ? "CAF_TLS_SETTINGS" : "set CAF_TLS_SETTINGS to their file");
    cl.remote = true;
    cl.peers.resize(static_cast<size_t>(k));
    for (int64_t j = 1; j < k; j++)
      parse_host(cl.peers[j], list[j - 1]);
  }
  p.variant = 0;
  for (int v = 0; variants[v]; v++)
    if (strcmp(variants[v], variant) == 0)
      p.variant = v;
  p.variant_name = variant;
  p.nodes = k, p.node_placement = placement;

  cl.k = k, cl.placement = placement, cl.cores = p.cores;
  cl.base = "ringbench_caf_" + std::to_string(getpid());
  cl.peers.resize(static_cast<size_t>(k));
  cl.peers[0].name = node_name(0), cl.peers[0].pid = getpid();
  if (cl.remote) {
    make_system(p.cores, variant, true, &tls);
    connect_remote();
  } else {
    start_peers(variant); // before any thread of this process
    make_system(p.cores, variant, true);
    connect_cluster();
  }
  if (p.sample_ms > 0)
    nodes_continuous(&p);
  const int64_t want_count = rb_expected_count(&p), want_cross = cross_per_lap(p.n, k, placement) * p.m * p.tokens;
  for (int64_t i = 1 - p.warmup; i <= p.repeats; i++) {
    rb_result res;
    memset(&res, 0, sizeof res);
    res.iteration = i;
    int64_t cross = -1;
    nodes_iteration(&p, &res, &cross);
    if (res.count != want_count)
      rb_failure("%s: count mismatch: the processes proved %" PRId64 ", expected %" PRId64, workload, res.count,
                 want_count);
    if (cross != want_cross)
      rb_failure("%s: the processes proved %" PRId64 " cross-node hops, expected %" PRId64, workload, cross,
                 want_cross);
    if (res.ready != p.n)
      rb_failure("%s: %" PRId64 " ready signals when the spawn phase ended, expected %" PRId64, workload, res.ready,
                 p.n);
    if (i <= 0)
      continue;
    res.cross_hops = cross;
    rb_print_result(d, &p, &res);
    if (p.stats)
      rb_print_stats(d, &p, &res);
  }
  fflush(stdout);
  stop_cluster();
  rb_exit_ok(); // no teardown of the actor system: its middleman's connections are gone
}

} // namespace rb
