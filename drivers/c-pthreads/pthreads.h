/*
 * c-pthreads: what the driver's files share. One OS thread per process; a message is a 16-byte
 * value copied from one thread to another by one of two families of primitives:
 *
 *   mailbox.h  the mutex + condition variable FIFO mailbox (variants stock and tuned)
 *   handoff.h  the Benchmarks Game slot + semaphore hand-off (variant handoff)
 *
 * family.h holds the thread bodies and the workloads once; stock.c and handoff.c include it
 * after defining their family's send and receive as static inline functions, so each family's
 * thread bodies are compiled with its own calls inlined (no indirect call on a hop).
 */
#ifndef C_PTHREADS_H
#define C_PTHREADS_H

#include "ringbench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { M_NONE, M_TOKEN, M_STOP, M_QUIT, M_GATE, M_SIGNAL, M_DONE, M_START, M_PING, M_PONG, M_DATA, M_SUM };

typedef struct {
    int32_t kind;
    int32_t from;
    int64_t value;
} msg_t;

#define MSG(k, f, v) ((msg_t){.kind = (k), .from = (f), .value = (v)})

/* One family's workloads (family.h), chosen by the variant. */
typedef struct {
    void (*iteration[RB_NWORKLOADS])(const rb_params *p, rb_result *r);
    void (*continuous)(const rb_params *p);
    void (*prepare)(const rb_params *p); /* the main process's receiving end */
} family_t;

extern const family_t stock_family;   /* stock.c: mailboxes */
extern const family_t handoff_family; /* handoff.c: slots and semaphores */

/* The attributes every process thread is created with (driver.c): glibc's defaults, or the
 * tuned variant's 32 KiB stack. */
extern pthread_attr_t g_attr;

/* Contract 3, the gate: each thread arrives (adds one) immediately before its first blocking
 * receive; the one that makes it g_gate_want tells main. */
extern atomic_llong g_gate_arrived;
extern int64_t g_gate_want;
/* continuous mode: laps counted by p0 */
extern atomic_llong g_laps;

/* pthread_create, or a `limit` error naming the limit that ran out (index < 0: unknown) */
static inline void start_thread(pthread_t *tid, void *(*body)(void *), void *arg, int64_t index, int64_t want)
{
    const int rc = pthread_create(tid, &g_attr, body, arg);
    if (unlikely(rc != 0))
        rb_thread_create_failed(rc, index, want);
}

#endif
