/* The verbs, the one option and the iteration loop (docs/driver-contract.md, sections 2-4). */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *variant_name = "";

const char *rb_variant(void) { return variant_name; }

static int offers(const rb_driver *d, int w) { return d->iteration[w] != NULL; }

static void usage_workloads(const rb_driver *d, char *out, size_t cap)
{
    out[0] = 0;
    for (int w = 0; w < RB_NWORKLOADS; w++)
        if (offers(d, w))
            snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? ", " : "", rb_workload_names[w]);
}

static void describe(const rb_driver *d)
{
    char workloads[256] = "[", features[128] = "[";
    for (int w = 0; w < RB_NWORKLOADS; w++)
        if (offers(d, w))
            snprintf(workloads + strlen(workloads), sizeof workloads - strlen(workloads), "%s\"%s\"",
                     workloads[1] ? "," : "", rb_workload_names[w]);
    strcat(workloads, "]");
    const char *names[] = {"tokens", "continuous", "stats", "nodes"};
    const int has[] = {d->tokens, d->continuous, d->stats, d->nodes};
    for (int i = 0; i < 4; i++)
        if (has[i])
            snprintf(features + strlen(features), sizeof features - strlen(features), "%s\"%s\"",
                     features[1] ? "," : "", names[i]);
    strcat(features, "]");
    rb_rec r;
    rb_rec_begin(&r, "describe");
    rb_rec_int(&r, "contract", 4);
    rb_rec_str(&r, "name", d->name);
    rb_rec_str(&r, "runtime", d->runtime);
    rb_rec_str(&r, "version", d->version);
    rb_rec_raw(&r, "workloads", workloads);
    rb_rec_raw(&r, "features", features);
    rb_rec_str(&r, "variant", variant_name);
    rb_rec_str(&r, "clock", d->clock ? d->clock : RB_CLOCK);
    rb_rec_str(&r, "collector", d->collector ? d->collector : "");
    rb_rec_emit(&r);
}

void rb_print_result(const rb_driver *d, const rb_params *p, const rb_result *res)
{
    const int tree = p->workload == RB_TREE;
    rb_rec r;
    rb_rec_begin(&r, "result");
    rb_rec_str(&r, "workload", p->workload_name);
    rb_rec_int(&r, "iteration", res->iteration);
    /* every workload key, defaults filled in */
    switch (p->workload) {
    case RB_RING:
        rb_rec_int(&r, "n", p->n), rb_rec_int(&r, "m", p->m);
        rb_rec_int(&r, "tokens", p->tokens), rb_rec_int(&r, "burst", p->burst);
        break;
    case RB_SPAWN: rb_rec_int(&r, "n", p->n); break;
    case RB_PINGPONG: rb_rec_int(&r, "m", p->m); break;
    case RB_FANIN:
    case RB_TRACE: rb_rec_int(&r, "n", p->n), rb_rec_int(&r, "m", p->m); break;
    case RB_SELECTIVE:
        rb_rec_int(&r, "n", p->n), rb_rec_int(&r, "m", p->m), rb_rec_int(&r, "reverse", p->reverse);
        break;
    case RB_TREE: rb_rec_int(&r, "n", p->n), rb_rec_int(&r, "fanout", p->fanout); break;
    default: break;
    }
    if (p->nodes > 1)
        rb_rec_int(&r, "nodes", p->nodes), rb_rec_int(&r, "node_placement", p->node_placement);
    rb_rec_int(&r, "count", res->count);
    if (p->nodes > 1)
        rb_rec_int(&r, "cross_hops", res->cross_hops);
    if (!tree)
        rb_rec_int(&r, "ready", res->ready);
    rb_rec_int(&r, "setup_ns", res->setup_ns);
    rb_rec_int(&r, "run_ns", res->run_ns);
    rb_rec_int(&r, "setup_cpu_ns", res->setup_cpu_ns);
    rb_rec_int(&r, "run_cpu_ns", res->run_cpu_ns);
    rb_rec_int(&r, "setup_vcsw", res->setup_vcsw);
    rb_rec_int(&r, "setup_ivcsw", res->setup_ivcsw);
    rb_rec_int(&r, "run_vcsw", res->run_vcsw);
    rb_rec_int(&r, "run_ivcsw", res->run_ivcsw);
    rb_rec_int(&r, "rss_before", rb_mem_.rss_before);
    rb_rec_int(&r, "rss_after", rb_mem_.rss_after);
    if (tree)
        rb_rec_int(&r, "rss_peak", rb_mem_.rss_peak);
    if (d->threads_per_process) {
        rb_rec_int(&r, "threads_before", rb_mem_.threads_before);
        rb_rec_int(&r, "threads_after", rb_mem_.threads_after);
    }
    if (d->runtime_mem) {
        rb_rec_int(&r, "runtime_mem_before", rb_mem_.rt_before);
        rb_rec_int(&r, "runtime_mem_after", rb_mem_.rt_after);
    }
    rb_rec_emit(&r);
}

/* the stats record: what else getrusage tells of each phase (whole process; the context switches
 * are in the result), then the driver's own */
void rb_print_stats(const rb_driver *d, const rb_params *p, const rb_result *res)
{
    const struct rusage *b = &res->ru_begin, *s = &res->ru_setup, *rb = &res->ru_run_begin, *e = &res->ru_run;
    rb_rec r;
    rb_rec_begin(&r, "stats");
    rb_rec_str(&r, "workload", p->workload_name);
    rb_rec_int(&r, "iteration", res->iteration);
    rb_rec_int(&r, "setup_minor_faults", s->ru_minflt - b->ru_minflt);
    rb_rec_int(&r, "run_minor_faults", e->ru_minflt - rb->ru_minflt);
    rb_rec_int(&r, "max_rss_bytes", (int64_t)e->ru_maxrss * 1024);
    if (d->stats_fields)
        d->stats_fields(&r, p, res);
    rb_rec_emit(&r);
}

int rb_main(const rb_driver *d, int argc, char **argv)
{
    rb_driver_ = d;
    char names[256] = "";
    for (const char *const *v = d->variants; v && *v; v++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "|" : "", *v);
    char usage[512];
    snprintf(usage, sizeof usage, "usage: %s %s%s%sdescribe | run <workload> key=value ...", argv[0],
             names[0] ? "[--variant=" : "", names, names[0] ? "] " : "");

    int variant = 0, a = 1;
    variant_name = d->variants && d->variants[0] ? d->variants[0] : "";
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        const char *opt = argv[a];
        if (strncmp(opt, "--variant=", 10) != 0)
            rb_bad_param("unknown option '%s'; %s", opt, usage);
        if (!names[0])
            rb_bad_param("%s has no variants, got '%s'", d->name, opt);
        int k = 0;
        while (d->variants[k] && strcmp(d->variants[k], opt + 10) != 0)
            k++;
        if (!d->variants[k])
            rb_bad_param("unknown variant '%s' (%s has %s)", opt + 10, d->name, names);
        variant = k, variant_name = d->variants[k];
    }
    if (a >= argc)
        rb_bad_param("%s", usage);
    const char *verb = argv[a++];
    if (strcmp(verb, "describe") == 0) {
        if (a != argc)
            rb_bad_param("describe takes no arguments");
        describe(d);
        return 0;
    }
    if (strcmp(verb, "run") != 0)
        rb_bad_param("unknown verb '%s'; %s", verb, usage);
    char known[128];
    usage_workloads(d, known, sizeof known);
    if (a >= argc)
        rb_bad_param("run needs a workload: %s", known);
    const char *workload = argv[a++];
    const int w = rb_workload_index(workload);
    const int unsupported = w == RB_SELECTIVE && !offers(d, w) && d->selective_unsupported;
    if (w < 0 || (!offers(d, w) && !unsupported))
        rb_fail(RB_UNKNOWN_WORKLOAD, "unknown workload '%s'; this driver knows %s", workload, known);

    rb_params p;
    char msg[512];
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const int rc = rb_parse_params(workload, argc - a, argv + a, cpus > 0 ? cpus : 1, &p, msg, sizeof msg);
    if (rc != RB_OK)
        rb_fail(rc, "%s", msg);
    if (unsupported)
        rb_fail(RB_UNSUPPORTED, "%s", d->selective_unsupported);
    p.variant = variant;
    p.variant_name = variant_name;

    if (d->prepare)
        d->prepare(&p);
    if (p.sample_ms > 0) {
        if (!d->continuous_ring)
            rb_fail(RB_UNSUPPORTED, "%s has no continuous mode", d->name);
        d->continuous_ring(&p);
        rb_failure("the continuous ring stopped");
    }
    const int64_t want_count = rb_expected_count(&p), want_ready = rb_expected_ready(&p);
    for (int64_t i = 1 - p.warmup; i <= p.repeats; i++) {
        rb_result res;
        memset(&res, 0, sizeof res);
        res.iteration = i;
        d->iteration[w](&p, &res);
        if (res.count != want_count)
            rb_failure("%s: count mismatch: the processes proved %" PRId64 ", expected %" PRId64, workload,
                       res.count, want_count);
        if (want_ready >= 0 && res.ready != want_ready)
            rb_failure("%s: %" PRId64 " ready signals when the spawn phase ended, expected %" PRId64, workload,
                       res.ready, want_ready);
        if (i <= 0)
            continue; /* a warm-up prints nothing */
        rb_print_result(d, &p, &res);
        if (p.stats)
            rb_print_stats(d, &p, &res);
    }
    fflush(stdout);
    return 0;
}
