/* Clocks' phases, /proc readings and the memory rule (docs/driver-contract.md, section 3). */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rb_memory rb_mem_;

/* read a small /proc file whole (no stdio, no allocation); its length, or -1 */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    for (;;) {
        ssize_t k = read(fd, buf + len, cap - 1 - len);
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == cap - 1)
            break;
    }
    close(fd);
    buf[len] = 0;
    return (ssize_t)len;
}

int64_t rb_rss_bytes(void)
{
    char buf[128];
    long long size = 0, resident = 0;
    if (slurp("/proc/self/statm", buf, sizeof buf) <= 0 || sscanf(buf, "%lld %lld", &size, &resident) != 2)
        return 0;
    return (int64_t)resident * sysconf(_SC_PAGESIZE);
}

int64_t rb_proc_field_(const char *path, const char *field)
{
    char buf[4096];
    const size_t fl = strlen(field);
    if (slurp(path, buf, sizeof buf) <= 0)
        return -1;
    for (const char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, field, fl) == 0 && line[fl] == ':')
            return strtoll(line + fl + 1, NULL, 10);
    return -1;
}

int64_t rb_status_kb(const char *field) { return rb_proc_field_("/proc/self/status", field); }

int64_t rb_threads(void) { return rb_status_kb("Threads"); }

int64_t rb_read_int_file(const char *path)
{
    char buf[64];
    if (slurp(path, buf, sizeof buf) <= 0)
        return -1;
    return strncmp(buf, "max", 3) == 0 ? INT64_MAX : strtoll(buf, NULL, 10);
}

static void read_before(void)
{
    rb_mem_.rss_before = rb_rss_bytes();
    if (rb_driver_ && rb_driver_->threads_per_process)
        rb_mem_.threads_before = rb_threads();
    if (rb_driver_ && rb_driver_->runtime_mem)
        rb_mem_.rt_before = rb_driver_->runtime_mem();
}

static void read_after(void)
{
    rb_mem_.rss_after = rb_rss_bytes();
    if (rb_driver_ && rb_driver_->threads_per_process)
        rb_mem_.threads_after = rb_threads();
    if (rb_driver_ && rb_driver_->runtime_mem)
        rb_mem_.rt_after = rb_driver_->runtime_mem();
    rb_mem_.read = 1;
}

void rb_spawn_begin(rb_result *r)
{
    if (!rb_mem_.read)
        read_before();
    getrusage(RUSAGE_SELF, &r->ru_begin);
    r->setup_cpu_ns = rb_cpu_ns();
    r->setup_ns = rb_mono_ns();
}

void rb_spawn_end(rb_result *r)
{
    const int64_t t = rb_mono_ns(), c = rb_cpu_ns();
    r->setup_ns = t - r->setup_ns;
    r->setup_cpu_ns = c - r->setup_cpu_ns;
    getrusage(RUSAGE_SELF, &r->ru_setup);
    r->setup_vcsw = r->ru_setup.ru_nvcsw - r->ru_begin.ru_nvcsw;
    r->setup_ivcsw = r->ru_setup.ru_nivcsw - r->ru_begin.ru_nivcsw;
    r->ru_run_begin = r->ru_run = r->ru_setup; /* until a run phase ends (spawn has none) */
    if (!rb_mem_.read)
        read_after();
}

void rb_run_begin(rb_result *r)
{
    getrusage(RUSAGE_SELF, &r->ru_run_begin);
    r->run_cpu_ns = rb_cpu_ns();
    r->run_ns = rb_mono_ns();
}

void rb_run_end(rb_result *r)
{
    const int64_t t = rb_mono_ns(), c = rb_cpu_ns();
    r->run_ns = t - r->run_ns;
    r->run_cpu_ns = c - r->run_cpu_ns;
    getrusage(RUSAGE_SELF, &r->ru_run);
    r->run_vcsw = r->ru_run.ru_nvcsw - r->ru_run_begin.ru_nvcsw;
    r->run_ivcsw = r->ru_run.ru_nivcsw - r->ru_run_begin.ru_nivcsw;
}

void rb_tree_begin(rb_result *r)
{
    if (!rb_mem_.read) {
        read_before();
        /* reset the peak-RSS mark (VmHWM) to the current RSS: proc(5), /proc/pid/clear_refs */
        int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "5", 1) != 1)
            fprintf(stderr, "%s: /proc/self/clear_refs refused the peak-RSS reset; rss_peak is the process's "
                    "peak so far\n", rb_driver_ ? rb_driver_->name : "ringbench");
        if (fd >= 0)
            close(fd);
    }
    /* no spawn phase: spawning, messages and exits interleave (setup_* stay 0) */
    r->setup_ns = r->setup_cpu_ns = r->setup_vcsw = r->setup_ivcsw = 0;
    rb_run_begin(r);
    r->ru_begin = r->ru_setup = r->ru_run_begin;
}

void rb_tree_end(rb_result *r)
{
    rb_run_end(r);
    if (!rb_mem_.read) {
        const int64_t hwm = rb_status_kb("VmHWM");
        read_after();
        /* the kernel folds RSS into VmHWM lazily: the peak is at least what is resident now */
        rb_mem_.rss_peak = hwm * 1024 > rb_mem_.rss_after ? hwm * 1024 : rb_mem_.rss_after;
    }
}
