/*
 * The hand-off (variant handoff): the Benchmarks Game thread-ring idiom. Every process owns one
 * slot and a POSIX semaphore; the sender writes the value into the receiver's slot and
 * sem_posts the receiver's semaphore; the receiver sem_waits its own. No queue, no message
 * object.
 *
 * A slot holds one value. Where several values can be on their way to one slot at once (the
 * main process, the fan-in receiver, a tree node's parent, a ring with several tokens), a second
 * semaphore counts the slot free, and a sender first waits until it is ("many" below).
 */
#ifndef C_PTHREADS_HANDOFF_H
#define C_PTHREADS_HANDOFF_H

#include "pthreads.h"

#include <errno.h>
#include <semaphore.h>
#include <string.h>

typedef struct {
    sem_t full;  /* posted once for each value written into slot */
    sem_t empty; /* "many" slots only: posted when the owner has read slot */
    msg_t slot;
} slot_t;

static inline void slot_init(slot_t *s)
{
    sem_init(&s->full, 0, 0);
    sem_init(&s->empty, 0, 1);
}

static inline void slot_destroy(slot_t *s)
{
    sem_destroy(&s->full);
    sem_destroy(&s->empty);
}

static inline void sem_wait_nointr(sem_t *s)
{
    while (unlikely(sem_wait(s) != 0))
        if (errno != EINTR)
            rb_failure("sem_wait: %s", strerror(errno));
}

/* the hop: write the value into the receiver's slot, post its semaphore */
static inline void slot_put(slot_t *to, msg_t m)
{
    to->slot = m;
    sem_post(&to->full);
}

static inline msg_t slot_take(slot_t *self)
{
    sem_wait_nointr(&self->full);
    return self->slot;
}

/* the same for a slot more than one value may be on its way to: wait until it is free */
static inline void slot_put_many(slot_t *to, msg_t m)
{
    sem_wait_nointr(&to->empty);
    to->slot = m;
    sem_post(&to->full);
}

static inline msg_t slot_take_many(slot_t *self)
{
    sem_wait_nointr(&self->full);
    const msg_t m = self->slot;
    sem_post(&self->empty);
    return m;
}

#endif
