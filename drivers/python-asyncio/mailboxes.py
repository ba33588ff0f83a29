"""The hand-written mailbox of the `handwritten` variant: the same two parts as asyncio.Queue, without
its generality. The `stock` variant uses asyncio.Queue itself (README.md, "Variants").

- `put_nowait(v)`: if the owner is waiting, resolve the Future it awaits (the event loop wakes it);
  otherwise append v to a deque. A send never blocks; messages stay FIFO.
- `get()`: pop the deque if it holds anything; otherwise make a Future, leave it in the mailbox and
  await it.

The method names are asyncio.Queue's, so every workload but the ring's process (driver.py) is one
code for both variants. asyncio.Queue is a deque plus a deque of waiting getters' Futures, with a
maxsize, putters' Futures, cancellation handling and the task_done counter, none of which a
process's mailbox needs: here one owner, so at most one Future.
"""
from __future__ import annotations

from asyncio import Future, get_running_loop
from collections import deque
from typing import Any


class Mailbox:
    __slots__ = ("q", "w")

    def __init__(self) -> None:
        self.q: deque[Any] | None = None  # made on the first message that finds no waiter
        self.w: Future[Any] | None = None  # the Future the owner awaits, or None

    def put_nowait(self, v: Any) -> None:
        w = self.w
        if w is not None:
            self.w = None
            w.set_result(v)
        else:
            q = self.q
            if q is None:
                q = self.q = deque()
            q.append(v)

    def empty(self) -> bool:
        return not self.q

    async def get(self) -> Any:
        """The next message (the owner only). The handwritten ring's processes write this inline
        (driver.ring_process_handwritten): awaiting a coroutine costs one more object and frame per
        receive."""
        q = self.q
        if q:
            return q.popleft()
        self.w = f = get_running_loop().create_future()
        return await f
