/* A plain mutex + condition-variable mailbox ring, written for ringbench's
 * fidelity check (issue 10): what a C programmer writes in an afternoon.
 *
 * n threads in a ring; each owns a one-message mailbox (a value and a "full"
 * flag) guarded by a mutex, with a condition variable it waits on while the
 * mailbox is empty. send = lock the receiver's mailbox, put, signal, unlock;
 * recv = lock your own, wait while empty, take, unlock. One token carrying
 * n*m is decremented at every hop; the thread that receives 0 tells main.
 * Every thread counts its receipts; main prints their sum (n*m + 1: the
 * injection plus n*m hops).
 *
 * Usage: ring N M
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long value;
    int full;
} mailbox;

static mailbox *box, done;
static long *count;
static long n;

static void send(mailbox *b, long v)
{
    pthread_mutex_lock(&b->mu);
    b->value = v;
    b->full = 1;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static long recv(mailbox *b)
{
    pthread_mutex_lock(&b->mu);
    while (!b->full)
        pthread_cond_wait(&b->cv, &b->mu);
    b->full = 0;
    long v = b->value;
    pthread_mutex_unlock(&b->mu);
    return v;
}

static void *relay(void *arg)
{
    long i = (long)arg;
    mailbox *in = &box[i], *out = &box[(i + 1) % n];
    for (;;) {
        long v = recv(in);
        count[i]++;
        if (v == 0)
            send(&done, i);
        else
            send(out, v - 1);
    }
    return NULL;
}

static void init(mailbox *b)
{
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->full = 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N M\n", argv[0]);
        return 2;
    }
    n = atol(argv[1]);
    long m = atol(argv[2]);
    box = calloc(n, sizeof *box);
    count = calloc(n, sizeof *count);
    init(&done);
    for (long i = 0; i < n; i++)
        init(&box[i]);
    for (long i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, relay, (void *)i) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    send(&box[0], n * m);
    long last = recv(&done);
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += count[i];
    printf("last %ld receipts %ld\n", last, sum);
    return 0;
}
