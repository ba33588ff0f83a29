/* Parameters and bounds (docs/driver-contract.md, sections 2 and 6). Pure: no output, no exit. */
#include "ringbench.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const rb_workload_names[RB_NWORKLOADS] = {"ring", "spawn", "pingpong", "fanin",
                                                      "selective", "tree", "trace"};

int rb_workload_index(const char *name)
{
    for (int w = 0; w < RB_NWORKLOADS; w++)
        if (strcmp(name, rb_workload_names[w]) == 0)
            return w;
    return -1;
}

typedef struct {
    const char *name;
    size_t off; /* of its int64_t in rb_params */
    int64_t lo, hi, def;
    int required;
} key_def;

#define K(f) offsetof(rb_params, f)
#define N_MAX INT64_C(100000000)
#define M_MAX INT64_C(1000000000)

/* The workload keys (section 3), then the common keys every workload takes (section 2). */
static const key_def KEY_N = {"n", K(n), 1, N_MAX, 0, 1};
static const key_def KEY_M = {"m", K(m), 1, M_MAX, 0, 1};
static const key_def KEY_TOKENS = {"tokens", K(tokens), 1, N_MAX, 1, 0}; /* and <= n */
static const key_def KEY_BURST = {"burst", K(burst), 0, 1, 0, 0};
static const key_def KEY_REVERSE = {"reverse", K(reverse), 0, 1, 0, 0};
static const key_def KEY_FANOUT = {"fanout", K(fanout), 2, 1000, 10, 0};
static const key_def KEY_TRACE_N = {"n", K(n), 1, 100, 0, 1};
static const key_def KEY_TRACE_M = {"m", K(m), 1, 100, 0, 1};
static const key_def COMMON[] = {
    {"repeats", K(repeats), 1, 1000000, 1, 0},  {"warmup", K(warmup), 0, 1000000, 0, 0},
    {"cores", K(cores), 1, 1024, 1, 0},         {"sample_ms", K(sample_ms), 0, 86400000, 0, 0},
    {"samples", K(samples), 1, 1000000, 3, 0},  {"stats", K(stats), 0, 1, 0, 0},
};
#define N_COMMON (sizeof COMMON / sizeof COMMON[0])
#define MAX_KEYS 16

static int keys_of(enum rb_workload w, key_def *out)
{
    int k = 0;
    switch (w) {
    case RB_RING:
        out[k++] = KEY_N, out[k++] = KEY_M, out[k++] = KEY_TOKENS, out[k++] = KEY_BURST;
        out[1].required = 0; /* m: required except in continuous mode (checked after parsing) */
        break;
    case RB_SPAWN: out[k++] = KEY_N; break;
    case RB_PINGPONG: out[k++] = KEY_M; break;
    case RB_FANIN: out[k++] = KEY_N, out[k++] = KEY_M; break;
    case RB_SELECTIVE: out[k++] = KEY_N, out[k++] = KEY_M, out[k++] = KEY_REVERSE; break;
    case RB_TREE: out[k++] = KEY_N, out[k++] = KEY_FANOUT; break;
    case RB_TRACE: out[k++] = KEY_TRACE_N, out[k++] = KEY_TRACE_M; break;
    case RB_NWORKLOADS: break;
    }
    for (size_t i = 0; i < N_COMMON; i++)
        out[k++] = COMMON[i];
    return k;
}

static int err(char *msg, size_t cap, int kind, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int err(char *msg, size_t cap, int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
    return kind;
}

/* A strict decimal integer: ASCII digits only (no sign, no space, not empty). 0: not one;
 * 1: one (*overflow set when it does not fit an int64_t, so it is out of every bound). */
static int parse_int(const char *s, int64_t *out, int *overflow)
{
    uint64_t v = 0;
    *overflow = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        if (v > ((uint64_t)INT64_MAX - 9) / 10)
            *overflow = 1;
        else
            v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = (int64_t)v;
    return 1;
}

static int is_power_of(int64_t n, int64_t base)
{
    while (n > 1 && n % base == 0)
        n /= base;
    return n == 1;
}

int rb_parse_params(const char *workload, int argc, char *const *argv, int64_t cores_default, rb_params *p,
                    char *msg, size_t cap)
{
    const int w = rb_workload_index(workload);
    if (w < 0)
        return err(msg, cap, RB_UNKNOWN_WORKLOAD, "unknown workload '%s'", workload);
    key_def defs[MAX_KEYS];
    int given[MAX_KEYS] = {0};
    const int nk = keys_of((enum rb_workload)w, defs);
    memset(p, 0, sizeof *p);
    p->workload = (enum rb_workload)w;
    p->workload_name = rb_workload_names[w];
    p->tokens = 1; /* trace's ring has one token; ring sets its own below */
    p->nodes = 1;  /* one node; a driver with the feature `nodes` sets its own */
    for (int k = 0; k < nk; k++) {
        if (strcmp(defs[k].name, "cores") == 0)
            defs[k].def = cores_default < 1 ? 1 : cores_default > 1024 ? 1024 : cores_default;
        *(int64_t *)((char *)p + defs[k].off) = defs[k].def;
    }
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a], *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            return err(msg, cap, RB_BAD_PARAM, "expected key=value, got '%s'", arg);
        const size_t kl = (size_t)(eq - arg);
        int k = 0;
        while (k < nk && !(strlen(defs[k].name) == kl && strncmp(defs[k].name, arg, kl) == 0))
            k++;
        if (k == nk) {
            char names[256] = "";
            for (int j = 0; j < nk; j++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "", defs[j].name);
            return err(msg, cap, RB_BAD_PARAM, "unknown key '%.*s' for workload %s (it takes: %s)", (int)kl, arg,
                       workload, names);
        }
        if (given[k])
            return err(msg, cap, RB_BAD_PARAM, "key '%s' given twice", defs[k].name);
        given[k] = 1;
        int64_t v = 0;
        int overflow;
        if (!parse_int(eq + 1, &v, &overflow))
            return err(msg, cap, RB_BAD_PARAM, "%s must be a decimal integer (ASCII digits only), got '%s'",
                       defs[k].name, eq + 1);
        if (overflow || v < defs[k].lo || v > defs[k].hi)
            return err(msg, cap, RB_BAD_PARAM, "%s must be an integer in %" PRId64 "..%" PRId64 ", got '%s'",
                       defs[k].name, defs[k].lo, defs[k].hi, eq + 1);
        *(int64_t *)((char *)p + defs[k].off) = v;
    }
    for (int k = 0; k < nk; k++)
        if (defs[k].required && !given[k])
            return err(msg, cap, RB_BAD_PARAM, "missing required key '%s' for workload %s", defs[k].name, workload);

    const __int128 two62 = (__int128)1 << 62;
    switch (p->workload) {
    case RB_RING:
        if (!given[1]) { /* m */
            if (p->sample_ms == 0)
                return err(msg, cap, RB_BAD_PARAM, "missing required key 'm' for workload ring");
            p->m = 1; /* continuous mode ignores m */
        }
        if (p->tokens > p->n)
            return err(msg, cap, RB_BAD_PARAM, "tokens must be <= n, got tokens=%" PRId64 " n=%" PRId64, p->tokens,
                       p->n);
        if ((__int128)p->n * p->m * p->tokens >= two62)
            return err(msg, cap, RB_BAD_PARAM,
                       "n*m*tokens must be < 2^62, got %" PRId64 "*%" PRId64 "*%" PRId64, p->n, p->m, p->tokens);
        break;
    case RB_FANIN:
    case RB_SELECTIVE:
        if ((__int128)p->n * p->m >= two62)
            return err(msg, cap, RB_BAD_PARAM, "n*m must be < 2^62, got %" PRId64 "*%" PRId64, p->n, p->m);
        break;
    case RB_TREE:
        if (!is_power_of(p->n, p->fanout))
            return err(msg, cap, RB_BAD_PARAM, "tree's n must be a power of fanout (fanout^k), got n=%" PRId64
                       " fanout=%" PRId64, p->n, p->fanout);
        break;
    default:
        break;
    }
    if (p->sample_ms > 0 && p->workload != RB_RING)
        return err(msg, cap, RB_BAD_PARAM, "sample_ms > 0 (continuous mode) is defined for the ring workload only, "
                   "not %s", workload);
    return RB_OK;
}

int64_t rb_expected_count(const rb_params *p)
{
    switch (p->workload) {
    case RB_RING: return p->n * p->m * p->tokens;
    case RB_SPAWN: return p->n;
    case RB_PINGPONG: return p->m;
    case RB_FANIN:
    case RB_SELECTIVE:
    case RB_TRACE: return p->n * p->m;
    case RB_TREE: return p->n * (p->n - 1) / 2;
    default: return -1;
    }
}

int64_t rb_expected_ready(const rb_params *p)
{
    switch (p->workload) {
    case RB_PINGPONG: return 2;
    case RB_FANIN: return p->n + 1;
    case RB_TREE: return -1;
    default: return p->n;
    }
}

int64_t rb_processes(const rb_params *p)
{
    switch (p->workload) {
    case RB_PINGPONG: return 2;
    case RB_FANIN: return p->n + 1;
    case RB_TREE: return (p->fanout * p->n - 1) / (p->fanout - 1);
    default: return p->n;
    }
}

int64_t rb_inject_at(const rb_params *p, int64_t j)
{
    return p->burst ? 0 : j * p->n / p->tokens;
}
