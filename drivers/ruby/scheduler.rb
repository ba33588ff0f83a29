# frozen_string_literal: true

# The smallest Fiber scheduler that runs message passing: Ruby 3's non-blocking fiber interface
# (Fiber::SchedulerInterface), with Thread::Queue, the standard library's queue, as every mailbox.
#
# Ruby ships the interface but no scheduler (the community's is the async gem). A fiber made by
# Fiber.schedule runs at once, until it blocks; a Thread::Queue#pop that finds the queue empty calls
# #block, which parks the fiber and yields to the scheduler's loop; the push that fills the queue
# calls #unblock, which puts the fiber on the run queue. #run resumes ready fibers, oldest first,
# until none is ready. One OS thread runs every fiber.
class RingScheduler
  def initialize
    @ready = []
    # A blocked fiber is reachable from nothing but the queue's C-level wait list, which Ruby 3.1's
    # collector does not mark (bugs.ruby-lang.org/issues/18818): the scheduler holds it until woken.
    @blocked = {}.compare_by_identity
  end

  # Fibers parked in #block and not yet woken (the stress test reads it).
  def blocked_count
    @blocked.size
  end

  # Fiber.schedule: a non-blocking fiber, run at once until it first blocks or ends.
  def fiber(&)
    f = Fiber.new(blocking: false, &)
    f.resume
    f
  end

  # Thread::Queue#pop (and Mutex, ConditionVariable) on an empty queue: park until #unblock.
  def block(blocker, timeout = nil)
    raise NotImplementedError, "RingScheduler#block has no timeouts (#{blocker.class})" if timeout

    @blocked[Fiber.current] = blocker
    Fiber.yield
    true
  end

  # The push that fills the queue: the parked fiber becomes ready.
  def unblock(_blocker, fiber)
    @blocked.delete(fiber)
    @ready << fiber
  end

  # Nothing here sleeps: main is woken by a message (continuous mode included).
  def kernel_sleep(*)
    raise NotImplementedError, 'RingScheduler runs message passing only: a fiber cannot sleep'
  end

  # stdout of the trace: a write that would block waits for the descriptor with every fiber.
  def io_wait(io, events, timeout)
    # io.wait_writable would call this scheduler again: IO.select blocks the thread, as intended.
    IO.select(nil, [io], nil, timeout) ? events : false # rubocop:disable Lint/IncompatibleIoSelectWithFiberScheduler
  end

  # Resume ready fibers until none is ready: every live fiber is then blocked in a receive.
  def run
    ready = @ready
    while (f = ready.shift)
      f.resume
    end
  end

  # Fiber.set_scheduler(nil) and the thread's end call it.
  def close
    run
  end
end
