/*
 * The mailbox (variants stock and tuned): a FIFO ring buffer of 16-byte messages (copied in,
 * copied out) guarded by a pthread mutex, with a condition variable its owner waits on while it
 * is empty. Send = lock the receiver's mailbox, append, read whether its owner waits, unlock,
 * and signal only if it does. Receive = lock your own, wait while empty, take the head, unlock.
 *
 * The buffer grows (doubling) when more messages are queued than it holds and gives the room
 * back once empty, down to the capacity it started with. A bounded mailbox (the fan-in receiver)
 * makes its senders wait on a second condition variable once it holds `limit` messages.
 */
#ifndef C_PTHREADS_MAILBOX_H
#define C_PTHREADS_MAILBOX_H

#include "pthreads.h"

#include <stdlib.h>

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t nonempty;
    msg_t *buf;
    uint32_t cap, head, len;
    uint32_t keep;  /* the capacity it starts with and shrinks back to once empty */
    uint32_t limit; /* bounded mailbox (fan-in receiver): senders wait beyond this */
    int waiting;    /* the owner waits on nonempty */
    int full_waiters;
    pthread_cond_t nonfull; /* only waited on when the mailbox is bounded */
} mailbox_t;

#define MB_UNBOUNDED (UINT32_MAX / 2)

static inline int mb_init(mailbox_t *mb, uint32_t cap, uint32_t limit)
{
    pthread_mutex_init(&mb->mu, NULL);
    pthread_cond_init(&mb->nonempty, NULL);
    pthread_cond_init(&mb->nonfull, NULL);
    mb->buf = (msg_t *)malloc(sizeof(msg_t) * cap);
    mb->cap = mb->keep = cap;
    mb->head = mb->len = 0;
    mb->limit = limit;
    mb->waiting = mb->full_waiters = 0;
    return mb->buf ? 0 : -1;
}

static inline void mb_destroy(mailbox_t *mb)
{
    pthread_mutex_destroy(&mb->mu);
    pthread_cond_destroy(&mb->nonempty);
    pthread_cond_destroy(&mb->nonfull);
    free(mb->buf);
    mb->buf = NULL;
}

static void mb_resize(mailbox_t *mb, uint32_t ncap) /* with mb->mu held, len <= ncap */
{
    msg_t *nb = (msg_t *)malloc(sizeof(msg_t) * ncap);
    if (!nb)
        rb_limit("out of memory resizing a mailbox to %u messages; free memory or use smaller n/tokens", ncap);
    for (uint32_t i = 0; i < mb->len; i++) {
        uint32_t j = mb->head + i;
        if (j >= mb->cap)
            j -= mb->cap;
        nb[i] = mb->buf[j];
    }
    free(mb->buf);
    mb->buf = nb;
    mb->cap = ncap;
    mb->head = 0;
}

/* the mailbox is full (mb->mu held): grow it, or wait if it is bounded */
static void __attribute__((noinline)) mb_make_room(mailbox_t *mb)
{
    while (mb->len == mb->cap) {
        if (mb->cap < mb->limit) {
            mb_resize(mb, mb->cap * 2 > mb->limit ? mb->limit : mb->cap * 2);
        } else {
            mb->full_waiters++;
            pthread_cond_wait(&mb->nonfull, &mb->mu);
            mb->full_waiters--;
        }
    }
}

/* make room for k messages up front (untimed), so that no thread grows it later */
static inline void mb_reserve(mailbox_t *mb, int64_t k)
{
    pthread_mutex_lock(&mb->mu);
    if ((int64_t)mb->cap < k)
        mb_resize(mb, k > mb->limit ? mb->limit : (uint32_t)k);
    mb->keep = mb->cap;
    pthread_mutex_unlock(&mb->mu);
}

static inline void mb_send(mailbox_t *mb, msg_t m)
{
    pthread_mutex_lock(&mb->mu);
    if (unlikely(mb->len == mb->cap))
        mb_make_room(mb);
    uint32_t i = mb->head + mb->len;
    if (i >= mb->cap)
        i -= mb->cap;
    mb->buf[i] = m;
    mb->len++;
    const int wake = mb->waiting;
    pthread_mutex_unlock(&mb->mu);
    /* Signal after unlocking, so the woken owner does not bounce off a mutex the sender still
     * holds; and only when the owner waits (its only waiter). */
    if (wake)
        pthread_cond_signal(&mb->nonempty);
}

/* after a receive (mb->mu held): wake a bounded mailbox's senders, or give back the room a
 * burst of messages made it grow to */
static void __attribute__((noinline)) mb_after_take(mailbox_t *mb)
{
    if (mb->full_waiters > 0)
        pthread_cond_signal(&mb->nonfull);
    else if (mb->len == 0 && mb->cap > mb->keep)
        mb_resize(mb, mb->keep);
}

static inline msg_t mb_recv(mailbox_t *mb)
{
    pthread_mutex_lock(&mb->mu);
    while (mb->len == 0) {
        mb->waiting = 1;
        pthread_cond_wait(&mb->nonempty, &mb->mu);
        mb->waiting = 0;
    }
    msg_t m = mb->buf[mb->head];
    if (++mb->head == mb->cap)
        mb->head = 0;
    mb->len--;
    if (unlikely(mb->full_waiters > 0 || mb->cap > mb->keep))
        mb_after_take(mb);
    pthread_mutex_unlock(&mb->mu);
    return m;
}

#endif
