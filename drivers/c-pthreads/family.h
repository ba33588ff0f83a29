/*
 * The workloads of one family, written once (docs/driver-contract.md, section 3). Included by
 * stock.c and handoff.c after they define, as static inline functions on their receiving end
 * (END_T):
 *
 *   end_init(e, cap), end_init_receiver(e), end_destroy(e)
 *   end_put(e, m) / end_take(e)            a hop to a process only one value can be on its way to
 *   end_put_many(e, m) / end_take_many(e)  to and from a process several may send to at once
 *   main_prepare(p), main_reserve(k)       the main process's receiving end
 *   tell_main(m), main_take()              a value to main, main's receive
 *   signal_main(), wait_signal()           a bare signal to main (a token finished), and main's
 *                                          wait for one
 *
 * and FAMILY, the name of the family_t this file defines. Each family's thread bodies are
 * compiled with its own calls inlined: a hop makes no indirect call.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct proc {
    END_T end;         /* the process's receiving end */
    struct proc *next; /* ring: successor; tree: parent (NULL: main) */
    int64_t count;     /* receipts (ring), round trips (pong), messages (fan-in receiver) */
    int32_t idx;
    pthread_t tid;
    int64_t lo, size; /* tree: the leaves it covers */
} __attribute__((aligned(64))) proc_t;

static const rb_params *g_p; /* the run's parameters */
static int64_t g_n, g_m;
static int g_trace_print; /* a measured trace iteration: hops are printed */
static proc_t *g_extra;   /* pingpong: A and B; fanin: the receiver */

#define CAP_RECEIVER 0 /* alloc_procs: the fan-in receiver's end */

/* k process records, each with its receiving end (a mailbox starts with room for cap messages) */
static proc_t *alloc_procs(int64_t k, int64_t cap)
{
    proc_t *p = NULL;
    if (posix_memalign((void **)&p, 64, sizeof(proc_t) * (size_t)k) != 0)
        rb_limit("out of memory allocating %" PRId64 " process records; free memory or use a smaller n", k);
    for (int64_t i = 0; i < k; i++) {
        memset(&p[i], 0, sizeof p[i]);
        if ((cap == CAP_RECEIVER ? end_init_receiver(&p[i].end) : end_init(&p[i].end, cap)) != 0)
            rb_limit("out of memory allocating the receiving ends of %" PRId64 " processes", k);
        p[i].idx = (int32_t)i;
    }
    return p;
}

static void free_procs(proc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        end_destroy(&p[i].end);
    free(p);
}

static void join_all(proc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        pthread_join(p[i].tid, NULL);
}

static msg_t main_expect(int kind, const char *what)
{
    const msg_t m = main_take();
    if (m.kind != kind)
        rb_failure("main expected %s, got message kind %d", what, m.kind);
    return m;
}

#ifdef RB_GATE_TEST
void rb_gate_test_before_arrive(void); /* tests/gate.c's build only: a process late to the gate */
#endif

static inline void arrive(void)
{
#ifdef RB_GATE_TEST
    rb_gate_test_before_arrive();
#endif
    if (atomic_fetch_add_explicit(&g_gate_arrived, 1, memory_order_acq_rel) + 1 == g_gate_want)
        tell_main(MSG(M_GATE, -1, 0));
}

static void gate_wait(int64_t want, rb_result *r)
{
    main_expect(M_GATE, "the gate");
    r->ready = atomic_load(&g_gate_arrived);
    if (r->ready != want)
        rb_failure("%" PRId64 " of %" PRId64 " processes arrived at the gate", r->ready, want);
}

/* ------------------------------------------------------------------------ ring */

/* the stop message: value = the running sum of receipt counts; p(n-1) returns it to main */
#define RING_BODY(name, take, put)                                                                 \
    static void *name(void *arg)                                                                   \
    {                                                                                              \
        proc_t *self = (proc_t *)arg;                                                              \
        END_T *const next = &self->next->end;                                                      \
        const int32_t idx = self->idx;                                                             \
        int64_t count = 0;                                                                         \
        arrive();                                                                                  \
        for (;;) {                                                                                 \
            msg_t m = take(&self->end);                                                            \
            if (likely(m.kind == M_TOKEN)) {                                                       \
                count++;                                                                           \
                if (likely(m.value != 1))                                                          \
                    put(next, MSG(M_TOKEN, idx, m.value - 1));                                     \
                else                                                                               \
                    signal_main(); /* the token finished */                                        \
            } else if (m.kind == M_STOP) {                                                         \
                self->count = count;                                                               \
                m.value += count;                                                                  \
                if (idx == g_n - 1)                                                                \
                    tell_main(m);                                                                  \
                else                                                                               \
                    put(next, m);                                                                  \
                return NULL;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

RING_BODY(ring_thread, end_take, end_put)
/* several tokens: a slot may be wanted by two values at once */
RING_BODY(ring_many_thread, end_take_many, end_put_many)

/* trace: the ring with one token, each hop printed from inside the receiving thread */
static void *trace_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    const int32_t idx = self->idx;
    int64_t count = 0;
    arrive();
    for (;;) {
        msg_t m = end_take(&self->end);
        if (m.kind == M_TOKEN) {
            count++;
            if (g_trace_print)
                rb_trace_hop(g_p, m.value, m.from, idx);
            if (m.value != 1)
                end_put(&self->next->end, MSG(M_TOKEN, idx, m.value - 1));
            else
                signal_main();
        } else if (m.kind == M_STOP) {
            self->count = count;
            m.value += count;
            if (idx == g_n - 1)
                tell_main(m);
            else
                end_put(&self->next->end, m);
            return NULL;
        }
    }
}

/* continuous mode, p0: count a lap each time a token that has been round passes */
static void *cont0_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    END_T *const next = &self->next->end;
    const int many = g_p->tokens > 1;
    arrive();
    for (;;) {
        msg_t m = many ? end_take_many(&self->end) : end_take(&self->end);
        if (m.value != RB_CONT_FRESH)
            atomic_fetch_add_explicit(&g_laps, 1, memory_order_relaxed);
        m = MSG(M_TOKEN, 0, m.value - 1);
        if (many)
            end_put_many(next, m);
        else
            end_put(next, m);
    }
    return NULL; /* not reached: continuous mode ends with the process */
}

/* main's injection: into a slot several tokens may meet at, or not */
static inline void inject(proc_t *to, msg_t m)
{
    if (g_p->tokens > 1)
        end_put_many(&to->end, m);
    else
        end_put(&to->end, m);
}

/* spawn the ring; returns when every thread is about to block in its first receive */
static proc_t *ring_spawn(const rb_params *p, int trace, int continuous, rb_result *r)
{
    const int64_t n = p->n;
    /* a mailbox holds at most the tokens plus the stop message: a burst makes it grow, and it
     * shrinks back once empty */
    proc_t *procs = alloc_procs(n, p->tokens > 1 ? 4 : 2);
    for (int64_t i = 0; i < n; i++)
        procs[i].next = &procs[(i + 1) % n];
    atomic_store(&g_gate_arrived, 0);
    g_gate_want = n;
    void *(*body)(void *) = trace ? trace_thread : p->tokens > 1 ? ring_many_thread : ring_thread;
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, continuous && i == 0 ? cont0_thread : body, &procs[i], i, n);
    gate_wait(n, r);
    return procs;
}

static void ring(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n, m = p->m, tokens = p->tokens;
    const int trace = p->workload == RB_TRACE;
    g_p = p, g_n = n, g_m = m;
    g_trace_print = trace && r->iteration > 0; /* a warm-up trace prints no hops */
    main_reserve(tokens + 2);

    rb_spawn_begin(r);
    proc_t *procs = ring_spawn(p, trace, 0, r);
    rb_spawn_end(r);

    rb_run_begin(r);
    for (int64_t j = 0; j < tokens; j++)
        inject(&procs[rb_inject_at(p, j)], MSG(M_TOKEN, -1, n * m));
    for (int64_t j = 0; j < tokens; j++)
        wait_signal(); /* a token finished */
    rb_run_end(r);

    /* the proof: a stop message travels the ring once, summing receipt counts */
    inject(&procs[0], MSG(M_STOP, -1, 0));
    r->count = main_expect(M_STOP, "the stop message back").value;
    join_all(procs, n);
    free_procs(procs, n);
}

static int64_t read_laps(void *ctx)
{
    (void)ctx;
    return atomic_load_explicit(&g_laps, memory_order_relaxed);
}

/* continuous mode (section 5): spawn, inject, sample the lap counter, exit without teardown */
static void continuous(const rb_params *p)
{
    rb_result r;
    memset(&r, 0, sizeof r);
    g_p = p, g_n = p->n, g_m = p->m;
    main_reserve(p->tokens + 2);
    proc_t *procs = ring_spawn(p, 0, 1, &r);
    const int64_t t0 = rb_mono_ns();
    for (int64_t j = 0; j < p->tokens; j++)
        inject(&procs[rb_inject_at(p, j)], MSG(M_TOKEN, -1, RB_CONT_FRESH));
    rb_sample_loop(p, t0, read_laps, NULL);
}

/* ----------------------------------------------------------------------- spawn */

/* an idle process: arrives at the gate, as a ring process does, then blocks in its receive until
 * released */
static void *spawn_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    arrive();
    for (;;)
        if (end_take(&self->end).kind == M_QUIT)
            return NULL;
}

static void spawn(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n;
    g_p = p, g_n = n;
    main_reserve(2); /* the gate's one message */

    rb_spawn_begin(r);
    proc_t *procs = alloc_procs(n, 2); /* the receiving end a one-token ring process has */
    atomic_store(&g_gate_arrived, 0);
    g_gate_want = n;
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, spawn_thread, &procs[i], i, n);
    gate_wait(n, r); /* the same boundary as the ring's spawn phase (ring_spawn) */
    rb_spawn_end(r);
    r->count = r->ready;

    for (int64_t i = 0; i < n; i++)
        end_put(&procs[i].end, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    free_procs(procs, n);
}

/* -------------------------------------------------------------------- pingpong */

static void *ping_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    END_T *const b = &g_extra[1].end;
    arrive();
    const msg_t m = end_take(&self->end);
    if (m.kind != M_START)
        return NULL;
    const int64_t rounds = m.value;
    for (int64_t i = 0; i < rounds; i++) {
        end_put(b, MSG(M_PING, 0, i));
        const msg_t a = end_take(&self->end);
        if (unlikely(a.kind != M_PONG))
            rb_failure("pingpong: A expected a pong, got message kind %d", a.kind);
    }
    tell_main(MSG(M_DONE, 0, rounds));
    return NULL;
}

static void *pong_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    END_T *const a = &g_extra[0].end;
    int64_t count = 0;
    arrive();
    for (;;) {
        const msg_t m = end_take(&self->end);
        if (likely(m.kind == M_PING)) {
            count++;
            end_put(a, MSG(M_PONG, 1, m.value));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

static void pingpong(const rb_params *p, rb_result *r)
{
    g_p = p;
    rb_spawn_begin(r);
    g_extra = alloc_procs(2, 2);
    atomic_store(&g_gate_arrived, 0);
    g_gate_want = 2;
    start_thread(&g_extra[0].tid, ping_thread, &g_extra[0], 0, 2);
    start_thread(&g_extra[1].tid, pong_thread, &g_extra[1], 1, 2);
    gate_wait(2, r);
    rb_spawn_end(r);

    rb_run_begin(r);
    end_put(&g_extra[0].end, MSG(M_START, -1, p->m));
    main_expect(M_DONE, "pingpong done");
    rb_run_end(r);

    end_put(&g_extra[1].end, MSG(M_QUIT, -1, 0));
    join_all(g_extra, 2);
    r->count = g_extra[1].count; /* the round trips B counted */
    free_procs(g_extra, 2);
    g_extra = NULL;
}

/* ----------------------------------------------------------------------- fanin */

static void *fanin_receiver(void *arg)
{
    proc_t *self = (proc_t *)arg;
    int64_t count = 0;
    const int64_t target = g_n * g_m;
    arrive();
    for (;;) {
        const msg_t m = end_take_many(&self->end);
        if (likely(m.kind == M_DATA)) {
            if (++count == target)
                tell_main(MSG(M_DONE, -1, count));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

static void *fanin_sender(void *arg)
{
    proc_t *self = (proc_t *)arg;
    END_T *const rx = &g_extra[0].end;
    const int64_t m_ = g_m;
    arrive();
    const msg_t m = end_take(&self->end);
    if (m.kind != M_START)
        return NULL;
    for (int64_t i = 0; i < m_; i++)
        end_put_many(rx, MSG(M_DATA, self->idx, i));
    return NULL;
}

static void fanin(const rb_params *p, rb_result *r)
{
    const int64_t n = p->n;
    g_p = p, g_n = n, g_m = p->m;

    rb_spawn_begin(r);
    g_extra = alloc_procs(1, CAP_RECEIVER);
    proc_t *procs = alloc_procs(n, 2);
    atomic_store(&g_gate_arrived, 0);
    g_gate_want = n + 1;
    start_thread(&g_extra[0].tid, fanin_receiver, &g_extra[0], 0, n + 1);
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, fanin_sender, &procs[i], i + 1, n + 1);
    gate_wait(n + 1, r);
    rb_spawn_end(r);

    rb_run_begin(r);
    for (int64_t i = 0; i < n; i++)
        end_put(&procs[i].end, MSG(M_START, -1, 0));
    r->count = main_expect(M_DONE, "fanin done").value;
    rb_run_end(r);

    end_put_many(&g_extra[0].end, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    join_all(g_extra, 1);
    free_procs(procs, n);
    free_procs(g_extra, 1);
    g_extra = NULL;
}

/* ------------------------------------------------------------------------ tree */

/* A node covering more than one leaf creates `fanout` children, each a thread covering an equal,
 * contiguous part of its range, receives one sum from each (in whatever order), joins them,
 * and sends the total to its parent; a leaf sends its ordinal. Then the thread ends. */
static void *tree_thread(void *arg)
{
    proc_t *self = (proc_t *)arg;
    int64_t sum = self->lo;
    if (self->size > 1) {
        const int64_t fanout = g_p->fanout, part = self->size / fanout;
        /* a child that will receive has room for its children's sums */
        proc_t *child = alloc_procs(fanout, part > 1 ? fanout : 2);
        for (int64_t i = 0; i < fanout; i++) {
            child[i].next = self;
            child[i].lo = self->lo + i * part;
            child[i].size = part;
            start_thread(&child[i].tid, tree_thread, &child[i], -1, rb_processes(g_p));
        }
        sum = 0;
        for (int64_t i = 0; i < fanout; i++)
            sum += end_take_many(&self->end).value;
        join_all(child, fanout);
        free_procs(child, fanout);
    }
    if (self->next)
        end_put_many(&self->next->end, MSG(M_SUM, self->idx, sum));
    else
        tell_main(MSG(M_SUM, -1, sum));
    return NULL;
}

static void tree(const rb_params *p, rb_result *r)
{
    g_p = p;
    rb_tree_begin(r);
    proc_t *root = alloc_procs(1, p->n > 1 ? p->fanout : 2);
    root->next = NULL;
    root->lo = 0;
    root->size = p->n;
    start_thread(&root->tid, tree_thread, root, 0, rb_processes(p));
    r->count = main_expect(M_SUM, "the root's sum").value;
    rb_tree_end(r);

    join_all(root, 1);
    free_procs(root, 1);
}

const family_t FAMILY = {
    .iteration = {[RB_RING] = ring, [RB_SPAWN] = spawn, [RB_PINGPONG] = pingpong, [RB_FANIN] = fanin,
                  [RB_TREE] = tree, [RB_TRACE] = ring},
    .continuous = continuous,
    .prepare = main_prepare,
};
