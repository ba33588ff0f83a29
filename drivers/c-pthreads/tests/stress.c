/*
 * Stress test of the two hand-written primitives under ThreadSanitizer (make check): the mailbox
 * (mailbox.h) and the slot + semaphore hand-off (handoff.h), each in the shapes the driver uses
 * them: a ring with one token and with several (a mailbox that grows and gives its room back),
 * and many senders to one receiver (a bounded mailbox whose senders wait; a "many" slot).
 * Every message is checked: per-sender FIFO order, no loss, no duplicate. A watchdog turns a
 * lost wake-up (a hang) into a failure.
 */
#include "handoff.h"
#include "mailbox.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_attr_t g_attr; /* pthreads.h's, unused here */
atomic_llong g_gate_arrived, g_laps;
int64_t g_gate_want;

#define RING 8     /* threads in a ring */
#define LAPS 2000  /* laps of each token */
#define SENDERS 4  /* senders to one receiver */
#define EACH 20000 /* messages from each sender */
/* rounds of every shape: 1; 10 (a soak of ~10 s) with RINGBENCH_SLOW set to anything but ""
 * or "0" */
static int rounds(void)
{
    const char *slow = getenv("RINGBENCH_SLOW");
    return slow && *slow && strcmp(slow, "0") != 0 ? 10 : 1;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "stress: FAILED: %s\n", what);
        exit(1);
    }
}

/* ------------------------------------------------------------ mailbox */

typedef struct {
    mailbox_t mb;
    int idx;
    int64_t count;
} mproc;

static mproc mring[RING];
static mailbox_t mmain;

static void *mring_thread(void *arg)
{
    mproc *self = arg, *next = &mring[(self->idx + 1) % RING];
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.kind == M_TOKEN) {
            self->count++;
            if (m.value != 1)
                mb_send(&next->mb, MSG(M_TOKEN, self->idx, m.value - 1));
            else
                mb_send(&mmain, MSG(M_SIGNAL, self->idx, 0));
        } else { /* the stop message sums the receipts */
            m.value += self->count;
            mb_send(self->idx == RING - 1 ? &mmain : &next->mb, m);
            return NULL;
        }
    }
}

static void mailbox_ring(int tokens, int burst)
{
    pthread_t t[RING];
    mb_init(&mmain, 2, MB_UNBOUNDED);
    for (int i = 0; i < RING; i++) {
        mb_init(&mring[i].mb, 2, MB_UNBOUNDED); /* a burst makes it grow, then shrink */
        mring[i].idx = i, mring[i].count = 0;
        pthread_create(&t[i], NULL, mring_thread, &mring[i]);
    }
    for (int j = 0; j < tokens; j++)
        mb_send(&mring[burst ? 0 : j * RING / tokens].mb, MSG(M_TOKEN, -1, (int64_t)RING * LAPS));
    for (int j = 0; j < tokens; j++)
        check(mb_recv(&mmain).kind == M_SIGNAL, "mailbox ring: a token-finished signal");
    mb_send(&mring[0].mb, MSG(M_STOP, -1, 0));
    msg_t sum = mb_recv(&mmain);
    check(sum.kind == M_STOP && sum.value == (int64_t)tokens * RING * LAPS, "mailbox ring: the receipt count");
    for (int i = 0; i < RING; i++) {
        pthread_join(t[i], NULL);
        check(mring[i].mb.cap == mring[i].mb.keep, "mailbox ring: the room given back");
        mb_destroy(&mring[i].mb);
    }
    mb_destroy(&mmain);
}

static mailbox_t mrx;

static void *msender(void *arg)
{
    const int idx = (int)(intptr_t)arg;
    for (int64_t i = 0; i < EACH; i++)
        mb_send(&mrx, MSG(M_DATA, idx, i));
    return NULL;
}

static void mailbox_fanin(void)
{
    pthread_t t[SENDERS];
    int64_t next[SENDERS] = {0};
    mb_init(&mrx, 4, 64); /* bounded: grows to 64, then the senders wait */
    mrx.keep = 64;
    for (int i = 0; i < SENDERS; i++)
        pthread_create(&t[i], NULL, msender, (void *)(intptr_t)i);
    for (int64_t k = 0; k < (int64_t)SENDERS * EACH; k++) {
        msg_t m = mb_recv(&mrx);
        check(m.kind == M_DATA && m.from >= 0 && m.from < SENDERS, "mailbox fan-in: a message");
        check(m.value == next[m.from]++, "mailbox fan-in: FIFO order per sender");
    }
    for (int i = 0; i < SENDERS; i++)
        pthread_join(t[i], NULL);
    check(mrx.len == 0, "mailbox fan-in: nothing left over");
    mb_destroy(&mrx);
}

/* ------------------------------------------------------------ hand-off */

typedef struct {
    slot_t s;
    int idx;
    int64_t count;
} hproc;

static hproc hring[RING];
static slot_t hmain;
static sem_t hsignal;
static int hmany;

static void *hring_thread(void *arg)
{
    hproc *self = arg, *next = &hring[(self->idx + 1) % RING];
    for (;;) {
        msg_t m = hmany ? slot_take_many(&self->s) : slot_take(&self->s);
        if (m.kind == M_TOKEN) {
            self->count++;
            if (m.value == 1)
                sem_post(&hsignal);
            else if (hmany)
                slot_put_many(&next->s, MSG(M_TOKEN, self->idx, m.value - 1));
            else
                slot_put(&next->s, MSG(M_TOKEN, self->idx, m.value - 1));
        } else {
            m.value += self->count;
            if (self->idx == RING - 1)
                slot_put_many(&hmain, m);
            else if (hmany)
                slot_put_many(&next->s, m);
            else
                slot_put(&next->s, m);
            return NULL;
        }
    }
}

static void handoff_ring(int tokens)
{
    pthread_t t[RING];
    hmany = tokens > 1;
    slot_init(&hmain);
    sem_init(&hsignal, 0, 0);
    for (int i = 0; i < RING; i++) {
        slot_init(&hring[i].s);
        hring[i].idx = i, hring[i].count = 0;
        pthread_create(&t[i], NULL, hring_thread, &hring[i]);
    }
    for (int j = 0; j < tokens; j++) {
        msg_t m = MSG(M_TOKEN, -1, (int64_t)RING * LAPS);
        if (hmany)
            slot_put_many(&hring[j * RING / tokens].s, m);
        else
            slot_put(&hring[0].s, m);
    }
    for (int j = 0; j < tokens; j++)
        sem_wait_nointr(&hsignal);
    if (hmany)
        slot_put_many(&hring[0].s, MSG(M_STOP, -1, 0));
    else
        slot_put(&hring[0].s, MSG(M_STOP, -1, 0));
    msg_t sum = slot_take_many(&hmain);
    check(sum.kind == M_STOP && sum.value == (int64_t)tokens * RING * LAPS, "hand-off ring: the receipt count");
    for (int i = 0; i < RING; i++) {
        pthread_join(t[i], NULL);
        slot_destroy(&hring[i].s);
    }
    slot_destroy(&hmain);
    sem_destroy(&hsignal);
}

static slot_t hrx;

static void *hsender(void *arg)
{
    const int idx = (int)(intptr_t)arg;
    for (int64_t i = 0; i < EACH; i++)
        slot_put_many(&hrx, MSG(M_DATA, idx, i));
    return NULL;
}

static void handoff_fanin(void)
{
    pthread_t t[SENDERS];
    int64_t next[SENDERS] = {0};
    slot_init(&hrx);
    for (int i = 0; i < SENDERS; i++)
        pthread_create(&t[i], NULL, hsender, (void *)(intptr_t)i);
    for (int64_t k = 0; k < (int64_t)SENDERS * EACH; k++) {
        msg_t m = slot_take_many(&hrx);
        check(m.kind == M_DATA && m.from >= 0 && m.from < SENDERS, "hand-off fan-in: a message");
        check(m.value == next[m.from]++, "hand-off fan-in: order per sender");
    }
    for (int i = 0; i < SENDERS; i++)
        pthread_join(t[i], NULL);
    slot_destroy(&hrx);
}

int main(void)
{
    const int n = rounds();
    for (int round = 0; round < n; round++) {
        alarm(100); /* a lost wake-up hangs: SIGALRM ends the test */
        mailbox_ring(1, 0);
        mailbox_ring(3, 0);
        mailbox_ring(5, 1);
        mailbox_fanin();
        handoff_ring(1);
        handoff_ring(3);
        handoff_fanin();
    }
    printf("stress: mailbox and hand-off passed (%d round%s)\n", n, n == 1 ? "" : "s");
    return 0;
}
