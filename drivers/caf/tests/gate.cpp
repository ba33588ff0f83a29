// The spawn boundary (docs/driver-contract.md section 3, the gate), for every workload with a gate
// (spawn, ring, trace's ring, pingpong, fanin, selective), on two scheduler threads. The driver's
// sources are compiled here with RB_GATE_TEST, so that gate::arrive first calls
// gate_test_before_arrive() (the driver's build has no such call). In each run the first process
// to arrive sleeps late_ms in its init function first; the other scheduler thread runs the rest.
// Two checks:
//
//   the spawn phase lasts at least late_ms (main is not woken before the late process arrives)
//   main wakes with every process arrived (r.ready == the processes the gate waits for)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define main ringbench_caf_main // the driver's entry point, unused here
#include "../driver.cpp"
#undef main

namespace {

// 50 ms, far above a spawn phase of at most 50 actors that does not wait for the late one (a
// broken gate also shows as a main woken short of its count); 200 ms with RINGBENCH_SLOW set
// (to anything but "" or "0")
const int late_ms = [] {
  const char* slow = std::getenv("RINGBENCH_SLOW");
  return slow && *slow && std::strcmp(slow, "0") != 0 ? 200 : 50;
}();
std::atomic<bool> late_token{false}; // set for each run; the first process to arrive takes it
int failures = 0;

void one(const char* workload, const char* args) {
  char buf[128], msg[256];
  char* argv[8];
  int argc = 0;
  std::snprintf(buf, sizeof buf, "%s", args);
  for (char* t = std::strtok(buf, " "); t && argc < 8; t = std::strtok(nullptr, " "))
    argv[argc++] = t;
  rb_params p;
  if (rb_parse_params(workload, argc, argv, 2, &p, msg, sizeof msg) != RB_OK) {
    std::printf("gate: FAIL %s %s: %s\n", workload, args, msg);
    failures++;
    return;
  }
  void (*const it[RB_NWORKLOADS])(const rb_params*, rb_result*) = {
    rb::ring_iteration, rb::spawn_iteration, rb::pingpong_iteration, rb::fanin_iteration,
    rb::selective_iteration, nullptr, rb::trace_iteration};
  rb_result r;
  std::memset(&r, 0, sizeof r); // iteration 0: a warm-up, trace prints no hops
  late_token = true;
  it[p.workload](&p, &r);
  const int64_t want = rb_expected_ready(&p);
  if (r.setup_ns < int64_t{late_ms} * 1000000) {
    std::printf("gate: FAIL %s %s: a process %d ms late, the spawn phase ended after %.3f ms\n", workload,
                args, late_ms, static_cast<double>(r.setup_ns) / 1e6);
    failures++;
  }
  if (r.ready != want) {
    std::printf("gate: FAIL %s %s: main woke with %lld of %lld processes arrived\n", workload, args,
                static_cast<long long>(r.ready), static_cast<long long>(want));
    failures++;
  }
}

} // namespace

void rb::gate_test_before_arrive() {
  if (late_token.exchange(false))
    std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
}

int main() {
  static_assert(RB_RING == 0 && RB_SPAWN == 1 && RB_PINGPONG == 2 && RB_FANIN == 3 && RB_SELECTIVE == 4
                  && RB_TREE == 5 && RB_TRACE == 6,
                "the iteration table above follows enum rb_workload");
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // a failure's line is out before a broken gate crashes
  rb::make_system(2, "stock", false);
  for (const char* n : {"n=1", "n=2", "n=50"}) {
    char nm[64];
    std::snprintf(nm, sizeof nm, "%s m=2", n);
    one("spawn", n);
    one("ring", nm);
    one("fanin", nm);
    one("selective", nm);
  }
  one("ring", "n=50 m=2 tokens=5");
  one("trace", "n=3 m=2");
  one("pingpong", "m=10");
  if (failures)
    return 1;
  std::printf("gate: a process %d ms late to the gate delayed every spawn phase, and main woke with every "
              "process arrived\n",
              late_ms);
  return 0;
}
