/* Unit test of the phase brackets' context switches (docs/driver-contract.md, section 4, contract
 * 4): a phase in which the main thread blocks on another thread counts the voluntary switches of
 * the whole process, the message phase apart from the spawn phase, and a tree's spawn phase
 * counts none. */
#include "ringbench.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void *nap(void *arg)
{
    (void)arg;
    const struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    return NULL;
}

/* main waits for a thread that sleeps: both block, two voluntary switches at least */
static void block_on_a_thread(void)
{
    pthread_t t;
    pthread_create(&t, NULL, nap, NULL);
    pthread_join(t, NULL);
}

static int failures;

static void expect(int ok, const char *what, const rb_result *r)
{
    if (!ok) {
        failures++;
        printf("FAIL %s: setup_vcsw %lld, setup_ivcsw %lld, run_vcsw %lld, run_ivcsw %lld\n", what,
               (long long)r->setup_vcsw, (long long)r->setup_ivcsw, (long long)r->run_vcsw,
               (long long)r->run_ivcsw);
    }
}

int main(void)
{
    rb_result r;
    memset(&r, 0, sizeof r);
    rb_spawn_begin(&r);
    block_on_a_thread();
    rb_spawn_end(&r);
    rb_run_begin(&r);
    for (int i = 0; i < 3; i++)
        block_on_a_thread();
    rb_run_end(&r);
    expect(r.setup_vcsw >= 2, "a spawn phase that blocks", &r);
    /* the run phase counts its own three waits, not the spawn phase's */
    expect(r.run_vcsw >= 6, "a message phase that blocks three times", &r);

    memset(&r, 0, sizeof r);
    rb_tree_begin(&r);
    block_on_a_thread();
    rb_tree_end(&r);
    expect(r.setup_vcsw == 0 && r.setup_ivcsw == 0 && r.run_vcsw >= 2, "a tree (one phase)", &r);

    printf("test_phases: %d failures\n", failures);
    return failures != 0;
}
