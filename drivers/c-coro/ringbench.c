/*
 * ringbench-c-coro: the floor. One OS thread, no runtime.
 *
 * A process is a 64-byte struct: its own FIFO mailbox (intrusive linked list
 * of messages), a step function (its code, written as an explicit state
 * machine), its private state, and a link for the run queue. A single-thread
 * scheduler runs ready processes in FIFO order. A send takes a message node
 * from a free-list pool, appends it to the receiver's mailbox and, if the
 * receiver was not already ready, appends the receiver to the run queue.
 * The "main process" of the contract is a process too (main_proc): its code
 * is the driver's own control flow, which gives the CPU to the scheduler when
 * it blocks in a receive and gets it back when a message reaches its mailbox.
 *
 * See README.md for why a state machine rather than stackful coroutines.
 * Driver contract: docs/driver-contract.md (version 1).
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

static inline int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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
    K_TOKEN = 1, K_DONE, K_STOP, K_SUM, K_READY, K_RELEASE,
    K_GO, K_PING, K_PONG, K_START, K_DATA, K_REQUEST, K_REPLY
};

typedef struct msg {
    struct msg *next;
    int64_t value;
    int32_t kind;
    int32_t from;
} msg_t; /* 24 bytes */

typedef struct proc proc_t;
typedef void (*step_fn)(proc_t *);

struct proc {
    msg_t *mb_head, *mb_tail; /* the mailbox, FIFO */
    proc_t *rq_next;          /* run-queue link (also the pool's free-list link) */
    proc_t *peer;             /* the one process this one knows (ring successor, partner, receiver) */
    step_fn step;             /* its code: runs when it is scheduled, returns when it blocks */
    int64_t count;            /* receipts (or per-workload state) */
    int64_t aux;              /* per-workload state */
    int32_t index;
    uint32_t queued;          /* on the run queue (or running main) */
};
_Static_assert(sizeof(proc_t) == 64, "a process is one cache line");

/* Slabs come straight from mmap so that an iteration's memory goes back to
 * the kernel at teardown and the next iteration's rss_before is honest. */
typedef struct slab { struct slab *next; size_t bytes; char pad[48]; } slab_t;

#define PROC_SLAB_BYTES (2u << 20) /* 32767 processes per slab; one transparent huge page */
#define MSG_SLAB_BYTES (1u << 16)  /* 2728 messages per slab */

static slab_t *proc_slabs, *msg_slabs;
static int64_t proc_pool_bytes, msg_pool_bytes, proc_slab_count, msg_slab_count;
static proc_t *proc_free, *proc_bump, *proc_bump_end;
static msg_t *msg_free;
static int64_t procs_alive, procs_peak;

static int use_thp = 1; /* RINGBENCH_C_CORO_THP=0 turns it off */

static void *slab_new(size_t bytes, slab_t **list, const char *what)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        LIMIT("mmap of %zu bytes for the %s pool failed (%s) with %" PRId64 " processes alive: "
              "the machine's memory or the address-space limit is exhausted; lower n, free memory, "
              "or raise `ulimit -v` / the cgroup memory limit",
              bytes, what, strerror(errno), procs_alive);
    /* Huge pages from the second process slab on: a big ring faults 1 page per
     * 2 MiB instead of 512 and walks its processes with few TLB misses, while
     * a small one (under 32767 processes) keeps 4 KiB pages and a small RSS. */
    if (use_thp && list == &proc_slabs && proc_slab_count >= 1) madvise(p, bytes, MADV_HUGEPAGE);
    slab_t *s = p;
    s->next = *list;
    s->bytes = bytes;
    *list = s;
    return s + 1;
}

static void __attribute__((noinline)) proc_refill(void)
{
    proc_t *base = slab_new(PROC_SLAB_BYTES, &proc_slabs, "process");
    proc_pool_bytes += PROC_SLAB_BYTES;
    proc_slab_count++;
    proc_bump = base;
    proc_bump_end = base + (PROC_SLAB_BYTES - sizeof(slab_t)) / sizeof(proc_t);
}

static inline proc_t *proc_new(step_fn step, int32_t index)
{
    proc_t *p = proc_free;
    if (p) {
        proc_free = p->rq_next;
    } else {
        if (unlikely(proc_bump == proc_bump_end)) proc_refill();
        p = proc_bump++;
    }
    p->mb_head = p->mb_tail = NULL;
    p->rq_next = NULL;
    p->peer = NULL;
    p->step = step;
    p->count = 0;
    p->aux = 0;
    p->index = index;
    p->queued = 0;
    if (++procs_alive > procs_peak) procs_peak = procs_alive;
    return p;
}

static msg_t *__attribute__((noinline)) msg_refill(void)
{
    msg_t *base = slab_new(MSG_SLAB_BYTES, &msg_slabs, "message");
    msg_pool_bytes += MSG_SLAB_BYTES;
    msg_slab_count++;
    size_t k = (MSG_SLAB_BYTES - sizeof(slab_t)) / sizeof(msg_t);
    for (size_t i = 1; i + 1 < k; i++) base[i].next = &base[i + 1];
    base[k - 1].next = msg_free;
    msg_free = &base[1];
    return &base[0];
}

static inline msg_t *msg_alloc(void)
{
    msg_t *m = msg_free;
    if (likely(m != NULL)) {
        msg_free = m->next;
        return m;
    }
    return msg_refill();
}

static inline void msg_release(msg_t *m)
{
    m->next = msg_free;
    msg_free = m;
}

static void msg_reserve(int64_t k)
{
    int64_t have = 0;
    for (msg_t *m = msg_free; m && have < k; m = m->next) have++;
    while (have < k) {
        msg_release(msg_refill());
        have += (MSG_SLAB_BYTES - sizeof(slab_t)) / sizeof(msg_t);
    }
}

static void proc_exit(proc_t *p)
{
    msg_t *m = p->mb_head;
    while (m) {
        msg_t *nx = m->next;
        msg_release(m);
        m = nx;
    }
    p->mb_head = p->mb_tail = NULL;
    p->step = NULL;
    p->rq_next = proc_free;
    proc_free = p;
    procs_alive--;
}

static void pools_reset(void)
{
    while (proc_slabs) { slab_t *s = proc_slabs; proc_slabs = s->next; munmap(s, s->bytes); }
    while (msg_slabs) { slab_t *s = msg_slabs; msg_slabs = s->next; munmap(s, s->bytes); }
    proc_free = proc_bump = proc_bump_end = NULL;
    msg_free = NULL;
    proc_pool_bytes = msg_pool_bytes = proc_slab_count = msg_slab_count = 0;
    procs_peak = procs_alive;
}

/* ---------------------------------------------------------------- scheduler */

static proc_t *rq_head, *rq_tail;
static proc_t main_proc; /* the contract's main process; its code is the driver's control flow */

static inline void make_ready(proc_t *p)
{
    if (!p->queued) {
        p->queued = 1;
        p->rq_next = NULL;
        if (rq_tail) rq_tail->rq_next = p; else rq_head = p;
        rq_tail = p;
    }
}

static inline void send(proc_t *to, msg_t *m)
{
    m->next = NULL;
    if (to->mb_tail) to->mb_tail->next = m; else to->mb_head = m;
    to->mb_tail = m;
    make_ready(to);
}

static inline msg_t *recv(proc_t *p)
{
    msg_t *m = p->mb_head;
    if (m) {
        p->mb_head = m->next;
        if (!p->mb_head) p->mb_tail = NULL;
    }
    return m;
}

/* Run ready processes in FIFO order until main is at the head of the queue
 * (a message reached it): return 1. Return 0 if nothing is ready at all
 * (every process is blocked: main would wait forever). */
static int run_until_main(void)
{
    proc_t *p;
    while ((p = rq_head) != NULL) {
        rq_head = p->rq_next;
        if (!rq_head) rq_tail = NULL;
        p->queued = 0;
        if (unlikely(p == &main_proc)) return 1;
        p->step(p);
    }
    return 0;
}

/* main's plain receive: the first message in its mailbox */
static msg_t *main_recv(void)
{
    for (;;) {
        msg_t *m = recv(&main_proc);
        if (m) return m;
        if (!run_until_main()) return NULL;
    }
}

/* main's selective receive: the first message matching (kind, from); the
 * others stay in the mailbox in order. While it waits it keeps its place
 * (messages already scanned are not scanned again in this receive). */
static msg_t *main_recv_match(int32_t kind, int32_t from)
{
    msg_t *prev = NULL, *cur = main_proc.mb_head;
    for (;;) {
        while (cur) {
            if (cur->kind == kind && cur->from == from) {
                if (prev) prev->next = cur->next; else main_proc.mb_head = cur->next;
                if (main_proc.mb_tail == cur) main_proc.mb_tail = prev;
                return cur;
            }
            prev = cur;
            cur = cur->next;
        }
        if (!run_until_main()) return NULL;
        cur = prev ? prev->next : main_proc.mb_head;
    }
}

static inline void send_new(proc_t *to, int32_t kind, int64_t value, int32_t from)
{
    msg_t *m = msg_alloc();
    m->kind = kind;
    m->value = value;
    m->from = from;
    send(to, m);
}

/* drain the scheduler after teardown messages: every process runs to its exit */
static void run_to_quiescence(void)
{
    while (run_until_main()) {
        /* main got a message it did not ask for: unexpected */
        msg_t *m;
        while ((m = recv(&main_proc)) != NULL) msg_release(m);
    }
}

/* -------------------------------------------------------------- parameters */

enum { P_N, P_M, P_TOKENS, P_REVERSE, P_REPEATS, P_WARMUP, P_CORES, P_SAMPLE_MS, P_SAMPLES, P_STATS, P_COUNT };

typedef struct {
    const char *name;
    int64_t min, max, def;
    int required; /* 1: must be given (no default) */
    int allowed;  /* for this workload */
    int given;
    int64_t val;
} param_t;

static param_t P[P_COUNT] = {
    [P_N] = {"n", 1, 10000000, 0, 1, 0, 0, 0},
    [P_M] = {"m", 1, 1000000000, 0, 1, 0, 0, 0},
    [P_TOKENS] = {"tokens", 1, 10000000, 1, 0, 0, 0, 0},
    [P_REVERSE] = {"reverse", 0, 1, 0, 0, 0, 0, 0},
    [P_REPEATS] = {"repeats", 1, 1000000, 1, 0, 1, 0, 0},
    [P_WARMUP] = {"warmup", 0, 1000000, 0, 0, 1, 0, 0},
    [P_CORES] = {"cores", 1, 1000000, 1, 0, 1, 0, 0},
    [P_SAMPLE_MS] = {"sample_ms", 0, 1000000000, 0, 0, 1, 0, 0},
    [P_SAMPLES] = {"samples", 1, 1000000000, 3, 0, 1, 0, 0},
    [P_STATS] = {"stats", 0, 1, 0, 0, 1, 0, 0},
};

#define V(k) (P[k].val)

/* strict decimal integer: optional '-', then 1+ digits, nothing else */
static int parse_int(const char *s, int64_t *out, int *overflow)
{
    const char *p = s;
    int neg = 0;
    *overflow = 0;
    if (*p == '-') { neg = 1; p++; }
    if (!*p) return 0;
    int64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        if (v > (INT64_MAX - 9) / 10) *overflow = 1; else v = v * 10 + (*p - '0');
    }
    *out = neg ? -v : v;
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
        int64_t v;
        int ovf;
        if (!parse_int(val, &v, &ovf)) BAD("%s must be a decimal integer, got '%s'", P[k].name, val);
        if (ovf || v < P[k].min || v > P[k].max) {
            if (P[k].min == 1 && v < 1 && !ovf)
                BAD("%s must be an integer >= 1, got '%s'", P[k].name, val);
            BAD("%s must be between %" PRId64 " and %" PRId64 ", got '%s'", P[k].name, P[k].min, P[k].max, val);
        }
        P[k].given = 1;
        P[k].val = v;
    }
    for (int k = 0; k < P_COUNT; k++) {
        if (!P[k].allowed || P[k].given) continue;
        if (P[k].required) BAD("workload %s needs key %s", workload, P[k].name);
        P[k].val = P[k].def;
    }
}

/* ------------------------------------------------------------- limit checks */

static int64_t read_meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    int64_t v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') { v = strtoll(line + kl + 1, NULL, 10) * 1024; break; }
    fclose(f);
    return v;
}

static int64_t read_file_int(const char *path) /* -1: absent or "max" */
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[64] = "";
    int64_t v = -1;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9') v = strtoll(buf, NULL, 10);
    fclose(f);
    return v;
}

/* Refuse before spawning anything if `need` bytes will not fit. */
static void check_memory(int64_t need, const char *what)
{
    const int64_t MiB = 1 << 20;
    int64_t avail = read_meminfo("MemAvailable");
    if (avail > 0 && need > avail - avail / 10)
        LIMIT("%s needs about %" PRId64 " MiB but the machine has %" PRId64 " MiB available "
              "(MemAvailable in /proc/meminfo, keeping 10%% headroom); lower n or free memory",
              what, need / MiB, avail / MiB);
    struct rlimit rl;
    int64_t vmsize = 0;
    {
        FILE *f = fopen("/proc/self/statm", "r");
        long long pages = 0;
        if (f) { if (fscanf(f, "%lld", &pages) != 1) pages = 0; fclose(f); }
        vmsize = pages * sysconf(_SC_PAGESIZE);
    }
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && need + vmsize > (int64_t)rl.rlim_cur)
        LIMIT("%s needs about %" PRId64 " MiB of address space but RLIMIT_AS allows %" PRId64
              " MiB in all (%" PRId64 " MiB in use); raise it with `ulimit -v` or lower n",
              what, need / MiB, (int64_t)rl.rlim_cur / MiB, vmsize / MiB);
    /* cgroup memory limit: v2 memory.max, or v1 memory.limit_in_bytes */
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            const char *dir, *maxf, *curf, *cg;
            if (strncmp(line, "0::", 3) == 0) {
                cg = line + 3; dir = "/sys/fs/cgroup"; maxf = "memory.max"; curf = "memory.current";
            } else if (strstr(line, ":memory:")) {
                cg = strstr(line, ":memory:") + 8; dir = "/sys/fs/cgroup/memory"; maxf = "memory.limit_in_bytes"; curf = "memory.usage_in_bytes";
            } else {
                continue;
            }
            char path[700];
            snprintf(path, sizeof path, "%s%s/%s", dir, cg, maxf);
            int64_t max = read_file_int(path);
            snprintf(path, sizeof path, "%s%s/%s", dir, cg, curf);
            int64_t cur = read_file_int(path);
            if (max > 0 && max < (INT64_C(1) << 60) && cur >= 0 && need > max - cur) {
                char msg[600];
                snprintf(msg, sizeof msg, "%s/%s", cg, maxf);
                fclose(f);
                LIMIT("%s needs about %" PRId64 " MiB but the cgroup memory limit (%s) leaves %" PRId64
                      " MiB; raise that limit or lower n", what, need / MiB, msg, (max - cur) / MiB);
            }
        }
        fclose(f);
    }
}

/* ------------------------------------------------------------ measurements */

typedef struct {
    int64_t count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after;
    int64_t rt_before, rt_after; /* runtime_mem_*: bytes of this driver's process+message pools */
    int has_rt;
} result_t;

static struct rusage ru0;

static inline int64_t pools_bytes(void) { return proc_pool_bytes + msg_pool_bytes; }

static void print_result(const result_t *r, int iteration)
{
    printf("{\"type\":\"result\",\"workload\":\"%s\",\"iteration\":%d", workload, iteration);
    static const int echo[] = {P_N, P_M, P_TOKENS, P_REVERSE};
    for (size_t i = 0; i < sizeof echo / sizeof echo[0]; i++)
        if (P[echo[i]].allowed) printf(",\"%s\":%" PRId64, P[echo[i]].name, P[echo[i]].val);
    printf(",\"count\":%" PRId64 ",\"setup_ns\":%" PRId64 ",\"run_ns\":%" PRId64
           ",\"setup_cpu_ns\":%" PRId64 ",\"run_cpu_ns\":%" PRId64
           ",\"rss_before\":%" PRId64 ",\"rss_after\":%" PRId64,
           r->count, r->setup_ns, r->run_ns, r->setup_cpu_ns, r->run_cpu_ns, r->rss_before, r->rss_after);
    if (r->has_rt)
        printf(",\"runtime_mem_before\":%" PRId64 ",\"runtime_mem_after\":%" PRId64, r->rt_before, r->rt_after);
    printf("}\n");
}

static void print_stats(int iteration)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct mallinfo2 mi = mallinfo2();
    printf("{\"type\":\"stats\",\"iteration\":%d,\"os_threads\":1,\"process_bytes\":%zu,\"message_bytes\":%zu"
           ",\"process_pool_bytes\":%" PRId64 ",\"process_slabs\":%" PRId64
           ",\"message_pool_bytes\":%" PRId64 ",\"message_slabs\":%" PRId64
           ",\"processes_peak\":%" PRId64 ",\"processes_alive\":%" PRId64
           ",\"malloc_in_use_bytes\":%zu,\"max_rss_bytes\":%" PRId64
           ",\"minor_faults\":%ld,\"major_faults\":%ld"
           ",\"voluntary_context_switches\":%ld,\"involuntary_context_switches\":%ld}\n",
           iteration, sizeof(proc_t), sizeof(msg_t),
           proc_pool_bytes, proc_slab_count, msg_pool_bytes, msg_slab_count,
           procs_peak, procs_alive, mi.uordblks, (int64_t)ru.ru_maxrss * 1024,
           ru.ru_minflt - ru0.ru_minflt, ru.ru_majflt - ru0.ru_majflt,
           ru.ru_nvcsw - ru0.ru_nvcsw, ru.ru_nivcsw - ru0.ru_nivcsw);
}

/* ---------------------------------------------------------------- the ring */

static int64_t ring_total; /* n*m: the value each token starts with (trace: hop numbering) */
static int trace_print = 1;

/* the stop message: value = running sum, from = processes still to visit */
static void stop_forward(proc_t *p, msg_t *m)
{
    int64_t sum = m->value + p->count;
    int32_t rem = m->from - 1;
    proc_t *next = p->peer;
    msg_release(m);
    if (rem > 0) send_new(next, K_STOP, sum, rem);
    else send_new(&main_proc, K_SUM, sum, p->index);
    proc_exit(p);
}

static void ring_step(proc_t *p)
{
    msg_t *m;
    while ((m = recv(p)) != NULL) {
        if (likely(m->kind == K_TOKEN)) {
            int64_t v = m->value;
            p->count++;
#ifdef RING_REUSE
            m->value = v - 1;
            m->from = p->index;
            if (likely(v != 1)) send(p->peer, m);
            else { m->kind = K_DONE; send(&main_proc, m); }
#else
            msg_release(m);
            if (likely(v != 1)) send_new(p->peer, K_TOKEN, v - 1, p->index);
            else send_new(&main_proc, K_DONE, 0, p->index);
#endif
        } else if (m->kind == K_STOP) {
            stop_forward(p, m);
            return;
        } else {
            msg_release(m);
        }
    }
}

/* trace: as ring, and print the hop from inside the receiving process */
static void trace_step(proc_t *p)
{
    msg_t *m;
    while ((m = recv(p)) != NULL) {
        if (m->kind == K_TOKEN) {
            int64_t v = m->value, hop = ring_total - v + 1;
            int32_t from = m->from;
            p->count++;
            msg_release(m);
            if (trace_print)
                printf("{\"type\":\"hop\",\"hop\":%" PRId64 ",\"lap\":%" PRId64 ",\"from\":%d,\"to\":%d}\n",
                   hop, (hop - 1) / V(P_N) + 1, from, p->index);
            if (v != 1) send_new(p->peer, K_TOKEN, v - 1, p->index);
            else send_new(&main_proc, K_DONE, 0, p->index);
        } else if (m->kind == K_STOP) {
            stop_forward(p, m);
            return;
        } else {
            msg_release(m);
        }
    }
}

/* continuous mode: p0 counts laps and, every CHECK_HOPS hops or so, looks at
 * the clock and prints the samples that have come due. Single thread: there is
 * no sampler running beside the ring, so the sample is taken between hops. */
#define CHECK_HOPS 1024
static int64_t cont_t0, cont_laps, cont_hops_since_check, cont_next_due, cont_period, cont_last_count;
static int64_t cont_seq;

static void __attribute__((noinline)) cont_emit(int64_t elapsed, int64_t count)
{
    cont_seq++;
    printf("{\"type\":\"sample\",\"seq\":%" PRId64 ",\"elapsed_ns\":%" PRId64 ",\"count\":%" PRId64 "}\n",
           cont_seq, elapsed, count);
    fflush(stdout);
    if (cont_seq >= V(P_SAMPLES)) exit(0); /* contract: exit 0 without teardown */
}

static void __attribute__((noinline)) cont_check(void)
{
    int64_t now = mono_ns() - cont_t0;
    int64_t c = cont_laps * V(P_N);
    if (now >= cont_next_due) {
        /* samples that fell due while the last stretch of laps ran: what a sampler
         * would have read then (no lap completed since the previous check) */
        while (cont_next_due + cont_period <= now) {
            cont_emit(cont_next_due, cont_last_count);
            cont_next_due += cont_period;
        }
        cont_emit(now, c);
        cont_next_due += cont_period;
    }
    cont_last_count = c;
}

static void ring_step_cont0(proc_t *p)
{
    msg_t *m;
    while ((m = recv(p)) != NULL) {
        if (likely(m->kind == K_TOKEN)) {
            int64_t v = m->value;
            int32_t from = m->from;
            p->count++;
            msg_release(m);
            if (likely(from != -1)) { /* a token just injected by main has done no lap yet */
                cont_laps++;
                cont_hops_since_check += V(P_N);
                if (cont_hops_since_check >= CHECK_HOPS) {
                    cont_hops_since_check = 0;
                    cont_check();
                }
            }
            send_new(p->peer, K_TOKEN, v - 1, p->index);
        } else {
            msg_release(m);
        }
    }
}

static void iter_ring(result_t *r, int trace)
{
    const int64_t n = V(P_N), tokens = trace ? 1 : V(P_TOKENS);
    const int continuous = !trace && V(P_SAMPLE_MS) > 0;
    ring_total = n * V(P_M);
    step_fn step = trace ? trace_step : ring_step;
    /* main's note of where to inject the tokens: allocated before the phase */
    proc_t **inject = malloc(sizeof(proc_t *) * (size_t)tokens);
    if (!inject) LIMIT("malloc of %" PRId64 " injection pointers failed; lower tokens", tokens);

    r->rss_before = rss_bytes();
    r->rt_before = pools_bytes();
    int64_t t0 = mono_ns(), c0 = cpu_ns();
    /* spawn: p0 ... p(n-1), each linked to its successor */
    proc_t *p0 = proc_new(continuous ? ring_step_cont0 : step, 0), *prev = p0;
    int64_t j = 0;
    inject[j++] = p0;
    int64_t next_inject = tokens > 1 ? n / tokens : -1; /* p(j*n div tokens) */
    for (int64_t i = 1; i < n; i++) {
        proc_t *p = proc_new(step, (int32_t)i);
        prev->peer = p;
        prev = p;
        if (i == next_inject) {
            inject[j++] = p;
            next_inject = j < tokens ? (int64_t)((__int128)j * n / tokens) : -1;
        }
    }
    prev->peer = p0;
    msg_reserve(tokens + 1);
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->rss_after = rss_bytes();
    r->rt_after = pools_bytes();
    r->has_rt = 1;
    if (j != tokens) FAIL("internal: placed %" PRId64 " of %" PRId64 " tokens", j, tokens);

    if (continuous) {
        cont_period = V(P_SAMPLE_MS) * 1000000;
        cont_next_due = cont_period;
        cont_t0 = mono_ns();
        for (int64_t k = 0; k < tokens; k++) send_new(inject[k], K_TOKEN, INT64_C(1) << 62, -1);
        run_until_main(); /* does not come back: p0 exits after the last sample */
        FAIL("continuous ring stopped circulating");
    }

    /* message phase */
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (int64_t k = 0; k < tokens; k++) send_new(inject[k], K_TOKEN, ring_total, -1);
    int64_t done = 0;
    while (done < tokens) {
        msg_t *m = main_recv();
        if (!m) break;
        if (m->kind == K_DONE) done++;
        msg_release(m);
    }
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    free(inject);
    if (done != tokens) FAIL("ring deadlocked: %" PRId64 " of %" PRId64 " tokens finished", done, tokens);

    /* proof: a stop message goes round once, summing receipts; every process exits */
    send_new(p0, K_STOP, 0, (int32_t)n);
    msg_t *m = main_recv();
    if (!m || m->kind != K_SUM) FAIL("proof: the stop message did not come back");
    r->count = m->value;
    msg_release(m);
    run_to_quiescence();
    if (procs_alive != 0) FAIL("%" PRId64 " ring processes did not exit", procs_alive);
    if (r->count != ring_total * tokens)
        FAIL("count mismatch: processes counted %" PRId64 " receipts, expected n*m*tokens = %" PRId64,
             r->count, ring_total * tokens);
    r->setup_ns = t1 - t0;
    r->setup_cpu_ns = c1 - c0;
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
}

/* --------------------------------------------------------------- spawn */

static void spawn_step(proc_t *p)
{
    if (!p->aux) { /* first run: say ready, then block */
        p->aux = 1;
        send_new(&main_proc, K_READY, 0, p->index);
    }
    msg_t *m;
    while ((m = recv(p)) != NULL) {
        int k = m->kind;
        msg_release(m);
        if (k == K_RELEASE) { proc_exit(p); return; }
    }
}

static void iter_spawn(result_t *r)
{
    const int64_t n = V(P_N);
    r->rss_before = rss_bytes();
    r->rt_before = pools_bytes();
    int64_t t0 = mono_ns(), c0 = cpu_ns();
    proc_t *all = NULL; /* main's list of what it spawned, threaded through peer */
    for (int64_t i = 0; i < n; i++) {
        proc_t *p = proc_new(spawn_step, (int32_t)i);
        p->peer = all;
        all = p;
        make_ready(p);
    }
    int64_t ready = 0;
    while (ready < n) {
        msg_t *m = main_recv();
        if (!m) break;
        if (m->kind == K_READY) ready++;
        msg_release(m);
    }
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->rss_after = rss_bytes();
    r->rt_after = pools_bytes();
    r->has_rt = 1;
    if (ready != n) FAIL("spawn: %" PRId64 " of %" PRId64 " ready messages arrived", ready, n);
    for (proc_t *p = all; p;) {
        proc_t *nx = p->peer;
        send_new(p, K_RELEASE, 0, -1);
        p = nx;
    }
    run_to_quiescence();
    if (procs_alive != 0) FAIL("spawn: %" PRId64 " processes did not exit", procs_alive);
    r->count = ready;
    r->setup_ns = t1 - t0;
    r->setup_cpu_ns = c1 - c0;
    r->run_ns = r->run_cpu_ns = 0;
}

/* ------------------------------------------------------------- pingpong */

/* A: count = round trips wanted, aux = round trips done, peer = B */
static void ping_step(proc_t *a)
{
    msg_t *m;
    while ((m = recv(a)) != NULL) {
        int k = m->kind;
        int64_t v = m->value;
        int32_t from = m->from;
        msg_release(m);
        if (k == K_PONG) {
            if (++a->aux == a->count) send_new(&main_proc, K_DONE, 0, a->index);
            else send_new(a->peer, K_PING, 0, a->index);
        } else if (k == K_GO) {
            a->count = v;
            a->aux = 0;
            send_new(a->peer, K_PING, 0, a->index);
        } else if (k == K_STOP) { /* pass the proof on to B, adding nothing */
            send_new(a->peer, K_STOP, v, from);
            proc_exit(a);
            return;
        }
    }
}

/* B: count = round trips answered, peer = A */
static void pong_step(proc_t *b)
{
    msg_t *m;
    while ((m = recv(b)) != NULL) {
        int k = m->kind;
        int64_t v = m->value;
        msg_release(m);
        if (k == K_PING) {
            b->count++;
            send_new(b->peer, K_PONG, 0, b->index);
        } else if (k == K_STOP) {
            send_new(&main_proc, K_SUM, v + b->count, b->index);
            proc_exit(b);
            return;
        }
    }
}

static void iter_pingpong(result_t *r)
{
    r->rss_before = rss_bytes();
    int64_t t0 = mono_ns(), c0 = cpu_ns();
    proc_t *a = proc_new(ping_step, 0), *b = proc_new(pong_step, 1);
    a->peer = b;
    b->peer = a;
    msg_reserve(2);
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->rss_after = rss_bytes();
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    send_new(a, K_GO, V(P_M), -1);
    msg_t *m = main_recv();
    int ok = m && m->kind == K_DONE;
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    if (m) msg_release(m);
    if (!ok) FAIL("pingpong: A never reported done");
    send_new(a, K_STOP, 0, 2);
    m = main_recv();
    if (!m || m->kind != K_SUM) FAIL("pingpong: B's count did not arrive");
    r->count = m->value;
    msg_release(m);
    run_to_quiescence();
    if (procs_alive != 0) FAIL("pingpong: processes did not exit");
    if (r->count != V(P_M)) FAIL("count mismatch: B counted %" PRId64 " round trips, expected %" PRId64, r->count, V(P_M));
    r->setup_ns = t1 - t0;
    r->setup_cpu_ns = c1 - c0;
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
}

/* ---------------------------------------------------------------- fanin */

/* A sender sends at most fanin_budget messages each time it is scheduled, then
 * goes to the back of the run queue (a reduction budget, as a preemptive
 * runtime would impose), so the receiver's mailbox holds at most about
 * n*budget messages. 16 measured fastest (README); for large n the budget
 * shrinks so that n*budget stays under 2^24 messages (384 MiB). */
#define FANIN_BUDGET_MAX 16
#define FANIN_MAILBOX_CAP (INT64_C(1) << 24)
static int64_t fanin_budget = FANIN_BUDGET_MAX;

/* sender: count = messages still to send, peer = receiver, aux = main's list link */
static void fanin_send_step(proc_t *s)
{
    msg_t *m;
    while ((m = recv(s)) != NULL) {
        if (m->kind == K_START) s->count = m->value;
        msg_release(m);
    }
    for (int64_t b = 0; b < fanin_budget && s->count > 0; b++) {
        send_new(s->peer, K_DATA, 0, s->index);
        s->count--;
    }
    if (s->count > 0) make_ready(s);
    else proc_exit(s); /* its work is done: the process ends */
}

/* receiver: count = messages received, aux = n*m expected */
static void fanin_recv_step(proc_t *rcv)
{
    msg_t *m;
    while ((m = recv(rcv)) != NULL) {
        int k = m->kind;
        if (likely(k == K_DATA)) {
            msg_release(m);
            if (++rcv->count == rcv->aux) send_new(&main_proc, K_DONE, 0, rcv->index);
        } else if (k == K_STOP) {
            msg_release(m);
            send_new(&main_proc, K_SUM, rcv->count, rcv->index);
            proc_exit(rcv);
            return;
        } else {
            msg_release(m);
        }
    }
}

static void iter_fanin(result_t *r)
{
    const int64_t n = V(P_N), mm = V(P_M);
    r->rss_before = rss_bytes();
    int64_t t0 = mono_ns(), c0 = cpu_ns();
    proc_t *rcv = proc_new(fanin_recv_step, -1);
    rcv->aux = n * mm;
    proc_t *all = NULL;
    for (int64_t i = 0; i < n; i++) {
        proc_t *s = proc_new(fanin_send_step, (int32_t)i);
        s->peer = rcv;
        s->aux = (int64_t)(intptr_t)all;
        all = s;
    }
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->rss_after = rss_bytes();
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (proc_t *s = all; s; s = (proc_t *)(intptr_t)s->aux) send_new(s, K_START, mm, -1);
    msg_t *m = main_recv();
    int ok = m && m->kind == K_DONE;
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    if (m) msg_release(m);
    if (!ok) FAIL("fanin: the receiver never reported done");
    send_new(rcv, K_STOP, 0, 1);
    m = main_recv();
    if (!m || m->kind != K_SUM) FAIL("fanin: the receiver's count did not arrive");
    r->count = m->value;
    msg_release(m);
    run_to_quiescence();
    if (procs_alive != 0) FAIL("fanin: %" PRId64 " processes did not exit", procs_alive);
    if (r->count != n * mm) FAIL("count mismatch: received %" PRId64 ", expected n*m = %" PRId64, r->count, n * mm);
    r->setup_ns = t1 - t0;
    r->setup_cpu_ns = c1 - c0;
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
}

/* ------------------------------------------------------------ selective */

static void worker_step(proc_t *w)
{
    msg_t *m;
    while ((m = recv(w)) != NULL) {
        int k = m->kind;
        if (k == K_REQUEST) { /* reuse nothing: reply with a fresh message */
            msg_release(m);
            send_new(&main_proc, K_REPLY, 0, w->index);
        } else {
            msg_release(m);
            if (k == K_STOP) { proc_exit(w); return; }
        }
    }
}

static void iter_selective(result_t *r)
{
    const int64_t n = V(P_N), rounds = V(P_M);
    const int reverse = (int)V(P_REVERSE);
    r->rss_before = rss_bytes();
    int64_t t0 = mono_ns(), c0 = cpu_ns();
    proc_t *first = NULL, *prev = NULL; /* w0 -> w1 -> ... through peer: main's list */
    for (int64_t i = 0; i < n; i++) {
        proc_t *w = proc_new(worker_step, (int32_t)i);
        if (prev) prev->peer = w; else first = w;
        prev = w;
    }
    int64_t t1 = mono_ns(), c1 = cpu_ns();
    r->rss_after = rss_bytes();
    int64_t collected = 0;
    int64_t t2 = mono_ns(), c2 = cpu_ns();
    for (int64_t round = 0; round < rounds; round++) {
        for (proc_t *w = first; w; w = w->peer) send_new(w, K_REQUEST, 0, -1);
        for (int64_t k = 0; k < n; k++) {
            int32_t want = (int32_t)(reverse ? n - 1 - k : k);
            msg_t *m = main_recv_match(K_REPLY, want);
            if (!m) FAIL("selective: reply from worker %d never came (round %" PRId64 ")", want, round + 1);
            msg_release(m);
            collected++;
        }
    }
    int64_t t3 = mono_ns(), c3 = cpu_ns();
    for (proc_t *w = first; w;) {
        proc_t *nx = w->peer;
        send_new(w, K_STOP, 0, -1);
        w = nx;
    }
    run_to_quiescence();
    if (procs_alive != 0) FAIL("selective: %" PRId64 " workers did not exit", procs_alive);
    if (collected != n * rounds) FAIL("count mismatch: collected %" PRId64 ", expected %" PRId64, collected, n * rounds);
    r->count = collected;
    r->setup_ns = t1 - t0;
    r->setup_cpu_ns = c1 - c0;
    r->run_ns = t3 - t2;
    r->run_cpu_ns = c3 - c2;
}

/* ------------------------------------------------------------------ main */

static const char *const WORKLOADS[] = {"ring", "spawn", "pingpong", "fanin", "selective", "trace"};

static void describe(void)
{
    printf("{\"type\":\"describe\",\"contract\":1,\"name\":\"c-coro\","
           "\"runtime\":\"C (single-thread state-machine processes, no runtime)\","
           "\"version\":\"gcc %s\",\"workloads\":[", __VERSION__);
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        printf("%s\"%s\"", i ? "," : "", WORKLOADS[i]);
    printf("],\"features\":[\"tokens\",\"continuous\",\"stats\"],\"variant\":\"\","
           "\"os_threads\":1,\"note\":\"one OS thread: cores>1 is accepted and ignored\"}\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    const char *thp = getenv("RINGBENCH_C_CORO_THP");
    if (thp && strcmp(thp, "0") == 0) use_thp = 0;
    if (argc < 2) BAD("usage: ringbench-c-coro describe | run <workload> key=value ...");
    if (strcmp(argv[1], "describe") == 0) {
        describe();
        fflush(stdout);
        return 0;
    }
    if (strcmp(argv[1], "run") != 0)
        BAD("unknown verb '%s' (usage: ringbench-c-coro describe | run <workload> key=value ...)", argv[1]);
    if (argc < 3) BAD("run needs a workload: ring, spawn, pingpong, fanin, selective, trace");
    workload = argv[2];
    int w = -1;
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        if (strcmp(workload, WORKLOADS[i]) == 0) w = (int)i;
    if (w < 0)
        die(2, "unknown_workload", "unknown workload '%s' (known: ring, spawn, pingpong, fanin, selective, trace)", workload);

    switch (w) {
    case 0: P[P_N].allowed = P[P_M].allowed = P[P_TOKENS].allowed = 1; break;
    case 1: P[P_N].allowed = 1; break;
    case 2: P[P_M].allowed = 1; break;
    case 3: P[P_N].allowed = P[P_M].allowed = 1; break;
    case 4: P[P_N].allowed = P[P_M].allowed = P[P_REVERSE].allowed = 1; break;
    case 5:
        P[P_N].allowed = P[P_M].allowed = 1;
        P[P_N].max = P[P_M].max = 100;
        break;
    }
    parse_params(argc - 3, argv + 3);

    const int64_t n = V(P_N);
    if (w == 0) {
        if (V(P_TOKENS) > n) BAD("tokens must be <= n (n=%" PRId64 "), got %" PRId64, n, V(P_TOKENS));
        if ((__int128)n * V(P_M) * V(P_TOKENS) >= ((__int128)1 << 62))
            BAD("n*m*tokens must be < 2^62, got %" PRId64 "*%" PRId64 "*%" PRId64, n, V(P_M), V(P_TOKENS));
    }
    if (V(P_SAMPLE_MS) > 0 && w != 0)
        BAD("sample_ms > 0 (continuous mode) is defined for the ring workload only, not %s", workload);

    /* memory: refuse before spawning anything if it cannot fit */
    const int64_t PB = sizeof(proc_t), MB = sizeof(msg_t), SLAB = PROC_SLAB_BYTES;
    int64_t need = 0;
    switch (w) {
    case 0: case 5: need = n * PB + V(P_TOKENS) * (MB + 8); break;
    case 1: need = n * (PB + MB); break;
    case 2: need = 2 * PB; break;
    case 3:
        fanin_budget = FANIN_MAILBOX_CAP / n;
        if (fanin_budget > FANIN_BUDGET_MAX) fanin_budget = FANIN_BUDGET_MAX;
        if (fanin_budget < 1) fanin_budget = 1;
        need = (n + 1) * PB + n * MB * (fanin_budget + 1);
        break;
    case 4: need = n * (PB + 2 * MB); break;
    }
    need += need / 64 + 2 * SLAB + (8 << 20); /* slab rounding, stdio, headroom */
    char what[96];
    snprintf(what, sizeof what, "%s with n=%" PRId64, workload, w == 2 ? 2 : n);
    check_memory(need, what);

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
            print_result(&r, (int)(it - warmup + 1));
            if (V(P_STATS)) print_stats((int)(it - warmup + 1));
        }
        pools_reset();
    }
    fflush(stdout);
    return 0;
}
