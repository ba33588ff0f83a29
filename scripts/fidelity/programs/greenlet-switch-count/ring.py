"""A plain greenlet ring plus a receipt count per hop (written for ringbench issue 10; not
ringbench code): greenlet-switch with the one piece of per-hop bookkeeping the driver contract
asks of every driver (each process counts its receipts; the driver sums the counts in an untimed
lap at the end, which this program leaves out).

n greenlets in a ring, created and started in ring order. One token carrying
n*m is switched straight from each greenlet to the next (greenlet.switch(value):
control goes with the value, no queue, no scheduler) and decremented at every
hop; the greenlet that receives 1 switches back to main. n*m hops in all.

usage: python3 ring.py N M
"""
import sys
from greenlet import greenlet, getcurrent


def relay(succ):
    main = getcurrent().parent
    cnt = 0
    v = main.switch()               # started: park here until the token arrives
    while v > 1:
        cnt += 1                    # the receipt count (the only change from greenlet-switch)
        v = succ.switch(v - 1)      # hand the token on; returns with the next visit
    main.switch(v)                  # v == 1: the last hop


def main():
    n, m = int(sys.argv[1]), int(sys.argv[2])
    ring = [greenlet(relay) for _ in range(n)]
    for i in range(n):
        ring[i].switch(ring[(i + 1) % n])   # start p(i); it parks and switches back
    ring[0].switch(n * m)                   # returns when the token is finished
    print("hops:", n * m)


main()
