"""A plain greenlet ring with mailboxes (written for ringbench issue 10; not ringbench code).

greenlet has no mailbox and no scheduler, so this is the usual afternoon's
design: each process is a greenlet with a deque as its mailbox; main is the
scheduler, running the greenlets on its run queue one after another. A send
appends to the receiver's mailbox and puts the receiver on the run queue; a
receive on an empty mailbox switches back to the scheduler (the greenlet's
parent). One token carrying n*m, decremented at every hop; the process that
receives 1 stops the scheduler. n*m hops in all.

usage: python3 ring.py N M
"""
import sys
from collections import deque
from greenlet import greenlet

runq = deque()


def send(g, box, v):
    box.append(v)
    runq.append(g)


def process(box, succ, succ_box, done):
    while True:
        while not box:
            sched.switch()              # block: back to the scheduler
        v = box.popleft()
        if v == 1:
            done.append(v)
        else:
            send(succ, succ_box, v - 1)


def main():
    global sched
    n, m = int(sys.argv[1]), int(sys.argv[2])
    sched = greenlet.getcurrent()
    done = []
    boxes = [deque() for _ in range(n)]
    procs = [greenlet(process) for _ in range(n)]
    for i in range(n):
        j = (i + 1) % n
        procs[i].switch(boxes[i], procs[j], boxes[j], done)   # runs to its first receive
    send(procs[0], boxes[0], n * m)
    while not done:
        runq.popleft().switch()
    print("hops:", n * m)


main()
