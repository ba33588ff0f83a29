/*
 * The spawn boundary (docs/driver-contract.md section 3, the gate), for both families and every
 * workload with a gate (spawn, ring, trace's ring, pingpong, fanin): the checks of
 * drivers/common/c/tests/gate_check.h. Built with RB_GATE_TEST, so that family.h's arrive() first
 * calls rb_gate_test_before_arrive() (the driver's build has no such call): in each run the first
 * thread to arrive sleeps rb_gate_late_ms() first.
 */
#include "pthreads.h"

#include "tests/gate_check.h"

#include <time.h>

pthread_attr_t g_attr;
atomic_llong g_gate_arrived;
int64_t g_gate_want;
atomic_llong g_laps;

/* one late process a run: the first thread to arrive takes the token and sleeps */
static atomic_int late_token;

void rb_gate_test_before_arrive(void)
{
    if (atomic_exchange(&late_token, 0)) {
        const struct timespec t = {0, rb_gate_late_ms() * 1000000L};
        nanosleep(&t, NULL);
    }
}

static void run(const rb_params *p, rb_result *r, const void *fam)
{
    atomic_store(&late_token, 1);
    ((const family_t *)fam)->iteration[p->workload](p, r);
}

int main(void)
{
    pthread_attr_init(&g_attr);
    const struct {
        const family_t *fam;
        const char *label;
    } fams[] = {{&stock_family, "stock "}, {&handoff_family, "handoff "}};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        const family_t *fam = fams[f].fam;
        const char *label = fams[f].label;
        rb_params p0;
        memset(&p0, 0, sizeof p0);
        fam->prepare(&p0);
        const char *sizes[] = {"n=1", "n=2", "n=50"};
        for (size_t i = 0; i < 3; i++) {
            char ring[64];
            snprintf(ring, sizeof ring, "%s m=2", sizes[i]);
            rb_gate_check(label, "spawn", sizes[i], 2, run, fam);
            rb_gate_check(label, "ring", ring, 2, run, fam);
            rb_gate_check(label, "fanin", ring, 2, run, fam);
        }
        rb_gate_check(label, "ring", "n=50 m=2 tokens=5", 2, run, fam);
        rb_gate_check(label, "trace", "n=3 m=2", 2, run, fam);
        rb_gate_check(label, "pingpong", "m=10", 2, run, fam);
    }
    return rb_gate_result();
}
