/* Records (docs/driver-contract.md, section 4): JSON Lines on stdout, one object a line, each
 * written whole and flushed; errors with their kinds and exit codes; diagnostics on stderr. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const rb_driver *rb_driver_;

/* room kept for the closing "}\n" and the terminating 0 */
#define TAIL 3

static void put(rb_rec *r, const char *s, size_t k)
{
    const size_t room = sizeof r->buf - TAIL - r->len;
    if (k > room)
        k = room;
    memcpy(r->buf + r->len, s, k);
    r->len += k;
}

static void put_str(rb_rec *r, const char *s)
{
    put(r, "\"", 1);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char esc[8];
        if (sizeof r->buf - TAIL - r->len < 8)
            break; /* too long: cut, but keep the record valid */
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            put(r, esc, 2);
        } else if (c < 0x20 || c >= 0x7f) { /* keep the output pure ASCII */
            put(r, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", c));
        } else {
            put(r, (const char *)&c, 1);
        }
    }
    put(r, "\"", 1);
}

static void put_key(rb_rec *r, const char *key)
{
    put(r, ",", 1);
    put_str(r, key);
    put(r, ":", 1);
}

void rb_rec_begin(rb_rec *r, const char *type)
{
    r->len = 0;
    put(r, "{\"type\":", 8);
    put_str(r, type);
}

void rb_rec_int(rb_rec *r, const char *key, int64_t v)
{
    char num[24];
    put_key(r, key);
    put(r, num, (size_t)snprintf(num, sizeof num, "%" PRId64, v));
}

void rb_rec_str(rb_rec *r, const char *key, const char *v)
{
    put_key(r, key);
    put_str(r, v);
}

void rb_rec_raw(rb_rec *r, const char *key, const char *json)
{
    put_key(r, key);
    put(r, json, strlen(json));
}

void rb_rec_emit(rb_rec *r)
{
    r->buf[r->len++] = '}';
    r->buf[r->len++] = '\n';
    flockfile(stdout);
    fwrite_unlocked(r->buf, 1, r->len, stdout);
    fflush_unlocked(stdout);
    funlockfile(stdout);
}

void rb_trace_hop(const rb_params *p, int64_t v, int64_t from, int64_t to)
{
    const int64_t hop = p->n * p->m - v + 1;
    rb_rec r;
    rb_rec_begin(&r, "hop");
    rb_rec_int(&r, "hop", hop);
    rb_rec_int(&r, "lap", (hop - 1) / p->n + 1);
    rb_rec_int(&r, "from", from);
    rb_rec_int(&r, "to", to);
    rb_rec_emit(&r);
}

void rb_sample(int64_t seq, int64_t elapsed_ns, int64_t count)
{
    rb_rec r;
    rb_rec_begin(&r, "sample");
    rb_rec_int(&r, "seq", seq);
    rb_rec_int(&r, "elapsed_ns", elapsed_ns);
    rb_rec_int(&r, "count", count);
    rb_rec_emit(&r);
}

void rb_sample_loop(const rb_params *p, int64_t t0, int64_t (*laps)(void *), void *ctx)
{
    const int64_t step = p->sample_ms * 1000000;
    int64_t prev = 0;
    for (int64_t s = 1; s <= p->samples; s++) {
        const int64_t due = t0 + s * step;
        const struct timespec ts = {.tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        int64_t count = laps(ctx) * p->n;
        const int64_t now = rb_mono_ns();
        if (count < prev)
            count = prev;
        prev = count;
        rb_sample(s, now - t0, count);
    }
    rb_exit_ok();
}

void rb_exit_ok(void)
{
    fflush(stdout);
    _exit(0);
}

static const char *const KIND[] = {"", "bad_param", "unknown_workload", "unsupported", "limit", "failure"};

const char *rb_kind_name(int kind) { return kind > 0 && kind <= RB_FAILURE ? KIND[kind] : "failure"; }

int rb_exit_code(int kind)
{
    switch (kind) {
    case RB_BAD_PARAM:
    case RB_UNKNOWN_WORKLOAD:
    case RB_UNSUPPORTED: return 2;
    case RB_LIMIT: return 3;
    default: return 1;
    }
}

void rb_fail(int kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rb_rec r;
    rb_rec_begin(&r, "error");
    rb_rec_str(&r, "kind", rb_kind_name(kind));
    rb_rec_str(&r, "message", msg);
    flockfile(stdout); /* held to the end: no other record follows the error */
    rb_rec_emit(&r);
    fprintf(stderr, "%s: %s: %s\n", rb_driver_ ? rb_driver_->name : "ringbench", rb_kind_name(kind), msg);
    _exit(rb_exit_code(kind));
}

/* ----------------------------------------------------- thread creation failed */

static int64_t count_lines(const char *path)
{
    FILE *f = fopen(path, "re");
    int64_t k = 0;
    int c;
    if (!f)
        return -1;
    while ((c = getc_unlocked(f)) != EOF)
        k += c == '\n';
    fclose(f);
    return k;
}

/* the cgroup v2 file of this process's cgroup (path + name), or "" */
static void cgroup_file(const char *name, char *out, size_t cap)
{
    char buf[512] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    out[0] = 0;
    if (!f)
        return;
    while (fgets(buf, sizeof buf, f))
        if (strncmp(buf, "0::", 3) == 0) {
            buf[strcspn(buf, "\n")] = 0;
            snprintf(out, cap, "/sys/fs/cgroup%s/%s", buf + 3, name);
            break;
        }
    fclose(f);
}

void rb_thread_create_failed(int err, int64_t index, int64_t want)
{
    char what[64];
    if (index >= 0)
        snprintf(what, sizeof what, "process %" PRId64, index + 1);
    else
        snprintf(what, sizeof what, "a process");
    if (err != EAGAIN && err != ENOMEM)
        rb_failure("creating the thread of %s of %" PRId64 " failed: %s (errno %d)", what, want, strerror(err), err);
    /* Which limit ran out: each one's figure against its limit. */
    long running = 0, tasks = -1;
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "re");
    if (f) {
        if (fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &running, &tasks) != 5)
            tasks = -1;
        fclose(f);
    }
    const int64_t pid_max = rb_read_int_file("/proc/sys/kernel/pid_max");
    const int64_t threads_max = rb_read_int_file("/proc/sys/kernel/threads-max");
    const int64_t map_max = rb_read_int_file("/proc/sys/vm/max_map_count");
    const int64_t maps = count_lines("/proc/self/maps");
    const int64_t threads = rb_threads();
    char path[600];
    cgroup_file("pids.max", path, sizeof path);
    const int64_t pids_max = path[0] ? rb_read_int_file(path) : -1;
    cgroup_file("pids.current", path, sizeof path);
    const int64_t pids_now = path[0] ? rb_read_int_file(path) : -1;
    struct rlimit nproc, as;
    getrlimit(RLIMIT_NPROC, &nproc);
    getrlimit(RLIMIT_AS, &as);
    const int64_t nproc_max = nproc.rlim_cur == RLIM_INFINITY ? INT64_MAX : (int64_t)nproc.rlim_cur;
    const int64_t as_max = as.rlim_cur == RLIM_INFINITY ? INT64_MAX : (int64_t)as.rlim_cur;
    const int64_t vm_size = rb_status_kb("VmSize") * 1024;
    const char *which;
    if (as_max != INT64_MAX && vm_size > as_max - (INT64_C(64) << 20))
        which = "the address space, RLIMIT_AS (ulimit -v; each thread reserves its whole stack)";
    else if (pids_max >= 0 && pids_max != INT64_MAX && pids_now >= pids_max - 1)
        which = "the cgroup's pids.max (raise it in the cgroup, e.g. systemd's TasksMax=)";
    else if (map_max > 0 && maps >= map_max - 4)
        which = "vm.max_map_count (sysctl -w vm.max_map_count=N; each thread takes about 2 mappings)";
    else if (threads_max > 0 && tasks >= threads_max - 1)
        which = "kernel.threads-max (sysctl -w kernel.threads-max=N)";
    else if (pid_max > 0 && tasks >= pid_max - 300)
        which = "kernel.pid_max (sysctl -w kernel.pid_max=N, at most 4194304)";
    else if (nproc_max != INT64_MAX && tasks >= nproc_max - 1)
        which = "RLIMIT_NPROC (ulimit -u N)";
    else if (err == ENOMEM)
        which = "memory for a thread stack (free memory, or smaller n)";
    else
        which = "one of the limits below (none is visibly reached: another program may have taken the room)";
    rb_limit("creating the thread of %s of %" PRId64 " failed: %s (errno %d). The limit that ran out: %s. "
             "Figures: threads here %" PRId64 ", tasks on the machine %ld, kernel.pid_max %" PRId64
             ", kernel.threads-max %" PRId64 ", vm.max_map_count %" PRId64 " (mappings here %" PRId64
             "), cgroup pids %" PRId64 " of %" PRId64 ", ulimit -u %" PRId64 ", ulimit -v %" PRId64
             " KiB (address space here %" PRId64 " KiB), MemAvailable %" PRId64 " MiB (-1: no such limit)",
             what, want, strerror(err), err, which, threads, tasks, pid_max, threads_max, map_max, maps, pids_now,
             pids_max == INT64_MAX ? -1 : pids_max, nproc_max == INT64_MAX ? -1 : nproc_max,
             as_max == INT64_MAX ? -1 : as_max >> 10, vm_size >> 10,
             rb_proc_field_("/proc/meminfo", "MemAvailable") >> 10);
}
