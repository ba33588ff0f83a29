/*
 * ringbench driver: C with POSIX threads, one OS thread per process (README.md). The protocol is
 * drivers/common/c's; this file chooses the variant's family and its thread settings:
 *
 *   stock    the mailbox family (mailbox.h), glibc's default thread stacks, the kernel as it comes
 *   handoff  the hand-off family (handoff.h), as it comes
 *   tuned    the mailbox family with 32 KiB thread stacks and a futex hash sized for the threads
 */
#define _GNU_SOURCE
#include "pthreads.h"

#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

enum { V_STOCK, V_HANDOFF, V_TUNED };
static const char *const VARIANTS[] = {"stock", "handoff", "tuned", NULL};

/* The tuned variant's thread stack: 32 KiB (pthread_attr_setstacksize(3); the Benchmarks Game
 * thread-ring C programs use PTHREAD_STACK_MIN, 16 KiB). A thread body uses well under 2 KiB
 * of stack, glibc keeps the thread descriptor and TLS at the top of the same mapping, and
 * `trace` formats its records on the stack; 16 KiB runs too but leaves little room for a signal
 * frame with AVX-512 state. */
#define TUNED_STACK (32 * 1024)

pthread_attr_t g_attr;
atomic_llong g_gate_arrived;
int64_t g_gate_want;
atomic_llong g_laps;

static const family_t *fam;
static size_t stack_size, guard_size;

/* Since Linux 6.17 a process's private futexes hash into a table of its own, sized from the
 * online CPUs (16 buckets on 2 CPUs) whatever the thread count; a wake walks its bucket's
 * waiters. tuned asks for one bucket per thread, the next power of two (PR_FUTEX_HASH(2const));
 * older kernels refuse the prctl and keep the global table. */
static void futex_hash_for(int64_t threads)
{
    unsigned long slots = 16;
    while ((int64_t)slots < threads && slots < (1UL << 22))
        slots <<= 1;
    (void)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0UL, 0UL);
}

static void prepare(const rb_params *p)
{
    fam = p->variant == V_HANDOFF ? &handoff_family : &stock_family;
    pthread_attr_init(&g_attr);
    if (p->variant == V_TUNED) {
        size_t ss = TUNED_STACK;
        const long min = sysconf(_SC_THREAD_STACK_MIN);
        if (min > 0 && ss < (size_t)min)
            ss = (size_t)min;
        if (pthread_attr_setstacksize(&g_attr, ss) != 0)
            rb_failure("pthread_attr_setstacksize(%zu) failed", ss);
        futex_hash_for(rb_processes(p));
    }
    /* the stack a thread gets: the attribute's, or what pthread_create(..., NULL, ...) would use */
    pthread_attr_t def;
    pthread_attr_getstacksize(&g_attr, &stack_size);
    if (stack_size == 0 && pthread_getattr_default_np(&def) == 0) {
        pthread_attr_getstacksize(&def, &stack_size);
        pthread_attr_destroy(&def);
    }
    pthread_attr_getguardsize(&g_attr, &guard_size);
    fam->prepare(p);
}

static void iteration(const rb_params *p, rb_result *r) { fam->iteration[p->workload](p, r); }
static void continuous(const rb_params *p) { fam->continuous(p); }

static void stats(rb_rec *rec, const rb_params *p, const rb_result *r)
{
    (void)r;
    rb_rec_int(rec, "threads", rb_processes(p));
    rb_rec_int(rec, "stack_size_bytes", (int64_t)stack_size);
    rb_rec_int(rec, "guard_size_bytes", (int64_t)guard_size);
    rb_rec_int(rec, "futex_hash_slots", prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0UL, 0UL, 0UL));
}

int main(int argc, char **argv)
{
    char version[128];
    snprintf(version, sizeof version, "glibc %s, gcc %s", gnu_get_libc_version(), __VERSION__);
    const rb_driver d = {
        .name = "c-pthreads",
        .runtime = "C (POSIX threads, glibc NPTL)",
        .version = version,
        .clock = RB_CLOCK,
        .collector = "",
        .variants = VARIANTS,
        .tokens = 1,
        .continuous = 1,
        .stats = 1,
        .threads_per_process = 1,
        .iteration = {[RB_RING] = iteration, [RB_SPAWN] = iteration, [RB_PINGPONG] = iteration,
                      [RB_FANIN] = iteration, [RB_TREE] = iteration, [RB_TRACE] = iteration},
        .selective_unsupported = "selective receive is not available: a pthread mailbox (mutex + condition variable "
                                 "FIFO) or a hand-off slot can only take the next message; C/pthreads has no receive "
                                 "that skips messages that do not match",
        .prepare = prepare,
        .continuous_ring = continuous,
        .stats_fields = stats,
    };
    return rb_main(&d, argc, argv);
}
