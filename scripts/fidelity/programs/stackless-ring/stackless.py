"""stackless.py: the part of Stackless Python's API that the Erlang-vs-Stackless ring uses, on greenlet.

Written for ringbench issue 10 (not ringbench code; not from Stackless). Stackless Python
is not available for Python 3.11, so the ring program runs unchanged against this module:
`import stackless as SL` finds it next to the program. It provides tasklet(func)(*args),
channel() with send/receive/balance/preference, schedule() and getcurrent(), and keeps
Stackless's scheduling order exactly, as Stackless 2.5's generic_channel_action()
(Stackless/module/channelobject.c) and PyStackless_Schedule() define it:

- The runnables form a ring whose head is the running tasklet; here a deque whose item 0
  is the current tasklet. Inserting a tasklet (tasklet(...)(args), a sender unblocked by a
  receive) puts it at the end, just before the current one.
- send() to a channel with a receiver waiting (preference -1, the default: prefer the
  receiver): the value is handed over, the receiver is inserted right after the sender
  and runs at once; the sender stays runnable where it was, now last in the round.
- receive() from a channel with a sender waiting: the value is taken, the sender is
  inserted at the end of the runnables, the receiver goes on without a switch.
- send() or receive() with nobody waiting: the tasklet leaves the runnables, joins the
  channel's queue, and the next runnable tasklet runs.
- schedule(): the current tasklet moves to the end; the next one runs.
- A tasklet whose function returns leaves the runnables; the next one runs.
- Blocking the last runnable tasklet raises RuntimeError (Stackless's deadlock error).

What differs from Stackless: every switch is a greenlet (hard) switch, which copies the
C-stack slices of the two tasklets, where Stackless soft-switches Python frames without
touching the C stack; and the channel and scheduler logic here is Python code where
Stackless's is C. Not provided: everything else (run(), preemption, atomic, kill,
send_exception, channel iteration, threads). When the main program ends, tasklets still
blocked or runnable are dropped, as Stackless drops them at interpreter exit.
"""
from collections import deque

from greenlet import greenlet, getcurrent as _greenlet_current

_chain = deque()          # the runnables; _chain[0] is the running tasklet


def _starter_run(t):
    # A greenlet's C stack begins where it is first switched to, so a tasklet started from
    # inside another would nest on that one's stack (and its Python recursion depth): with
    # thousands of tasklets, a RecursionError. Stackless starts every tasklet afresh, so here
    # every tasklet is started from this greenlet's shallow stack: one extra switch, once.
    # It is also every tasklet's parent: an ending tasklet returns the next one to run here.
    while True:
        t = t._g.switch()


_starter = greenlet(_starter_run)


def _switch_to(t):
    """Run tasklet t (already at the head of the runnables)."""
    if t._g:                  # started and not dead: resume it where it is parked
        t._g.switch()
    else:
        _starter.switch(t)


class tasklet(object):
    __slots__ = ("func", "args", "tempval", "_g", "blocked", "alive")

    def __init__(self, func=None):
        self.func = func
        self.args = ()
        self.tempval = None
        self._g = None
        self.blocked = False
        self.alive = False

    def __call__(self, *args):
        """Bind the arguments and insert the tasklet at the end of the runnables."""
        self.args = args
        self._g = greenlet(self._run, parent=_starter)
        self.alive = True
        _chain.append(self)
        return self

    def _run(self):
        self.func(*self.args)
        # The tasklet ends: leave the runnables; the next one runs. The greenlet returns the
        # next tasklet to its parent, the starter, which starts or resumes it. (Making the
        # next tasklet's greenlet the parent would save that switch, but would chain the dead
        # greenlets through their parent links: freeing a million of them then recurses in C
        # and overflows the C stack.)
        self.alive = False
        _chain.popleft()
        if not _chain:
            _main._g.throw(RuntimeError("Deadlock: the last runnable tasklet cannot be blocked."))
        return _chain[0]

    def __repr__(self):
        return "<stackless.tasklet object at %#x>" % id(self)


def _block_current():
    """The current tasklet leaves the runnables (it is queued on a channel); run the next one."""
    _chain.popleft()
    if not _chain:
        raise RuntimeError("Deadlock: the last runnable tasklet cannot be blocked.")
    _switch_to(_chain[0])


class channel(object):
    __slots__ = ("queue", "balance", "preference")

    def __init__(self):
        self.queue = deque()      # the blocked tasklets: all senders or all receivers
        self.balance = 0          # > 0: senders waiting, < 0: receivers waiting
        self.preference = -1      # prefer the receiver (Stackless's default; the only one here)

    def send(self, value):
        source = _chain[0]
        if self.balance < 0:
            # a receiver waits: it runs now, inserted right after the sender, which stays runnable
            target = self.queue.popleft()
            self.balance += 1
            target.blocked = False
            target.tempval = value
            _chain.popleft()
            _chain.append(source)
            _chain.appendleft(target)
            _switch_to(target)
        else:
            # nobody waits: block with the value until a receiver takes it
            source.tempval = value
            source.blocked = True
            self.queue.append(source)
            self.balance += 1
            _block_current()
        return None

    def receive(self):
        target = _chain[0]
        if self.balance > 0:
            # a sender waits: take its value, make it runnable (at the end), go on without a switch
            source = self.queue.popleft()
            self.balance -= 1
            source.blocked = False
            value = source.tempval
            source.tempval = None
            _chain.append(source)
            return value
        # nobody waits: block until a sender hands a value over
        target.blocked = True
        self.queue.append(target)
        self.balance -= 1
        _block_current()
        value = target.tempval
        target.tempval = None
        return value


def schedule(retval=None):
    """Move the current tasklet to the end of the runnables and run the next one."""
    _chain.rotate(-1)
    nxt = _chain[0]
    if nxt._g is not _greenlet_current():
        _switch_to(nxt)
    return retval


def getcurrent():
    return _chain[0]


def getmain():
    return _main


def getruncount():
    return len(_chain)


_main = tasklet()
_main._g = _greenlet_current()
_main.alive = True
_chain.append(_main)
