require "spec"
require "../src/driver"

# Stress tests of what the driver writes itself around the runtime's channels:
# the gate, the ring's stop pass and retirement, the one-slot inboxes of a
# full ring, the tree's sums and the parameter checks. Each iteration builds
# its fibers afresh, as the orchestrator's repeats do.

# Iterations of each ring: 1 by default, 3 with RINGBENCH_SLOW=1 (`make test-slow`); the rings'
# hops, 3 million in the full ring of 1,000 tokens, are most of the spec's time (not --release).
RING_REPEATS = ENV["RINGBENCH_SLOW"]? == "1" ? 3 : 1

describe Ringbench do
  it "passes every token round a ring of any size, spread or in a burst" do
    [{1, 1, 1}, {2, 3, 2}, {3, 5, 3}, {7, 13, 3}, {100, 10, 4}, {1000, 3, 1000}, {1000, 2, 16}].each do |(n, m, t)|
      [false, true].each do |burst|
        RING_REPEATS.times do
          r = Ringbench.ring_iter(n, m.to_i64, t, burst)
          r.count.should eq(n.to_i64 * m * t)
          r.ready.should eq(n)
        end
      end
    end
  end

  it "opens the gate once, when the last of many processes arrives" do
    200.times do |k|
      n = 1 + k * 37 % 500
      g = Ringbench::Gate.new(n.to_i64)
      release = Channel(Nil).new
      n.times { spawn { g.arrive; release.receive? } }
      g.wait.should eq(n)
      release.close
    end
  end

  # At the instant the spawn phase's clock stops, every process's inbox has it
  # waiting as a receiver: the boundary of contract section 3.
  it "ends the spawn phase with every process waiting in its first receive" do
    [1, 2, 100, 3000].each do |n|
      inboxes = Ringbench.handles(n)
      waiting = -1
      Ringbench.at_spawn_end = ->{ waiting = inboxes.count { |c| !c.@receivers.empty? }; nil }
      r, e = Ringbench.spawn_phase(inboxes)
      Ringbench.at_spawn_end = nil
      e.retire(n) { |i| inboxes[i].send(0_i64) }
      r.ready.should eq(n)
      waiting.should eq(n)
    end
  end

  # A process slow to reach its first receive holds the spawn phase back: the
  # reported set-up time (setup_ns) is at least its delay, and when main wakes
  # the gate has counted every process, with every inbox holding its process
  # as a waiting receiver (one thread: the completing arrival sent to main and
  # went on into its receive before main ran). A gate that woke main one
  # arrival early, or counted a process before it got there, ends the phase
  # while the slow process sleeps.
  it "ends the spawn phase no sooner than a process slow to arrive" do
    delay = 200.milliseconds
    [1, 2, 1000].each do |n|
      [0, n - 1].uniq.each do |slow|
        inboxes = Ringbench.handles(n)
        arrived = waiting = -1_i64
        gate = nil
        started = 0
        body = ->(inbox : Channel(Int64), g : Ringbench::Gate, retired : Channel(Nil)) do
          gate = g
          k = started
          started += 1
          if k == slow # at least delay by the clock the phase reads (a timer may fire early)
            until_t = Time.monotonic + delay
            while (left = until_t - Time.monotonic) > Time::Span.zero
              sleep left
            end
          end
          Ringbench.spawn_proc(inbox, g, retired)
        end
        Ringbench.at_spawn_end = ->do
          if g = gate
            arrived = g.@count.get
          end
          waiting = inboxes.count { |c| !c.@receivers.empty? }.to_i64
          nil
        end
        r, e = Ringbench.spawn_phase(inboxes, body)
        Ringbench.at_spawn_end = nil
        e.retire(n) { |i| inboxes[i].send(0_i64) }
        {n, slow, r.setup.ns >= delay.total_nanoseconds, arrived, r.ready, waiting}
          .should eq({n, slow, true, n, n, n})
      end
    end
  end

  it "counts spawn, pingpong and fanin exactly" do
    5.times do
      Ringbench.spawn_iter(3000).count.should eq(3000)
      Ringbench.pingpong_iter(10_000).count.should eq(10_000)
      Ringbench.fanin_iter(300, 50).count.should eq(15_000)
    end
  end

  it "sums every leaf of a tree" do
    [{1_i64, 10}, {1000_i64, 10}, {1024_i64, 2}, {729_i64, 3}, {10_000_i64, 10}].each do |(n, f)|
      Ringbench.tree_iter(n, f).count.should eq(n * (n - 1) // 2)
    end
  end

  it "takes ASCII digits only as a decimal value" do
    Ringbench.decimal?("0123").should be_true
    Ringbench.decimal?("+3").should be_false
    Ringbench.decimal?("٣").should be_false
    Ringbench.decimal?("").should be_false
  end
end
