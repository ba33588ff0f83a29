"""A process's mailbox on asyncio: the same two parts as asyncio.Queue, without its generality.

- `send(v)`: if the owner is waiting, resolve the Future it awaits (the event loop wakes it);
  otherwise append v to a deque. A send never blocks; messages stay FIFO.
- `receive()`: pop the deque if it holds anything; otherwise make a Future, leave it in the mailbox
  and await it.

asyncio.Queue is a deque plus a deque of waiting getters' Futures, with a maxsize, putters' Futures,
cancellation handling and the task_done counter, none of which a process's mailbox needs: here one
owner, so at most one Future.
"""
from asyncio import get_running_loop
from collections import deque


class Mailbox:
    __slots__ = ("q", "w")

    def __init__(self):
        self.q = None  # deque, made on the first message that finds no waiter
        self.w = None  # the Future the owner awaits, or None

    def send(self, v):
        w = self.w
        if w is not None:
            self.w = None
            w.set_result(v)
        else:
            q = self.q
            if q is None:
                q = self.q = deque()
            q.append(v)

    async def receive(self):
        """The next message (the owner only). Ring processes write this inline (driver.ring_process):
        awaiting a coroutine costs one more object and frame per receive."""
        q = self.q
        if q:
            return q.popleft()
        self.w = f = get_running_loop().create_future()
        return await f
