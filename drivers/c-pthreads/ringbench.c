/*
 * ringbench driver: C with POSIX threads.
 *
 * One OS thread per process. Every process owns a mailbox: a FIFO of
 * fixed-size messages (copied in, copied out) guarded by a pthread mutex, with
 * a condition variable the owner blocks on while the mailbox is empty. Sending
 * = lock the receiver's mailbox, append, unlock, signal if it was empty.
 * Receiving = lock own mailbox, wait while empty, take the head, unlock.
 * This is the blocking hand-off of the 1998 Erlang-vs-Java-threads ring.
 *
 * See docs/driver-contract.md for the protocol this program speaks.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
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

/* Explicit thread stack: 32 KiB. Our thread bodies use well under 2 KiB of
 * stack (plus glibc's TLS and thread descriptor, which live at the top of the
 * same allocation, and printf in `trace`, ~ a few KiB). 16 KiB
 * (PTHREAD_STACK_MIN) also runs, but leaves little margin for a signal frame
 * with AVX-512 state; 32 KiB costs nothing more in RSS (pages are touched
 * lazily) and only address space otherwise. */
#ifndef RB_STACK_SIZE
#define RB_STACK_SIZE (32 * 1024)
#endif

/* Tasks left free for the rest of the machine when checking pid/thread
 * tables: the driver must not starve other processes of pids. */
#define TASK_RESERVE 512
/* Rough kernel + user memory per idle thread, for the MemAvailable check:
 * 16 KiB kernel stack, ~10 KiB task_struct and friends, ~8 KiB of touched
 * user stack, the mailbox. */
#define BYTES_PER_THREAD_ESTIMATE (40 * 1024)

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

/* Print one error record and exit. Safe to call from any thread: other
 * threads are killed by _exit. */
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

/* ------------------------------------------------------------- clocks, rss */

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

/* ------------------------------------------------------------- mailboxes */

enum { M_TOKEN, M_STOP, M_QUIT, M_READY, M_DONE, M_START, M_PING, M_PONG, M_DATA };

typedef struct {
    int32_t kind;
    int32_t from;
    int64_t value;
} msg_t;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t nonempty;
    pthread_cond_t nonfull; /* only waited on when the mailbox is bounded */
    msg_t *buf;
    uint32_t cap, head, len, limit;
    int full_waiters;
} mailbox_t;

static int mb_init(mailbox_t *mb, uint32_t cap, uint32_t limit)
{
    pthread_mutex_init(&mb->mu, NULL);
    pthread_cond_init(&mb->nonempty, NULL);
    pthread_cond_init(&mb->nonfull, NULL);
    mb->buf = malloc(sizeof(msg_t) * cap);
    mb->cap = cap;
    mb->head = mb->len = 0;
    mb->limit = limit;
    mb->full_waiters = 0;
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

/* called with mb->mu held and the buffer full */
static void mb_grow(mailbox_t *mb)
{
    uint32_t ncap = mb->cap * 2 > mb->limit ? mb->limit : mb->cap * 2;
    msg_t *nb = malloc(sizeof(msg_t) * ncap);
    if (!nb)
        fail("limit", 3, "out of memory growing a mailbox to %u messages; free memory or use smaller n/m", ncap);
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

/* make room for k messages up front (untimed), so no thread grows it later */
static void mb_reserve(mailbox_t *mb, int64_t k)
{
    pthread_mutex_lock(&mb->mu);
    while ((int64_t)mb->cap < k && mb->cap < mb->limit)
        mb_grow(mb);
    pthread_mutex_unlock(&mb->mu);
}

static inline void mb_send(mailbox_t *mb, msg_t m)
{
    pthread_mutex_lock(&mb->mu);
    while (mb->len == mb->cap) {
        if (mb->cap < mb->limit) {
            mb_grow(mb);
        } else {
            mb->full_waiters++;
            pthread_cond_wait(&mb->nonfull, &mb->mu);
            mb->full_waiters--;
        }
    }
    uint32_t i = mb->head + mb->len;
    if (i >= mb->cap)
        i -= mb->cap;
    mb->buf[i] = m;
    int wake = (++mb->len == 1);
#ifdef RB_SIGNAL_INSIDE /* experiment: signal while holding the lock */
    if (wake)
        pthread_cond_signal(&mb->nonempty);
    wake = 0;
#endif
    pthread_mutex_unlock(&mb->mu);
    /* Signal after unlocking: the woken thread does not bounce off a mutex
     * we still hold. Only the empty->non-empty transition needs a wake-up:
     * the single owner waits only while the mailbox is empty. */
    if (wake)
        pthread_cond_signal(&mb->nonempty);
}

static inline msg_t mb_recv(mailbox_t *mb)
{
#ifdef RB_SPIN /* experiment only: poll before blocking (not the blocking model) */
    for (int i = 0; i < RB_SPIN && __atomic_load_n(&mb->len, __ATOMIC_RELAXED) == 0; i++)
        __builtin_ia32_pause();
#endif
    pthread_mutex_lock(&mb->mu);
    while (mb->len == 0)
        pthread_cond_wait(&mb->nonempty, &mb->mu);
    msg_t m = mb->buf[mb->head];
    if (++mb->head == mb->cap)
        mb->head = 0;
    mb->len--;
    int wake_full = mb->full_waiters > 0;
    pthread_mutex_unlock(&mb->mu);
    if (wake_full)
        pthread_cond_signal(&mb->nonfull);
    return m;
}

#define MSG(k, f, v) ((msg_t){.kind = (k), .from = (f), .value = (v)})

/* ------------------------------------------------------------- processes */

typedef struct proc {
    mailbox_t mb;
    struct proc *next;
    int64_t count;
    int32_t idx;
    pthread_t tid;
} __attribute__((aligned(64))) proc_t;

static proc_t main_proc __attribute__((aligned(64))); /* the main process's mailbox */
static proc_t *procs;                                 /* the n processes */
static proc_t *extra;                                 /* fanin receiver / pingpong pair */
static int64_t g_n, g_m, g_total;
static int g_trace, g_continuous;
static int64_t g_expect_started;
static atomic_llong g_started;
static atomic_llong g_laps;

/* Startup barrier: the last thread to start tells main with one message, so
 * setup_ns covers "all processes exist and are waiting". */
static inline void started(void)
{
    if (atomic_fetch_add_explicit(&g_started, 1, memory_order_acq_rel) + 1 == g_expect_started)
        mb_send(&main_proc.mb, MSG(M_READY, -1, 0));
}

static void *ring_thread(void *arg)
{
    proc_t *self = arg;
    proc_t *next = self->next;
    const int32_t idx = self->idx;
    int64_t count = 0;
    started();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        switch (m.kind) {
        case M_TOKEN:
            count++;
            if (g_continuous) {
                if (idx == 0)
                    atomic_fetch_add_explicit(&g_laps, 1, memory_order_relaxed);
                mb_send(&next->mb, m);
                break;
            }
            if (g_trace) {
                int64_t hop = g_total - m.value + 1;
                pthread_mutex_lock(&out_mu);
                printf("{\"type\":\"hop\",\"hop\":%" PRId64 ",\"lap\":%" PRId64 ",\"from\":%d,\"to\":%d}\n",
                       hop, (hop - 1) / g_n + 1, m.from, idx);
                fflush(stdout);
                pthread_mutex_unlock(&out_mu);
            }
            if (m.value == 1) {
                mb_send(&main_proc.mb, MSG(M_DONE, idx, 0));
            } else {
                m.value--;
                m.from = idx;
                mb_send(&next->mb, m);
            }
            break;
        case M_STOP:
            self->count = count;
            m.value += count;
            mb_send(idx == g_n - 1 ? &main_proc.mb : &next->mb, m);
            return NULL;
        case M_QUIT:
            self->count = count;
            return NULL;
        }
    }
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
static void *ping_thread(void *arg)
{
    proc_t *self = arg;
    proc_t *b = &extra[1];
    started();
    msg_t m = mb_recv(&self->mb);
    if (m.kind != M_START)
        return NULL;
    int64_t rounds = m.value;
    for (int64_t i = 0; i < rounds; i++) {
        mb_send(&b->mb, MSG(M_PING, 0, i));
        msg_t r = mb_recv(&self->mb);
        if (r.kind != M_PONG)
            fail("failure", 1, "pingpong: A expected a pong, got message kind %d", r.kind);
    }
    mb_send(&main_proc.mb, MSG(M_DONE, 0, rounds));
    return NULL;
}

static void *pong_thread(void *arg)
{
    proc_t *self = arg;
    proc_t *a = &extra[0];
    int64_t count = 0;
    started();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.kind == M_PING) {
            count++;
            mb_send(&a->mb, MSG(M_PONG, 1, m.value));
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
    int64_t count = 0, target = g_n * g_m;
    started();
    for (;;) {
        msg_t m = mb_recv(&self->mb);
        if (m.kind == M_DATA) {
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
    mailbox_t *rx = &extra[0].mb;
    const int64_t m_ = g_m;
    started();
    msg_t m = mb_recv(&self->mb);
    if (m.kind != M_START)
        return NULL;
    for (int64_t i = 0; i < m_; i++)
        mb_send(rx, MSG(M_DATA, self->idx, i));
    return NULL;
}

/* ------------------------------------------------------------ limit checks */

static int64_t read_int_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[64];
    int64_t v = -1;
    if (!f)
        return -1;
    if (fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "max", 3) == 0)
            v = INT64_MAX;
        else
            v = strtoll(buf, NULL, 10);
    }
    fclose(f);
    return v;
}

static int64_t threads_in_use(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, c;
    long running = 0, total = -1;
    if (!f)
        return -1;
    if (fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &running, &total) != 5)
        total = -1;
    fclose(f);
    return total;
}

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

static int64_t own_map_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    int64_t n = 0;
    int c;
    if (!f)
        return 0;
    while ((c = getc(f)) != EOF)
        if (c == '\n')
            n++;
    fclose(f);
    return n;
}

/* RLIMIT_NPROC is not enforced for root or with CAP_SYS_RESOURCE/CAP_SYS_ADMIN */
static int nproc_exempt(void)
{
    FILE *f;
    char line[256];
    int exempt = 0;
    if (getuid() == 0)
        return 1;
    f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "CapEff:", 7) == 0) {
            unsigned long long caps = strtoull(line + 7, NULL, 16);
            exempt = ((caps >> 21) & 1) || ((caps >> 24) & 1);
        }
    }
    fclose(f);
    return exempt;
}

/* threads currently owned by our real uid (what RLIMIT_NPROC counts) */
static int64_t user_threads(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    uid_t me = getuid();
    int64_t total = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char path[300], line[256];
        FILE *f;
        long uid = -1, thr = 0;
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Uid:", 4) == 0)
                uid = strtol(line + 4, NULL, 10);
            else if (strncmp(line, "Threads:", 8) == 0)
                thr = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (uid == (long)me)
            total += thr;
    }
    closedir(d);
    return total;
}

/* cgroup v2 file for our own cgroup, e.g. pids.max; -1 if absent */
static int64_t cgroup_value(const char *file)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024], path[1400];
    int64_t v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = 0;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", line + 3, file);
            v = read_int_file(path);
            break;
        }
    }
    fclose(f);
    return v;
}

/* Refuse (kind `limit`, exit 3) before spawning `want` more threads if the
 * machine cannot hold them. */
static void check_limits(int64_t want)
{
    int64_t in_use = threads_in_use();
    struct rlimit rl;

    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && !nproc_exempt()) {
        int64_t soft = (int64_t)rl.rlim_cur;
        int64_t mine = 1; /* at least this thread */
        if (want + 1 > soft)
            fail("limit", 3,
                 "%" PRId64 " threads requested but RLIMIT_NPROC (ulimit -u) is %" PRId64
                 "; raise it with `ulimit -u N` (or nproc in /etc/security/limits.conf)",
                 want, soft);
        if (in_use > 0 && want + in_use > soft) {
            mine = user_threads();
            if (mine >= 0 && want + mine > soft)
                fail("limit", 3,
                     "%" PRId64 " threads requested, this user already runs %" PRId64
                     " and RLIMIT_NPROC (ulimit -u) is %" PRId64
                     "; raise it with `ulimit -u N` (or nproc in /etc/security/limits.conf)",
                     want, mine, soft);
        }
    }

    int64_t tmax = read_int_file("/proc/sys/kernel/threads-max");
    if (tmax > 0 && in_use >= 0 && want + in_use + TASK_RESERVE > tmax)
        fail("limit", 3,
             "%" PRId64 " threads requested, %" PRId64 " tasks already exist and kernel.threads-max is %" PRId64
             " (keeping %d for the rest of the system): room for %" PRId64
             "; raise it with `sysctl -w kernel.threads-max=N`",
             want, in_use, tmax, TASK_RESERVE, tmax - in_use - TASK_RESERVE);

    int64_t pmax = read_int_file("/proc/sys/kernel/pid_max");
    if (pmax > 0 && in_use >= 0 && want + in_use + TASK_RESERVE > pmax - 1)
        fail("limit", 3,
             "%" PRId64 " threads requested but each thread needs a pid: kernel.pid_max is %" PRId64
             ", %" PRId64 " tasks already exist (keeping %d for the rest of the system): room for %" PRId64
             "; raise it with `sysctl -w kernel.pid_max=N` (up to 4194304)",
             want, pmax, in_use, TASK_RESERVE, pmax - 1 - in_use - TASK_RESERVE);

    int64_t cg_max = cgroup_value("pids.max"), cg_cur = cgroup_value("pids.current");
    if (cg_max > 0 && cg_max != INT64_MAX && cg_cur >= 0 && want + cg_cur > cg_max)
        fail("limit", 3,
             "%" PRId64 " threads requested but the cgroup's pids.max is %" PRId64 " with %" PRId64
             " in use; raise pids.max of this cgroup (e.g. systemd TasksMax=, docker --pids-limit)",
             want, cg_max, cg_cur);

    int64_t maps_max = read_int_file("/proc/sys/vm/max_map_count");
    int64_t maps_own = own_map_count();
    if (maps_max > 0 && 2 * want + maps_own + 64 > maps_max)
        fail("limit", 3,
             "%" PRId64 " threads need about %" PRId64 " memory mappings (stack + guard page each) but "
             "vm.max_map_count is %" PRId64 " and %" PRId64
             " are in use: room for %" PRId64 " threads; raise it with `sysctl -w vm.max_map_count=N`",
             want, 2 * want, maps_max, maps_own, (maps_max - maps_own - 64) / 2);

    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        int64_t vm_kb = -1;
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (strncmp(line, "VmSize:", 7) == 0)
                vm_kb = strtoll(line + 7, NULL, 10);
        if (f)
            fclose(f);
        int64_t need_as = want * (int64_t)(RB_STACK_SIZE + 4096) + (vm_kb > 0 ? vm_kb * 1024 : 0) + (64 << 20);
        if (need_as > (int64_t)as.rlim_cur)
            fail("limit", 3,
                 "%" PRId64 " threads need about %" PRId64 " MiB of address space (%d KiB stack + guard page each) "
                 "but RLIMIT_AS (ulimit -v) is %" PRId64 " MiB; raise it with `ulimit -v N` or use a smaller n",
                 want, need_as >> 20, RB_STACK_SIZE / 1024, (int64_t)(as.rlim_cur >> 20));
    }

    int64_t avail_kb = meminfo_kb("MemAvailable");
    int64_t need = want * (int64_t)BYTES_PER_THREAD_ESTIMATE;
    if (avail_kb > 0 && need > avail_kb * 1024 / 10 * 9)
        fail("limit", 3,
             "%" PRId64 " threads need about %" PRId64 " MiB (~%d KiB each: kernel stack, task, touched user stack) "
             "but MemAvailable is %" PRId64 " MiB; free memory or use a smaller n",
             want, need >> 20, BYTES_PER_THREAD_ESTIMATE / 1024, avail_kb >> 10);
    int64_t cg_mem = cgroup_value("memory.max"), cg_memcur = cgroup_value("memory.current");
    if (cg_mem > 0 && cg_mem != INT64_MAX && cg_memcur >= 0 && need + cg_memcur > cg_mem / 10 * 9)
        fail("limit", 3,
             "%" PRId64 " threads need about %" PRId64 " MiB but the cgroup's memory.max is %" PRId64
             " MiB with %" PRId64 " MiB in use; raise memory.max or use a smaller n",
             want, need >> 20, cg_mem >> 20, cg_memcur >> 20);

    if (read_int_file("/proc/sys/vm/overcommit_memory") == 2) {
        int64_t limit_kb = meminfo_kb("CommitLimit"), used_kb = meminfo_kb("Committed_AS");
        int64_t stacks = want * (int64_t)(RB_STACK_SIZE + 4096);
        if (limit_kb > 0 && used_kb >= 0 && stacks > (limit_kb - used_kb) * 1024)
            fail("limit", 3,
                 "%" PRId64 " thread stacks commit %" PRId64 " MiB but vm.overcommit_memory=2 leaves %" PRId64
                 " MiB (CommitLimit - Committed_AS); raise vm.overcommit_ratio or use a smaller n",
                 want, stacks >> 20, (limit_kb - used_kb) >> 10);
    }
}

/* ------------------------------------------------------------ futex hash */

/* Since Linux 6.16 a process's private futexes hash into a per-process table
 * sized from min(threads, online CPUs): 16 buckets on a 2-CPU machine,
 * whatever the thread count. With 10,000 threads blocked in
 * pthread_cond_wait that is ~600 waiters per bucket, and every futex wake
 * walks its bucket. Size the table for the threads we are about to create
 * (one bucket per thread, power of two). Older kernels reject the prctl
 * (EINVAL) and keep the global table; that is fine.
 * RINGBENCH_FUTEX_HASH_SLOTS overrides (-1: leave the kernel default,
 * 0: the global table), for experiments. */
#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

static void futex_hash_setup(int64_t threads)
{
    long slots = 16;
    while (slots < threads && slots < (1L << 22))
        slots <<= 1;
    const char *env = getenv("RINGBENCH_FUTEX_HASH_SLOTS");
    if (env && *env)
        slots = strtol(env, NULL, 10);
    if (slots >= 0)
        (void)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, (unsigned long)slots, 0UL, 0UL);
}

/* ---------------------------------------------------------- thread plumbing */

static pthread_attr_t g_attr;
static size_t g_guard;

static void attr_setup(void)
{
    pthread_attr_init(&g_attr);
    size_t ss = RB_STACK_SIZE;
    long min = sysconf(_SC_THREAD_STACK_MIN);
    if (min > 0 && ss < (size_t)min)
        ss = (size_t)min;
    if (pthread_attr_setstacksize(&g_attr, ss) != 0)
        fail("failure", 1, "pthread_attr_setstacksize(%zu) failed", ss);
    pthread_attr_getguardsize(&g_attr, &g_guard);
}

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

/* pthread_create failed after `made` threads of `groups`: tell every thread
 * created so far to quit, join them, and report the limit. Never returns. */
typedef struct {
    proc_t *p;
    int64_t made;
} group_t;

static void __attribute__((noreturn)) create_failed(int err, int64_t index, int64_t want, group_t *g, int ng)
{
    for (int i = 0; i < ng; i++)
        for (int64_t j = 0; j < g[i].made; j++)
            mb_send(&g[i].p[j].mb, MSG(M_QUIT, -1, 0));
    for (int i = 0; i < ng; i++)
        join_all(g[i].p, g[i].made);
    fail(err == EAGAIN || err == ENOMEM ? "limit" : "failure", err == EAGAIN || err == ENOMEM ? 3 : 1,
         "pthread_create failed for thread %" PRId64 " of %" PRId64 ": %s (errno %d); created threads were "
         "torn down. Likely limits: kernel.pid_max / kernel.threads-max (sysctl -w ...), ulimit -u, "
         "vm.max_map_count, cgroup pids.max, or memory for %d KiB stacks",
         index + 1, want, strerror(err), err, RB_STACK_SIZE / 1024);
}

static msg_t expect(int kind, const char *what)
{
    msg_t m = mb_recv(&main_proc.mb);
    if (m.kind != kind)
        fail("failure", 1, "main expected %s, got message kind %d", what, m.kind);
    return m;
}

/* ----------------------------------------------------------------- params */

typedef struct {
    int64_t n, m, tokens, repeats, warmup, cores, sample_ms, samples, stats, reverse;
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
    {"cores", K(cores), 1, 1000000, 0, 0},                             \
    {"sample_ms", K(sample_ms), 0, 3600000, 0, 0},                     \
    {"samples", K(samples), 1, 1000000000, 3, 0},                      \
    {"stats", K(stats), 0, 1, 0, 0}

static const keydef_t ring_keys[] = {
    /* m: required, except in continuous mode where it is ignored (checked below) */
    {"n", K(n), 1, 10000000, 0, 1}, {"m", K(m), 1, 1000000000, 0, 0}, {"tokens", K(tokens), 1, 10000000, 1, 0},
    COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static const keydef_t spawn_keys[] = {{"n", K(n), 1, 10000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static const keydef_t pingpong_keys[] = {{"m", K(m), 1, 1000000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static const keydef_t fanin_keys[] = {
    {"n", K(n), 1, 10000000, 0, 1}, {"m", K(m), 1, 1000000000, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};
static const keydef_t trace_keys[] = {
    {"n", K(n), 1, 100, 0, 1}, {"m", K(m), 1, 100, 0, 1}, COMMON_KEYS, {NULL, 0, 0, 0, 0, 0}};

/* strict decimal integer: optional '-', digits only, no overflow */
static int parse_int(const char *s, int64_t *out)
{
    int neg = 0;
    uint64_t v = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
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
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static void parse_params(const char *workload, const keydef_t *defs, int argc, char **argv, params_t *p)
{
    int given[32] = {0};
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
    int64_t count, setup_ns, run_ns, setup_cpu_ns, run_cpu_ns, rss_before, rss_after;
    struct rusage ru0, ru1, ru2; /* before setup, after setup, after run */
    int64_t threads;
} result_t;

static void print_result(const char *workload, int64_t iteration, const char *keys, const result_t *r)
{
    printf("{\"type\":\"result\",\"workload\":\"%s\",\"iteration\":%" PRId64 "%s,\"count\":%" PRId64
           ",\"setup_ns\":%" PRId64 ",\"run_ns\":%" PRId64 ",\"setup_cpu_ns\":%" PRId64 ",\"run_cpu_ns\":%" PRId64
           ",\"rss_before\":%" PRId64 ",\"rss_after\":%" PRId64 "}\n",
           workload, iteration, keys, r->count, r->setup_ns, r->run_ns, r->setup_cpu_ns, r->run_cpu_ns,
           r->rss_before, r->rss_after);
}

static void print_stats(int64_t iteration, const result_t *r)
{
    printf("{\"type\":\"stats\",\"iteration\":%" PRId64 ",\"threads\":%" PRId64 ",\"stack_size_bytes\":%d"
           ",\"guard_size_bytes\":%zu"
           ",\"setup_voluntary_ctxt_switches\":%ld,\"setup_involuntary_ctxt_switches\":%ld"
           ",\"run_voluntary_ctxt_switches\":%ld,\"run_involuntary_ctxt_switches\":%ld"
           ",\"setup_minor_faults\":%ld,\"run_minor_faults\":%ld,\"max_rss_bytes\":%ld,\"futex_hash_slots\":%ld}\n",
           iteration, r->threads, RB_STACK_SIZE, g_guard, r->ru1.ru_nvcsw - r->ru0.ru_nvcsw,
           r->ru1.ru_nivcsw - r->ru0.ru_nivcsw, r->ru2.ru_nvcsw - r->ru1.ru_nvcsw,
           r->ru2.ru_nivcsw - r->ru1.ru_nivcsw, r->ru1.ru_minflt - r->ru0.ru_minflt,
           r->ru2.ru_minflt - r->ru1.ru_minflt, r->ru2.ru_maxrss * 1024L,
           (long)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0UL, 0UL, 0UL));
}

/* Phase bracketing. Everything measured-about (rss, rusage) is read outside
 * the clock readings that bound the phase. */
#define SETUP_BEGIN(r)                     \
    do {                                   \
        (r)->rss_before = rss_bytes();     \
        getrusage(RUSAGE_SELF, &(r)->ru0); \
        (r)->setup_cpu_ns = cpu_ns();      \
        (r)->setup_ns = mono_ns();         \
    } while (0)
#define SETUP_END(r)                                      \
    do {                                                  \
        (r)->setup_ns = mono_ns() - (r)->setup_ns;        \
        (r)->setup_cpu_ns = cpu_ns() - (r)->setup_cpu_ns; \
        getrusage(RUSAGE_SELF, &(r)->ru1);                \
        (r)->rss_after = rss_bytes();                     \
    } while (0)
#define RUN_BEGIN(r)                    \
    do {                                \
        (r)->run_cpu_ns = cpu_ns();     \
        (r)->run_ns = mono_ns();        \
    } while (0)
#define RUN_END(r)                                    \
    do {                                              \
        (r)->run_ns = mono_ns() - (r)->run_ns;        \
        (r)->run_cpu_ns = cpu_ns() - (r)->run_cpu_ns; \
        getrusage(RUSAGE_SELF, &(r)->ru2);            \
    } while (0)

/* ---------------------------------------------------------------- workloads */

/* Spawn the ring; returns when every thread is started and waiting. */
static void ring_spawn(int64_t n, int64_t tokens)
{
    /* a mailbox never holds more than `tokens` tokens plus the stop message */
    uint32_t cap = tokens > 1 ? 4 : 2;
    procs = alloc_procs(n, cap, UINT32_MAX / 2);
    for (int64_t i = 0; i < n; i++)
        procs[i].next = &procs[(i + 1) % n];
    atomic_store(&g_started, 0);
    g_expect_started = n;
    for (int64_t i = 0; i < n; i++) {
        int rc = pthread_create(&procs[i].tid, &g_attr, ring_thread, &procs[i]);
        if (rc != 0) {
            group_t g = {procs, i};
            create_failed(rc, i, n, &g, 1);
        }
    }
    expect(M_READY, "the ready signal");
}

static void do_ring(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n, m = p->m, tokens = p->tokens;
    result_t r;
    memset(&r, 0, sizeof r);
    g_n = n;
    g_m = m;
    g_total = n * m;
    r.threads = n;
    mb_reserve(&main_proc.mb, tokens + 1);

    SETUP_BEGIN(&r);
    ring_spawn(n, tokens);
    SETUP_END(&r);

    RUN_BEGIN(&r);
    for (int64_t j = 0; j < tokens; j++)
        mb_send(&procs[j * n / tokens].mb, MSG(M_TOKEN, -1, n * m));
    for (int64_t j = 0; j < tokens; j++)
        expect(M_DONE, "a token-finished message");
    RUN_END(&r);

    /* proof: a stop message travels the ring once, summing receipt counts */
    mb_send(&procs[0].mb, MSG(M_STOP, -1, 0));
    r.count = expect(M_STOP, "the stop message back").value;
    join_all(procs, n);
    free_procs(procs, n);
    procs = NULL;

    if (r.count != n * m * tokens)
        fail("failure", 1, "ring count mismatch: processes counted %" PRId64 " receipts, expected %" PRId64,
             r.count, n * m * tokens);
    if (iteration > 0) {
        char keys[160];
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64 ",\"tokens\":%" PRId64, n, m, tokens);
        if (g_trace) {
            snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
            print_result("trace", iteration, keys, &r);
        } else {
            print_result("ring", iteration, keys, &r);
        }
        if (p->stats)
            print_stats(iteration, &r);
        fflush(stdout);
    }
}

static void __attribute__((noreturn)) do_ring_continuous(const params_t *p)
{
    const int64_t n = p->n, tokens = p->tokens;
    g_n = n;
    g_m = p->m;
    g_total = n * p->m;
    g_continuous = 1;
    ring_spawn(n, tokens);

    const int64_t step = p->sample_ms * 1000000LL;
    int64_t prev = -1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int64_t t0 = (int64_t)start.tv_sec * 1000000000LL + start.tv_nsec;
    for (int64_t j = 0; j < tokens; j++)
        mb_send(&procs[j * n / tokens].mb, MSG(M_TOKEN, -1, 1));
    for (int64_t s = 1; s <= p->samples; s++) {
        int64_t target = t0 + s * step;
        struct timespec ts = {.tv_sec = target / 1000000000LL, .tv_nsec = target % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        int64_t laps = atomic_load_explicit(&g_laps, memory_order_relaxed);
        int64_t now = mono_ns();
        int64_t count = laps * n;
        if (count < prev)
            count = prev;
        prev = count;
        printf("{\"type\":\"sample\",\"seq\":%" PRId64 ",\"elapsed_ns\":%" PRId64 ",\"count\":%" PRId64 "}\n", s,
               now - t0, count);
        fflush(stdout);
    }
    fflush(stdout);
    _exit(0); /* no teardown, as the contract says */
}

static void do_spawn(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n;
    result_t r;
    memset(&r, 0, sizeof r);
    r.threads = n;
    mb_reserve(&main_proc.mb, n + 1);

    SETUP_BEGIN(&r);
    procs = alloc_procs(n, 2, 16);
    for (int64_t i = 0; i < n; i++) {
        int rc = pthread_create(&procs[i].tid, &g_attr, spawn_thread, &procs[i]);
        if (rc != 0) {
            group_t g = {procs, i};
            create_failed(rc, i, n, &g, 1);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        expect(M_READY, "a ready message");
        r.count++;
    }
    SETUP_END(&r);
    r.ru2 = r.ru1;

    for (int64_t i = 0; i < n; i++)
        mb_send(&procs[i].mb, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    free_procs(procs, n);
    procs = NULL;

    if (r.count != n)
        fail("failure", 1, "spawn: received %" PRId64 " ready messages, expected %" PRId64, r.count, n);
    if (iteration > 0) {
        char keys[64];
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64, n);
        print_result("spawn", iteration, keys, &r);
        if (p->stats)
            print_stats(iteration, &r);
        fflush(stdout);
    }
}

static void do_pingpong(const params_t *p, int64_t iteration)
{
    const int64_t m = p->m;
    result_t r;
    memset(&r, 0, sizeof r);
    r.threads = 2;

    SETUP_BEGIN(&r);
    extra = alloc_procs(2, 2, UINT32_MAX / 2);
    atomic_store(&g_started, 0);
    g_expect_started = 2;
    void *(*fn[2])(void *) = {ping_thread, pong_thread};
    for (int i = 0; i < 2; i++) {
        int rc = pthread_create(&extra[i].tid, &g_attr, fn[i], &extra[i]);
        if (rc != 0) {
            group_t g = {extra, i};
            create_failed(rc, i, 2, &g, 1);
        }
    }
    expect(M_READY, "the ready signal");
    SETUP_END(&r);

    RUN_BEGIN(&r);
    mb_send(&extra[0].mb, MSG(M_START, -1, m));
    expect(M_DONE, "pingpong done");
    RUN_END(&r);

    mb_send(&extra[1].mb, MSG(M_QUIT, -1, 0));
    join_all(extra, 2);
    r.count = extra[1].count;
    free_procs(extra, 2);
    extra = NULL;

    if (r.count != m)
        fail("failure", 1, "pingpong: B counted %" PRId64 " round trips, expected %" PRId64, r.count, m);
    if (iteration > 0) {
        char keys[64];
        snprintf(keys, sizeof keys, ",\"m\":%" PRId64, m);
        print_result("pingpong", iteration, keys, &r);
        if (p->stats)
            print_stats(iteration, &r);
        fflush(stdout);
    }
}

static void do_fanin(const params_t *p, int64_t iteration)
{
    const int64_t n = p->n, m = p->m;
    result_t r;
    memset(&r, 0, sizeof r);
    g_n = n;
    g_m = m;
    r.threads = n + 1;

    SETUP_BEGIN(&r);
    /* the receiver's mailbox grows up to 1M messages (16 MiB), then senders
     * block until it drains: bounded memory whatever n*m is */
    extra = alloc_procs(1, 1024, 1u << 20);
    procs = alloc_procs(n, 2, 16);
    atomic_store(&g_started, 0);
    g_expect_started = n + 1;
    int rc = pthread_create(&extra[0].tid, &g_attr, fanin_receiver, &extra[0]);
    if (rc != 0) {
        group_t g = {extra, 0};
        create_failed(rc, 0, n + 1, &g, 1);
    }
    for (int64_t i = 0; i < n; i++) {
        rc = pthread_create(&procs[i].tid, &g_attr, fanin_sender, &procs[i]);
        if (rc != 0) {
            group_t g[2] = {{extra, 1}, {procs, i}};
            create_failed(rc, i + 1, n + 1, g, 2);
        }
    }
    expect(M_READY, "the ready signal");
    SETUP_END(&r);

    RUN_BEGIN(&r);
    for (int64_t i = 0; i < n; i++)
        mb_send(&procs[i].mb, MSG(M_START, -1, 0));
    r.count = expect(M_DONE, "fanin done").value;
    RUN_END(&r);

    mb_send(&extra[0].mb, MSG(M_QUIT, -1, 0));
    join_all(procs, n);
    join_all(extra, 1);
    free_procs(procs, n);
    free_procs(extra, 1);
    procs = extra = NULL;

    if (r.count != n * m)
        fail("failure", 1, "fanin: receiver got %" PRId64 " messages, expected %" PRId64, r.count, n * m);
    if (iteration > 0) {
        char keys[96];
        snprintf(keys, sizeof keys, ",\"n\":%" PRId64 ",\"m\":%" PRId64, n, m);
        print_result("fanin", iteration, keys, &r);
        if (p->stats)
            print_stats(iteration, &r);
        fflush(stdout);
    }
}

/* ------------------------------------------------------------------- main */

static void describe(void)
{
    printf("{\"type\":\"describe\",\"contract\":1,\"name\":\"c-pthreads\",\"runtime\":\"C (POSIX threads, glibc NPTL)\","
           "\"version\":\"glibc %s, gcc %s\",\"workloads\":[\"ring\",\"spawn\",\"pingpong\",\"fanin\",\"trace\"],"
           "\"features\":[\"tokens\",\"continuous\",\"stats\"],\"variant\":\"\"}\n",
           gnu_get_libc_version(), __VERSION__);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        BAD_PARAM("usage: ringbench-c-pthreads describe | run <workload> key=value ...");
    if (strcmp(argv[1], "describe") == 0) {
        if (argc != 2)
            BAD_PARAM("describe takes no arguments");
        describe();
        fflush(stdout);
        return 0;
    }
    if (strcmp(argv[1], "run") != 0) {
        BAD_PARAM("unknown verb '%s'; usage: ringbench-c-pthreads describe | run <workload> key=value ...", argv[1]);
    }
    if (argc < 3)
        BAD_PARAM("run needs a workload: ring, spawn, pingpong, fanin, trace");

    const char *w = argv[2];
    int wargc = argc - 3;
    char **wargv = argv + 3;
    params_t p;
    memset(&p, 0, sizeof p);
    void (*body)(const params_t *, int64_t) = NULL;
    int64_t threads = 0;

    if (strcmp(w, "ring") == 0) {
        parse_params(w, ring_keys, wargc, wargv, &p);
        if (p.m == 0 && p.sample_ms == 0)
            BAD_PARAM("missing required key 'm' for workload ring");
        if (p.m == 0)
            p.m = 1; /* continuous mode ignores m */
        if (p.tokens > p.n)
            BAD_PARAM("tokens must be <= n, got tokens=%" PRId64 " n=%" PRId64, p.tokens, p.n);
        __int128 hops = (__int128)p.n * p.m * p.tokens;
        if (hops >= ((__int128)1 << 62))
            BAD_PARAM("n*m*tokens must be < 2^62");
        body = do_ring;
        threads = p.n;
    } else if (strcmp(w, "trace") == 0) {
        parse_params(w, trace_keys, wargc, wargv, &p);
        p.tokens = 1;
        body = do_ring;
        threads = p.n;
    } else if (strcmp(w, "spawn") == 0) {
        parse_params(w, spawn_keys, wargc, wargv, &p);
        body = do_spawn;
        threads = p.n;
    } else if (strcmp(w, "pingpong") == 0) {
        parse_params(w, pingpong_keys, wargc, wargv, &p);
        body = do_pingpong;
        threads = 2;
    } else if (strcmp(w, "fanin") == 0) {
        parse_params(w, fanin_keys, wargc, wargv, &p);
        if ((__int128)p.n * p.m >= ((__int128)1 << 62))
            BAD_PARAM("n*m must be < 2^62");
        body = do_fanin;
        threads = p.n + 1;
    } else if (strcmp(w, "selective") == 0) {
        fail("unsupported", 2,
             "selective receive is not available: a pthread mailbox (mutex + condition variable FIFO) can only "
             "take the head message; C/pthreads has no receive that skips non-matching messages");
    } else {
        fail("unknown_workload", 2, "unknown workload '%s'; this driver knows ring, spawn, pingpong, fanin, trace",
             w);
    }
    if (p.sample_ms > 0 && strcmp(w, "ring") != 0)
        BAD_PARAM("sample_ms > 0 (continuous mode) is defined only for the ring workload");

    check_limits(threads);
    futex_hash_setup(threads);
    attr_setup();
    mb_init(&main_proc.mb, 16, UINT32_MAX / 2);

    if (p.sample_ms > 0)
        do_ring_continuous(&p);

    for (int64_t i = 0; i < p.warmup; i++) {
        g_trace = 0;
        body(&p, 0);
    }
    for (int64_t i = 1; i <= p.repeats; i++) {
        g_trace = strcmp(w, "trace") == 0;
        body(&p, i);
    }
    fflush(stdout);
    return 0;
}
