"""The greenlet processes of the Python family: one code for CPython (drivers/python-greenlet) and PyPy
(drivers/pypy), so the two drivers differ only in the interpreter.

- `scheduler`: the hand-written mailbox (a deque) and run queue over `greenlet.switch`;
- `stock`: the workloads on it (`Stock`: python-greenlet/stock and /tuned, pypy/greenlet);
- `switch`: the workloads on a direct `greenlet.switch(value)` rendezvous (`Switch`).

The stress test of the scheduler is ../tests/stress_greenlet_scheduler.py.
"""
