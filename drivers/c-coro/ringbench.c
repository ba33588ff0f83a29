/*
 * ringbench-c-coro: the floor. One OS thread, no runtime.
 *
 * A process is a 24-byte entry of one table: a one-message mailbox slot held
 * inline (kind + value; messages that arrive while it is taken queue behind
 * it, beside the table), its code's state (an explicit state machine), its
 * receipt count, and the one process it knows. Processes name each other by their
 * place in the table. A single-thread scheduler runs ready processes in FIFO
 * order, dispatching on their state. A send writes the message into the
 * receiver's slot and appends it to the run queue (an array of references),
 * or, if the slot is taken, queues the message behind it (the receiver is
 * then ready already). So the common hop allocates nothing and touches the
 * receiver's entry and the run queue's ends, nothing else.
 *
 * The "main process" of the contract is a process too (table entry 0): its
 * mailbox is a plain FIFO list (it must keep the sender of every message,
 * for selective receive), and its code is the driver's own control flow,
 * which gives the CPU to the scheduler when it blocks in a receive and gets
 * it back when a message reaches its mailbox.
 *
 * See README.md for the design and what one hop costs.
 * Driver contract: docs/driver-contract.md (version 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The contract's bound on n (section 6): the memory layout holds 100,000,000
 * processes in 3.2 GB (32 B each, 32-bit byte offsets). */
#ifndef RB_MAX_N
#define RB_MAX_N 100000000
#endif

/* ------------------------------------------------------------------ output */

static char outbuf[1 << 20];

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c); /* keep it ASCII */
        else fputc(c, f);
    }
    fputc('"', f);
}

/* kind/exit: bad_param 2, unknown_workload 2, unsupported 2, limit 3, failure 1 */
static void __attribute__((noreturn, format(printf, 3, 4)))
die(int code, const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("{\"type\":\"error\",\"kind\":", stdout);
    json_str(stdout, kind);
    fputs(",\"message\":", stdout);
    json_str(stdout, msg);
    fputs("}\n", stdout);
    fflush(stdout);
    fprintf(stderr, "ringbench-c-coro: %s: %s\n", kind, msg);
    exit(code);
}
#define BAD(...) die(2, "bad_param", __VA_ARGS__)
#define LIMIT(...) die(3, "limit", __VA_ARGS__)
#define FAIL(...) die(1, "failure", __VA_ARGS__)

/* ------------------------------------------------------------------ clocks */

static inline int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#define mono_ns() clock_ns(CLOCK_MONOTONIC)
#define cpu_ns() clock_ns(CLOCK_PROCESS_CPUTIME_ID)

static int64_t rss_bytes(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0) return 0;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0) return 0;
    buf[k] = 0;
    long long size = 0, res = 0;
    if (sscanf(buf, "%lld %lld", &size, &res) != 2) return 0;
    return (int64_t)res * sysconf(_SC_PAGESIZE);
}

/* ------------------------------------------------------- processes, messages */

enum {
    K_NONE = 0, /* an empty slot */
    K_TOKEN, K_DONE, K_STOP, K_SUM, K_READY, K_RELEASE,
    K_GO, K_PING, K_PONG, K_START, K_DATA, K_REQUEST, K_REPLY
};

/* What a process runs when it is scheduled: its code is a state machine, and
 * this is its state. The scheduler dispatches on it (one switch, every step
 * inlined), as an interpreter dispatches on an opcode. Each workload's
 * process starts in its *_START state, which signals ready and moves on. */
enum {
    S_EXITED = 0, S_MAIN,
    S_RING_START, S_RING, S_TRACE_START, S_TRACE, S_CONT0_START, S_CONT0,
    S_SPAWN_START, S_SPAWN, S_PING_START, S_PING, S_PONG_START, S_PONG,
    S_FSEND_START, S_FSEND, S_FRECV_START, S_FRECV, S_WORKER_START, S_WORKER
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
 * pages on the process table (README: measured with 32-byte entries, it did not pay). */
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
        LIMIT("%" PRId64 " processes do not fit this driver's 32-bit process references (at most %zu)", count,
              (size_t)REF_MAX / sizeof(proc_t) - 2);
    long page = sysconf(_SC_PAGESIZE);
    bytes = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        LIMIT("mmap of %zu bytes for %" PRId64 " processes failed (%s): the address-space limit is "
              "exhausted; lower n or raise `ulimit -v`", bytes, count, strerror(errno));
    if (use_thp) madvise(p, bytes, MADV_HUGEPAGE);
    pt = p;
    pt_bytes = bytes;
    size_t lbytes = (size_t)(count + 1) * sizeof(later_t);
    p = mmap(NULL, lbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        LIMIT("mmap of %zu bytes for %" PRId64 " processes failed (%s): the address-space limit is "
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
        LIMIT("the message pool cannot grow beyond %u messages", mp_cap);
    msg_t *n = realloc(mp, sizeof(msg_t) * ncap);
    if (!n)
        LIMIT("out of memory growing the message pool to %u messages (%zu MiB) with %" PRId64
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
    if (!b) LIMIT("out of memory for main's mailbox; lower n or free memory");
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
    if (ncap == 0) LIMIT("the run queue cannot grow beyond %u processes", cap);
    rq_slot_t *nq = malloc(sizeof(rq_slot_t) * ncap);
    if (!nq) LIMIT("out of memory growing the run queue to %u entries", ncap);
    rq_index_t k = rq_tail - rq_head;
    for (rq_index_t i = 0; i < k; i++) nq[i] = rq_q[(rq_head + i) & rq_mask];
    free(rq_q);
    rq_q = nq;
    rq_head = 0;
    rq_tail = k;
    rq_mask = ncap - 1;
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
    if (!m) FAIL("deadlock: main waited for %s and no process was ready", what);
    if (m->kind != kind) FAIL("main expected %s, got message kind %d", what, m->kind);
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

/* ------------------------------------------------------------ ready signals */

/* Contract 2: every process signals ready immediately before its first
 * blocking receive. Here a process is spawned in its *_START state: when
 * first scheduled it adds one to a counter (the last one tells main with one
 * message), moves to its real state and runs it, which finds the mailbox
 * empty and returns (it blocks). So every process has run before the
 * message phase. */
static int64_t ready_seen, ready_want;

static void __attribute__((noinline)) ready_all(void) { send_main(K_READY, ready_seen, -1); }

static inline void start(proc_t *p, uint16_t state)
{
    if (++ready_seen == ready_want) ready_all();
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

static void ready_expect(int64_t want)
{
    int64_t seen = main_expect(K_READY, "the ready signal");
    if (seen != want) FAIL("%" PRId64 " of %" PRId64 " processes signalled ready", seen, want);
}

/* -------------------------------------------------------------- parameters */

enum { P_N, P_M, P_TOKENS, P_BURST, P_REVERSE, P_REPEATS, P_WARMUP, P_CORES, P_SAMPLE_MS, P_SAMPLES, P_STATS, P_COUNT };

typedef struct {
    const char *name;
    int64_t min, max, def;
    int required; /* 1: must be given (no default) */
    int allowed;  /* for this workload */
    int given;
    int64_t val;
} param_t;

static param_t P[P_COUNT] = {
    [P_N] = {"n", 1, RB_MAX_N, 0, 1, 0, 0, 0},
    [P_M] = {"m", 1, 1000000000, 0, 1, 0, 0, 0},
    [P_TOKENS] = {"tokens", 1, RB_MAX_N, 1, 0, 0, 0, 0},
    [P_BURST] = {"burst", 0, 1, 0, 0, 0, 0, 0},
    [P_REVERSE] = {"reverse", 0, 1, 0, 0, 0, 0, 0},
    [P_REPEATS] = {"repeats", 1, 1000000, 1, 0, 1, 0, 0},
    [P_WARMUP] = {"warmup", 0, 1000000, 0, 0, 1, 0, 0},
    [P_CORES] = {"cores", 1, 1024, 1, 0, 1, 0, 0},
    [P_SAMPLE_MS] = {"sample_ms", 0, 86400000, 0, 0, 1, 0, 0},
    [P_SAMPLES] = {"samples", 1, 1000000, 3, 0, 1, 0, 0},
    [P_STATS] = {"stats", 0, 1, 0, 0, 1, 0, 0},
};

#define V(k) (P[k].val)

/* strict decimal integer: ASCII digits only (no sign, no space); 0 if not one,
 * *overflow set when it does not fit (then it is out of every bound) */
static int parse_int(const char *s, int64_t *out, int *overflow)
{
    *overflow = 0;
    if (!*s) return 0;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        if (v > (INT64_MAX - 9) / 10) *overflow = 1; else v = v * 10 + (*s - '0');
    }
    *out = v;
    return 1;
}

static const char *workload;

static void parse_params(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        if (!eq) BAD("argument '%s' is not key=value", a);
        size_t klen = (size_t)(eq - a);
        const char *val = eq + 1;
        int k;
        for (k = 0; k < P_COUNT; k++)
            if (strlen(P[k].name) == klen && strncmp(P[k].name, a, klen) == 0) break;
        if (k == P_COUNT || !P[k].allowed) {
            char names[256] = "";
            for (int j = 0; j < P_COUNT; j++)
                if (P[j].allowed) {
                    if (names[0]) strcat(names, ", ");
                    strcat(names, P[j].name);
                }
            BAD("unknown key '%.*s' for workload %s (it takes: %s)", (int)klen, a, workload, names);
        }
        if (P[k].given) BAD("key %s given twice", P[k].name);
        int64_t v = 0;
        int ovf;
        if (!parse_int(val, &v, &ovf)) BAD("%s must be a decimal integer (ASCII digits only), got '%s'", P[k].name, val);
        if (ovf || v < P[k].min || v > P[k].max)
            BAD("%s must be between %" PRId64 " and %" PRId64 ", got '%s'", P[k].name, P[k].min, P[k].max, val);
        P[k].given = 1;
        P[k].val = v;
    }
    for (int k = 0; k < P_COUNT; k++) {
        if (!P[k].allowed || P[k].given) continue;
        if (P[k].required) BAD("workload %s needs key %s", workload, P[k].name);
        P[k].val = P[k].def;
    }
}

/* ------------------------------------------------------------ measurements */

typedef struct {
    int64_t count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns;
} result_t;

/* Memory is read around the first spawn phase of this driver process (the
 * warm-up's, if any); every result echoes those first values (contract 2). */
static int mem_read;
static int64_t mem_rss_before, mem_rss_after, mem_rt_before, mem_rt_after;

/* runtime_mem_*: the driver's own accounting, bytes of live processes plus the message pools and the run queue */
static inline int64_t pools_bytes(void)
{
    return procs_alive * (int64_t)sizeof(proc_t) + (int64_t)mp_cap * (int64_t)sizeof(msg_t) + note_bytes +
           ((int64_t)rq_mask + 1) * (int64_t)sizeof(rq_slot_t);
}

/* Spawn-phase bracketing: the clocks are read inside the memory readings. */
typedef struct { int64_t t0, c0; } phase_t;

static phase_t spawn_begin(void)
{
    if (!mem_read) {
        mem_rss_before = rss_bytes();
        mem_rt_before = pools_bytes();
    }
    return (phase_t){mono_ns(), cpu_ns()};
}

static void spawn_end(phase_t ph, result_t *r)
{
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->setup_ns = t1 - ph.t0;
    r->setup_cpu_ns = c1 - ph.c0;
    /* C has no collector: nothing to run between the phases */
    if (!mem_read) {
        mem_rss_after = rss_bytes();
        mem_rt_after = pools_bytes();
        mem_read = 1;
    }
}

static struct rusage ru0;

static void print_result(const result_t *r, int64_t iteration)
{
    printf("{\"type\":\"result\",\"workload\":\"%s\",\"iteration\":%" PRId64, workload, iteration);
    static const int echo[] = {P_N, P_M, P_TOKENS, P_BURST, P_REVERSE};
    for (size_t i = 0; i < sizeof echo / sizeof echo[0]; i++)
        if (P[echo[i]].allowed) printf(",\"%s\":%" PRId64, P[echo[i]].name, P[echo[i]].val);
    printf(",\"count\":%" PRId64 ",\"ready\":%" PRId64 ",\"setup_ns\":%" PRId64 ",\"run_ns\":%" PRId64
           ",\"setup_cpu_ns\":%" PRId64 ",\"run_cpu_ns\":%" PRId64 ",\"rss_before\":%" PRId64
           ",\"rss_after\":%" PRId64 ",\"runtime_mem_before\":%" PRId64 ",\"runtime_mem_after\":%" PRId64 "}\n",
           r->count, r->ready, r->setup_ns, r->run_ns, r->setup_cpu_ns, r->run_cpu_ns, mem_rss_before,
           mem_rss_after, mem_rt_before, mem_rt_after);
}

static void print_stats(int64_t iteration)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct mallinfo2 mi = mallinfo2();
    int64_t pooled = 0;
    for (uint32_t m = mp_free; m; m = mp[m].next) pooled++;
    printf("{\"type\":\"stats\",\"iteration\":%" PRId64 ",\"os_threads\":1,\"process_bytes\":%zu"
           ",\"message_bytes\":%zu,\"process_table_bytes\":%zu,\"message_pool_messages\":%u"
           ",\"messages_pooled\":%" PRId64 ",\"huge_pages_advised\":%d"
           ",\"malloc_in_use_bytes\":%zu,\"max_rss_bytes\":%" PRId64
           ",\"minor_faults\":%ld,\"major_faults\":%ld"
           ",\"voluntary_context_switches\":%ld,\"involuntary_context_switches\":%ld}\n",
           iteration, sizeof(proc_t), sizeof(msg_t), pt_bytes, mp_cap, pooled, use_thp, mi.uordblks,
           (int64_t)ru.ru_maxrss * 1024, ru.ru_minflt - ru0.ru_minflt, ru.ru_majflt - ru0.ru_majflt,
           ru.ru_nvcsw - ru0.ru_nvcsw, ru.ru_nivcsw - ru0.ru_nivcsw);
}

/* ---------------------------------------------------------------- the ring */

static int64_t ring_total; /* n*m: the value each token starts with (trace: hop numbering) */
static int32_t ring_last;  /* index of p(n-1), which returns the stop message to main */
static int trace_print = 1;

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
            int64_t v = TRACE_VAL(raw), hop = ring_total - v + 1;
            p->count++;
            if (trace_print)
                printf("{\"type\":\"hop\",\"hop\":%" PRId64 ",\"lap\":%" PRId64 ",\"from\":%d,\"to\":%d}\n", hop,
                       (hop - 1) / V(P_N) + 1, TRACE_FROM(raw), idx_of(p));
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
 * Main injects tokens with the value CONT_FRESH; a token passing p0 with any
 * other value has gone round once more. */
#define CHECK_HOPS 1024
#define CONT_FRESH (INT64_C(1) << 62)
static int64_t cont_t0, cont_laps, cont_hops_since_check, cont_next_due, cont_period, cont_last_count;
static int64_t cont_seq;

static void __attribute__((noinline)) cont_emit(int64_t elapsed, int64_t count)
{
    cont_seq++;
    printf("{\"type\":\"sample\",\"seq\":%" PRId64 ",\"elapsed_ns\":%" PRId64 ",\"count\":%" PRId64 "}\n", cont_seq,
           elapsed, count);
    fflush(stdout);
    if (cont_seq >= V(P_SAMPLES)) exit(0); /* contract: exit 0 without teardown */
}

static void __attribute__((noinline)) cont_check(void)
{
    int64_t now = mono_ns() - cont_t0;
    int64_t c = cont_laps * V(P_N);
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
        if (likely(v != CONT_FRESH)) {
            cont_laps++;
            cont_hops_since_check += V(P_N);
            if (cont_hops_since_check >= CHECK_HOPS) {
                cont_hops_since_check = 0;
                cont_check();
            }
        }
        send(p->peer, K_TOKEN, v - 1);
    }
}

static void iter_ring(result_t *r, int trace)
{
    const int64_t n = V(P_N), tokens = trace ? 1 : V(P_TOKENS);
    const int burst = !trace && V(P_BURST);
    const int continuous = !trace && V(P_SAMPLE_MS) > 0;
    ring_total = n * V(P_M);
    ring_last = (int32_t)(n - 1);
    const uint16_t state = trace ? S_TRACE_START : S_RING_START;
    msg_reserve(tokens);      /* tokens queued behind a slot (a burst) */
    note_reserve(tokens + 2); /* to main: READY, DONE for each token, the stop's SUM */

    phase_t ph = spawn_begin();
    /* spawn p0 ... p(n-1) (pt[1] ... pt[n]), each linked to its successor and
     * scheduled for its first run */
    ready_seen = 0;
    ready_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_t *p = proc_new(i, state);
        p->peer = R(i < n ? i + 1 : 1);
        spawned(i);
    }
    if (continuous) pt[1].state = S_CONT0_START;
    ready_expect(n);
    spawn_end(ph, r);
    r->ready = ready_seen;

    /* token j enters at p(j*n div tokens), or all at p0 (burst) */
#define INJECT_AT(j) R(burst ? 1 : 1 + (int64_t)((__int128)(j) * n / tokens))
    if (continuous) {
        cont_period = V(P_SAMPLE_MS) * 1000000;
        cont_next_due = cont_period;
        cont_t0 = mono_ns();
        for (int64_t j = 0; j < tokens; j++) send(INJECT_AT(j), K_TOKEN, CONT_FRESH);
        run_until_main(); /* does not come back: p0 exits after the last sample */
        FAIL("continuous ring stopped circulating");
    }

    /* message phase */
    const int64_t first = trace ? TRACE_TOKEN(ring_total, -1) : ring_total;
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (int64_t j = 0; j < tokens; j++) send(INJECT_AT(j), K_TOKEN, first);
    for (int64_t j = 0; j < tokens; j++) main_expect(K_DONE, "a token-finished message");
    int64_t t3 = mono_ns(), c3 = cpu_ns();
#undef INJECT_AT

    /* proof: a stop message goes round once, summing receipts; every process exits */
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "the stop message back");
    run_to_quiescence();
    if (procs_alive != 0) FAIL("%" PRId64 " ring processes did not exit", procs_alive);
    if (r->count != ring_total * tokens)
        FAIL("count mismatch: processes counted %" PRId64 " receipts, expected n*m*tokens = %" PRId64, r->count,
             ring_total * tokens);
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
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

static void iter_spawn(result_t *r)
{
    const int64_t n = V(P_N);
    note_reserve(1);
    phase_t ph = spawn_begin();
    ready_seen = 0;
    ready_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_new(i, S_SPAWN_START);
        spawned(i);
    }
    ready_expect(n);
    spawn_end(ph, r);
    r->ready = r->count = ready_seen;
    /* untimed: release them all */
    for (int64_t i = 1; i <= n; i++) send(R(i), K_RELEASE, 0);
    run_to_quiescence();
    if (procs_alive != 0) FAIL("spawn: %" PRId64 " processes did not exit", procs_alive);
    if (r->count != n) FAIL("spawn: %" PRId64 " of %" PRId64 " processes signalled ready", r->count, n);
    r->run_ns = r->run_cpu_ns = 0;
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

static void iter_pingpong(result_t *r)
{
    note_reserve(3);
    phase_t ph = spawn_begin();
    ready_seen = 0;
    ready_want = 2;
    proc_new(1, S_PING_START)->peer = R(2);
    proc_new(2, S_PONG_START)->peer = R(1);
    make_ready(R(1));
    make_ready(R(2));
    ready_expect(2);
    spawn_end(ph, r);
    r->ready = ready_seen;
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    send(R(1), K_GO, V(P_M));
    main_expect(K_DONE, "A's done message");
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "B's count");
    run_to_quiescence();
    if (procs_alive != 0) FAIL("pingpong: processes did not exit");
    if (r->count != V(P_M))
        FAIL("count mismatch: B counted %" PRId64 " round trips, expected %" PRId64, r->count, V(P_M));
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
}

/* ---------------------------------------------------------------- fanin */

/* A sender sends at most fanin_budget messages each time it is scheduled,
 * then goes to the back of the run queue (a reduction budget, as a
 * preemptive runtime would impose), so the receiver's mailbox holds at most
 * about n*budget messages. 16 measured fastest (README); for large n the
 * budget shrinks so that n*budget stays under 2^24 messages (384 MiB). */
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

static void iter_fanin(result_t *r)
{
    const int64_t n = V(P_N), mm = V(P_M);
    fanin_target = n * mm;
    note_reserve(3);
    msg_reserve(n * fanin_budget + 1); /* the receiver's mailbox at its fullest */
    phase_t ph = spawn_begin();
    ready_seen = 0;
    ready_want = n + 1;
    proc_new(1, S_FRECV_START);
    make_ready(R(1));
    for (int64_t i = 2; i <= n + 1; i++) {
        proc_new(i, S_FSEND_START)->peer = R(1);
        spawned(i);
    }
    ready_expect(n + 1);
    spawn_end(ph, r);
    r->ready = ready_seen;
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (int64_t i = 2; i <= n + 1; i++) send(R(i), K_START, mm);
    main_expect(K_DONE, "the receiver's done message");
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    send(R(1), K_STOP, 0);
    r->count = main_expect(K_SUM, "the receiver's count");
    run_to_quiescence();
    if (procs_alive != 0) FAIL("fanin: %" PRId64 " processes did not exit", procs_alive);
    if (r->count != n * mm) FAIL("count mismatch: received %" PRId64 ", expected n*m = %" PRId64, r->count, n * mm);
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
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

static void iter_selective(result_t *r)
{
    const int64_t n = V(P_N), rounds = V(P_M);
    const int reverse = (int)V(P_REVERSE);
    note_reserve(n + 1);
    phase_t ph = spawn_begin();
    ready_seen = 0;
    ready_want = n;
    for (int64_t i = 1; i <= n; i++) {
        proc_new(i, S_WORKER_START);
        spawned(i);
    }
    ready_expect(n);
    spawn_end(ph, r);
    r->ready = ready_seen;
    int64_t collected = 0;
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (int64_t round = 0; round < rounds; round++) {
        for (int64_t i = 1; i <= n; i++) send(R(i), K_REQUEST, 0);
        for (int64_t k = 0; k < n; k++) {
            int32_t want = (int32_t)(reverse ? n - 1 - k : k);
            note_t *m = main_recv_match(K_REPLY, want);
            if (!m) FAIL("selective: reply from worker %d never came (round %" PRId64 ")", want, round + 1);
            note_release(m);
            collected++;
        }
    }
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    for (int64_t i = 1; i <= n; i++) send(R(i), K_STOP, 0);
    run_to_quiescence();
    if (procs_alive != 0) FAIL("selective: %" PRId64 " workers did not exit", procs_alive);
    if (collected != n * rounds)
        FAIL("count mismatch: collected %" PRId64 ", expected %" PRId64, collected, n * rounds);
    r->count = collected;
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
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
        case S_MAIN: main_queued = 0; return 1;
        default: FAIL("internal: process %d scheduled in state %u", idx_of(p), p->state);
        }
    }
}

/* ------------------------------------------------------------------ main */

static const char *const WORKLOADS[] = {"ring", "spawn", "pingpong", "fanin", "selective", "trace"};

static void describe(void)
{
    printf("{\"type\":\"describe\",\"contract\":2,\"name\":\"c-coro\","
           "\"runtime\":\"C (single-thread state-machine processes, no runtime)\","
           "\"version\":\"gcc %s\",\"workloads\":[",
           __VERSION__);
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        printf("%s\"%s\"", i ? "," : "", WORKLOADS[i]);
    printf("],\"features\":[\"tokens\",\"continuous\",\"stats\"],\"variant\":\"\","
           "\"os_threads\":1,\"note\":\"one OS thread: cores>1 is accepted and ignored\"}\n");
}

#define USAGE "usage: ringbench-c-coro describe | run <workload> key=value ..."

int main(int argc, char **argv)
{
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (argc < 2) BAD(USAGE);
    if (strcmp(argv[1], "describe") == 0) {
        if (argc != 2) BAD("describe takes no arguments");
        describe();
        fflush(stdout);
        return 0;
    }
    if (strcmp(argv[1], "run") != 0) BAD("unknown verb '%s'; " USAGE, argv[1]);
    if (argc < 3) BAD("run needs a workload: ring, spawn, pingpong, fanin, selective, trace");
    workload = argv[2];
    int w = -1;
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        if (strcmp(workload, WORKLOADS[i]) == 0) w = (int)i;
    if (w < 0)
        die(2, "unknown_workload", "unknown workload '%s' (known: ring, spawn, pingpong, fanin, selective, trace)",
            workload);

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    P[P_CORES].def = cpus > 0 && cpus <= 1024 ? cpus : 1;
    switch (w) {
    case 0: P[P_N].allowed = P[P_M].allowed = P[P_TOKENS].allowed = P[P_BURST].allowed = 1; break;
    case 1: P[P_N].allowed = 1; break;
    case 2: P[P_M].allowed = 1; break;
    case 3: P[P_N].allowed = P[P_M].allowed = 1; break;
    case 4: P[P_N].allowed = P[P_M].allowed = P[P_REVERSE].allowed = 1; break;
    case 5:
        P[P_N].allowed = P[P_M].allowed = 1;
        P[P_N].max = P[P_M].max = 100;
        break;
    }
    if (w == 0) P[P_M].required = 0, P[P_M].def = 1; /* checked below: continuous mode ignores m */
    parse_params(argc - 3, argv + 3);
    if (w == 0 && !P[P_M].given && V(P_SAMPLE_MS) == 0) BAD("workload ring needs key m");

    const int64_t n = V(P_N);
    if (w == 0) {
        if (V(P_TOKENS) > n) BAD("tokens must be <= n (n=%" PRId64 "), got %" PRId64, n, V(P_TOKENS));
        if ((__int128)n * V(P_M) * V(P_TOKENS) >= ((__int128)1 << 62))
            BAD("n*m*tokens must be < 2^62, got %" PRId64 "*%" PRId64 "*%" PRId64, n, V(P_M), V(P_TOKENS));
    }
    if (w == 3 && (__int128)n * V(P_M) >= ((__int128)1 << 62)) BAD("n*m must be < 2^62");
    if (V(P_SAMPLE_MS) > 0 && w != 0)
        BAD("sample_ms > 0 (continuous mode) is defined for the ring workload only, not %s", workload);
    if (w == 3) {
        fanin_budget = FANIN_MAILBOX_CAP / n;
        if (fanin_budget > FANIN_BUDGET_MAX) fanin_budget = FANIN_BUDGET_MAX;
        if (fanin_budget < 1) fanin_budget = 1;
    }
    table_map(w == 2 ? 2 : w == 3 ? n + 1 : n);

    const int64_t warmup = V(P_WARMUP), repeats = V(P_REPEATS);
    for (int64_t it = 0; it < warmup + repeats; it++) {
        const int measured = it >= warmup;
        result_t r = {0};
        getrusage(RUSAGE_SELF, &ru0);
        switch (w) {
        case 0: iter_ring(&r, 0); break;
        case 1: iter_spawn(&r); break;
        case 2: iter_pingpong(&r); break;
        case 3: iter_fanin(&r); break;
        case 4: iter_selective(&r); break;
        case 5:
            trace_print = measured; /* a warm-up trace prints no hops */
            iter_ring(&r, 1);
            break;
        }
        if (measured) {
            print_result(&r, it - warmup + 1);
            if (V(P_STATS)) print_stats(it - warmup + 1);
        }
    }
    fflush(stdout);
    return 0;
}
