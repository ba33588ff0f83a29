module Ringbench
  # One iteration's measurements (contract section 4). Memory comes from
  # FIRST (sys.cr), not from the iteration.
  class Result
    property count = 0_i64
    property ready = 0_i64
    property setup = Span.new    # the spawn phase (tree: 0)
    property run = Span.new      # the message phase (spawn: 0)
    property fibers_peak = 0_i64 # at the end of the spawn phase (tree: 0, no such instant)

    # Ends the spawn phase once every process has arrived at the gate: stops the
    # clock, then (untimed, first spawn of the process only) the process's one
    # full collection and *_after memory (memory_after_spawn).

    def spawn_ends(t0 : Mark, ready : Int64) : Nil
      t1 = Ringbench.end_mark
      Ringbench.at_spawn_end.try &.call
      @setup = Ringbench.between(t0, t1)
      @ready = ready
      @fibers_peak = Ringbench.fiber_count
      Ringbench.memory_after_spawn
    end

    # Ends a tree's one timed phase: the clock stops, VmHWM is read, then
    # (untimed, first tree only) the one collection and *_after memory.
    def tree_ends(t0 : Mark) : Nil
      t1 = Ringbench.end_mark
      @run = Ringbench.between(t0, t1)
      peak = Ringbench.status_field("VmHWM")
      FIRST.rss_peak = peak unless FIRST.after
      Ringbench.memory_after_spawn
    end
  end

  # Set by a test: runs as a spawn phase ends, just after its clock stops
  # (untimed), the instant the phase's boundary describes.
  class_property at_spawn_end : Proc(Nil)? = nil

  # spawn_begins reads the first spawn's *_before memory, then starts the
  # spawn phase's clock.
  def self.spawn_begins : Mark
    memory_before_spawn
    begin_mark
  end

  def self.tree_begins : Mark
    reset_peak_rss unless FIRST.before
    memory_before_spawn
    begin_mark
  end

  def self.verify(workload : String, got : Int64, want : Int64) : Nil
    if got != want
      die(FAILURE, "#{workload}: verified count #{got} does not match the expected #{want}")
    end
  end

  # `spawn` that turns a fiber stack that cannot be mapped into a `limit`
  # error (sys.cr) instead of an exception in whichever fiber spawned.
  macro spawn_or_limit(call)
    begin
      spawn {{call}}
    rescue %ex : RuntimeError
      Ringbench.spawn_failed(%ex)
    end
  end

  # ------------------------------------------------------------- phases

  # The gate: how the spawn phase ends (contract section 3). Every process
  # calls `arrive` immediately before its first blocking receive; the one
  # whose arrival completes the count wakes main. One atomic add per process.
  class Gate
    @count = Atomic(Int64).new(0_i64)
    @all = Channel(Nil).new(1)

    def initialize(@want : Int64)
    end

    def arrive : Nil
      @all.send(nil) if @count.add(1_i64) + 1 == @want
    end

    def wait : Int64
      @all.receive
      @count.get
    end
  end

  # What the processes of one ring share with main: the gate, a channel for
  # tokens that have made their last hop (room for every token, so that a
  # finishing process never waits for main), the stop pass's sum, and the
  # retirement hand-shake.
  class Ends
    getter gate : Gate
    getter done : Channel(Nil)
    getter sum = Channel(Int64).new
    getter retired = Channel(Nil).new

    def initialize(n : Int32, tokens : Int32)
      @gate = Gate.new(n.to_i64)
      @done = Channel(Nil).new(tokens)
    end

    # Ends the processes one at a time, the last first (untimed). Crystal
    # keeps the stacks of dead fibers in a pool, last in first out, and the
    # next spawn takes them from there: retiring in reverse spawn order gives
    # every ring its stacks in the order the first ring had them.
    def retire(n : Int32, &wake : Int32 -> _) : Nil
      (n - 1).downto(0) do |i|
        wake.call(i)
        @retired.receive
      end
    end
  end

  # Token j starts at p(j*n div tokens) (burst=0), or every token at p0
  # (burst=1), in injection order.
  def self.placement(n : Int32, tokens : Int32, burst : Bool) : Array(Int32)
    Array(Int32).new(tokens) { |j| burst ? 0 : (j.to_i64 * n // tokens).to_i32 }
  end

  # The inbox capacity of a ring: with unbuffered channels a ring deadlocks
  # only when every process holds a token and is blocked sending to a
  # successor that is itself sending, which needs tokens == n (n = 1 too: p0
  # sends to itself). Such a ring gets one-slot inboxes; every other ring is
  # unbuffered.
  def self.ring_cap(n : Int32, tokens : Int32) : Int32
    tokens == n ? 1 : 0
  end

  # main's array of n inbox handles, filled before the spawn phase (its
  # pages touched there, so that neither their time nor their memory counts
  # in the phase); the phase then stores each inbox as it makes it.
  PLACEHOLDER = Channel(Int64).new

  def self.handles(n : Int32) : Array(Channel(Int64))
    Array(Channel(Int64)).new(n, PLACEHOLDER)
  end

  # Makes the inboxes and starts the processes in ring order, each inbox
  # made just before the process that receives on it; start(i, in, next).
  def self.build_ring(inboxes : Array(Channel(Int64)), tokens : Int32, &start : Int32, Channel(Int64), Channel(Int64) -> _) : Nil
    n = inboxes.size
    cap = ring_cap(n, tokens)
    inboxes[0] = Channel(Int64).new(cap)
    n.times do |i|
      inboxes[i + 1] = Channel(Int64).new(cap) if i < n - 1
      start.call(i, inboxes[i], inboxes[(i + 1) % n])
    end
  end

  # ------------------------------------------------------------- ring

  # One process of the ring. v >= 1 is a token with v hops to go; v <= 0 is
  # the stop message carrying the sum -v of the receipt counts of the
  # processes it has passed. Per hop: receive, compare, count, send.
  def self.ring_proc(inbox : Channel(Int64), nxt : Channel(Int64), e : Ends, last : Bool) : Nil
    count = 0_i64
    e.gate.arrive
    loop do
      v = inbox.receive
      if v > 1
        count += 1
        nxt.send(v - 1)
      elsif v == 1
        count += 1
        e.done.send(nil)
      else
        s = count - v
        if last
          e.sum.send(s)
        else
          nxt.send(-s)
        end
        inbox.receive
        e.retired.send(nil)
        return
      end
    end
  end

  def self.ring_iter(n : Int32, m : Int64, tokens : Int32, burst : Bool) : Result
    r = Result.new
    e = Ends.new(n, tokens)
    inboxes = handles(n)
    at = placement(n, tokens, burst)

    t0 = spawn_begins
    build_ring(inboxes, tokens) do |i, inbox, nxt|
      spawn_or_limit(ring_proc(inbox, nxt, e, i == n - 1))
    end
    r.spawn_ends(t0, e.gate.wait)

    # Message phase.
    v = n.to_i64 * m
    t2 = begin_mark
    at.each { |i| inboxes[i].send(v) }
    tokens.times { e.done.receive }
    t3 = end_mark

    # Proof, untimed: the stop message collects every receipt count.
    inboxes[0].send(0_i64)
    r.count = e.sum.receive
    verify("ring", r.count, n.to_i64 * m * tokens)
    e.retire(n) { |i| inboxes[i].send(0_i64) }
    r.run = between(t2, t3)
    r
  end

  # ------------------------------------------------------------- continuous

  def self.cont_proc(inbox : Channel(Int64), nxt : Channel(Int64), g : Gate) : Nil
    g.arrive
    loop do
      nxt.send(inbox.receive)
    end
  end

  # The lap counter of continuous mode, shared by p0 and the sampler (a class:
  # an Atomic is a struct, and a copy would count for nobody).
  class Laps
    getter count = Atomic(Int64).new(0_i64)
  end

  # p0: the same hop plus one atomic add per token passage (one per n hops),
  # the only shared state of continuous mode (section 5).
  def self.cont_head(inbox : Channel(Int64), nxt : Channel(Int64), g : Gate, laps : Laps) : Nil
    g.arrive
    loop do
      v = inbox.receive
      laps.count.add(1_i64)
      nxt.send(v)
    end
  end

  # Continuous mode (section 5). The samples come from an OS thread of their
  # own: Crystal's scheduler is cooperative and runs its timers only when no
  # fiber is runnable, so a main fiber sleeping beside a circulating token
  # would never wake (README.md, "Contract deviations").
  def self.continuous(p : Params) : NoReturn
    n, tokens = p.i("n"), p.i("tokens")
    laps = Laps.new
    g = Gate.new(n.to_i64)
    r = Result.new
    inboxes = handles(n)
    at = placement(n, tokens, p["burst"] == 1)
    t0 = spawn_begins
    build_ring(inboxes, tokens) do |i, inbox, nxt|
      if i == 0
        spawn_or_limit(cont_head(inbox, nxt, g, laps))
      else
        spawn_or_limit(cont_proc(inbox, nxt, g))
      end
    end
    r.spawn_ends(t0, g.wait)
    every = p["sample_ms"]
    samples = p["samples"]
    start = Time.monotonic
    Thread.new { sample(every, samples, n, start, laps) }
    at.each { |i| inboxes[i].send(1_i64) }
    loop { sleep } # main's part is done; the sampler thread ends the process
  end

  # The sampler thread: sleeps to fixed deadlines (start + k*sample_ms, so
  # lateness does not accumulate), reads the lap counter, prints, and after
  # the last sample ends the process without teardown.
  def self.sample(every : Int64, samples : Int64, n : Int32, start : Time::Span, laps : Laps) : Nil
    (1_i64..samples).each do |s|
      deadline = start + (s * every).milliseconds
      ts = LibC::Timespec.new(tv_sec: deadline.total_seconds.to_i64, tv_nsec: deadline.nanoseconds)
      while LibC.clock_nanosleep(LibC::CLOCK_MONOTONIC, LibC::TIMER_ABSTIME, pointerof(ts), nil) != 0
      end
      l = laps.count.get
      el = (Time.monotonic - start).total_nanoseconds.to_i64
      line = Rec.new("sample").int("seq", s).int("elapsed_ns", el).int("count", l * n).line
      LibC.write(1, line.to_unsafe, line.size)
    end
    LibC._exit(0)
  end

  # ------------------------------------------------------------- spawn

  # Arrives at the gate, as a ring process does, then blocks in its
  # first receive on an inbox made as a ring process's is. A ready message to
  # main instead would end the phase on main's pace: main, woken by the first
  # send, takes the other n - 1 from senders blocked in their send, and each
  # taken sender is only queued to run, short of its first receive, when the
  # phase ends (the spec checks it).
  def self.spawn_proc(inbox : Channel(Int64), g : Gate, retired : Channel(Nil)) : Nil
    g.arrive
    inbox.receive
    retired.send(nil)
  end

  def self.spawn_iter(n : Int32) : Result
    inboxes = handles(n)
    r, e = spawn_phase(inboxes)
    e.retire(n) { |i| inboxes[i].send(0_i64) }
    verify("spawn", r.count, n.to_i64)
    r
  end

  # The body of a process of `spawn`: spawn_proc, or in a spec one that is
  # slow to arrive.
  alias SpawnBody = Proc(Channel(Int64), Gate, Channel(Nil), Nil)

  # Spawns one idle process per handle in `inboxes`, each running `body`, and
  # ends the spawn phase; the caller retires them (untimed).
  def self.spawn_phase(inboxes : Array(Channel(Int64)),
                       body : SpawnBody = ->spawn_proc(Channel(Int64), Gate, Channel(Nil))) : {Result, Ends}
    r = Result.new
    e = Ends.new(inboxes.size, 1)

    t0 = spawn_begins
    inboxes.size.times do |i|
      inboxes[i] = inbox = Channel(Int64).new
      spawn_or_limit(body.call(inbox, e.gate, e.retired))
    end
    r.count = e.gate.wait
    r.spawn_ends(t0, r.count)
    {r, e}
  end

  # ------------------------------------------------------------- pingpong

  def self.ping_a(start : Channel(Nil), to_b : Channel(Int64), from_b : Channel(Int64), m : Int64, g : Gate, done : Channel(Nil)) : Nil
    g.arrive
    start.receive
    m.times do
      to_b.send(1_i64)
      from_b.receive
    end
    done.send(nil)
  end

  def self.ping_b(inbox : Channel(Int64), to_a : Channel(Int64), g : Gate, result : Channel(Int64)) : Nil
    count = 0_i64
    g.arrive
    loop do
      v = inbox.receive
      if v == 0
        result.send(count)
        return
      end
      count += 1
      to_a.send(v)
    end
  end

  def self.pingpong_iter(m : Int64) : Result
    r = Result.new
    start = Channel(Nil).new
    done = Channel(Nil).new
    res = Channel(Int64).new
    g = Gate.new(2)
    t0 = spawn_begins
    a_in = Channel(Int64).new
    b_in = Channel(Int64).new
    spawn_or_limit(ping_a(start, b_in, a_in, m, g, done))
    spawn_or_limit(ping_b(b_in, a_in, g, res))
    r.spawn_ends(t0, g.wait)
    t2 = begin_mark
    start.send(nil)
    done.receive
    t3 = end_mark
    b_in.send(0_i64)
    r.count = res.receive
    verify("pingpong", r.count, m)
    r.run = between(t2, t3)
    r
  end

  # ------------------------------------------------------------- fanin

  # A sender waits for the start signal (the close of `start`), then sends m
  # messages to the receiver's inbox.
  def self.fanin_sender(start : Channel(Nil), outbox : Channel(Int64), m : Int64, g : Gate) : Nil
    g.arrive
    start.receive?
    m.times { outbox.send(1_i64) }
  end

  def self.fanin_receiver(inbox : Channel(Int64), total : Int64, g : Gate, done : Channel(Int64)) : Nil
    count = 0_i64
    g.arrive
    while count < total
      inbox.receive
      count += 1
    end
    done.send(count)
  end

  def self.fanin_iter(n : Int32, m : Int64) : Result
    r = Result.new
    start = Channel(Nil).new
    done = Channel(Int64).new
    g = Gate.new(n.to_i64 + 1)
    t0 = spawn_begins
    inbox = Channel(Int64).new
    spawn_or_limit(fanin_receiver(inbox, n.to_i64 * m, g, done))
    n.times { spawn_or_limit(fanin_sender(start, inbox, m, g)) }
    r.spawn_ends(t0, g.wait)
    t2 = begin_mark
    start.close # the start signal, to every sender at once
    r.count = done.receive
    t3 = end_mark
    verify("fanin", r.count, n.to_i64 * m)
    r.run = between(t2, t3)
    r
  end

  # ------------------------------------------------------------- tree

  # One process of the tree (skynet): it covers the leaves lo ... lo+size-1.
  # A leaf sends its ordinal up. An inner process makes one unbuffered
  # channel, spawns fanout children that each cover an equal, contiguous part
  # of its range, receives one value from each in whatever order they come,
  # sends the total up and exits.
  def self.tree_node(lo : Int64, size : Int64, fanout : Int32, up : Channel(Int64)) : Nil
    if size == 1
      up.send(lo)
      return
    end
    inbox = Channel(Int64).new
    step = size // fanout
    fanout.times { |i| spawn_or_limit(tree_node(lo + i * step, step, fanout, inbox)) }
    sum = 0_i64
    fanout.times { sum += inbox.receive }
    up.send(sum)
  end

  def self.tree_iter(n : Int64, fanout : Int32) : Result
    r = Result.new
    root = Channel(Int64).new
    t0 = tree_begins
    spawn_or_limit(tree_node(0_i64, n, fanout, root))
    r.count = root.receive
    r.tree_ends(t0)
    verify("tree", r.count, n * (n - 1) // 2)
    r
  end

  # ------------------------------------------------------------- trace

  record TraceMsg, v : Int64, from : Int32 # v: hops to go; <= 0: the stop, carrying the sum -v

  # One hop record, printed from inside the receiving process as the hop
  # happens.

  def self.hop_record(hop : Int64, n : Int32, from : Int32, to : Int32) : Nil
    Rec.new("hop").int("hop", hop).int("lap", (hop - 1) // n + 1).int("from", from).int("to", to).emit
  end

  def self.trace_proc(idx : Int32, total : Int64, n : Int32, inbox : Channel(TraceMsg), nxt : Channel(TraceMsg),
                      g : Gate, done : Channel(Nil), sum : Channel(Int64), last : Bool, print : Bool) : Nil
    count = 0_i64
    g.arrive
    loop do
      msg = inbox.receive
      if msg.v <= 0
        s = count - msg.v
        last ? sum.send(s) : nxt.send(TraceMsg.new(-s, idx))
        return
      end
      count += 1
      hop_record(total - msg.v + 1, n, msg.from, idx) if print
      msg.v == 1 ? done.send(nil) : nxt.send(TraceMsg.new(msg.v - 1, idx))
    end
  end

  def self.trace_iter(n : Int32, m : Int32, print : Bool) : Result
    r = Result.new
    cap = ring_cap(n, 1)
    done = Channel(Nil).new(1)
    sum = Channel(Int64).new
    g = Gate.new(n.to_i64)
    total = n.to_i64 * m
    t0 = spawn_begins
    first = Channel(TraceMsg).new(cap)
    inbox = first
    n.times do |i|
      nxt = i == n - 1 ? first : Channel(TraceMsg).new(cap)
      spawn_or_limit(trace_proc(i, total, n, inbox, nxt, g, done, sum, i == n - 1, print))
      inbox = nxt
    end
    r.spawn_ends(t0, g.wait)
    t2 = begin_mark
    first.send(TraceMsg.new(total, -1))
    done.receive
    t3 = end_mark
    first.send(TraceMsg.new(0_i64, -1))
    r.count = sum.receive
    verify("trace", r.count, total)
    r.run = between(t2, t3)
    r
  end
end
