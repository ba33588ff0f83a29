/* The mailbox family (variants stock and tuned): family.h's workloads on mailbox.h. */
#include "mailbox.h"

#define END_T mailbox_t
#define FAMILY stock_family

static inline int end_init(mailbox_t *e, int64_t cap) { return mb_init(e, (uint32_t)cap, MB_UNBOUNDED); }

/* the fan-in receiver's mailbox grows up to 1 Mi messages (16 MiB), then its senders wait until
 * it drains: bounded memory whatever n*m is; it keeps the room it grew to */
static inline int end_init_receiver(mailbox_t *e)
{
    const int rc = mb_init(e, 1024, 1u << 20);
    e->keep = 1u << 20;
    return rc;
}

static inline void end_destroy(mailbox_t *e) { mb_destroy(e); }
static inline void end_put(mailbox_t *to, msg_t m) { mb_send(to, m); }
static inline msg_t end_take(mailbox_t *self) { return mb_recv(self); }
/* a mailbox queues: several senders need nothing more */
static inline void end_put_many(mailbox_t *to, msg_t m) { mb_send(to, m); }
static inline msg_t end_take_many(mailbox_t *self) { return mb_recv(self); }

/* main's mailbox: every message to main, valued or bare */
static mailbox_t main_mb;

static void main_prepare(const rb_params *p)
{
    (void)p;
    if (mb_init(&main_mb, 16, MB_UNBOUNDED) != 0)
        rb_limit("out of memory allocating the main process's mailbox");
}

static void main_reserve(int64_t k) { mb_reserve(&main_mb, k); }
static inline void tell_main(msg_t m) { mb_send(&main_mb, m); }
static msg_t main_take(void) { return mb_recv(&main_mb); }
static inline void signal_main(void) { mb_send(&main_mb, MSG(M_SIGNAL, -1, 0)); }

static inline void wait_signal(void)
{
    const msg_t m = mb_recv(&main_mb);
    if (m.kind != M_SIGNAL)
        rb_failure("main expected a signal, got message kind %d", m.kind);
}

#include "family.h"
