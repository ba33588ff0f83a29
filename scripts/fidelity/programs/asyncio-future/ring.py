"""A plain asyncio ring with a Future per hop (written for ringbench issue 10; not ringbench code).

n tasks in a ring; each waits on a Future of its own, and a send is
set_result on the successor's Future (the successor makes a new one as soon
as it wakes). One token carrying n*m, decremented at every hop; the task that
receives 1 resolves the Future main awaits. n*m hops in all. Standard event loop.

usage: python3 ring.py N M
"""
import asyncio
import sys


class Proc:
    __slots__ = ("fut",)


async def relay(me, succ, done, new_future):
    me.fut = new_future()
    while True:
        v = await me.fut
        me.fut = new_future()
        if v == 1:
            done.set_result(v)
            return
        succ.fut.set_result(v - 1)


async def main(n, m):
    loop = asyncio.get_running_loop()
    procs = [Proc() for _ in range(n)]
    done = loop.create_future()
    tasks = [loop.create_task(relay(procs[i], procs[(i + 1) % n], done, loop.create_future))
             for i in range(n)]
    await asyncio.sleep(0)              # every task runs to its first await
    procs[0].fut.set_result(n * m)
    await done
    print("hops:", n * m)


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
