# frozen_string_literal: true

# The stress test of RingScheduler (the driver's one hand-written concurrency primitive), run by the
# manifest's `check`. Random rounds of fibers that pass random numbers of messages through
# Thread::Queues in a random order, each round checked: every message received exactly once, every
# fiber ended, none left parked or ready. Some rounds run under GC.stress, a collection at every
# allocation: a parked fiber that the scheduler did not hold would be collected, and the round crash.

require_relative 'scheduler'

# What each fiber must receive: message i makes its hops along the shared route, in turn.
def expected_receipts(plan, route, fibers)
  expected = Array.new(fibers, 0)
  at = 0
  plan.each do |first, hops|
    expected[first] += 1
    (hops - 1).times do
      expected[route[at]] += 1
      at += 1
    end
  end
  expected
end

def check(scheduler, total_hops, plan, received, expected)
  want = plan.sum { |_, h| h }
  raise "round: #{total_hops} hops received, #{want} sent" unless total_hops == want
  raise "round: receipts #{received} != #{expected}" unless received == expected
  raise "round: #{scheduler.blocked_count} fibers still parked" unless scheduler.blocked_count.zero?
end

def round(rng, fibers, messages)
  scheduler = RingScheduler.new
  Fiber.set_scheduler(scheduler)
  queues = Array.new(fibers) { Thread::Queue.new }
  # Each fiber receives its quota, forwarding every message to a random queue while hops remain.
  plan = Array.new(messages) { [rng.rand(fibers), rng.rand(1..20)] }
  received = Array.new(fibers, 0)
  total_hops = 0
  done = Thread::Queue.new
  route = Array.new(messages * 21) { rng.rand(fibers) }
  expected = expected_receipts(plan, route, fibers)
  route_at = 0
  fibers.times do |i|
    Fiber.schedule do
      expected[i].times do
        left = queues[i].pop
        received[i] += 1
        total_hops += 1
        if left > 1
          nxt = route[route_at]
          route_at += 1
          queues[nxt] << (left - 1)
        else
          done << 1
        end
      end
    end
  end
  Fiber.schedule do
    plan.shuffle(random: rng).each { |to, hops| queues[to] << hops }
    messages.times { done.pop }
  end
  scheduler.run
  Fiber.set_scheduler(nil)
  check(scheduler, total_hops, plan, received, expected)
end

seed = Integer(ENV.fetch('STRESS_SEED', Random.new_seed % 1_000_000))
rng = Random.new(seed)
rounds = 0
# 1 s of rounds by default, 3 s with RINGBENCH_SLOW=1 (`make test-slow`), STRESS_SECONDS overrides
# both: each bug seeded to check the test (unblock leaving the fiber counted as parked, block not
# holding the parked fiber: a crash under GC.stress) fails it within 1 s, the first round being a
# GC.stress one, on a machine loaded ~5 times over. At least two rounds, one of each kind, however
# busy the machine.
seconds = Float(ENV.fetch('STRESS_SECONDS', ENV['RINGBENCH_SLOW'] == '1' ? 3 : 1))
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
while rounds < 2 || Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  stress = (rounds % 10).zero?
  GC.stress = stress
  round(rng, stress ? rng.rand(1..30) : rng.rand(1..500), stress ? rng.rand(1..30) : rng.rand(1..2000))
  GC.stress = false
  rounds += 1
end
puts "stress_scheduler: #{rounds} rounds passed (seed #{seed})"
