"""Mailboxes and a run queue on greenlet: the processes of python-greenlet/stock and pypy/greenlet
(Stackless's model).

greenlet gives coroutines and `switch`, nothing else; message passing with several messages in flight
needs a mailbox per process and something that decides who runs next. That is this module:

- a mailbox is a `collections.deque`; `send` appends to it and, if it was empty (its owner is blocked
  in `receive`), puts the owner's bound `switch` on the run queue. A send never blocks.
- `receive` pops the mailbox; while it is empty, the process switches straight to the next runnable
  process, or to main when nothing is runnable.
- main is the scheduler of last resort: it starts every new process (from its own stack, see
  `spawn`) and runs what is runnable while it waits (`main_receive`, `settle`).

Invariant: a process is only ever suspended in `receive` (or not yet started), so a switch into it
resumes a `while not box` loop that checks its mailbox again; an entry of the run queue that is
stale (its process already ran) costs one spurious wake-up, never a lost or early message.
"""
from collections import deque

from greenlet import getcurrent, greenlet


class Deadlock(Exception):
    pass


class Scheduler:
    def __init__(self):
        self.main = getcurrent()
        self.main_switch = self.main.switch
        self.inbox = deque()   # main's own mailbox
        self.runq = deque()    # bound `switch` of each runnable process (bound once, not per hop)
        self.newq = deque()    # (greenlet, args): spawned, not yet started
        self.arrived = 0       # the gate: one arrival per process about to block in its first receive

    def reset(self):
        self.inbox.clear()
        self.runq.clear()
        self.newq.clear()
        self.arrived = 0

    # ------------------------------------------------ in any process

    def spawn(self, fn, *args):
        """A new process running fn(*args)."""
        g = self.process(fn)
        self.start(g, *args)
        return g

    def process(self, fn):
        """A process that will run fn, not started yet (the ring makes every process before starting
        any, so that each can be given its successor)."""
        return greenlet(fn, parent=self.main)  # when fn returns, control goes back to main

    def start(self, g, *args):
        """Main starts g with args, from main's own stack: a greenlet's stack begins where it is first
        switched to, so one started inside another process would sit on top of that process's stack
        (and inherit its recursion depth): a chain of such starts overflows."""
        self.newq.append((g, args))

    def send(self, to_switch, box, v):
        """Append v to box, the mailbox of the process whose bound switch is to_switch."""
        if not box:
            self.runq.append(to_switch)
        box.append(v)

    def receive(self, box):
        """The next message of box, the running process's own mailbox. Ring processes write this
        loop inline (stock.ring_process): a greenlet switch made inside a called function costs about
        800 instructions more per hop on CPython 3.11, which materialises a frame object for it."""
        runq = self.runq
        while not box:
            if runq:
                runq.popleft()()
            else:
                self.main_switch()
        return box.popleft()

    def yield_now(self):
        """Let every runnable process run once before this one goes on."""
        self.runq.append(getcurrent().switch)
        self.runq.popleft()()

    # ------------------------------------------------ in main only

    def _step(self):
        """Run one new or runnable process until it blocks or exits; False if there was none."""
        if self.newq:
            g, args = self.newq.popleft()
            g.switch(*args)
        elif self.runq:
            self.runq.popleft()()
        else:
            return False
        return True

    def main_receive(self):
        """The next message to main; the processes run meanwhile."""
        inbox = self.inbox
        while not inbox:
            if not self._step():
                raise Deadlock("main waits for a message and every process is blocked")
        return inbox.popleft()

    def settle(self):
        """Run until every process is blocked in a receive or has exited."""
        while self._step():
            pass
