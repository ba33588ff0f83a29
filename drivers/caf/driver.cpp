// ringbench-caf: the C++ Actor Framework 0.17 (README.md). This file holds the actor system and
// its settings (the variants), the runtime's statistics and `main`; the workloads are in ring.cpp,
// pingpong.cpp, fanin.cpp, selective.cpp and tree.cpp; the protocol is drivers/common/c's.
#include <new>
#include <string>

#include "caf/io/all.hpp"
#include "caf/openssl/all.hpp"

#include "caf_driver.hpp"

using namespace caf;

namespace rb {

caf_counts counts;
const char* const variants[] = {"stock", "tuned", nullptr};

namespace {

actor_system_config* config = nullptr;
actor_system* system_ = nullptr;
size_t system_actors = 0; // actors the system runs for itself (they count as running)

// operator new failed: a `limit` error naming the limit (the contract's "real allocation failure").
void out_of_memory() {
  rb_limit("memory: operator new failed with VmRSS at %lld bytes (every CAF actor, mailbox and message "
           "is a heap allocation); raise the process's memory limit (ulimit -v, the cgroup's memory.max) "
           "or ask for fewer processes",
           static_cast<long long>(rb_rss_bytes()));
}

void prepare(const rb_params* p) {
  make_system(p->cores, p->variant_name, false);
}

void stats_fields(rb_rec* rec, const rb_params*, const rb_result*) {
  stats_into(rec);
}

} // namespace

// The actor system, once per process: `cores` scheduler threads (scheduler.max-threads) of the
// default policy, work stealing; the tuned variant adds the settings of README.md, "Variants".
// `network`: with CAF's middleman (libcaf_io), for a ring across nodes (nodes.cpp).
void make_system(int64_t cores, const char* variant, bool network, const tls_files* tls) {
  std::set_new_handler(out_of_memory);
  config = new actor_system_config;
  config->set("scheduler.policy", atom("stealing"));
  config->set("scheduler.max-threads", static_cast<size_t>(cores));
  if (network)
    config->load<io::middleman>();
  if (tls) {
    // CAF's OpenSSL module (libcaf_openssl): BASP over TLS, each side's certificate checked
    // against the CA (nodes on other hosts, nodes.cpp)
    config->load<openssl::manager>();
    config->openssl_certificate = tls->certificate;
    config->openssl_key = tls->key;
    config->openssl_passphrase = tls->passphrase;
    config->openssl_cafile = tls->cafile;
    config->openssl_capath = tls->capath;
  }
  if (std::string(variant) == "tuned") {
    // README.md, "Variants and settings": an idle worker stays in the first of the three polling
    // stages of CAF's work stealing (poll, steal every 10th poll, never sleep) instead of moving
    // on after 100 polls to 50 us sleeps and then to 10 ms waits. scheduler.max-throughput stays
    // CAF's default, unbounded (the throughput setting).
    config->set("work-stealing.aggressive-poll-attempts", size_t{1000000000});
  }
  system_ = new actor_system(*config);
  system_actors = system_->registry().running();
}

void stats_into(rb_rec* rec) {
  rb_rec_int(rec, "caf_scheduler_threads", static_cast<int64_t>(system_->scheduler().num_workers()));
  rb_rec_int(rec, "caf_actors_running_after_spawn", counts.running_after_spawn);
  rb_rec_int(rec, "caf_actors_running", static_cast<int64_t>(system_->registry().running()));
  rb_rec_int(rec, "os_threads", rb_threads());
}

actor_system& sys() {
  return *system_;
}

void await_exits() {
  // main's scoped_actor is one of the running actors (CAF 0.17 registers it, hidden or not)
  system_->registry().await_running_count_equal(system_actors + 1);
}

} // namespace rb

int main(int argc, char** argv) {
  static const std::string version = std::to_string(CAF_VERSION / 10000) + "."
                                     + std::to_string(CAF_VERSION / 100 % 100) + "."
                                     + std::to_string(CAF_VERSION % 100);
  rb_driver d{};
  d.name = "caf";
  d.runtime = "C++ Actor Framework (event-based actors, work-stealing scheduler)";
  d.version = version.c_str();
  d.clock = RB_CLOCK;
  d.collector = "";
  d.variants = rb::variants;
  d.tokens = 1;
  d.continuous = 1;
  d.stats = 1;
  d.nodes = 1; // a ring across nodes: nodes.cpp
  d.threads_per_process = 0;
  d.iteration[RB_RING] = rb::ring_iteration;
  d.iteration[RB_SPAWN] = rb::spawn_iteration;
  d.iteration[RB_PINGPONG] = rb::pingpong_iteration;
  d.iteration[RB_FANIN] = rb::fanin_iteration;
  d.iteration[RB_SELECTIVE] = rb::selective_iteration;
  d.iteration[RB_TREE] = rb::tree_iteration;
  d.iteration[RB_TRACE] = rb::trace_iteration;
  d.prepare = rb::prepare;
  d.continuous_ring = rb::continuous_ring;
  d.stats_fields = rb::stats_fields;
  // a node of a ring across nodes (started by the driver), or a run with nodes > 1: nodes.cpp
  if (const int rc = rb::nodes_main(&d, argc, argv); rc >= 0)
    return rc;
  const int rc = rb_main(&d, argc, argv);
  // Every actor has exited (each iteration waits for it): shut the scheduler down, join its threads.
  delete rb::system_;
  delete rb::config;
  return rc;
}
