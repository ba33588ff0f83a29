/*
 * The spawn boundary's test (docs/driver-contract.md section 3, the gate), shared by the C drivers'
 * tests/gate.c: for one workload and its arguments, a run in which one process is late to the gate
 * by rb_gate_late_ms() (50 ms; 200 ms with RINGBENCH_SLOW set, `make test-slow`), then two checks:
 *
 *   the spawn phase lasts at least that long (main is not woken before the late process arrives)
 *   main wakes with every process arrived (r.ready == the processes the gate waits for)
 *
 * A driver's tests/gate.c makes the process late (its hook in the RB_GATE_TEST build) and runs the
 * iteration in its `run` function; the driver's build includes none of this.
 */
#ifndef RINGBENCH_GATE_CHECK_H
#define RINGBENCH_GATE_CHECK_H

#include "ringbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How late the late process is: 50 ms, far above a spawn phase of at most 50 processes that
 * does not wait for it (a broken gate also shows as a main woken short of its count); 200 ms
 * with RINGBENCH_SLOW set to anything but "" or "0". */
static int rb_gate_late_ms(void)
{
    const char *slow = getenv("RINGBENCH_SLOW");
    return slow && *slow && strcmp(slow, "0") != 0 ? 200 : 50;
}

static int rb_gate_failures;

/* Parse `args` (space-separated key=value) for `workload` at `cores`, then run(&p, &r, ctx), which
 * arms the late process and runs one iteration; a failure is printed with `label` and counted. */
static void rb_gate_check(const char *label, const char *workload, const char *args, int cores,
                          void (*run)(const rb_params *p, rb_result *r, const void *ctx), const void *ctx)
{
    char buf[128], msg[256];
    char *argv[8];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    for (char *t = strtok(buf, " "); t && argc < 8; t = strtok(NULL, " "))
        argv[argc++] = t;
    rb_params p;
    if (rb_parse_params(workload, argc, argv, cores, &p, msg, sizeof msg) != RB_OK) {
        printf("gate: FAIL %s%s %s: %s\n", label, workload, args, msg);
        rb_gate_failures++;
        return;
    }
    rb_result r;
    memset(&r, 0, sizeof r);
    r.iteration = 0; /* a warm-up: trace prints no hops */
    run(&p, &r, ctx);
    const int64_t want = rb_expected_ready(&p);
    if (r.setup_ns < (int64_t)rb_gate_late_ms() * 1000000) {
        printf("gate: FAIL %s%s %s: a process %d ms late, the spawn phase ended after %.3f ms\n", label,
               workload, args, rb_gate_late_ms(), (double)r.setup_ns / 1e6);
        rb_gate_failures++;
    }
    if (r.ready != want) {
        printf("gate: FAIL %s%s %s: main woke with %lld of %lld processes arrived\n", label, workload,
               args, (long long)r.ready, (long long)want);
        rb_gate_failures++;
    }
}

/* main's end: 1 after any failure, else the line that says what passed and 0 */
static int rb_gate_result(void)
{
    if (rb_gate_failures)
        return 1;
    printf("gate: a process %d ms late to the gate delayed every spawn phase, and main woke with every "
           "process arrived\n", rb_gate_late_ms());
    return 0;
}

#endif
