/* Unit test of the parameter parser (docs/driver-contract.md, sections 2 and 6): every bound and
 * one past it, malformed arguments, the cross-key rules, defaults, counts and token placement. */
#include "ringbench.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

/* parse a space-separated argument string for a workload; the result kind */
static int parse(const char *workload, const char *args, rb_params *p, char *msg)
{
    static char buf[512];
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        argv[argc++] = t;
    return rb_parse_params(workload, argc, argv, 2, p, msg, 256);
}

static void expect(const char *workload, const char *args, int kind)
{
    rb_params p;
    char msg[256] = "";
    const int got = parse(workload, args, &p, msg);
    checks++;
    if (got != kind) {
        failures++;
        printf("FAIL %s %s: kind %d, expected %d (%s)\n", workload, args, got, kind, msg);
    } else if (kind != RB_OK && !msg[0]) {
        failures++;
        printf("FAIL %s %s: no message\n", workload, args);
    }
}

#define ok(w, a) expect(w, a, RB_OK)
#define bad(w, a) expect(w, a, RB_BAD_PARAM)

static void equal(const char *what, int64_t got, int64_t want)
{
    checks++;
    if (got != want) {
        failures++;
        printf("FAIL %s: %" PRId64 ", expected %" PRId64 "\n", what, got, want);
    }
}

int main(void)
{
    /* each bound and one past it */
    ok("ring", "n=1 m=1"), bad("ring", "n=0 m=1");
    ok("ring", "n=100000000 m=1"), bad("ring", "n=100000001 m=1");
    ok("ring", "n=1 m=1000000000"), bad("ring", "n=1 m=1000000001"), bad("ring", "n=1 m=0");
    ok("ring", "n=3 m=1 tokens=3"), bad("ring", "n=3 m=1 tokens=4"), bad("ring", "n=3 m=1 tokens=0");
    ok("ring", "n=3 m=1 burst=1"), bad("ring", "n=3 m=1 burst=2");
    ok("ring", "n=3 m=1 repeats=1000000"), bad("ring", "n=3 m=1 repeats=1000001"), bad("ring", "n=3 m=1 repeats=0");
    ok("ring", "n=3 m=1 warmup=0"), ok("ring", "n=3 m=1 warmup=1000000"), bad("ring", "n=3 m=1 warmup=1000001");
    ok("ring", "n=3 m=1 cores=1"), ok("ring", "n=3 m=1 cores=1024");
    bad("ring", "n=3 m=1 cores=0"), bad("ring", "n=3 m=1 cores=1025");
    ok("ring", "n=3 m=1 sample_ms=86400000"), bad("ring", "n=3 m=1 sample_ms=86400001");
    ok("ring", "n=3 m=1 sample_ms=10 samples=1"), bad("ring", "n=3 m=1 sample_ms=10 samples=0");
    ok("ring", "n=3 m=1 samples=1000000"), bad("ring", "n=3 m=1 samples=1000001");
    ok("ring", "n=3 m=1 stats=1"), bad("ring", "n=3 m=1 stats=2");
    ok("trace", "n=100 m=100"), bad("trace", "n=101 m=1"), bad("trace", "n=1 m=101"), bad("trace", "n=0 m=1");
    ok("tree", "n=1 fanout=2"), bad("tree", "n=1 fanout=1");
    ok("tree", "n=1 fanout=1000"), bad("tree", "n=1 fanout=1001");
    ok("selective", "n=3 m=2 reverse=1"), bad("selective", "n=3 m=2 reverse=2");

    /* malformed arguments */
    bad("ring", "n=3 n=3 m=1"), bad("ring", "n=+3 m=1"), bad("ring", "n=-3 m=1"), bad("ring", "n3 m=1");
    bad("ring", "n=3 m=1 tokens="), bad("ring", "=3 m=1"), bad("ring", "n=1.5 m=1"), bad("ring", "n=abc m=1");
    bad("ring", "n=\xd9\xa3 m=1"), bad("ring", "n=99999999999999999999999 m=1"), bad("ring", "n=3 m=1 colour=3");
    bad("ring", "m=1"), bad("ring", "n=3"), bad("spawn", "n=3 m=1"), bad("pingpong", "n=3 m=1");
    bad("tree", "n=10 m=1"), bad("fanin", "n=3"), expect("no-such", "n=1", RB_UNKNOWN_WORKLOAD);

    /* cross-key rules */
    ok("ring", "n=3 sample_ms=10"); /* m may be left out in continuous mode */
    bad("spawn", "n=3 sample_ms=10"), bad("tree", "n=10 sample_ms=10");
    ok("ring", "n=100000000 m=1000000000 tokens=46"), bad("ring", "n=100000000 m=1000000000 tokens=47");
    ok("fanin", "n=100000000 m=1000000000"), ok("selective", "n=100000000 m=1000000000");
    ok("tree", "n=1"), ok("tree", "n=10"), ok("tree", "n=100000000"), ok("tree", "n=1024 fanout=2");
    ok("tree", "n=27 fanout=3"), ok("tree", "n=1000 fanout=1000"), ok("tree", "n=1000000 fanout=1000");
    bad("tree", "n=12"), bad("tree", "n=8 fanout=3"), bad("tree", "n=0"), bad("tree", "n=20");
    bad("tree", "n=100 fanout=1000"), bad("tree", "n=2"), bad("tree", "fanout=2");

    /* defaults filled in, counts, placement */
    rb_params p;
    char msg[256];
    parse("ring", "n=10 m=3", &p, msg);
    equal("ring tokens default", p.tokens, 1), equal("burst default", p.burst, 0);
    equal("repeats default", p.repeats, 1), equal("warmup default", p.warmup, 0);
    equal("cores default", p.cores, 2), equal("samples default", p.samples, 3), equal("stats", p.stats, 0);
    equal("ring count", rb_expected_count(&p), 30), equal("ring ready", rb_expected_ready(&p), 10);
    parse("ring", "n=10 m=3 tokens=4", &p, msg);
    equal("ring count 4 tokens", rb_expected_count(&p), 120);
    equal("token 0 at", rb_inject_at(&p, 0), 0), equal("token 1 at", rb_inject_at(&p, 1), 2);
    equal("token 3 at", rb_inject_at(&p, 3), 7);
    parse("ring", "n=10 m=3 tokens=4 burst=1", &p, msg);
    equal("burst token 3 at", rb_inject_at(&p, 3), 0);
    parse("tree", "n=10000", &p, msg);
    equal("tree fanout default", p.fanout, 10), equal("tree count", rb_expected_count(&p), 49995000);
    equal("tree processes", rb_processes(&p), 11111), equal("tree ready", rb_expected_ready(&p), -1);
    parse("tree", "n=1024 fanout=2", &p, msg);
    equal("binary tree processes", rb_processes(&p), 2047);
    parse("tree", "n=100000000", &p, msg);
    equal("largest tree count", rb_expected_count(&p), INT64_C(4999999950000000));
    parse("fanin", "n=7 m=5", &p, msg);
    equal("fanin count", rb_expected_count(&p), 35), equal("fanin ready", rb_expected_ready(&p), 8);
    equal("fanin processes", rb_processes(&p), 8);
    parse("pingpong", "m=9", &p, msg);
    equal("pingpong count", rb_expected_count(&p), 9), equal("pingpong ready", rb_expected_ready(&p), 2);
    parse("trace", "n=4 m=5", &p, msg);
    equal("trace count", rb_expected_count(&p), 20), equal("trace tokens", p.tokens, 1);
    equal("workload index", rb_workload_index("tree"), RB_TREE), equal("no workload", rb_workload_index("x"), -1);
    equal("exit code bad_param", rb_exit_code(RB_BAD_PARAM), 2), equal("exit code limit", rb_exit_code(RB_LIMIT), 3);
    equal("exit code failure", rb_exit_code(RB_FAILURE), 1), equal("exit code unsupported", rb_exit_code(RB_UNSUPPORTED), 2);

    printf("test_params: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
