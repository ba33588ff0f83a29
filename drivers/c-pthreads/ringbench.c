/*
 * ringbench driver: C with POSIX threads. One OS thread per process.
 *
 * Two ways to pass a value from one thread to the next, chosen by variant:
 *
 * mailbox (default, message passing): every process owns a mailbox, a FIFO
 *   of fixed-size messages (copied in, copied out) guarded by a pthread
 *   mutex, with a condition variable the owner blocks on while it is empty.
 *   Send = lock the receiver's mailbox, append, unlock, signal if the owner
 *   waits. Receive = lock own mailbox, wait while empty, take the head,
 *   unlock. The blocking hand-off of the 1998 Erlang-vs-Java-threads ring.
 *   The `tuned` variant is this, with the process's futex hash table sized
 *   for its thread count.
 *
 * sem (hand-off, not message passing): the Benchmarks Game thread-ring idiom.
 *   Every process owns one slot and one POSIX semaphore; the sender writes
 *   the value into the receiver's slot and sem_posts the receiver's
 *   semaphore; the receiver sem_waits its own. No queue, no message object.
 *   Where several values can be on their way to one slot at once (the main
 *   process, the fan-in receiver, a ring with several tokens), a second
 *   semaphore counts the slot free, so a sender waits until it is.
 *
 * See docs/driver-contract.md (version 2) for the protocol this program
 * speaks and README.md for what one hop costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The `tuned` variant's thread stack: 32 KiB. The thread bodies use well
 * under 2 KiB of stack (plus glibc's TLS and thread descriptor, which live at
 * the top of the same allocation, and printf in `trace`, ~ a few KiB). 16 KiB
 * (PTHREAD_STACK_MIN) also runs, but leaves little margin for a signal frame
 * with AVX-512 state. The other variants take glibc's default (RLIMIT_STACK,
 * usually 8 MiB of address space), as a program that sets nothing does. */
#ifndef RB_STACK_SIZE
#define RB_STACK_SIZE (32 * 1024)
#endif

/* ------------------------------------------------------------------ output */

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void json_escape(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            /* keep the output pure ASCII JSON */
            o += (size_t)snprintf(dst + o, cap - o, "\\u%04x", c);
        } else {
            dst[o++] = (char)c;
        }
    }
    dst[o] = 0;
}

/* Print one error record and exit. Safe to call from any thread: the other
 * threads end with the process (_exit). */
static void __attribute__((noreturn, format(printf, 3, 4)))
fail(const char *kind, int code, const char *fmt, ...)
{
    char msg[2048], esc[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_escape(esc, sizeof esc, msg);
    pthread_mutex_lock(&out_mu);
    printf("{\"type\":\"error\",\"kind\":\"%s\",\"message\":\"%s\"}\n", kind, esc);
    fflush(stdout);
    fprintf(stderr, "ringbench-c-pthreads: %s: %s\n", kind, msg);
    _exit(code);
}

#define BAD_PARAM(...) fail("bad_param", 2, __VA_ARGS__)

/* ------------------------------------------------------- clocks, memory */

static inline int64_t ts_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}
#define mono_ns() ts_ns(CLOCK_MONOTONIC)
#define cpu_ns() ts_ns(CLOCK_PROCESS_CPUTIME_ID)

static int64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
        res = 0;
    fclose(f);
    return (int64_t)res * sysconf(_SC_PAGESIZE);
}

/* a /proc/meminfo field in kB, -1 if absent */
static int64_t meminfo_kb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kl = strlen(key);
    int64_t v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            v = strtoll(line + kl + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* ------------------------------------------------------------- messages */

enum { M_NONE, M_TOKEN, M_STOP, M_QUIT, M_READY, M_DONE, M_START, M_PING, M_PONG, M_DATA };

typedef struct {
    int32_t kind;
    int32_t from;
    int64_t value;
} msg_t;

#define MSG(k, f, v) ((msg_t){.kind = (k), .from = (f), .value = (v)})

/* Continuous mode: main injects tokens with this value; a token that passes
 * p0 with any other value has gone round once more. */
#define CONT_FRESH (INT64_C(1) << 62)

/* ------------------------------------------------------------- parameters */

typedef struct {
    int64_t n, m, tokens, burst, repeats, warmup, cores, sample_ms, samples, stats;
} params_t;

typedef struct {
    const char *name;
    size_t off;
    int64_t lo, hi, def;
    int required;
} keydef_t;

#define K(f) offsetof(params_t, f)
#define COMMON_KEYS                                                    \
    {"repeats", K(repeats), 1, 1000000, 1, 0},                         \
    {"warmup", K(warmup), 0, 1000000, 0, 0},                           \
    {"cores", K(cores), 1, 1024, 1, 0},                                \
    {"sample_ms", K(sample_ms), 0, 86400000, 0, 0},                    \
    {"samples", K(samples), 1, 1000000, 3, 0},                         \
    {"stats", K(stats), 0, 1, 0, 0}

/* ring's m is required except in continuous mode (checked after parsing) */
static keydef_t ring_keys[] = {
    {"n", K(n), 1, 100000000, 0, 1}, {"m", K(m), 1, 1000000000, 1, 0}, {"tokens", K(tokens), 1, 100000000, 1, 0},
    {"burst", K(burst), 0, 1, 0, 0}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static keydef_t spawn_keys[] = {{"n", K(n), 1, 100000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static keydef_t pingpong_keys[] = {{"m", K(m), 1, 1000000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static keydef_t fanin_keys[] = {
    {"n", K(n), 1, 100000000, 0, 1}, {"m", K(m), 1, 1000000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static keydef_t trace_keys[] = {
    {"n", K(n), 1, 100, 0, 1}, {"m", K(m), 1, 100, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};

/* strict decimal integer: ASCII digits only (no sign, no space) */
static int parse_int(const char *s, int64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (v > (UINT64_MAX - 9) / 10)
            return -2; /* overflow: an integer, but far out of any bound */
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -2;
    *out = (int64_t)v;
    return 0;
}

static void parse_params(const char *workload, keydef_t *defs, int argc, char **argv, params_t *p, int *given)
{
    for (int i = 0; defs[i].name; i++)
        *(int64_t *)((char *)p + defs[i].off) = defs[i].def;
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            BAD_PARAM("expected key=value, got '%s'", arg);
        size_t kl = (size_t)(eq - arg);
        int k;
        for (k = 0; defs[k].name; k++)
            if (strlen(defs[k].name) == kl && strncmp(defs[k].name, arg, kl) == 0)
                break;
        if (!defs[k].name)
            BAD_PARAM("unknown key '%.*s' for workload %s", (int)kl, arg, workload);
        if (given[k])
            BAD_PARAM("key '%s' given twice", defs[k].name);
        given[k] = 1;
        int64_t v = 0;
        int rc = parse_int(eq + 1, &v);
        if (rc == -1)
            BAD_PARAM("%s must be a decimal integer (ASCII digits only), got '%s'", defs[k].name, eq + 1);
        if (rc != 0 || v < defs[k].lo || v > defs[k].hi)
            BAD_PARAM("%s must be an integer in %" PRId64 "..%" PRId64 ", got '%s'", defs[k].name, defs[k].lo,
                      defs[k].hi, eq + 1);
        *(int64_t *)((char *)p + defs[k].off) = v;
    }
    for (int k = 0; defs[k].name; k++)
        if (defs[k].required && !given[k])
            BAD_PARAM("missing required key '%s' for workload %s", defs[k].name, workload);
}

/* ------------------------------------------------------------- reporting */

typedef struct {
    int64_t count, ready, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns;
    struct rusage ru0, ru1, ru2; /* before setup, after setup, after run */
    int64_t threads;
} result_t;

/* Memory is read around the first spawn phase of this driver process (the
 * warm-up's, if any): RSS, and KernelStack of /proc/meminfo, since each
 * thread's kernel stack is memory this process costs that RSS does not show.
 * Every result echoes those first values (contract 2, section 3). */
static int mem_read;
static int64_t mem_rss_before, mem_rss_after, mem_kstack_before, mem_kstack_after;

static const char *g_variant = "mailbox";
static size_t g_guard, g_stack;

static void print_result(const char *workload, int64_t iteration, const char *keys, const result_t *r)
{
    printf("{\"type\":\"result\",\"workload\":\"%s\",\"iteration\":%" PRId64 "%s,\"count\":%" PRId64
           ",\"ready\":%" PRId64 ",\"setup_ns\":%" PRId64 ",\"run_ns\":%" PRId64 ",\"setup_cpu_ns\":%" PRId64
           ",\"run_cpu_ns\":%" PRId64 ",\"rss_before\":%" PRId64 ",\"rss_after\":%" PRId64
           ",\"kernel_stack_before\":%" PRId64 ",\"kernel_stack_after\":%" PRId64 "}\n",
           workload, iteration, keys, r->count, r->ready, r->setup_ns, r->run_ns, r->setup_cpu_ns, r->run_cpu_ns,
           mem_rss_before, mem_rss_after, mem_kstack_before, mem_kstack_after);
}

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

static void print_stats(int64_t iteration, const result_t *r)
{
    printf("{\"type\":\"stats\",\"iteration\":%" PRId64 ",\"threads\":%" PRId64 ",\"stack_size_bytes\":%zu"
           ",\"guard_size_bytes\":%zu"
           ",\"setup_voluntary_ctxt_switches\":%ld,\"setup_involuntary_ctxt_switches\":%ld"
           ",\"run_voluntary_ctxt_switches\":%ld,\"run_involuntary_ctxt_switches\":%ld"
           ",\"setup_minor_faults\":%ld,\"run_minor_faults\":%ld,\"max_rss_bytes\":%ld,\"futex_hash_slots\":%ld}\n",
           iteration, r->threads, g_stack, g_guard, r->ru1.ru_nvcsw - r->ru0.ru_nvcsw,
           r->ru1.ru_nivcsw - r->ru0.ru_nivcsw, r->ru2.ru_nvcsw - r->ru1.ru_nvcsw,
           r->ru2.ru_nivcsw - r->ru1.ru_nivcsw, r->ru1.ru_minflt - r->ru0.ru_minflt,
           r->ru2.ru_minflt - r->ru1.ru_minflt, r->ru2.ru_maxrss * 1024L,
           (long)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0UL, 0UL, 0UL));
}

static void report(const char *workload, int64_t iteration, const char *keys, const result_t *r, int stats)
{
    if (iteration <= 0)
        return; /* a warm-up iteration prints nothing */
    print_result(workload, iteration, keys, r);
    if (stats)
        print_stats(iteration, r);
    fflush(stdout);
}

/* Phase bracketing. Everything measured-about (memory, rusage) is read
 * outside the clock readings that bound the phase. C has no collector, so
 * nothing runs between the spawn phase and the message phase. */
static void setup_begin(result_t *r)
{
    if (!mem_read) {
        mem_rss_before = rss_bytes();
        mem_kstack_before = meminfo_kb("KernelStack") * 1024;
    }
    getrusage(RUSAGE_SELF, &r->ru0);
    r->setup_cpu_ns = cpu_ns();
    r->setup_ns = mono_ns();
}

static void setup_end(result_t *r)
{
    r->setup_ns = mono_ns() - r->setup_ns;
    r->setup_cpu_ns = cpu_ns() - r->setup_cpu_ns;
    getrusage(RUSAGE_SELF, &r->ru1);
    if (!mem_read) {
        mem_rss_after = rss_bytes();
        mem_kstack_after = meminfo_kb("KernelStack") * 1024;
        mem_read = 1;
    }
}

static void run_begin(result_t *r)
{
    r->run_cpu_ns = cpu_ns();
    r->run_ns = mono_ns();
}

static void run_end(result_t *r)
{
    r->run_ns = mono_ns() - r->run_ns;
    r->run_cpu_ns = cpu_ns() - r->run_cpu_ns;
    getrusage(RUSAGE_SELF, &r->ru2);
}

/* ---------------------------------------------------------- thread plumbing */

static pthread_attr_t g_attr;

static void attr_setup(int tuned)
{
    pthread_attr_init(&g_attr);
    if (tuned) {
        size_t ss = RB_STACK_SIZE;
        long min = sysconf(_SC_THREAD_STACK_MIN);
        if (min > 0 && ss < (size_t)min)
            ss = (size_t)min;
        if (pthread_attr_setstacksize(&g_attr, ss) != 0)
            fail("failure", 1, "pthread_attr_setstacksize(%zu) failed", ss);
        pthread_attr_getstacksize(&g_attr, &g_stack);
    } else {
        /* what pthread_create(..., NULL, ...) would use */
        pthread_attr_t def;
        if (pthread_getattr_default_np(&def) == 0) {
            pthread_attr_getstacksize(&def, &g_stack);
            pthread_attr_destroy(&def);
        }
    }
    pthread_attr_getguardsize(&g_attr, &g_guard);
}

static int64_t read_int_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[64];
    int64_t v = -1;
    if (!f)
        return -1;
    if (fgets(buf, sizeof buf, f))
        v = strncmp(buf, "max", 3) == 0 ? INT64_MAX : strtoll(buf, NULL, 10);
    fclose(f);
    return v;
}

/* pthread_create failed: report the limit with the machine's figures, so the
 * user sees which one ran out. The threads made so far end with the process.
 * (The orchestrator checks these limits before launch from the manifest; this
 * is the real failure, when a limit it could not see was reached.) */
static void __attribute__((noreturn)) create_failed(int err, int64_t index, int64_t want)
{
    long running = 0, tasks = -1;
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &running, &tasks) != 5)
            tasks = -1;
        fclose(f);
    }
    struct rlimit nproc;
    getrlimit(RLIMIT_NPROC, &nproc);
    fail(err == EAGAIN || err == ENOMEM ? "limit" : "failure", err == EAGAIN || err == ENOMEM ? 3 : 1,
         "pthread_create failed for thread %" PRId64 " of %" PRId64 ": %s (errno %d). Tasks on the machine: %ld; "
         "kernel.pid_max %" PRId64 ", kernel.threads-max %" PRId64 ", vm.max_map_count %" PRId64
         " (2 maps per thread), ulimit -u %s%" PRId64 ", MemAvailable %" PRId64
         " MiB. Raise the limit that ran out (sysctl -w kernel.pid_max=N, kernel.threads-max=N, "
         "vm.max_map_count=N; ulimit -u N; cgroup pids.max) or use a smaller n",
         index + 1, want, strerror(err), err, tasks, read_int_file("/proc/sys/kernel/pid_max"),
         read_int_file("/proc/sys/kernel/threads-max"), read_int_file("/proc/sys/vm/max_map_count"),
         nproc.rlim_cur == RLIM_INFINITY ? "unlimited" : "", nproc.rlim_cur == RLIM_INFINITY ? (int64_t)0
                                                                                               : (int64_t)nproc.rlim_cur,
         meminfo_kb("MemAvailable") >> 10);
}

static void start_thread(pthread_t *tid, void *(*body)(void *), void *arg, int64_t index, int64_t want)
{
    int rc = pthread_create(tid, &g_attr, body, arg);
    if (rc != 0)
        create_failed(rc, index, want);
}

/* Since Linux 6.16 a process's private futexes hash into a per-process
 * table sized from min(threads, online CPUs): 16 buckets on a 2-CPU
 * machine, whatever the thread count. The `tuned` variant asks for one
 * bucket per thread (next power of two) before spawning; older kernels
 * reject the prctl and keep the global table. RINGBENCH_FUTEX_HASH_SLOTS
 * overrides the size in any variant, for experiments (-1: leave the kernel
 * default, 0: the global table). */
static void futex_hash_setup(int64_t threads, int tuned)
{
    long slots = -1;
    if (tuned) {
        slots = 16;
        while (slots < threads && slots < (1L << 22))
            slots <<= 1;
    }
    const char *env = getenv("RINGBENCH_FUTEX_HASH_SLOTS");
    if (env && *env)
        slots = strtol(env, NULL, 10);
    if (slots >= 0)
        (void)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, (unsigned long)slots, 0UL, 0UL);
}

/* ------------------------------------------------- ring bookkeeping (both) */

static int64_t g_n, g_m, g_total;
static int g_trace_print;
static int64_t g_ready_want;
static atomic_llong g_ready;
static atomic_llong g_laps;

/* ============================================================================
 * Variant mailbox: mutex + condition variable FIFO per process
 * ========================================================================== */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t nonempty;
    msg_t *buf;
    uint32_t cap, head, len;
    uint32_t keep;  /* capacity it starts with and shrinks back to once empty */
    uint32_t limit; /* bounded mailbox (fan-in receiver): senders wait beyond this */
    int waiting;    /* the owner waits on nonempty */
    int full_waiters;
    pthread_cond_t nonfull; /* only waited on when the mailbox is bounded */
} mailbox_t;

static int mb_init(mailbox_t *mb, uint32_t cap, uint32_t limit)
{
    pthread_mutex_init(&mb->mu, NULL);
    pthread_cond_init(&mb->nonempty, NULL);
    pthread_cond_init(&mb->nonfull, NULL);
    mb->buf = malloc(sizeof(msg_t) * cap);
    mb->cap = mb->keep = cap;
    mb->head = mb->len = 0;
    mb->limit = limit;
    mb->waiting = mb->full_waiters = 0;
    return mb->buf ? 0 : -1;
}

static void mb_destroy(mailbox_t *mb)
{
    pthread_mutex_destroy(&mb->mu);
    pthread_cond_destroy(&mb->nonempty);
    pthread_cond_destroy(&mb->nonfull);
    free(mb->buf);
    mb->buf = NULL;
}

static void mb_resize(mailbox_t *mb, uint32_t ncap) /* with mb->mu held, len <= ncap */
{
    msg_t *nb = malloc(sizeof(msg_t) * ncap);
    if (!nb)
        fail("limit", 3, "out of memory resizing a mailbox to %u messages; free memory or use smaller n/tokens", ncap);
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

/* make room for k messages up front (untimed), so no thread grows it later */
static void mb_reserve(mailbox_t *mb, int64_t k)
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
    /* Signal after unlocking, so the woken owner does not bounce off a mutex
     * the sender still holds; and only when the owner waits (its only waiter). */
    if (wake)
        pthread_cond_signal(&mb->nonempty);
}

/* after a receive (mb->mu held): wake a bounded mailbox's senders, or give
 * back the room a burst of tokens made it grow to */
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

typedef struct proc {
    mailbox_t mb;
    struct proc *next;
    int64_t count;
    int32_t idx;
    pthread_t tid;
} __attribute__((aligned(64))) proc_t;

static proc_t main_proc __attribute__((aligned(64))); /* the main process's mailbox */

static proc_t *alloc_procs(int64_t k, uint32_t cap, uint32_t limit)
{
    proc_t *p = NULL;
    if (posix_memalign((void **)&p, 64, sizeof(proc_t) * (size_t)k) != 0)
        fail("limit", 3, "out of memory allocating %" PRId64 " process records; free memory or use a smaller n", k);
    for (int64_t i = 0; i < k; i++) {
        memset(&p[i], 0, sizeof p[i]);
        if (mb_init(&p[i].mb, cap, limit) != 0)
            fail("limit", 3, "out of memory allocating mailboxes for %" PRId64 " processes", k);
        p[i].idx = (int32_t)i;
    }
    return p;
}

static void free_procs(proc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        mb_destroy(&p[i].mb);
    free(p);
}

static void join_all(proc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        pthread_join(p[i].tid, NULL);
}

static msg_t expect(int kind, const char *what)
{
    msg_t m = mb_recv(&main_proc.mb);
    if (m.kind != kind)
        fail("failure", 1, "main expected %s, got message kind %d", what, m.kind);
    return m;
}

/* Contract 2: each process signals ready immediately before its first
 * blocking receive, by adding one to a counter; the last one tells main with
 * one message, so setup_ns ends when every process is about to block. */
static inline void mb_ready(void)
{
    if (atomic_fetch_add_explicit(&g_ready, 1, memory_order_acq_rel) + 1 == g_ready_want)
        mb_send(&main_proc.mb, MSG(M_READY, -1, 0));
}

/* stop message: value = running sum of receipt counts; p(n-1) returns it */
static inline void mb_stop(proc_t *self, msg_t m, int64_t count)
{
    self->count = count;
    m.value += count;
    mb_send(self->idx == g_n - 1 ? &main_proc.mb : &self->next->mb, m);
}

static void *ring_thread(void *arg)
{
    proc_t *self = arg;
    mailbox_t *const next = &self->next->mb;
    const int32_t idx = self->idx;
    int64_t count = 0;
    mb_ready();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (likely(m.kind == M_TOKEN)) {
            count++;
            if (likely(m.value != 1))
                mb_send(next, MSG(M_TOKEN, idx, m.value - 1));
            else
                mb_send(&main_proc.mb, MSG(M_DONE, idx, 0));
        } else if (m.kind == M_STOP) {
            mb_stop(self, m, count);
            return NULL;
        } else if (m.kind == M_QUIT) {
            return NULL;
        }
    }
}

static void print_hop(msg_t m, int32_t to)
{
    int64_t hop = g_total - m.value + 1;
    pthread_mutex_lock(&out_mu);
    printf("{\"type\":\"hop\",\"hop\":%" PRId64 ",\"lap\":%" PRId64 ",\"from\":%d,\"to\":%d}\n", hop,
           (hop - 1) / g_n + 1, m.from, to);
    fflush(stdout);
    pthread_mutex_unlock(&out_mu);
}

/* trace: the ring, printing each hop from inside the receiving thread */
static void *trace_thread(void *arg)
{
    proc_t *self = arg;
    const int32_t idx = self->idx;
    int64_t count = 0;
    mb_ready();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.kind == M_TOKEN) {
            count++;
            if (g_trace_print)
                print_hop(m, idx);
            if (m.value != 1)
                mb_send(&self->next->mb, MSG(M_TOKEN, idx, m.value - 1));
            else
                mb_send(&main_proc.mb, MSG(M_DONE, idx, 0));
        } else if (m.kind == M_STOP) {
            mb_stop(self, m, count);
            return NULL;
        }
    }
}

/* continuous mode, p0: count a lap each time a token that has been round passes */
static void *cont0_thread(void *arg)
{
    proc_t *self = arg;
    mailbox_t *const next = &self->next->mb;
    mb_ready();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.value != CONT_FRESH)
            atomic_fetch_add_explicit(&g_laps, 1, memory_order_relaxed);
        mb_send(next, MSG(M_TOKEN, 0, m.value - 1));
    }
    return NULL; /* not reached: continuous mode ends with the process */
}

static void *spawn_thread(void *arg)
{
    proc_t *self = arg;
    mb_send(&main_proc.mb, MSG(M_READY, self->idx, 0));
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.kind == M_QUIT)
            return NULL;
    }
}

/* pingpong: extra[0] = A, extra[1] = B */
static proc_t *extra;

static void *ping_thread(void *arg)
{
    proc_t *self = arg;
    mailbox_t *const b = &extra[1].mb;
    mb_ready();
    msg_t m = mb_recv(&self->mb);
    if (m.kind != M_START)
        return NULL;
    const int64_t rounds = m.value;
    for (int64_t i = 0; i < rounds; i++) {
        mb_send(b, MSG(M_PING, 0, i));
        msg_t r = mb_recv(&self->mb);
        if (unlikely(r.kind != M_PONG))
            fail("failure", 1, "pingpong: A expected a pong, got message kind %d", r.kind);
    }
    mb_send(&main_proc.mb, MSG(M_DONE, 0, rounds));
    return NULL;
}

static void *pong_thread(void *arg)
{
    proc_t *self = arg;
    mailbox_t *const a = &extra[0].mb;
    int64_t count = 0;
    mb_ready();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (likely(m.kind == M_PING)) {
            count++;
            mb_send(a, MSG(M_PONG, 1, m.value));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

/* fanin: extra[0] = receiver, procs[0..n-1] = senders */
static void *fanin_receiver(void *arg)
{
    proc_t *self = arg;
    int64_t count = 0;
    const int64_t target = g_n * g_m;
    mb_ready();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (likely(m.kind == M_DATA)) {
            if (++count == target)
                mb_send(&main_proc.mb, MSG(M_DONE, -1, count));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

static void *fanin_sender(void *arg)
{
    proc_t *self = arg;
    mailbox_t *const rx = &extra[0].mb;
    const int64_t m_ = g_m;
    mb_ready();
    msg_t m = mb_recv(&self->mb);
    if (m.kind != M_START)
        return NULL;
    for (int64_t i = 0; i < m_; i++)
        mb_send(rx, MSG(M_DATA, self->idx, i));
    return NULL;
}

/* spawn the ring (untimed bookkeeping outside); returns when every thread waits */
static proc_t *mb_ring_spawn(int64_t n, int64_t tokens, int trace, int continuous)
{
    /* a mailbox holds at most the tokens plus the stop message; a burst of
     * tokens makes it grow, and it shrinks back once empty */
    proc_t *procs = alloc_procs(n, tokens > 1 ? 4 : 2, UINT32_MAX / 2);
    for (int64_t i = 0; i < n; i++)
        procs[i].next = &procs[(i + 1) % n];
    atomic_store(&g_ready, 0);
    g_ready_want = n;
    void *(*body)(void *) = trace ? trace_thread : ring_thread;
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, continuous && i == 0 ? cont0_thread : body, &procs[i], i, n);
    expect(M_READY, "the ready signal");
    return procs;
}

static void mb_ring(const params_t *p, int64_t iteration, int trace)
{
    const int64_t n = p->n, m = p->m, tokens = p->tokens;
    result_t r = {0};
    r.threads = n;
    mb_reserve(&main_proc.mb, tokens + 2);

    setup_begin(&r);
    proc_t *procs = mb_ring_spawn(n, tokens, trace, 0);
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    for (int64_t j = 0; j < tokens; j++)
        mb_send(&procs[p->burst ? 0 : j * n / tokens].mb, MSG(M_TOKEN, -1, n * m));
    for (int64_t j = 0; j < tokens; j++)
        expect(M_DONE, "a token-finished message");
    run_end(&r);

    /* proof: a stop message travels the ring once, summing receipt counts */
    mb_send(&procs[0].mb, MSG(M_STOP, -1, 0));
    r.count = expect(M_STOP, "the stop message back").value;
    join_all(procs, n);
    free_procs(procs, n);

    if (r.count != n * m * tokens)
        fail("failure", 1, "ring count mismatch: processes counted %" PRId64 " receipts, expected %" PRId64,
             r.count, n * m * tokens);
    char keys[160];
    if (trace)
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
    else
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64 ",\"tokens\":%" PRId64 ",\"burst\":%" PRId64,
                 n, m, tokens, p->burst);
    report(trace ? "trace" : "ring", iteration, keys, &r, (int)p->stats);
}

static void mb_spawn(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n;
    result_t r = {0};
    r.threads = n;
    mb_reserve(&main_proc.mb, n + 1);

    setup_begin(&r);
    proc_t *procs = alloc_procs(n, 2, 16);
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, spawn_thread, &procs[i], i, n);
    for (int64_t i = 0; i < n; i++) {
        expect(M_READY, "a ready message");
        r.count++;
    }
    setup_end(&r);
    r.ready = r.count;
    r.ru2 = r.ru1;

    for (int64_t i = 0; i < n; i++)
        mb_send(&procs[i].mb, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    free_procs(procs, n);

    if (r.count != n)
        fail("failure", 1, "spawn: received %" PRId64 " ready messages, expected %" PRId64, r.count, n);
    char keys[64];
    snprintf(keys, sizeof keys, ",\"n\":%" PRId64, n);
    report("spawn", iteration, keys, &r, (int)p->stats);
}

static void mb_pingpong(const params_t *p, int64_t iteration)
{
    const int64_t m = p->m;
    result_t r = {0};
    r.threads = 2;

    setup_begin(&r);
    extra = alloc_procs(2, 2, UINT32_MAX / 2);
    atomic_store(&g_ready, 0);
    g_ready_want = 2;
    start_thread(&extra[0].tid, ping_thread, &extra[0], 0, 2);
    start_thread(&extra[1].tid, pong_thread, &extra[1], 1, 2);
    expect(M_READY, "the ready signal");
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    mb_send(&extra[0].mb, MSG(M_START, -1, m));
    expect(M_DONE, "pingpong done");
    run_end(&r);

    mb_send(&extra[1].mb, MSG(M_QUIT, -1, 0));
    join_all(extra, 2);
    r.count = extra[1].count;
    free_procs(extra, 2);
    extra = NULL;

    if (r.count != m)
        fail("failure", 1, "pingpong: B counted %" PRId64 " round trips, expected %" PRId64, r.count, m);
    char keys[64];
    snprintf(keys, sizeof keys, ",\"m\":%" PRId64, m);
    report("pingpong", iteration, keys, &r, (int)p->stats);
}

static void mb_fanin(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n, m = p->m;
    result_t r = {0};
    g_n = n;
    g_m = m;
    r.threads = n + 1;

    setup_begin(&r);
    /* the receiver's mailbox grows up to 1M messages (16 MiB), then senders
     * block until it drains: bounded memory whatever n*m is */
    extra = alloc_procs(1, 1024, 1u << 20);
    extra[0].mb.keep = 1u << 20; /* bounded: it keeps the room it grew to (no regrowing per drain) */
    proc_t *procs = alloc_procs(n, 2, 16);
    atomic_store(&g_ready, 0);
    g_ready_want = n + 1;
    start_thread(&extra[0].tid, fanin_receiver, &extra[0], 0, n + 1);
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, fanin_sender, &procs[i], i + 1, n + 1);
    expect(M_READY, "the ready signal");
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    for (int64_t i = 0; i < n; i++)
        mb_send(&procs[i].mb, MSG(M_START, -1, 0));
    r.count = expect(M_DONE, "fanin done").value;
    run_end(&r);

    mb_send(&extra[0].mb, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    join_all(extra, 1);
    free_procs(procs, n);
    free_procs(extra, 1);
    extra = NULL;

    if (r.count != n * m)
        fail("failure", 1, "fanin: receiver got %" PRId64 " messages, expected %" PRId64, r.count, n * m);
    char keys[96];
    snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
    report("fanin", iteration, keys, &r, (int)p->stats);
}

/* ============================================================================
 * Variant sem: hand-off through the receiver's slot + POSIX semaphore
 * ========================================================================== */

typedef struct hproc {
    sem_t full;  /* posted once for each value written into slot */
    sem_t empty; /* guarded slots only: posted when the owner has read slot */
    msg_t slot;
    struct hproc *next;
    int64_t count;
    int32_t idx;
    pthread_t tid;
} __attribute__((aligned(64))) hproc_t;

static hproc_t h_main; /* the main process's slot; always guarded (several senders) */
/* A signal that carries nothing is a bare post to main: a token finished, or
 * (spawn) a process is ready. A post never blocks, so a process that
 * finishes a token never waits for main, whatever main is doing (injecting
 * tokens into slots that may be taken: no cycle of waits can form). */
static sem_t h_signal;
static int g_guarded;  /* ring with tokens > 1: a slot may be wanted by two values at once */

static inline void sem_wait_nointr(sem_t *s)
{
    while (unlikely(sem_wait(s) != 0))
        if (errno != EINTR)
            fail("failure", 1, "sem_wait: %s", strerror(errno));
}

/* the hop: write the value into the receiver's slot, post its semaphore */
static inline void h_put(hproc_t *to, msg_t m)
{
    to->slot = m;
    sem_post(&to->full);
}

/* the same for a slot more than one value may be on its way to: wait until it is free */
static inline void h_put_guarded(hproc_t *to, msg_t m)
{
    sem_wait_nointr(&to->empty);
    to->slot = m;
    sem_post(&to->full);
}

static inline msg_t h_take(hproc_t *self)
{
    sem_wait_nointr(&self->full);
    return self->slot;
}

static inline msg_t h_take_guarded(hproc_t *self)
{
    sem_wait_nointr(&self->full);
    msg_t m = self->slot;
    sem_post(&self->empty);
    return m;
}

static hproc_t *alloc_hprocs(int64_t k)
{
    hproc_t *p = NULL;
    if (posix_memalign((void **)&p, 64, sizeof(hproc_t) * (size_t)k) != 0)
        fail("limit", 3, "out of memory allocating %" PRId64 " process records; free memory or use a smaller n", k);
    for (int64_t i = 0; i < k; i++) {
        memset(&p[i], 0, sizeof p[i]);
        sem_init(&p[i].full, 0, 0);
        sem_init(&p[i].empty, 0, 1);
        p[i].idx = (int32_t)i;
    }
    return p;
}

static void free_hprocs(hproc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++) {
        sem_destroy(&p[i].full);
        sem_destroy(&p[i].empty);
    }
    free(p);
}

static void h_join_all(hproc_t *p, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        pthread_join(p[i].tid, NULL);
}

static msg_t h_expect(int kind, const char *what)
{
    msg_t m = h_take_guarded(&h_main);
    if (m.kind != kind)
        fail("failure", 1, "main expected %s, got message kind %d", what, m.kind);
    return m;
}

static inline void h_ready(void)
{
    if (atomic_fetch_add_explicit(&g_ready, 1, memory_order_acq_rel) + 1 == g_ready_want)
        h_put_guarded(&h_main, MSG(M_READY, -1, 0));
}

static inline void h_stop(hproc_t *self, msg_t m, int64_t count)
{
    self->count = count;
    m.value += count;
    if (self->idx == g_n - 1)
        h_put_guarded(&h_main, m);
    else if (g_guarded)
        h_put_guarded(self->next, m);
    else
        h_put(self->next, m);
}

static void *h_ring_thread(void *arg)
{
    hproc_t *self = arg, *const next = self->next;
    const int32_t idx = self->idx;
    int64_t count = 0;
    h_ready();
    if (g_guarded) {
        for (;;) {
            msg_t m = h_take_guarded(self);
            if (likely(m.kind == M_TOKEN)) {
                count++;
                if (likely(m.value != 1))
                    h_put_guarded(next, MSG(M_TOKEN, idx, m.value - 1));
                else
                    sem_post(&h_signal);
            } else if (m.kind == M_STOP) {
                h_stop(self, m, count);
                return NULL;
            }
        }
    }
    for (;;) { /* one token: its slot is always free when the token arrives */
        msg_t m = h_take(self);
        if (likely(m.kind == M_TOKEN)) {
            count++;
            if (likely(m.value != 1))
                h_put(next, MSG(M_TOKEN, idx, m.value - 1));
            else
                sem_post(&h_signal);
        } else if (m.kind == M_STOP) {
            h_stop(self, m, count);
            return NULL;
        }
    }
}

static void *h_trace_thread(void *arg)
{
    hproc_t *self = arg;
    const int32_t idx = self->idx;
    int64_t count = 0;
    h_ready();
    for (;;) {
        msg_t m = h_take(self);
        if (m.kind == M_TOKEN) {
            count++;
            if (g_trace_print)
                print_hop(m, idx);
            if (m.value != 1)
                h_put(self->next, MSG(M_TOKEN, idx, m.value - 1));
            else
                sem_post(&h_signal);
        } else if (m.kind == M_STOP) {
            h_stop(self, m, count);
            return NULL;
        }
    }
}

static void *h_cont0_thread(void *arg)
{
    hproc_t *self = arg, *const next = self->next;
    h_ready();
    for (;;) {
        msg_t m = g_guarded ? h_take_guarded(self) : h_take(self);
        if (m.value != CONT_FRESH)
            atomic_fetch_add_explicit(&g_laps, 1, memory_order_relaxed);
        m = MSG(M_TOKEN, 0, m.value - 1);
        if (g_guarded)
            h_put_guarded(next, m);
        else
            h_put(next, m);
    }
    return NULL; /* not reached: continuous mode ends with the process */
}

static void *h_spawn_thread(void *arg)
{
    hproc_t *self = arg;
    sem_post(&h_signal); /* ready */
    for (;;) {
        msg_t m = h_take(self);
        if (m.kind == M_QUIT)
            return NULL;
    }
}

static hproc_t *h_extra;

static void *h_ping_thread(void *arg)
{
    hproc_t *self = arg, *const b = &h_extra[1];
    h_ready();
    msg_t m = h_take(self);
    if (m.kind != M_START)
        return NULL;
    const int64_t rounds = m.value;
    for (int64_t i = 0; i < rounds; i++) {
        h_put(b, MSG(M_PING, 0, i));
        msg_t r = h_take(self);
        if (unlikely(r.kind != M_PONG))
            fail("failure", 1, "pingpong: A expected a pong, got message kind %d", r.kind);
    }
    h_put_guarded(&h_main, MSG(M_DONE, 0, rounds));
    return NULL;
}

static void *h_pong_thread(void *arg)
{
    hproc_t *self = arg, *const a = &h_extra[0];
    int64_t count = 0;
    h_ready();
    for (;;) {
        msg_t m = h_take(self);
        if (likely(m.kind == M_PING)) {
            count++;
            h_put(a, MSG(M_PONG, 1, m.value));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

/* fanin: h_extra[0] = receiver (guarded: n senders), senders[0..n-1] */
static void *h_fanin_receiver(void *arg)
{
    hproc_t *self = arg;
    int64_t count = 0;
    const int64_t target = g_n * g_m;
    h_ready();
    for (;;) {
        msg_t m = h_take_guarded(self);
        if (likely(m.kind == M_DATA)) {
            if (++count == target)
                h_put_guarded(&h_main, MSG(M_DONE, -1, count));
        } else if (m.kind == M_QUIT) {
            self->count = count;
            return NULL;
        }
    }
}

static void *h_fanin_sender(void *arg)
{
    hproc_t *self = arg, *const rx = &h_extra[0];
    const int64_t m_ = g_m;
    h_ready();
    msg_t m = h_take(self);
    if (m.kind != M_START)
        return NULL;
    for (int64_t i = 0; i < m_; i++)
        h_put_guarded(rx, MSG(M_DATA, self->idx, i));
    return NULL;
}

static hproc_t *h_ring_spawn(int64_t n, int trace, int continuous)
{
    hproc_t *procs = alloc_hprocs(n);
    for (int64_t i = 0; i < n; i++)
        procs[i].next = &procs[(i + 1) % n];
    atomic_store(&g_ready, 0);
    g_ready_want = n;
    void *(*body)(void *) = trace ? h_trace_thread : h_ring_thread;
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, continuous && i == 0 ? h_cont0_thread : body, &procs[i], i, n);
    h_expect(M_READY, "the ready signal");
    return procs;
}

/* main injects into a slot: guarded when several tokens may meet there */
static inline void h_inject(hproc_t *to, msg_t m)
{
    if (g_guarded)
        h_put_guarded(to, m);
    else
        h_put(to, m);
}

static void h_ring(const params_t *p, int64_t iteration, int trace)
{
    const int64_t n = p->n, m = p->m, tokens = p->tokens;
    result_t r = {0};
    r.threads = n;
    g_guarded = tokens > 1;

    setup_begin(&r);
    hproc_t *procs = h_ring_spawn(n, trace, 0);
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    for (int64_t j = 0; j < tokens; j++)
        h_inject(&procs[p->burst ? 0 : j * n / tokens], MSG(M_TOKEN, -1, n * m));
    for (int64_t j = 0; j < tokens; j++)
        sem_wait_nointr(&h_signal); /* a token finished */
    run_end(&r);

    h_inject(&procs[0], MSG(M_STOP, -1, 0));
    r.count = h_expect(M_STOP, "the stop message back").value;
    h_join_all(procs, n);
    free_hprocs(procs, n);

    if (r.count != n * m * tokens)
        fail("failure", 1, "ring count mismatch: processes counted %" PRId64 " receipts, expected %" PRId64,
             r.count, n * m * tokens);
    char keys[160];
    if (trace)
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
    else
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64 ",\"tokens\":%" PRId64 ",\"burst\":%" PRId64,
                 n, m, tokens, p->burst);
    report(trace ? "trace" : "ring", iteration, keys, &r, (int)p->stats);
}

static void h_spawn(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n;
    result_t r = {0};
    r.threads = n;

    setup_begin(&r);
    hproc_t *procs = alloc_hprocs(n);
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, h_spawn_thread, &procs[i], i, n);
    for (int64_t i = 0; i < n; i++) {
        sem_wait_nointr(&h_signal); /* a process is ready */
        r.count++;
    }
    setup_end(&r);
    r.ready = r.count;
    r.ru2 = r.ru1;

    for (int64_t i = 0; i < n; i++)
        h_put(&procs[i], MSG(M_QUIT, -1, 0));
    h_join_all(procs, n);
    free_hprocs(procs, n);

    if (r.count != n)
        fail("failure", 1, "spawn: received %" PRId64 " ready messages, expected %" PRId64, r.count, n);
    char keys[64];
    snprintf(keys, sizeof keys, ",\"n\":%" PRId64, n);
    report("spawn", iteration, keys, &r, (int)p->stats);
}

static void h_pingpong(const params_t *p, int64_t iteration)
{
    const int64_t m = p->m;
    result_t r = {0};
    r.threads = 2;

    setup_begin(&r);
    h_extra = alloc_hprocs(2);
    atomic_store(&g_ready, 0);
    g_ready_want = 2;
    start_thread(&h_extra[0].tid, h_ping_thread, &h_extra[0], 0, 2);
    start_thread(&h_extra[1].tid, h_pong_thread, &h_extra[1], 1, 2);
    h_expect(M_READY, "the ready signal");
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    h_put(&h_extra[0], MSG(M_START, -1, m));
    h_expect(M_DONE, "pingpong done");
    run_end(&r);

    h_put(&h_extra[1], MSG(M_QUIT, -1, 0));
    h_join_all(h_extra, 2);
    r.count = h_extra[1].count;
    free_hprocs(h_extra, 2);
    h_extra = NULL;

    if (r.count != m)
        fail("failure", 1, "pingpong: B counted %" PRId64 " round trips, expected %" PRId64, r.count, m);
    char keys[64];
    snprintf(keys, sizeof keys, ",\"m\":%" PRId64, m);
    report("pingpong", iteration, keys, &r, (int)p->stats);
}

static void h_fanin(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n, m = p->m;
    result_t r = {0};
    g_n = n;
    g_m = m;
    r.threads = n + 1;

    setup_begin(&r);
    h_extra = alloc_hprocs(1);
    hproc_t *procs = alloc_hprocs(n);
    atomic_store(&g_ready, 0);
    g_ready_want = n + 1;
    start_thread(&h_extra[0].tid, h_fanin_receiver, &h_extra[0], 0, n + 1);
    for (int64_t i = 0; i < n; i++)
        start_thread(&procs[i].tid, h_fanin_sender, &procs[i], i + 1, n + 1);
    h_expect(M_READY, "the ready signal");
    setup_end(&r);
    r.ready = atomic_load(&g_ready);

    run_begin(&r);
    for (int64_t i = 0; i < n; i++)
        h_put(&procs[i], MSG(M_START, -1, 0));
    r.count = h_expect(M_DONE, "fanin done").value;
    run_end(&r);

    h_put_guarded(&h_extra[0], MSG(M_QUIT, -1, 0));
    h_join_all(procs, n);
    h_join_all(h_extra, 1);
    free_hprocs(procs, n);
    free_hprocs(h_extra, 1);
    h_extra = NULL;

    if (r.count != n * m)
        fail("failure", 1, "fanin: receiver got %" PRId64 " messages, expected %" PRId64, r.count, n * m);
    char keys[96];
    snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
    report("fanin", iteration, keys, &r, (int)p->stats);
}

/* ============================================================================
 * Both variants
 * ========================================================================== */

static int g_sem; /* variant sem */

/* Continuous mode (section 5): spawn, inject, sample the lap counter, exit
 * without teardown. */
static void __attribute__((noreturn)) ring_continuous(const params_t *p)
{
    const int64_t n = p->n, tokens = p->tokens;
    proc_t *mprocs = NULL;
    hproc_t *hprocs = NULL;
    g_guarded = tokens > 1;
    if (g_sem)
        hprocs = h_ring_spawn(n, 0, 1);
    else
        mprocs = mb_ring_spawn(n, tokens, 0, 1);

    const int64_t step = p->sample_ms * 1000000LL;
    int64_t prev = 0;
    const int64_t t0 = mono_ns();
    for (int64_t j = 0; j < tokens; j++) {
        int64_t at = p->burst ? 0 : j * n / tokens;
        if (g_sem)
            h_inject(&hprocs[at], MSG(M_TOKEN, -1, CONT_FRESH));
        else
            mb_send(&mprocs[at].mb, MSG(M_TOKEN, -1, CONT_FRESH));
    }
    for (int64_t s = 1; s <= p->samples; s++) {
        int64_t target = t0 + s * step;
        struct timespec ts = {.tv_sec = target / 1000000000LL, .tv_nsec = target % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        int64_t count = atomic_load_explicit(&g_laps, memory_order_relaxed) * n;
        int64_t now = mono_ns();
        if (count < prev)
            count = prev;
        prev = count;
        printf("{\"type\":\"sample\",\"seq\":%" PRId64 ",\"elapsed_ns\":%" PRId64 ",\"count\":%" PRId64 "}\n", s,
               now - t0, count);
        fflush(stdout);
    }
    _exit(0); /* no teardown, as the contract says */
}

static void describe(void)
{
    printf("{\"type\":\"describe\",\"contract\":2,\"name\":\"c-pthreads\",\"runtime\":\"C (POSIX threads, glibc NPTL)\","
           "\"version\":\"glibc %s, gcc %s\",\"workloads\":[\"ring\",\"spawn\",\"pingpong\",\"fanin\",\"trace\"],"
           "\"features\":[\"tokens\",\"continuous\",\"stats\"],\"variant\":\"%s\"}\n",
           gnu_get_libc_version(), __VERSION__, g_variant);
}

#define USAGE "usage: ringbench-c-pthreads [--variant=mailbox|sem|tuned] describe | run <workload> key=value ..."

int main(int argc, char **argv)
{
    int tuned = 0;
    int a = 1;
    /* variant options come before the verb (driver.toml [variants.*] args) */
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        if (strcmp(argv[a], "--variant=mailbox") == 0)
            g_variant = "mailbox", g_sem = 0, tuned = 0;
        else if (strcmp(argv[a], "--variant=sem") == 0)
            g_variant = "sem", g_sem = 1, tuned = 0;
        else if (strcmp(argv[a], "--variant=tuned") == 0)
            g_variant = "tuned", g_sem = 0, tuned = 1;
        else
            BAD_PARAM("unknown option '%s'; " USAGE, argv[a]);
    }
    argc -= a - 1;
    argv += a - 1;
    if (argc < 2)
        BAD_PARAM(USAGE);
    if (strcmp(argv[1], "describe") == 0) {
        if (argc != 2)
            BAD_PARAM("describe takes no arguments");
        describe();
        fflush(stdout);
        return 0;
    }
    if (strcmp(argv[1], "run") != 0)
        BAD_PARAM("unknown verb '%s'; " USAGE, argv[1]);
    if (argc < 3)
        BAD_PARAM("run needs a workload: ring, spawn, pingpong, fanin, trace");

    const char *w = argv[2];
    int wargc = argc - 3;
    char **wargv = argv + 3;
    params_t p;
    memset(&p, 0, sizeof p);
    int given[32] = {0};
    int64_t threads = 0;
    enum { W_RING, W_TRACE, W_SPAWN, W_PINGPONG, W_FANIN } wl;

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (keydef_t *defs[] = {ring_keys, spawn_keys, pingpong_keys, fanin_keys, trace_keys}, **d = defs;
         d < defs + 5; d++)
        for (keydef_t *k = *d; k->name; k++)
            if (strcmp(k->name, "cores") == 0)
                k->def = cpus > 0 && cpus <= 1024 ? cpus : 1;

    if (strcmp(w, "ring") == 0) {
        parse_params(w, ring_keys, wargc, wargv, &p, given);
        if (!given[1] && p.sample_ms == 0)
            BAD_PARAM("missing required key 'm' for workload ring");
        if (p.tokens > p.n)
            BAD_PARAM("tokens must be <= n, got tokens=%" PRId64 " n=%" PRId64, p.tokens, p.n);
        if ((__int128)p.n * p.m * p.tokens >= ((__int128)1 << 62))
            BAD_PARAM("n*m*tokens must be < 2^62");
        wl = W_RING;
        threads = p.n;
    } else if (strcmp(w, "trace") == 0) {
        parse_params(w, trace_keys, wargc, wargv, &p, given);
        p.tokens = 1;
        wl = W_TRACE;
        threads = p.n;
    } else if (strcmp(w, "spawn") == 0) {
        parse_params(w, spawn_keys, wargc, wargv, &p, given);
        wl = W_SPAWN;
        threads = p.n;
    } else if (strcmp(w, "pingpong") == 0) {
        parse_params(w, pingpong_keys, wargc, wargv, &p, given);
        wl = W_PINGPONG;
        threads = 2;
    } else if (strcmp(w, "fanin") == 0) {
        parse_params(w, fanin_keys, wargc, wargv, &p, given);
        if ((__int128)p.n * p.m >= ((__int128)1 << 62))
            BAD_PARAM("n*m must be < 2^62");
        wl = W_FANIN;
        threads = p.n + 1;
    } else if (strcmp(w, "selective") == 0) {
        fail("unsupported", 2,
             "selective receive is not available: a pthread mailbox (mutex + condition variable FIFO) or a "
             "hand-off slot can only take the next message; C/pthreads has no receive that skips "
             "non-matching messages");
    } else {
        fail("unknown_workload", 2, "unknown workload '%s'; this driver knows ring, spawn, pingpong, fanin, trace",
             w);
    }
    if (p.sample_ms > 0 && wl != W_RING)
        BAD_PARAM("sample_ms > 0 (continuous mode) is defined only for the ring workload");

    futex_hash_setup(threads, tuned);
    attr_setup(tuned);
    mb_init(&main_proc.mb, 16, UINT32_MAX / 2);
    sem_init(&h_main.full, 0, 0);
    sem_init(&h_main.empty, 0, 1);
    sem_init(&h_signal, 0, 0);
    g_n = p.n;
    g_m = p.m;
    g_total = p.n * p.m;

    if (p.sample_ms > 0)
        ring_continuous(&p);

    for (int64_t i = 1 - p.warmup; i <= p.repeats; i++) {
        g_trace_print = wl == W_TRACE && i > 0; /* a warm-up trace prints no hops */
        switch (wl) {
        case W_RING:
        case W_TRACE:
            if (g_sem)
                h_ring(&p, i, wl == W_TRACE);
            else
                mb_ring(&p, i, wl == W_TRACE);
            break;
        case W_SPAWN:
            g_sem ? h_spawn(&p, i) : mb_spawn(&p, i);
            break;
        case W_PINGPONG:
            g_sem ? h_pingpong(&p, i) : mb_pingpong(&p, i);
            break;
        case W_FANIN:
            g_sem ? h_fanin(&p, i) : mb_fanin(&p, i);
            break;
        }
    }
    fflush(stdout);
    return 0;
}
