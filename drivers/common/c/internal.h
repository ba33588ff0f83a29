/* Shared between the library's own files; not for drivers. */
#ifndef RINGBENCH_COMMON_INTERNAL_H
#define RINGBENCH_COMMON_INTERNAL_H

#include "ringbench.h"

/* The memory figures of the first spawn phase (or first tree), echoed by every result. */
struct rb_memory {
    int read; /* the first phase has been read */
    int64_t rss_before, rss_after, rss_peak;
    int64_t threads_before, threads_after;
    int64_t rt_before, rt_after;
};
extern struct rb_memory rb_mem_;
extern const rb_driver *rb_driver_; /* set by rb_main */

/* the number after "field:" in a /proc file of "field: value" lines (kB for sizes), -1 if absent */
int64_t rb_proc_field_(const char *path, const char *field);

#endif
