/* A bare state-machine ring, written for ringbench's fidelity check (issue 10):
 * the least a single-threaded C ring of "actors" can do per hop.
 *
 * n actors in one array, each {mailbox slot value, receipt count, successor
 * index, slot-full flag} (24 bytes); a FIFO run queue of actor indices (a
 * circular array). The scheduler pops an actor and runs its step: take the
 * slot, count the receipt, and send value - 1 to the successor, i.e. write it
 * into the successor's slot and queue the successor. One mailbox slot per
 * actor, no message objects, no dispatch on a state (every actor is a relay).
 * One token carrying n*m; the actor that receives 0 stops the scheduler.
 * Main prints the sum of the receipt counts (n*m + 1: the injection plus n*m
 * hops).
 *
 * Usage: ring N M
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    long value;
    long count;
    unsigned next;
    unsigned full;
} actor;

static actor *a;
static unsigned *rq; /* run queue: a circular array of actor indices */
static unsigned head, tail, cap;

static void send(unsigned to, long v)
{
    a[to].value = v;
    a[to].full = 1;
    rq[tail] = to;
    if (++tail == cap)
        tail = 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N M\n", argv[0]);
        return 2;
    }
    unsigned n = (unsigned)atol(argv[1]);
    long m = atol(argv[2]);
    a = calloc(n, sizeof *a);
    cap = n + 1;
    rq = calloc(cap, sizeof *rq);
    if (!a || !rq) {
        perror("calloc");
        return 1;
    }
    for (unsigned i = 0; i < n; i++)
        a[i].next = i + 1 < n ? i + 1 : 0;

    send(0, (long)n * m);
    while (head != tail) {
        actor *p = &a[rq[head]];
        if (++head == cap)
            head = 0;
        if (!p->full)
            continue;
        long v = p->value;
        p->full = 0;
        p->count++;
        if (v == 0)
            break;
        send(p->next, v - 1);
    }

    long sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += a[i].count;
    printf("receipts %ld\n", sum);
    return 0;
}
