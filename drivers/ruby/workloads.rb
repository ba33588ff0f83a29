# frozen_string_literal: true

require_relative 'scheduler'
require_relative 'sys'

# The gate (contract section 3): each process arrives once, immediately before its first receive,
# by adding one to a count; the arrival that completes the count sends main one message, and main
# waits for it with one receive. The fibers' gate: one OS thread runs every fiber and a fiber is
# switched only where it blocks, so no other process runs between the count's read and its write.
class Gate
  def initialize(want, mailbox)
    @want = want
    @arrived = 0
    @mailbox = mailbox # a fresh main mailbox: the gate's message is its only one
  end

  def arrive
    @mailbox << @want if count_one == @want
  end

  # Main: one receive, which the last arrival completes; the arrivals counted.
  def wait
    @mailbox.pop
    @arrived
  end

  private

  def count_one
    @arrived += 1
  end
end

# The threads' gate: the VM lock may pass to another thread between the count's read and its write,
# so the count is taken under a Thread::Mutex.
class LockedGate < Gate
  def initialize(want, mailbox)
    super
    @mutex = Thread::Mutex.new
  end

  private

  def count_one
    @mutex.synchronize { @arrived += 1 }
  end
end

# Fibers (the stock variant): each process a non-blocking fiber under RingScheduler, one OS thread.
class FiberProcesses
  def initialize
    @scheduler = RingScheduler.new
    Fiber.set_scheduler(@scheduler)
  end

  def spawn(&)
    Fiber.schedule(&)
  end

  # The iteration's main process is a fiber too (a receive in the thread's root fiber would block
  # the thread); the root fiber runs the scheduler until every fiber is blocked or done.
  def as_main
    result = nil
    finished = false
    Fiber.schedule do
      result = yield
      finished = true
    end
    @scheduler.run
    raise 'the main process is blocked with no process ready (deadlock)' unless finished

    result
  end

  def join_all; end

  # Main's mailbox: a Thread::Queue, as every process's.
  def main_mailbox
    Thread::Queue.new
  end

  def gate(want)
    Gate.new(want, main_mailbox)
  end

  def stats
    { blocked_fibers: @scheduler.blocked_count }
  end
end

# Main's mailbox in the threads variant: a Thread::Mutex, a Thread::ConditionVariable and an Array.
# CRuby 3.1 counts a thread blocked in Thread::Queue#pop, which has no timeout, as a possible
# deadlock, and once every living thread is such a sleeper it walks every thread to check: with
# main waiting in a pop that is one walk of all n threads at every hop of the ring (1 ms a hop at
# n = 10,000). A wait with a timeout is not counted, so main waits there, as the Benchmarks Game
# program's main waits in sleep; the ring's processes keep their Thread::Queue.
class MainBox
  WAIT_S = 3600.0 # the timeout only keeps the wait out of the deadlock count; main waits again

  def initialize
    @mutex = Thread::Mutex.new
    @cond = Thread::ConditionVariable.new
    @items = []
  end

  def <<(value)
    @mutex.synchronize do
      @items << value
      @cond.signal
    end
    self
  end

  def pop
    @mutex.synchronize do
      @cond.wait(@mutex, WAIT_S) while @items.empty?
      @items.shift
    end
  end
end

# Threads (the threads variant): each process an OS thread (Thread.new), the main thread main.
class ThreadProcesses
  def initialize
    Thread.report_on_exception = false
    Thread.abort_on_exception = true # a process that raises ends the driver with a failure record
    @threads = []
  end

  def spawn(&)
    @threads << Thread.new(&)
  end

  def as_main
    yield
  end

  # Untimed teardown: the iteration's threads have all ended before the next one starts.
  def join_all
    @threads.each(&:join)
    @threads.clear
  end

  def main_mailbox
    MainBox.new
  end

  def gate(want)
    LockedGate.new(want, main_mailbox)
  end

  def stats
    { threads_alive: Thread.list.size }
  end
end

# What main and p0 share in continuous mode: when the next sample is due.
Sampling = Struct.new(:start, :due, :period)

# What a trace process shares with main: main's mailbox, the gate.
TraceEnds = Struct.new(:main_q, :gate)

# The workloads of contract section 3. Every mailbox is a Thread::Queue owned by its receiver:
# send is push (<<), receive a blocking pop. Each method returns the count it proved.
class Workloads
  ENDLESS_TOKEN = 1 << 61 # continuous mode: counted down by one a hop, it never finishes (a Fixnum)

  def initialize(processes, emit)
    @rt = processes
    @emit = emit # the record printer (trace hops, continuous samples)
  end

  def ring(prm, meter, _print_hops)
    n = prm[:n]
    sampling = Sampling.new(0, 0, prm[:sample_ms] * 1_000_000) if prm[:sample_ms].positive?
    count = @rt.as_main do
      main_q = @rt.main_mailbox
      gate = @rt.gate(n)
      meter.spawn_begins
      qs = Array.new(n) { Thread::Queue.new }
      n.times do |i|
        q = qs[i]
        succ = qs[i + 1 == n ? 0 : i + 1]
        if sampling && i.zero?
          @rt.spawn { ring_head_continuous(q, succ, main_q, gate, sampling) }
        else
          first = i.zero?
          @rt.spawn { ring_process(q, succ, first, main_q, gate) }
        end
      end
      meter.spawn_ends(gate.wait)
      starts = token_starts(prm)
      samples(prm, qs, starts, main_q, sampling) if sampling # never returns
      v = n * prm[:m]
      meter.run_begins
      starts.each { |k| qs[k] << v }
      starts.size.times { main_q.pop }
      meter.run_ends
      qs[0] << -1 # the proof: the stop message gathers every receipt count
      main_q.pop
    end
    @rt.join_all
    count
  end

  def spawn(prm, meter, _print_hops)
    n = prm[:n]
    ready = @rt.as_main do
      main_q = @rt.main_mailbox
      gate = @rt.gate(n)
      meter.spawn_begins
      qs = Array.new(n) { Thread::Queue.new }
      qs.each { |q| @rt.spawn { ring_process(q, main_q, false, main_q, gate) } }
      meter.spawn_ends(gate.wait)
      qs.each do |q|
        q << -1 # the stop message: the process answers main and ends
        main_q.pop
      end
      meter.ready
    end
    @rt.join_all
    ready
  end

  def pingpong(prm, meter, _print_hops)
    count = @rt.as_main do
      main_q = @rt.main_mailbox
      result_q = @rt.main_mailbox
      aq = Thread::Queue.new
      bq = Thread::Queue.new
      gate = @rt.gate(2)
      meter.spawn_begins
      @rt.spawn { pinger(aq, bq, main_q, gate, prm[:m]) }
      @rt.spawn { ponger(bq, aq, gate, result_q) }
      meter.spawn_ends(gate.wait)
      meter.run_begins
      aq << 1 # the start signal
      main_q.pop # A is done
      meter.run_ends
      result_q.pop
    end
    @rt.join_all
    count
  end

  def fanin(prm, meter, _print_hops)
    n = prm[:n]
    m = prm[:m]
    count = @rt.as_main do
      main_q = @rt.main_mailbox
      rq = Thread::Queue.new
      gate = @rt.gate(n + 1)
      meter.spawn_begins
      @rt.spawn { fanin_receiver(rq, main_q, gate, n * m) }
      qs = Array.new(n) { Thread::Queue.new }
      qs.each { |q| @rt.spawn { fanin_sender(q, rq, gate, m) } }
      meter.spawn_ends(gate.wait)
      meter.run_begins
      qs.each { |q| q << 1 } # the start signal
      received = main_q.pop
      meter.run_ends
      received
    end
    @rt.join_all
    count
  end

  def tree(prm, meter, _print_hops)
    total = @rt.as_main do
      main_q = @rt.main_mailbox
      meter.tree_begins
      @rt.spawn { tree_node(0, prm[:n], prm[:fanout], main_q) }
      sum = main_q.pop
      meter.tree_ends
      sum
    end
    @rt.join_all
    total
  end

  def trace(prm, meter, print_hops)
    n = prm[:n]
    m = prm[:m]
    log = HopLog.new(n, print_hops ? @emit : nil)
    @rt.as_main do
      main_q = @rt.main_mailbox
      gate = @rt.gate(n)
      meter.spawn_begins
      qs = Array.new(n) { Thread::Queue.new }
      ends = TraceEnds.new(main_q, gate)
      n.times { |i| @rt.spawn { trace_process(i, qs[i], qs[(i + 1) % n], ends, log) } }
      meter.spawn_ends(gate.wait)
      meter.run_begins
      qs[0] << [n * m, -1]
      main_q.pop
      meter.run_ends
      last = ((n * m) - 1) % n # the process that finished the token has ended
      n.times { |i| qs[i] << nil unless i == last } # the others are released
    end
    @rt.join_all
    log.hops
  end

  private

  # A ring process (and, with main as its successor, a spawn process). A hop: pop returns, one
  # compare, one receipt counted, push v - 1 into the successor's queue, pop again.
  def ring_process(q, succ, first, main_q, gate)
    cnt = 0
    gate.arrive # about to block in its first receive
    while (v = q.pop)
      if v > 1
        cnt += 1
        succ << (v - 1)
      elsif v == 1
        cnt += 1
        main_q << 0 # a token finished
      else # the proof: v = -(1 + receipts so far); p0 sees it twice
        succ << (v - cnt)
        main_q << (-q.pop - 1) if first
        return
      end
    end
  end

  # p0 in continuous mode: counts the laps and, once a lap when a sample is due, tells main.
  def ring_head_continuous(q, succ, main_q, gate, sampling)
    laps = 0
    gate.arrive
    while (v = q.pop)
      laps += 1
      t = Sys.now_ns
      if t >= sampling.due
        sampling.due += sampling.period while sampling.due <= t
        main_q << laps
      end
      succ << v
    end
  end

  def samples(prm, qs, starts, main_q, sampling)
    sampling.start = Sys.now_ns
    sampling.due = sampling.start + sampling.period
    starts.each { |k| qs[k] << ENDLESS_TOKEN }
    1.upto(prm[:samples]) do |seq|
      laps = main_q.pop
      @emit.call({ type: 'sample', seq:, elapsed_ns: Sys.now_ns - sampling.start, count: laps * prm[:n] })
      $stdout.flush # each sample as it is read: the orchestrator shows it live (a syscall a sample, not a hop)
    end
    Process.exit!(0) # no teardown (contract section 5)
  end

  def pinger(q, pong_q, main_q, gate, rounds)
    gate.arrive
    q.pop # the start signal
    rounds.times do
      pong_q << 1
      q.pop
    end
    pong_q << 0
    main_q << 0 # done
  end

  def ponger(q, ping_q, gate, result_q)
    cnt = 0
    gate.arrive
    while q.pop.positive?
      cnt += 1
      ping_q << 1
    end
    result_q << cnt
  end

  def fanin_receiver(q, main_q, gate, total)
    cnt = 0
    gate.arrive
    while cnt < total
      q.pop
      cnt += 1
    end
    main_q << cnt
  end

  def fanin_sender(q, to_q, gate, count)
    gate.arrive
    q.pop # the start signal
    count.times { to_q << 1 }
  end

  # Covers the leaves lo .. lo + n - 1: a process per child, the children's sums added, the sum
  # sent to the parent, then the end.
  def tree_node(low, n, fanout, to_q)
    if n > 1
      q = Thread::Queue.new
      k = n / fanout
      fanout.times do |i|
        child_low = low + (i * k)
        @rt.spawn { tree_node(child_low, k, fanout, q) }
      end
      sum = 0
      fanout.times { sum += q.pop }
      to_q << sum
    else
      to_q << low
    end
  end

  # A trace process: the token carries its sender's index; the receiver prints the hop.
  def trace_process(index, q, succ, ends, log)
    ends.gate.arrive
    while (msg = q.pop)
      v, sender = msg
      log.hop(sender, index)
      if v == 1
        ends.main_q << 0
        return
      end
      succ << [v - 1, index]
    end
  end

  def token_starts(prm)
    n = prm[:n]
    tokens = prm[:tokens]
    return Array.new(tokens, 0) if prm[:burst] == 1

    Array.new(tokens) { |j| j * n / tokens }
  end
end

# trace: counts the hops as the processes report them, and prints each (not in a warm-up).
class HopLog
  attr_reader :hops

  def initialize(n, emit)
    @n = n
    @emit = emit
    @hops = 0
  end

  def hop(sender, receiver)
    @hops += 1
    return unless @emit

    @emit.call({ type: 'hop', hop: @hops, lap: ((@hops - 1) / @n) + 1, from: sender, to: receiver })
    $stdout.flush
  end
end
