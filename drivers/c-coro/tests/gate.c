/*
 * The spawn boundary (docs/driver-contract.md section 3, the gate), for every workload with a gate
 * (spawn, ring, trace's ring, pingpong, fanin, selective): the checks of
 * drivers/common/c/tests/gate_check.h. driver.c is compiled in here with RB_GATE_TEST, so that a
 * process's first run (start(), processes.h) first asks rb_gate_test_arrive_now() (the driver's
 * build has no such call). In each run one process, the first to run, is late: it yields YIELDS
 * times (back of the run queue, other processes and a woken main run first), then spends
 * rb_gate_late_ms() before it arrives.
 */
#include <time.h>

#define main c_coro_main /* the driver's entry point, unused here */
#include "../driver.c"
#undef main

#include "tests/gate_check.h"

#define YIELDS 2

static int late_token; /* set for each run; the first process to run takes it */
static const proc_t *late;
static int late_yields;

int rb_gate_test_arrive_now(const proc_t *p)
{
    if (late_token) {
        late_token = 0;
        late = p;
        late_yields = YIELDS;
    }
    if (p != late)
        return 1;
    if (late_yields-- > 0)
        return 0;
    late = NULL;
    const struct timespec t = {0, rb_gate_late_ms() * 1000000L};
    nanosleep(&t, NULL);
    return 1;
}

static void run(const rb_params *p, rb_result *r, const void *ctx)
{
    (void)ctx;
    prepare(p);
    late_token = 1;
    void (*const it[RB_NWORKLOADS])(const rb_params *, rb_result *) = {[RB_RING] = ring, [RB_SPAWN] = spawn, [RB_PINGPONG] = pingpong,
                                         [RB_FANIN] = fanin, [RB_SELECTIVE] = selective, [RB_TRACE] = ring};
    it[p->workload](p, r);
}

int main(void)
{
    const char *sizes[] = {"n=1", "n=2", "n=50", "n=3000"}; /* 3000: main yields mid-spawn (SPAWN_BATCH) */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "%s m=2", sizes[i]);
        rb_gate_check("", "spawn", sizes[i], 1, run, NULL);
        rb_gate_check("", "ring", nm, 1, run, NULL);
        rb_gate_check("", "fanin", nm, 1, run, NULL);
        rb_gate_check("", "selective", nm, 1, run, NULL);
    }
    rb_gate_check("", "ring", "n=50 m=2 tokens=5", 1, run, NULL);
    rb_gate_check("", "trace", "n=3 m=2", 1, run, NULL);
    rb_gate_check("", "pingpong", "m=10", 1, run, NULL);
    return rb_gate_result();
}
