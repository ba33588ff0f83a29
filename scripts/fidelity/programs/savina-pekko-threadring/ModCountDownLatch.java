package edu.rice.hj.runtime.util;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * Written here for savina-pekko-threadring, in place of the class of the same name in Habanero-Java's
 * library (hjlib), which Savina's AkkaActor.scala imports and which is not on Maven Central: a
 * CountDownLatch whose count can also be raised. The four calls Savina makes: new ModCountDownLatch(0),
 * updateCount() (+1, once per actor started), countDown() (-1, once per actor exited), await() (until 0).
 * It is touched once per actor, never per hop.
 */
public final class ModCountDownLatch {
    private static final class Sync extends AbstractQueuedSynchronizer {
        private static final long serialVersionUID = 1L;

        Sync(int count) { setState(count); }

        int count() { return getState(); }

        void increment() {
            for (;;) {
                int c = getState();
                if (compareAndSetState(c, c + 1)) return;
            }
        }

        @Override
        protected int tryAcquireShared(int acquires) { return getState() == 0 ? 1 : -1; }

        @Override
        protected boolean tryReleaseShared(int releases) {
            for (;;) {
                int c = getState();
                if (c == 0) return false;
                if (compareAndSetState(c, c - 1)) return c == 1;
            }
        }
    }

    private final Sync sync;

    public ModCountDownLatch(int count) {
        if (count < 0) throw new IllegalArgumentException("count (" + count + ") is negative");
        sync = new Sync(count);
    }

    public void updateCount() { sync.increment(); }

    public void countDown() { sync.releaseShared(1); }

    public void await() throws InterruptedException { sync.acquireSharedInterruptibly(1); }

    public long getCount() { return sync.count(); }
}
