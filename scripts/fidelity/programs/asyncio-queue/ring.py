"""A plain asyncio ring with an asyncio.Queue per task (written for ringbench issue 10; not ringbench code).

n tasks in a ring, each reading its own asyncio.Queue and writing its
successor's. One token carrying n*m, decremented at every hop; the task that
receives 1 resolves a Future main awaits. n*m hops in all. Standard event loop.

usage: python3 ring.py N M
"""
import asyncio
import sys


async def relay(inbox, outbox, done):
    while True:
        v = await inbox.get()
        if v == 1:
            done.set_result(v)
            return
        await outbox.put(v - 1)


async def main(n, m):
    queues = [asyncio.Queue() for _ in range(n)]
    done = asyncio.get_running_loop().create_future()
    tasks = [asyncio.create_task(relay(queues[i], queues[(i + 1) % n], done)) for i in range(n)]
    await queues[0].put(n * m)
    await done
    print("hops:", n * m)


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
