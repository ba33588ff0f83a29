"""A plain threading ring with a queue.SimpleQueue per thread (written for ringbench issue 10; not ringbench code).

n threads in a ring, each blocking on its own queue.SimpleQueue (the C queue) and putting into
its successor's. One token carrying n*m, decremented at every hop; the thread
that receives 1 tells main. n*m hops in all. Daemon threads: the program
exits with the others still blocked.

usage: python3 ring.py N M
"""
import queue
import sys
import threading


def relay(inbox, outbox, done):
    while True:
        v = inbox.get()
        if v == 1:
            done.put(v)
            return
        outbox.put(v - 1)


def main():
    n, m = int(sys.argv[1]), int(sys.argv[2])
    queues = [queue.SimpleQueue() for _ in range(n)]
    done = queue.SimpleQueue()
    for i in range(n):
        threading.Thread(target=relay, args=(queues[i], queues[(i + 1) % n], done), daemon=True).start()
    queues[0].put(n * m)
    done.get()
    print("hops:", n * m)


main()
