/* The hand-off family (variant handoff): family.h's workloads on handoff.h. */
#include "handoff.h"

#define END_T slot_t
#define FAMILY handoff_family

static inline int end_init(slot_t *e, int64_t cap)
{
    (void)cap; /* a slot holds one value */
    slot_init(e);
    return 0;
}

static inline int end_init_receiver(slot_t *e) { return end_init(e, 1); }
static inline void end_destroy(slot_t *e) { slot_destroy(e); }
static inline void end_put(slot_t *to, msg_t m) { slot_put(to, m); }
static inline msg_t end_take(slot_t *self) { return slot_take(self); }
static inline void end_put_many(slot_t *to, msg_t m) { slot_put_many(to, m); }
static inline msg_t end_take_many(slot_t *self) { return slot_take_many(self); }

/* Main's slot takes values from several senders (always "many"). A signal that carries nothing
 * is a bare post of a second semaphore: a post never blocks, so a process that finishes a token
 * never waits for main, whatever main is doing (injecting tokens into slots that may be taken:
 * no cycle of waits can form). */
static slot_t main_slot;
static sem_t main_signal;

static void main_prepare(const rb_params *p)
{
    (void)p;
    slot_init(&main_slot);
    sem_init(&main_signal, 0, 0);
}

static void main_reserve(int64_t k) { (void)k; }
static inline void tell_main(msg_t m) { slot_put_many(&main_slot, m); }
static msg_t main_take(void) { return slot_take_many(&main_slot); }
static inline void signal_main(void) { sem_post(&main_signal); }
static inline void wait_signal(void) { sem_wait_nointr(&main_signal); }

#include "family.h"
