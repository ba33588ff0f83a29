/*
 * ringbench-common for C and C++ drivers: the driver contract (docs/driver-contract.md,
 * version 4) once, so that a driver writes only its workloads.
 *
 * What it owns: the verbs (`describe`, `run <workload> key=value ...`), the one option
 * (`--variant=<name>`), the parameters and their bounds (section 6), the iteration loop
 * (warm-ups, measured iterations, each result printed and flushed as its iteration ends),
 * the clocks, the memory rule (read around the first spawn phase, or the first tree, and
 * echoed), and every record (describe, result, stats, hop, sample, error).
 *
 * What a driver writes: one function per workload that runs one iteration (spawn, message
 * phase, proof, teardown), bracketing its phases with rb_spawn_begin/end, rb_run_begin/end
 * or rb_tree_begin/end; optionally its continuous ring, a `prepare` step and extra stats.
 *
 * The files are compiled into each driver by the driver's own Makefile (README.md).
 */
#ifndef RINGBENCH_COMMON_H
#define RINGBENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ workloads, parameters */

enum rb_workload { RB_RING, RB_SPAWN, RB_PINGPONG, RB_FANIN, RB_SELECTIVE, RB_TREE, RB_TRACE, RB_NWORKLOADS };

/* "ring", "spawn", ... indexed by enum rb_workload */
extern const char *const rb_workload_names[RB_NWORKLOADS];

typedef struct rb_params {
    enum rb_workload workload;
    const char *workload_name;
    int64_t n, m, tokens, burst, reverse, fanout; /* the workload's keys, defaults filled in */
    int64_t repeats, warmup, cores, sample_ms, samples, stats; /* the common keys */
    int variant;              /* index into the driver's variant names (0 when it has none) */
    const char *variant_name; /* "" when the driver has no variants */
    /* a ring across nodes (section 10): set by a driver with the feature (rb_parse_params fills 1, 0;
     * the library itself runs K = 1 only); results of K > 1 carry nodes, node_placement, cross_hops */
    int64_t nodes, node_placement;
} rb_params;

/* The error kinds of section 4, with their exit codes (rb_exit_code). */
enum rb_kind { RB_OK = 0, RB_BAD_PARAM, RB_UNKNOWN_WORKLOAD, RB_UNSUPPORTED, RB_LIMIT, RB_FAILURE };

/* The index of a workload name, or -1. */
int rb_workload_index(const char *name);

/* Parse `key=value ...` for a workload (section 2 and 6): every bound, each key once, ASCII
 * digits only, `tokens` <= n, n*m*tokens < 2^62 (fanin, selective: n*m), `m` optional in
 * continuous mode, tree's n a power of fanout, sample_ms > 0 only for ring. Fills *p, defaults
 * included (`cores` defaults to cores_default). Returns RB_OK, or RB_BAD_PARAM /
 * RB_UNKNOWN_WORKLOAD with the reason in msg. Prints nothing, exits never (unit-tested). */
int rb_parse_params(const char *workload, int argc, char *const *argv, int64_t cores_default, rb_params *p,
                    char *msg, size_t cap);

int64_t rb_expected_count(const rb_params *p); /* the count a run must prove (section 3) */
int64_t rb_expected_ready(const rb_params *p); /* arrivals at its spawn phase's gate; -1 for tree */
int64_t rb_processes(const rb_params *p);      /* the processes it spawns (tree: (fanout*n - 1)/(fanout - 1)) */
int64_t rb_inject_at(const rb_params *p, int64_t j); /* ring: the process token j enters at (burst: 0) */

/* The value main injects tokens with in continuous mode: a token that passes p0 with any other
 * value has gone round once more (section 5). */
#define RB_CONT_FRESH (INT64_C(1) << 62)

/* ------------------------------------------------------------------------ clocks */

/* *_ns are read from CLOCK_MONOTONIC, *_cpu_ns from CLOCK_PROCESS_CPUTIME_ID (all threads, 1 ns). */
#define RB_CLOCK "clock_gettime(CLOCK_MONOTONIC)"

static inline int64_t rb_clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
static inline int64_t rb_mono_ns(void) { return rb_clock_ns(CLOCK_MONOTONIC); }
static inline int64_t rb_cpu_ns(void) { return rb_clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

/* ------------------------------------------------------------- one iteration's result */

typedef struct rb_result {
    int64_t iteration; /* set by the loop: 1, 2, ... measured; 0, -1, ... warm-ups (print no hops) */
    int64_t count;     /* the count the driver proved (checked against rb_expected_count) */
    int64_t ready;     /* arrivals the gate saw when the spawn phase ended (not for tree) */
    int64_t setup_ns, run_ns, setup_cpu_ns, run_cpu_ns;
    /* voluntary and involuntary context switches of the whole process over each phase (contract 4),
     * from getrusage(RUSAGE_SELF) read just outside the phase's clock readings */
    int64_t setup_vcsw, setup_ivcsw, run_vcsw, run_ivcsw;
    /* getrusage before the spawn phase, after it, before the message phase, after it */
    struct rusage ru_begin, ru_setup, ru_run_begin, ru_run;
    int64_t cross_hops; /* a ring across nodes: the receipts whose sender is on another node */
} rb_result;

/* Phase brackets. Memory and getrusage are read outside the clock readings that bound a phase, so
 * nothing is added inside it; the end brackets fill *_ns, *_cpu_ns, *_vcsw and *_ivcsw.
 * The memory rule (section 3): rb_spawn_begin reads rss/threads/runtime_mem "before" and
 * rb_spawn_end "after" on the process's first spawn phase only; later results echo them. C has
 * no collector: nothing runs between the spawn phase and the message phase. */
void rb_spawn_begin(rb_result *r);
void rb_spawn_end(rb_result *r);
void rb_run_begin(rb_result *r);
void rb_run_end(rb_result *r);
/* tree: one timed phase. On the first tree rb_tree_begin reads the "before" figures and resets
 * the kernel's peak-RSS mark (5 > /proc/self/clear_refs); rb_tree_end reads VmRSS and VmHWM. */
void rb_tree_begin(rb_result *r);
void rb_tree_end(rb_result *r);

/* /proc readings */
int64_t rb_rss_bytes(void);               /* VmRSS (statm resident pages x page size) */
int64_t rb_status_kb(const char *field);  /* a field of /proc/self/status in kB ("VmHWM"), -1 if absent */
int64_t rb_threads(void);                 /* Threads: of /proc/self/status */
int64_t rb_read_int_file(const char *path); /* first integer of a file ("max": INT64_MAX), -1 if unreadable */

/* ---------------------------------------------------------------------- records */

/* A JSON object built on the stack and written whole (one line, flushed) under stdout's lock,
 * so records from several threads never interleave. */
typedef struct rb_rec {
    char buf[2048];
    size_t len;
} rb_rec;

void rb_rec_begin(rb_rec *r, const char *type);
void rb_rec_int(rb_rec *r, const char *key, int64_t v);
void rb_rec_str(rb_rec *r, const char *key, const char *v);
void rb_rec_raw(rb_rec *r, const char *key, const char *json); /* a value already in JSON */
void rb_rec_emit(rb_rec *r);

/* trace: the hop record of a ring process that received the token with value v (the token
 * starts at n*m and loses one a hop), from the sender `from` (-1: main) to `to` */
void rb_trace_hop(const rb_params *p, int64_t v, int64_t from, int64_t to);

/* continuous mode: one sample record */
void rb_sample(int64_t seq, int64_t elapsed_ns, int64_t count);

/* continuous mode with a sampler beside the ring: sleep to t0 + k*sample_ms, print laps(ctx)*n
 * as sample k, `samples` times, then exit 0 without teardown */
void rb_sample_loop(const rb_params *p, int64_t t0, int64_t (*laps)(void *), void *ctx)
    __attribute__((noreturn));

/* flush and end the process with status 0 (continuous mode: no teardown) */
void rb_exit_ok(void) __attribute__((noreturn));

/* Print an error record of this kind, then end the process with the kind's exit code (section 4).
 * Safe from any thread: the other threads end with the process. */
void rb_fail(int kind, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
#define rb_bad_param(...) rb_fail(RB_BAD_PARAM, __VA_ARGS__)
#define rb_limit(...) rb_fail(RB_LIMIT, __VA_ARGS__)
#define rb_failure(...) rb_fail(RB_FAILURE, __VA_ARGS__)

int rb_exit_code(int kind);
const char *rb_kind_name(int kind);

/* pthread_create (or any thread creation) failed with errno `err` for process `index` (from 0) of
 * `want`: a `limit` error naming the limit that ran out (RLIMIT_NPROC, kernel.threads-max,
 * kernel.pid_max, vm.max_map_count, the cgroup's pids.max, memory) with its figures and how to
 * raise it; `failure` for another errno. */
void rb_thread_create_failed(int err, int64_t index, int64_t want) __attribute__((noreturn));

/* ----------------------------------------------------------------------- a driver */

typedef struct rb_driver {
    const char *name;      /* the folder's name: "c-pthreads" */
    const char *runtime;   /* "C (POSIX threads, glibc NPTL)" */
    const char *version;   /* the runtime's own idea of its version */
    const char *clock;     /* describe's clock (RB_CLOCK unless the driver reads another) */
    const char *collector; /* "" when the runtime has none */
    const char *const *variants; /* NULL-terminated names, the first one the default; NULL: none */
    int tokens, continuous, stats; /* describe's features */
    int nodes;                     /* describe's feature `nodes`: the driver runs K > 1 itself (section 10) */
    int threads_per_process;       /* 1: results carry threads_before/threads_after */
    /* one iteration of each workload the driver offers (NULL: not offered) */
    void (*iteration[RB_NWORKLOADS])(const rb_params *p, rb_result *r);
    const char *selective_unsupported; /* why selective cannot be served, when it is not offered */
    void (*prepare)(const rb_params *p);         /* after parsing, before the first spawn (may be NULL) */
    void (*continuous_ring)(const rb_params *p); /* ring with sample_ms > 0: never returns */
    void (*stats_fields)(rb_rec *rec, const rb_params *p, const rb_result *r); /* extra stats (may be NULL) */
    int64_t (*runtime_mem)(void); /* runtime_mem_* in bytes, the driver's own accounting (may be NULL) */
} rb_driver;

/* The whole protocol: parse argv, answer describe, or run the workload's iterations. Returns the
 * exit status for main (0); errors end the process with their own. */
int rb_main(const rb_driver *d, int argc, char **argv);

/* the variant chosen by --variant= (the driver's first one by default), "" with none */
const char *rb_variant(void);

/* The records of one measured iteration, as rb_main's loop prints them: the result (with nodes,
 * node_placement and cross_hops when p->nodes > 1) and the stats record (the driver's stats_fields
 * added). For a driver that runs some iterations itself (caf's ring across nodes). */
void rb_print_result(const rb_driver *d, const rb_params *p, const rb_result *res);
void rb_print_stats(const rb_driver *d, const rb_params *p, const rb_result *res);

#ifdef __cplusplus
}
#endif

#endif /* RINGBENCH_COMMON_H */
