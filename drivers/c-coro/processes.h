/*
 * c-coro's runtime, such as it is: the process table, the mailbox slot, the message pools and
 * the run queue. Included by driver.c, whose scheduler (run_until_main) dispatches on the
 * processes' states with every step inlined.
 *
 * A process is a 24-byte entry of one table: a one-message mailbox slot held inline (kind +
 * value; messages that arrive while it is taken queue behind it, beside the table), its code's
 * state (an explicit state machine), its receipt count, and the one process it knows. Processes
 * name each other by their place in the table. A send writes the message into the receiver's
 * slot and appends the receiver to the run queue (an array of references), or, if the slot is
 * taken, queues the message behind it (the receiver is then ready already). So the common hop
 * allocates nothing and touches the receiver's entry and the run queue's ends, nothing else.
 *
 * The "main process" of the contract is a process too (table entry 0): its mailbox is a plain
 * FIFO list (it must keep the sender of every message, for selective receive), and its code is
 * the driver's own control flow, which gives the CPU to the scheduler when it blocks in a
 * receive and gets it back when a message reaches its mailbox.
 */
#ifndef C_CORO_PROCESSES_H
#define C_CORO_PROCESSES_H

#include "ringbench.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)


enum {
    K_NONE = 0, /* an empty slot */
    K_TOKEN, K_DONE, K_STOP, K_SUM, K_GATE, K_RELEASE,
    K_GO, K_PING, K_PONG, K_START, K_DATA, K_REQUEST, K_REPLY
};

/* What a process runs when it is scheduled: its code is a state machine, and
 * this is its state. The scheduler dispatches on it (one switch, every step
 * inlined), as an interpreter dispatches on an opcode. Each workload's
 * process starts in its *_START state, which arrives at the gate and moves on. */
enum {
    S_EXITED = 0, S_MAIN,
    S_RING_START, S_RING, S_TRACE_START, S_TRACE, S_CONT0_START, S_CONT0,
    S_SPAWN_START, S_SPAWN, S_PING_START, S_PING, S_PONG_START, S_PONG,
    S_FSEND_START, S_FSEND, S_FRECV_START, S_FRECV, S_WORKER_START, S_WORKER,
    S_TREE_START, S_TREE /* a tree node does not arrive at a gate: its first run spawns its children */
};

/* Processes live in one table and name each other by a 32-bit reference:
 * the byte offset of their entry, so that following one is a single add
 * (an index would need a multiply or shifts too, on every hop's critical
 * path: measured about 0.8 ns a hop). Entry 0 is the main process; the
 * table holds up to 178 million processes. */
typedef uint32_t ref_t;
#define REF_MAX UINT32_C(0xffffffff)

/* The slot's kind carries one more bit: K_LATER, set while messages wait
 * behind the slot (in the message pool). The slot is always the oldest
 * message: a receive that empties it refills it from the list behind it, so
 * "the slot is empty" means "the mailbox is empty", and a send tests one
 * field. */
#define K_LATER 0x8000

typedef struct proc {
    ref_t peer;     /* the one process it knows (ring successor, partner, receiver) */
    uint16_t kind;  /* the mailbox slot: the oldest message's kind | K_LATER (K_NONE: the mailbox is empty) ... */
    uint16_t state; /* its code's state (S_*); not char-sized, so that stores to it cannot alias the globals */
    int64_t value;  /* ... and value */
    int64_t count;  /* receipts (or the workload's one counter) */
} proc_t;
_Static_assert(sizeof(proc_t) == 24, "a process is 24 bytes");

/* Beside the table: the messages behind a process's slot, first and last
 * (pool indices), valid while its kind has K_LATER. Touched only where
 * messages queue, so an idle process costs nothing here. */
typedef struct {
    uint32_t first, last;
} later_t;

/* A message that waits behind a process's slot (pool index; 0 = none). */
typedef struct {
    int64_t value;
    uint32_t next;
    int32_t kind;
} msg_t;

/* A message in main's mailbox: it keeps its sender (selective receive
 * matches on it); main's mailbox is a plain pointer-linked FIFO. */
typedef struct note {
    struct note *next;
    int64_t value;
    int32_t kind;
    int32_t from;
} note_t;

static proc_t *pt;           /* the process table, mapped once for the run, reused by every iteration */
static size_t pt_bytes;
static later_t *pt_later;    /* beside the table: the messages behind each slot */
static msg_t *mp;            /* the message pool (index 0 unused), grown by doubling */
static uint32_t mp_cap, mp_free;
static int64_t procs_alive;
/* Experiment switch, off in the build: -DRB_THP asks for transparent huge
 * pages on the process table (README, "Variants and settings": measured, it does not pay). */
#ifdef RB_THP
static const int use_thp = 1;
#else
static const int use_thp = 0;
#endif

static inline int32_t idx_of(const proc_t *p) { return (int32_t)(p - pt) - 1; } /* p(i) is pt[i + 1] */
#define R(i) ((ref_t)(i) * (ref_t)sizeof(proc_t)) /* the reference of pt[i] */
static inline proc_t *at(ref_t r) { return (proc_t *)((char *)pt + r); }
static inline ref_t ref_of(const proc_t *p) { return (ref_t)((const char *)p - (const char *)pt); }

static void rq_grow(void);

/* Map the table for `count` processes plus main. Untouched pages cost no
 * memory, so RSS grows only as processes are spawned. */
static void table_map(int64_t count)
{
    size_t bytes = (size_t)(count + 1) * sizeof(proc_t);
    if (bytes > (size_t)REF_MAX - sizeof(proc_t))
        rb_limit("%" PRId64 " processes do not fit this driver's 32-bit process references (at most %zu)", count,
                 (size_t)REF_MAX / sizeof(proc_t) - 2);
    long page = sysconf(_SC_PAGESIZE);
    bytes = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        rb_limit("mmap of %zu bytes for %" PRId64 " processes failed (%s): the address-space limit is "
                 "exhausted; lower n or raise `ulimit -v`", bytes, count, strerror(errno));
    if (use_thp) madvise(p, bytes, MADV_HUGEPAGE);
    pt = p;
    pt_bytes = bytes;
    size_t lbytes = (size_t)(count + 1) * sizeof(later_t);
    p = mmap(NULL, lbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        rb_limit("mmap of %zu bytes for %" PRId64 " processes failed (%s): the address-space limit is "
                 "exhausted; lower n or raise `ulimit -v`", lbytes, count, strerror(errno));
    pt_later = p;
    pt[0] = (proc_t){.state = S_MAIN};
    rq_grow(); /* the run queue's first 1,024 entries */
}

static inline proc_t *proc_new(int64_t i, uint16_t state)
{
    pt[i] = (proc_t){.state = state};
    procs_alive++;
    return &pt[i];
}

static void __attribute__((noinline)) mp_grow(void)
{
    uint32_t ncap = mp_cap ? mp_cap * 2 : 4096;
    if (ncap <= mp_cap || ncap > UINT32_C(1) << 31)
        rb_limit("the message pool cannot grow beyond %u messages", mp_cap);
    msg_t *n = realloc(mp, sizeof(msg_t) * ncap);
    if (!n)
        rb_limit("out of memory growing the message pool to %u messages (%zu MiB) with %" PRId64
                 " processes alive; lower n or free memory", ncap, sizeof(msg_t) * ncap >> 20, procs_alive);
    mp = n;
    for (uint32_t i = ncap - 1; i >= (mp_cap ? mp_cap : 1); i--) {
        mp[i].next = mp_free;
        mp_free = i;
    }
    mp_cap = ncap;
}

static inline uint32_t msg_alloc(void)
{
    if (unlikely(!mp_free)) mp_grow();
    uint32_t m = mp_free;
    mp_free = mp[m].next;
    return m;
}

static inline void msg_release(uint32_t m)
{
    mp[m].next = mp_free;
    mp_free = m;
}

/* make sure k messages are pooled, so that no allocation happens in a timed phase */
static void msg_reserve(int64_t k)
{
    int64_t have = 0;
    for (uint32_t m = mp_free; m && have < k; m = mp[m].next) have++;
    while (have < k) {
        uint32_t before = mp_cap ? mp_cap : 1;
        mp_grow();
        have += mp_cap - before;
    }
}

static note_t *note_free;
static int64_t note_bytes;

static void __attribute__((noinline)) note_refill(void)
{
    const size_t k = 4096;
    note_t *b = malloc(sizeof(note_t) * k); /* kept for the life of the process: notes never move */
    if (!b) rb_limit("out of memory for main's mailbox; lower n or free memory");
    for (size_t i = k; i-- > 0;) { /* handed out in address order */
        b[i].next = note_free;
        note_free = &b[i];
    }
    note_bytes += (int64_t)(sizeof(note_t) * k);
}

static void note_reserve(int64_t k)
{
    int64_t have = 0;
    for (note_t *m = note_free; m && have < k; m = m->next) have++;
    for (; have < k; have += 4096) note_refill();
}

static inline void note_release(note_t *m)
{
    m->next = note_free;
    note_free = m;
}

/* ---------------------------------------------------------------- scheduler */

/* The run queue: a FIFO of process references in a circular array (a power
 * of two, grown by doubling when full; it holds the processes that are ready,
 * so it stays small in a ring with few tokens). A process is queued when a
 * send finds its mailbox empty (every message makes at most one wake-up, and
 * a running process that sends to itself is queued again like any other), or
 * explicitly (its first run, a sender that used up its budget). A process
 * scheduled with an empty mailbox finds nothing and returns. */
typedef ref_t rq_slot_t;
typedef uint32_t rq_index_t; /* free-running; wraps with the power-of-two capacity */
static rq_slot_t *rq_q;
static rq_index_t rq_head, rq_tail, rq_mask;
static int main_queued; /* main is queued at most once (its mailbox is not a slot) */
static note_t *main_head, *main_tail; /* main's mailbox */

static void __attribute__((noinline)) rq_grow(void)
{
    rq_index_t cap = rq_mask + 1, ncap = rq_q ? cap * 2 : 1024;
    if (ncap == 0) rb_limit("the run queue cannot grow beyond %u processes", cap);
    rq_slot_t *nq = malloc(sizeof(rq_slot_t) * ncap);
    if (!nq) rb_limit("out of memory growing the run queue to %u entries", ncap);
    rq_index_t k = rq_tail - rq_head;
    for (rq_index_t i = 0; i < k; i++) nq[i] = rq_q[(rq_head + i) & rq_mask];
    free(rq_q);
    rq_q = nq;
    rq_head = 0;
    rq_tail = k;
    rq_mask = ncap - 1;
}

/* an iteration starts with the run queue empty at its first entry: every iteration alike */
static void rq_rewind(void)
{
    if (rq_head != rq_tail) rb_failure("internal: %u processes still queued", rq_tail - rq_head);
    rq_head = rq_tail = 0;
}

static inline void make_ready(ref_t r)
{
    if (unlikely(rq_tail - rq_head > rq_mask)) rq_grow();
    rq_q[rq_tail++ & rq_mask] = r;
}

static inline void make_ready_main(void)
{
    if (!main_queued) {
        main_queued = 1;
        make_ready(0);
    }
}

/* The mailbox: the slot holds the oldest message when it is full; messages
 * that arrive while it is full queue behind it in arrival order. */
static inline void queue_behind(proc_t *to, int32_t kind, int64_t value)
{
    uint32_t m = msg_alloc();
    mp[m].kind = kind;
    mp[m].value = value;
    mp[m].next = 0;
    later_t *l = &pt_later[to - pt];
    if (to->kind & K_LATER) mp[l->last].next = m; else l->first = m, to->kind |= K_LATER;
    l->last = m;
}

/* send to a process: into its slot if the mailbox is empty (and wake it),
 * else behind the messages already there (it is queued or running already) */
static inline void send(ref_t to, int32_t kind, int64_t value)
{
    proc_t *p = at(to);
    if (likely(p->kind == K_NONE)) {
        p->kind = (uint16_t)kind;
        p->value = value;
        make_ready(to);
    } else {
        queue_behind(p, kind, value);
    }
}

/* the slot was taken and messages wait behind it: the first moves into the slot */
static inline void refill(proc_t *p)
{
    later_t *l = &pt_later[p - pt];
    uint32_t first = l->first, next = mp[first].next;
    p->value = mp[first].value;
    p->kind = (uint16_t)(mp[first].kind | (next ? K_LATER : 0));
    l->first = next;
    msg_release(first);
}

/* Take the oldest message: 0 if the mailbox is empty, 1 if it was the last
 * one, 2 if more wait. A step that took the last one returns without looking
 * again: whatever it sends itself meanwhile has queued it again. */
static inline int take(proc_t *p, int32_t *kind, int64_t *value)
{
    const int32_t k = p->kind;
    if (unlikely(k == K_NONE)) return 0;
    *value = p->value;
    if (likely(!(k & K_LATER))) {
        p->kind = K_NONE;
        *kind = k;
        return 1;
    }
    *kind = k & ~K_LATER;
    refill(p);
    return 2;
}

/* a process's receive: its oldest message, or 0 if the mailbox is empty
 * (then its step returns: it blocks until a send makes it ready) */
static inline int recv(proc_t *p, int32_t *kind, int64_t *value) { return take(p, kind, value) != 0; }

static void send_main(int32_t kind, int64_t value, int32_t from)
{
    if (unlikely(!note_free)) note_refill();
    note_t *m = note_free;
    note_free = m->next;
    *m = (note_t){.next = NULL, .value = value, .kind = kind, .from = from};
    if (main_tail) main_tail->next = m; else main_head = m;
    main_tail = m;
    make_ready_main();
}

static int run_until_main(void); /* the scheduler, after the processes' code */

/* main's plain receive: the first message in its mailbox (NULL if every process is blocked) */
static note_t *main_recv(void)
{
    for (;;) {
        note_t *m = main_head;
        if (m) {
            main_head = m->next;
            if (!main_head) main_tail = NULL;
            return m;
        }
        if (!run_until_main()) return NULL;
    }
}

/* main's receive of one kind of message (anything else is a protocol error);
 * returns the value */
static int64_t main_expect(int32_t kind, const char *what)
{
    note_t *m = main_recv();
    if (!m) rb_failure("deadlock: main waited for %s and no process was ready", what);
    if (m->kind != kind) rb_failure("main expected %s, got message kind %d", what, m->kind);
    int64_t v = m->value;
    note_release(m);
    return v;
}

/* main's selective receive: the first message matching (kind, from); the
 * others stay in the mailbox in order. While it waits it keeps its place
 * (messages already scanned are not scanned again in this receive). */
static note_t *main_recv_match(int32_t kind, int32_t from)
{
    note_t *prev = NULL, *cur = main_head;
    for (;;) {
        while (cur) {
            if (cur->kind == kind && cur->from == from) {
                if (prev) prev->next = cur->next; else main_head = cur->next;
                if (main_tail == cur) main_tail = prev;
                return cur;
            }
            prev = cur;
            cur = cur->next;
        }
        if (!run_until_main()) return NULL;
        cur = prev ? prev->next : main_head;
    }
}

static void proc_exit(proc_t *p)
{
    int32_t k;
    int64_t v;
    while (recv(p, &k, &v)) /* drop whatever still waits (nothing, in these workloads) */
        ;
    p->state = S_EXITED;
    procs_alive--;
}

/* drain the scheduler after teardown messages: every process runs to its exit */
static void run_to_quiescence(void)
{
    while (run_until_main()) {
        /* main got a message it did not ask for: drop it */
        while (main_head) {
            note_t *m = main_head;
            main_head = m->next;
            note_release(m);
        }
        main_tail = NULL;
    }
}

/* runtime_mem_*: the driver's own accounting, bytes of live processes plus the message pools and
 * the run queue */
static int64_t pools_bytes(void)
{
    return procs_alive * (int64_t)sizeof(proc_t) + (int64_t)mp_cap * (int64_t)sizeof(msg_t) + note_bytes +
           ((int64_t)rq_mask + 1) * (int64_t)sizeof(rq_slot_t);
}

/* ------------------------------------------------------------ the gate */

/* The gate (contract section 3): every process arrives immediately before its first blocking
 * receive. Here a process is spawned in its *_START state: when first
 * scheduled it arrives, adding one to a counter (the last one tells main with one
 * message), moves to its real state and runs it, which finds the mailbox
 * empty and returns (it blocks). So every process has run before the
 * message phase. */
static int64_t gate_arrived, gate_want;

static void __attribute__((noinline)) gate_open(void) { send_main(K_GATE, gate_arrived, -1); }

#ifdef RB_GATE_TEST
/* tests/gate.c's build only: 0 makes a process late to the gate (it stays in its *_START state,
 * goes to the back of the run queue and runs its step on an empty mailbox, as a blocked process
 * does), 1 lets it arrive */
int rb_gate_test_arrive_now(const proc_t *p);
#endif

static inline void start(proc_t *p, uint16_t state)
{
#ifdef RB_GATE_TEST
    if (!rb_gate_test_arrive_now(p)) {
        make_ready(ref_of(p));
        return;
    }
#endif
    if (++gate_arrived == gate_want) gate_open();
    p->state = state;
}

/* Spawning, main yields every SPAWN_BATCH processes: it goes to the back of
 * the run queue and the processes spawned so far make their first run, as a
 * runtime's scheduler would let them. So the run queue holds at most a batch
 * while spawning, not every process. */
#define SPAWN_BATCH 1024

static void spawned(int64_t i)
{
    make_ready(R(i));
    if (i % SPAWN_BATCH == 0) {
        make_ready_main();
        run_until_main();
    }
}

static void gate_wait(int64_t want)
{
    int64_t seen = main_expect(K_GATE, "the gate");
    if (seen != want) rb_failure("%" PRId64 " of %" PRId64 " processes arrived at the gate", seen, want);
}


#endif
