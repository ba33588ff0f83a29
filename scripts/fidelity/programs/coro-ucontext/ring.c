/* A plain ucontext coroutine ring, written for ringbench's fidelity check
 * (issue 10): the simplest coroutine ring a C programmer writes.
 *
 * n coroutines made with getcontext/makecontext, each on its own 16 KiB stack
 * (one malloc for all of them). The token is a global; a hop is: count the
 * receipt, decrement the token, swapcontext straight to the next coroutine
 * (a symmetric transfer, no scheduler in between). The coroutine that finds
 * the token at 0 switches back to main, which prints the sum of the receipt
 * counts (n*m + 1: the first resume plus n*m hops).
 *
 * Usage: ring N M
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK (16 * 1024)

static ucontext_t main_ctx, *ctx;
static long token, *count;
static int n;

static void relay(int i)
{
    int next = (i + 1) % n;
    for (;;) {
        count[i]++;
        if (token == 0)
            swapcontext(&ctx[i], &main_ctx);
        token--;
        swapcontext(&ctx[i], &ctx[next]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N M\n", argv[0]);
        return 2;
    }
    n = atoi(argv[1]);
    long m = atol(argv[2]);
    ctx = calloc(n, sizeof *ctx);
    count = calloc(n, sizeof *count);
    char *stacks = malloc((size_t)n * STACK);
    if (!ctx || !count || !stacks) {
        perror("malloc");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        getcontext(&ctx[i]);
        ctx[i].uc_stack.ss_sp = stacks + (size_t)i * STACK;
        ctx[i].uc_stack.ss_size = STACK;
        ctx[i].uc_link = &main_ctx;
        makecontext(&ctx[i], (void (*)(void))relay, 1, i);
    }

    token = (long)n * m;
    swapcontext(&main_ctx, &ctx[0]);

    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += count[i];
    printf("receipts %ld\n", sum);
    return 0;
}
