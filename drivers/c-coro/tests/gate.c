/*
 * The spawn boundary (docs/driver-contract.md section 3, the gate), for every workload with a gate
 * (spawn, ring, trace's ring, pingpong, fanin, selective). driver.c is compiled in here with
 * RB_GATE_TEST, so that a process's first run (start(), processes.h) first asks
 * rb_gate_test_arrive_now() (the driver's build has no such call). In each run one process, the
 * first to run, is late: it yields YIELDS times (back of the run queue, other processes and a
 * woken main run first), then spends LATE_MS before it arrives. Two checks:
 *
 *   the spawn phase lasts at least LATE_MS (main is not woken before the late process arrives)
 *   main wakes with every process arrived (r.ready == the processes the gate waits for)
 */
#include <time.h>

#define main c_coro_main /* the driver's entry point, unused here */
#include "../driver.c"
#undef main

#define LATE_MS 200
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
    const struct timespec t = {0, LATE_MS * 1000000L};
    nanosleep(&t, NULL);
    return 1;
}

static int failures;

static void one(const char *workload, const char *args)
{
    char buf[128], msg[256];
    char *argv[8];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    for (char *t = strtok(buf, " "); t && argc < 8; t = strtok(NULL, " "))
        argv[argc++] = t;
    rb_params p;
    if (rb_parse_params(workload, argc, argv, 1, &p, msg, sizeof msg) != RB_OK) {
        printf("gate: FAIL %s %s: %s\n", workload, args, msg);
        failures++;
        return;
    }
    prepare(&p);
    rb_result r;
    memset(&r, 0, sizeof r);
    r.iteration = 0; /* a warm-up: trace prints no hops */
    late_token = 1;
    void (*const it[RB_NWORKLOADS])(const rb_params *, rb_result *) = {[RB_RING] = ring, [RB_SPAWN] = spawn, [RB_PINGPONG] = pingpong,
                                         [RB_FANIN] = fanin, [RB_SELECTIVE] = selective, [RB_TRACE] = ring};
    it[p.workload](&p, &r);
    const int64_t want = rb_expected_ready(&p);
    if (r.setup_ns < (int64_t)LATE_MS * 1000000) {
        printf("gate: FAIL %s %s: a process %d ms late, the spawn phase ended after %.3f ms\n", workload, args,
               LATE_MS, (double)r.setup_ns / 1e6);
        failures++;
    }
    if (r.ready != want) {
        printf("gate: FAIL %s %s: main woke with %lld of %lld processes arrived\n", workload, args,
               (long long)r.ready, (long long)want);
        failures++;
    }
}

int main(void)
{
    const char *sizes[] = {"n=1", "n=2", "n=50", "n=3000"}; /* 3000: main yields mid-spawn (SPAWN_BATCH) */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "%s m=2", sizes[i]);
        one("spawn", sizes[i]);
        one("ring", nm);
        one("fanin", nm);
        one("selective", nm);
    }
    one("ring", "n=50 m=2 tokens=5");
    one("trace", "n=3 m=2");
    one("pingpong", "m=10");
    if (failures)
        return 1;
    printf("gate: a process %d ms late to the gate delayed every spawn phase, and main woke with every "
           "process arrived\n", LATE_MS);
    return 0;
}
