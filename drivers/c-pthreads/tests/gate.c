/*
 * The spawn boundary (docs/driver-contract.md section 3, the gate), for both families and every
 * workload with a gate (spawn, ring, trace's ring, pingpong, fanin). Built with RB_GATE_TEST, so
 * that family.h's arrive() first calls rb_gate_test_before_arrive() (the driver's build has no
 * such call). Two checks, each on a run in which one process sleeps LATE_MS before it arrives:
 *
 *   the spawn phase lasts at least LATE_MS (main is not woken before the late process arrives)
 *   main wakes with every process arrived (r.ready == the processes the gate waits for)
 */
#include "pthreads.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define LATE_MS 200

pthread_attr_t g_attr;
atomic_llong g_gate_arrived;
int64_t g_gate_want;
atomic_llong g_laps;

/* one late process a run: the first thread to arrive takes the token and sleeps */
static atomic_int late_token;

void rb_gate_test_before_arrive(void)
{
    if (atomic_exchange(&late_token, 0)) {
        const struct timespec t = {0, LATE_MS * 1000000L};
        nanosleep(&t, NULL);
    }
}

static int failures;

static void one(const family_t *fam, const char *family, const char *workload, const char *args)
{
    char buf[128], msg[256];
    char *argv[8];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    for (char *t = strtok(buf, " "); t && argc < 8; t = strtok(NULL, " "))
        argv[argc++] = t;
    rb_params p;
    if (rb_parse_params(workload, argc, argv, 2, &p, msg, sizeof msg) != RB_OK) {
        printf("gate: FAIL %s %s %s: %s\n", family, workload, args, msg);
        failures++;
        return;
    }
    rb_result r;
    memset(&r, 0, sizeof r);
    r.iteration = 0; /* a warm-up: trace prints no hops */
    atomic_store(&late_token, 1);
    fam->iteration[p.workload](&p, &r);
    const int64_t want = rb_expected_ready(&p);
    if (r.setup_ns < (int64_t)LATE_MS * 1000000) {
        printf("gate: FAIL %s %s %s: a process %d ms late, the spawn phase ended after %.3f ms\n", family,
               workload, args, LATE_MS, (double)r.setup_ns / 1e6);
        failures++;
    }
    if (r.ready != want) {
        printf("gate: FAIL %s %s %s: main woke with %lld of %lld processes arrived\n", family, workload,
               args, (long long)r.ready, (long long)want);
        failures++;
    }
}

int main(void)
{
    pthread_attr_init(&g_attr);
    const struct {
        const family_t *fam;
        const char *name;
    } fams[] = {{&stock_family, "stock"}, {&handoff_family, "handoff"}};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        rb_params p0;
        memset(&p0, 0, sizeof p0);
        fams[f].fam->prepare(&p0);
        const char *sizes[] = {"n=1", "n=2", "n=50"};
        for (size_t i = 0; i < 3; i++) {
            char ring[64];
            snprintf(ring, sizeof ring, "%s m=2", sizes[i]);
            one(fams[f].fam, fams[f].name, "spawn", sizes[i]);
            one(fams[f].fam, fams[f].name, "ring", ring);
            one(fams[f].fam, fams[f].name, "fanin", ring);
        }
        one(fams[f].fam, fams[f].name, "ring", "n=50 m=2 tokens=5");
        one(fams[f].fam, fams[f].name, "trace", "n=3 m=2");
        one(fams[f].fam, fams[f].name, "pingpong", "m=10");
    }
    if (failures)
        return 1;
    printf("gate: a process %d ms late to the gate delayed every spawn phase, and main woke with every "
           "process arrived\n", LATE_MS);
    return 0;
}
