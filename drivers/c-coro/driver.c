/*
 * ringbench-c-coro: the floor. One OS thread, no runtime (README.md).
 *
 * The processes, their mailbox slots and the run queue are processes.h's; this file holds each
 * workload's process code as a step of a state machine, the scheduler that dispatches on the
 * states (every step inlined), and one function per workload that runs one iteration. The
 * protocol (parameters, verbs, the iteration loop, clocks, memory, records) is
 * drivers/common/c's.
 */
#define _GNU_SOURCE
#include "processes.h"

#include <malloc.h>
#include <stdio.h>

static const rb_params *g_p; /* the run's parameters */

/* ---------------------------------------------------------------- the ring */

static int64_t ring_total; /* n*m: the value each token starts with (trace: hop numbering) */
static int64_t ring_n;
static int32_t ring_last;  /* index of p(n-1), which returns the stop message to main */
static int trace_print;    /* a measured trace iteration: hops are printed */

/* the stop message: value = running sum of receipt counts */
static void stop_forward(proc_t *p, int64_t sum)
{
    sum += p->count;
    if (idx_of(p) == ring_last) send_main(K_SUM, sum, idx_of(p));
    else send(p->peer, K_STOP, sum);
    proc_exit(p);
}

/* one message to a ring process; 0 if it exited */
static inline int ring_handle(proc_t *p, int32_t k, int64_t v)
{
    if (likely(k == K_TOKEN)) {
        p->count++;
        if (likely(v != 1)) send(p->peer, K_TOKEN, v - 1);
        else send_main(K_DONE, 0, idx_of(p));
        return 1;
    }
    if (k == K_STOP) {
        stop_forward(p, v);
        return 0;
    }
    return 1;
}

/* A hop: take the slot; if nothing waits behind it, handle it and return
 * without looking at the mailbox again (a send to itself, n = 1, has queued
 * it again); else refill the slot, handle, and go on. */
static inline void ring_step(proc_t *p)
{
    int32_t k = p->kind;
    while (k != K_NONE) {
        const int64_t v = p->value;
        if (likely(!(k & K_LATER))) {
            p->kind = K_NONE;
            ring_handle(p, k, v);
            return;
        }
        refill(p);
        if (!ring_handle(p, k & ~K_LATER, v)) return;
        k = p->kind;
    }
}

/* trace: as ring, and print the hop from inside the receiving process. The
 * token carries its sender's index (+1) in its upper 32 bits: trace values
 * stay below 100*100. */
#define TRACE_FROM(v) ((int32_t)((v) >> 32) - 1)
#define TRACE_VAL(v) ((v) & 0xffffffffLL)
#define TRACE_TOKEN(v, from) ((int64_t)((from) + 1) << 32 | (v))

static inline void trace_step(proc_t *p)
{
    int32_t k;
    int64_t raw;
    int got = take(p, &k, &raw);
    for (; got; got = got == 2 ? take(p, &k, &raw) : 0) {
        if (k == K_TOKEN) {
            int64_t v = TRACE_VAL(raw);
            p->count++;
            if (trace_print) rb_trace_hop(g_p, v, TRACE_FROM(raw), idx_of(p));
            if (v != 1) send(p->peer, K_TOKEN, TRACE_TOKEN(v - 1, idx_of(p)));
            else send_main(K_DONE, 0, idx_of(p));
        } else if (k == K_STOP) {
            stop_forward(p, raw);
            return;
        }
    }
}

/* Continuous mode: p0 counts laps and, every CHECK_HOPS hops or so, looks at
 * the clock and prints the samples that have come due. Single thread: there
 * is no sampler running beside the ring, so the sample is taken between hops.
 * Main injects tokens with the value RB_CONT_FRESH; a token passing p0 with any
 * other value has gone round once more. */
#define CHECK_HOPS 1024
static int64_t cont_t0, cont_laps, cont_hops_since_check, cont_next_due, cont_period, cont_last_count;
static int64_t cont_seq;

static void __attribute__((noinline)) cont_emit(int64_t elapsed, int64_t count)
{
    rb_sample(++cont_seq, elapsed, count);
    if (cont_seq >= g_p->samples) rb_exit_ok(); /* contract: exit 0 without teardown */
}

static void __attribute__((noinline)) cont_check(void)
{
    int64_t now = rb_mono_ns() - cont_t0;
    int64_t c = cont_laps * ring_n;
    if (now >= cont_next_due) {
        /* samples that fell due while the last stretch of laps ran: what a
         * sampler would have read then (no lap completed since the previous check) */
        while (cont_next_due + cont_period <= now) {
            cont_emit(cont_next_due, cont_last_count);
            cont_next_due += cont_period;
        }
        cont_emit(now, c);
        cont_next_due += cont_period;
    }
    cont_last_count = c;
}

static inline void ring_cont0_step(proc_t *p)
{
    int32_t k;
    int64_t v;
    int got = take(p, &k, &v);
    for (; got; got = got == 2 ? take(p, &k, &v) : 0) { /* only tokens circulate in continuous mode */
        p->count++;
        if (likely(v != RB_CONT_FRESH)) {
            cont_laps++;
            cont_hops_since_check += ring_n;
            if (cont_hops_since_check >= CHECK_HOPS) {
                cont_hops_since_check = 0;
                cont_check();
            }
        }
        send(p->peer, K_TOKEN, v - 1);
    }
}

/* spawn p0 ... p(n-1) (pt[1] ... pt[n]), each linked to its successor and scheduled for its first
 * run; returns when every one has arrived at the gate (blocked in its first receive) */
static void ring_spawn(const rb_params *p, uint16_t state, int continuous)
{
    const int64_t n = p->n;
    gate_arrived = 0;
    gate_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_t *q = proc_new(i, state);
        q->peer = R(i < n ? i + 1 : 1);
        spawned(i);
    }
    if (continuous) pt[1].state = S_CONT0_START;
    gate_wait(n);
}

static void ring_prepare(const rb_params *p)
{
    g_p = p;
    ring_n = p->n;
    ring_total = p->n * p->m;
    ring_last = (int32_t)(p->n - 1);
    rq_rewind();
    msg_reserve(p->tokens);      /* tokens queued behind a slot (a burst) */
    note_reserve(p->tokens + 2); /* to main: READY, DONE for each token, the stop's SUM */
}

/* token j enters at p(j*n div tokens), or all at p0 (burst) */
#define INJECT_AT(p, j) R(1 + rb_inject_at(p, j))

static void ring(const rb_params *p, rb_result *r)
{
    const int trace = p->workload == RB_TRACE;
    ring_prepare(p);
    trace_print = trace && r->iteration > 0; /* a warm-up trace prints no hops */

    rb_spawn_begin(r);
    ring_spawn(p, trace ? S_TRACE_START : S_RING_START, 0);
    rb_spawn_end(r);
    r->ready = gate_arrived;

    /* message phase */
    const int64_t first = trace ? TRACE_TOKEN(ring_total, -1) : ring_total;
    rb_run_begin(r);
    for (int64_t j = 0; j < p->tokens; j++) send(INJECT_AT(p, j), K_TOKEN, first);
    for (int64_t j = 0; j < p->tokens; j++) main_expect(K_DONE, "a token-finished message");
    rb_run_end(r);

    /* proof: a stop message goes round once, summing receipts; every process exits */
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "the stop message back");
    run_to_quiescence();
    if (procs_alive != 0) rb_failure("%" PRId64 " ring processes did not exit", procs_alive);
}

/* continuous mode (section 5): p0 prints the samples between hops and ends the process */
static void continuous(const rb_params *p)
{
    ring_prepare(p);
    ring_spawn(p, S_RING_START, 1);
    cont_period = p->sample_ms * 1000000;
    cont_next_due = cont_period;
    cont_t0 = rb_mono_ns();
    for (int64_t j = 0; j < p->tokens; j++) send(INJECT_AT(p, j), K_TOKEN, RB_CONT_FRESH);
    run_until_main(); /* does not come back: p0 exits after the last sample */
    rb_failure("the continuous ring stopped circulating");
}

/* --------------------------------------------------------------- spawn */

static inline void spawn_step(proc_t *p)
{
    int32_t k;
    int64_t v;
    while (recv(p, &k, &v)) {
        if (k == K_RELEASE) {
            proc_exit(p);
            return;
        }
    }
}

static void spawn(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n;
    rq_rewind();
    note_reserve(1);
    rb_spawn_begin(r);
    gate_arrived = 0;
    gate_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_new(i, S_SPAWN_START);
        spawned(i);
    }
    gate_wait(n);
    rb_spawn_end(r);
    r->ready = r->count = gate_arrived;
    /* untimed: release them all */
    for (int64_t i = 1; i <= n; i++) send(R(i), K_RELEASE, 0);
    run_to_quiescence();
    if (procs_alive != 0) rb_failure("spawn: %" PRId64 " processes did not exit", procs_alive);
}

/* ------------------------------------------------------------- pingpong */

/* A (pt[1]): count = round trips still to make, peer = B */
static inline void ping_step(proc_t *a)
{
    int32_t k;
    int64_t v;
    while (recv(a, &k, &v)) {
        if (likely(k == K_PONG)) {
            if (--a->count == 0) send_main(K_DONE, 0, idx_of(a));
            else send(a->peer, K_PING, 0);
        } else if (k == K_GO) {
            a->count = v;
            send(a->peer, K_PING, 0);
        } else if (k == K_STOP) { /* pass the proof on to B, adding nothing */
            send(a->peer, K_STOP, v);
            proc_exit(a);
            return;
        }
    }
}

/* B (pt[2]): count = round trips answered, peer = A */
static inline void pong_step(proc_t *b)
{
    int32_t k;
    int64_t v;
    while (recv(b, &k, &v)) {
        if (likely(k == K_PING)) {
            b->count++;
            send(b->peer, K_PONG, 0);
        } else if (k == K_STOP) {
            send_main(K_SUM, v + b->count, idx_of(b));
            proc_exit(b);
            return;
        }
    }
}

static void pingpong(const rb_params *p, rb_result *r)
{
    rq_rewind();
    note_reserve(3);
    rb_spawn_begin(r);
    gate_arrived = 0;
    gate_want = 2;
    proc_new(1, S_PING_START)->peer = R(2);
    proc_new(2, S_PONG_START)->peer = R(1);
    make_ready(R(1));
    make_ready(R(2));
    gate_wait(2);
    rb_spawn_end(r);
    r->ready = gate_arrived;
    rb_run_begin(r);
    send(R(1), K_GO, p->m);
    main_expect(K_DONE, "A's done message");
    rb_run_end(r);
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "B's count");
    run_to_quiescence();
    if (procs_alive != 0) rb_failure("pingpong: processes did not exit");
}

/* ---------------------------------------------------------------- fanin */

/* A sender sends at most fanin_budget messages each time it is scheduled,
 * then goes to the back of the run queue (a reduction budget, as a
 * preemptive runtime would impose), so the receiver's mailbox holds at most
 * about n*budget messages. 16 measured fastest (README); for large n the
 * budget shrinks so that n*budget stays under 2^24 messages (256 MiB). */
#define FANIN_BUDGET_MAX 16
#define FANIN_MAILBOX_CAP (INT64_C(1) << 24)
static int64_t fanin_budget = FANIN_BUDGET_MAX;
static int64_t fanin_target; /* n*m: what the receiver waits for */

/* sender (pt[2..n+1]): count = messages still to send, peer = the receiver */
static inline void fanin_send_step(proc_t *s)
{
    int32_t k;
    int64_t v;
    while (recv(s, &k, &v))
        if (k == K_START) s->count = v;
    if (s->count == 0) return; /* not started yet: block */
    /* in locals: the stores into the message pool could alias them, which would make
     * the compiler reload them from memory on every send */
    const ref_t rx = s->peer;
    int64_t left = s->count;
    for (int64_t b = fanin_budget; b > 0 && left > 0; b--, left--) send(rx, K_DATA, 0);
    s->count = left;
    if (s->count > 0) make_ready(ref_of(s));
    else proc_exit(s); /* its work is done: the process ends */
}

/* receiver (pt[1]): count = messages received */
static inline void fanin_recv_step(proc_t *rcv)
{
    int32_t k;
    int64_t v, count = rcv->count; /* a local, for the same reason as the sender's */
    const int64_t target = fanin_target;
    while (recv(rcv, &k, &v)) {
        if (likely(k == K_DATA)) {
            if (++count == target) send_main(K_DONE, 0, -1);
        } else if (k == K_STOP) {
            send_main(K_SUM, count, -1);
            proc_exit(rcv);
            return;
        }
    }
    rcv->count = count;
}

static void fanin(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n, mm = p->m;
    fanin_target = n * mm;
    rq_rewind();
    note_reserve(3);
    msg_reserve(n * fanin_budget + 1); /* the receiver's mailbox at its fullest */
    rb_spawn_begin(r);
    gate_arrived = 0;
    gate_want = n + 1;
    proc_new(1, S_FRECV_START);
    make_ready(R(1));
    for (int64_t i = 2; i <= n + 1; i++) {
        proc_new(i, S_FSEND_START)->peer = R(1);
        spawned(i);
    }
    gate_wait(n + 1);
    rb_spawn_end(r);
    r->ready = gate_arrived;
    rb_run_begin(r);
    for (int64_t i = 2; i <= n + 1; i++) send(R(i), K_START, mm);
    main_expect(K_DONE, "the receiver's done message");
    rb_run_end(r);
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "the receiver's count");
    run_to_quiescence();
    if (procs_alive != 0) rb_failure("fanin: %" PRId64 " processes did not exit", procs_alive);
}

/* ------------------------------------------------------------ selective */

/* worker i is pt[i + 1] */
static inline void worker_step(proc_t *w)
{
    int32_t k;
    int64_t v;
    while (recv(w, &k, &v)) {
        if (k == K_REQUEST) {
            send_main(K_REPLY, 0, idx_of(w));
        } else if (k == K_STOP) {
            proc_exit(w);
            return;
        }
    }
}

static void selective(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n, rounds = p->m;
    const int reverse = (int)p->reverse;
    rq_rewind();
    note_reserve(n + 1);
    rb_spawn_begin(r);
    gate_arrived = 0;
    gate_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_new(i, S_WORKER_START);
        spawned(i);
    }
    gate_wait(n);
    rb_spawn_end(r);
    r->ready = gate_arrived;
    int64_t collected = 0;
    rb_run_begin(r);
    for (int64_t round = 0; round < rounds; round++) {
        for (int64_t i = 1; i <= n; i++) send(R(i), K_REQUEST, 0);
        for (int64_t k = 0; k < n; k++) {
            int32_t want = (int32_t)(reverse ? n - 1 - k : k);
            note_t *m = main_recv_match(K_REPLY, want);
            if (!m) rb_failure("selective: reply from worker %d never came (round %" PRId64 ")", want, round + 1);
            note_release(m);
            collected++;
        }
    }
    rb_run_end(r);
    for (int64_t i = 1; i <= n; i++) send(R(i), K_STOP, 0);
    run_to_quiescence();
    if (procs_alive != 0) rb_failure("selective: %" PRId64 " workers did not exit", procs_alive);
    r->count = collected;
}

/* ------------------------------------------------------------------- tree */

/* A node is spawned covering the leaves lo ... lo + size - 1, which its count holds until its
 * first run (size in the upper 32 bits; n <= 100,000,000 < 2^27). Its first run: a leaf sends lo
 * to its parent and exits; an inner node spawns `fanout` children in the next free table
 * entries, each covering an equal, contiguous part of its range, and blocks. From then on its
 * count holds the sums received (from bit 53 up, one per message) and their total (the low 53
 * bits: a total is at most n(n-1)/2 < 2^53). Its parent is its peer; reference 0 is main. */
#define TREE_ONE (INT64_C(1) << 53)
static int64_t tree_fanout, tree_next; /* the fanout; the next free table entry */

static inline void tree_send_up(proc_t *p, int64_t sum)
{
    if (p->peer == 0) send_main(K_SUM, sum, idx_of(p));
    else send(p->peer, K_SUM, sum);
    proc_exit(p);
}

/* The tree's steps are called, not inlined into the scheduler: inlined, their registers spill
 * into the ring's path (cachegrind: 50 instructions a ring hop instead of 48). */
static __attribute__((noinline)) void tree_start_step(proc_t *p)
{
    const int64_t lo = p->count & 0xffffffff, size = p->count >> 32;
    if (size == 1) {
        tree_send_up(p, lo);
        return;
    }
    const int64_t part = size / tree_fanout;
    const ref_t self = ref_of(p);
    for (int64_t i = 0; i < tree_fanout; i++, tree_next++) {
        proc_t *c = proc_new(tree_next, S_TREE_START);
        c->peer = self;
        c->count = part << 32 | (lo + i * part);
        make_ready(R(tree_next));
    }
    p->count = 0;
    p->state = S_TREE;
}

static __attribute__((noinline)) void tree_step(proc_t *p)
{
    int32_t k;
    int64_t v;
    while (recv(p, &k, &v)) {
        if (unlikely(k != K_SUM)) continue;
        p->count += TREE_ONE + v;
        if (p->count >> 53 == tree_fanout) {
            tree_send_up(p, p->count & (TREE_ONE - 1));
            return;
        }
    }
}

static void tree(const rb_params *p, rb_result *r)
{
    tree_fanout = p->fanout;
    rq_rewind();
    note_reserve(1);
    rb_tree_begin(r);
    proc_t *root = proc_new(1, S_TREE_START);
    root->peer = 0; /* main */
    root->count = p->n << 32;
    tree_next = 2;
    make_ready(R(1));
    r->count = main_expect(K_SUM, "the root's sum");
    rb_tree_end(r);
    if (procs_alive != 0) rb_failure("tree: %" PRId64 " processes did not exit", procs_alive);
    if (tree_next - 1 != rb_processes(p))
        rb_failure("tree: %" PRId64 " processes spawned, expected %" PRId64, tree_next - 1, rb_processes(p));
}

/* ---------------------------------------------------------------- scheduler */

/* Run ready processes in FIFO order until main comes off the queue (a
 * message reached it): return 1. Return 0 if nothing is ready at all (every
 * process is blocked: main would wait forever). */
static int run_until_main(void)
{
    for (;;) {
        if (unlikely(rq_head == rq_tail)) return 0;
        proc_t *p = at(rq_q[rq_head++ & rq_mask]);
        /* The ring's state first: in the ring, every process scheduled is in
         * it, and a compare costs less than the jump table below (measured:
         * about 0.4 ns a hop). A bare ring program has no dispatch at all. */
        if (likely(p->state == S_RING)) {
            ring_step(p);
            continue;
        }
        switch (p->state) {
        case S_RING_START: start(p, S_RING); /* fall through */
        case S_RING: ring_step(p); break;
        case S_TRACE_START: start(p, S_TRACE); /* fall through */
        case S_TRACE: trace_step(p); break;
        case S_CONT0_START: start(p, S_CONT0); /* fall through */
        case S_CONT0: ring_cont0_step(p); break;
        case S_SPAWN_START: start(p, S_SPAWN); /* fall through */
        case S_SPAWN: spawn_step(p); break;
        case S_PING_START: start(p, S_PING); /* fall through */
        case S_PING: ping_step(p); break;
        case S_PONG_START: start(p, S_PONG); /* fall through */
        case S_PONG: pong_step(p); break;
        case S_FSEND_START: start(p, S_FSEND); /* fall through */
        case S_FSEND: fanin_send_step(p); break;
        case S_FRECV_START: start(p, S_FRECV); /* fall through */
        case S_FRECV: fanin_recv_step(p); break;
        case S_WORKER_START: start(p, S_WORKER); /* fall through */
        case S_WORKER: worker_step(p); break;
        case S_TREE_START: tree_start_step(p); break;
        case S_TREE: tree_step(p); break;
        case S_MAIN: main_queued = 0; return 1;
        default: rb_failure("internal: process %d scheduled in state %u", idx_of(p), p->state);
        }
    }
}

/* ------------------------------------------------------------------- main */

/* the table holds every process the workload spawns (mapped once, reused by every iteration) */
static void prepare(const rb_params *p)
{
    g_p = p;
    if (p->workload == RB_FANIN) {
        fanin_budget = FANIN_MAILBOX_CAP / p->n;
        if (fanin_budget > FANIN_BUDGET_MAX) fanin_budget = FANIN_BUDGET_MAX;
        if (fanin_budget < 1) fanin_budget = 1;
    }
    table_map(rb_processes(p));
}

static void stats(rb_rec *rec, const rb_params *p, const rb_result *r)
{
    (void)p, (void)r;
    int64_t pooled = 0;
    for (uint32_t m = mp_free; m; m = mp[m].next) pooled++;
    const struct mallinfo2 mi = mallinfo2();
    rb_rec_int(rec, "os_threads", 1);
    rb_rec_int(rec, "process_bytes", (int64_t)sizeof(proc_t));
    rb_rec_int(rec, "message_bytes", (int64_t)sizeof(msg_t));
    rb_rec_int(rec, "process_table_bytes", (int64_t)pt_bytes);
    rb_rec_int(rec, "message_pool_messages", mp_cap);
    rb_rec_int(rec, "messages_pooled", pooled);
    rb_rec_int(rec, "run_queue_entries", (int64_t)rq_mask + 1);
    rb_rec_int(rec, "huge_pages_advised", use_thp);
    rb_rec_int(rec, "malloc_in_use_bytes", (int64_t)mi.uordblks);
}

int main(int argc, char **argv)
{
    const rb_driver d = {
        .name = "c-coro",
        .runtime = "C (single-thread state-machine processes, no runtime)",
        .version = "gcc " __VERSION__,
        .clock = RB_CLOCK,
        .collector = "",
        .variants = NULL, /* the floor: one way of running, nothing to tune */
        .tokens = 1,
        .continuous = 1,
        .stats = 1,
        .iteration = {[RB_RING] = ring, [RB_SPAWN] = spawn, [RB_PINGPONG] = pingpong, [RB_FANIN] = fanin,
                      [RB_SELECTIVE] = selective, [RB_TREE] = tree, [RB_TRACE] = ring},
        .prepare = prepare,
        .continuous_ring = continuous,
        .stats_fields = stats,
        .runtime_mem = pools_bytes,
    };
    return rb_main(&d, argc, argv);
}
