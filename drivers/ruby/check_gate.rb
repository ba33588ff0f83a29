# frozen_string_literal: true

# The spawn boundary's check (contract section 3), run by the manifest's `check`. The spawn phase ends
# when every process is blocked in its first receive, signalled by the gate. At the instant main wakes
# from the gate (spawn_ends), each process (fiber or thread) must stand in ring_process's first
# `q.pop`: every fiber (one OS thread runs them, so the last arrival has parked before main runs),
# every thread but at most the one whose arrival completed the count. A process slow to reach its
# receive must hold the boundary back: one that waits before arriving delays spawn_ends by as long.
#
#   ruby check_gate.rb

require_relative 'workloads'

SOURCE = File.join(__dir__, 'workloads.rb')
RECEIVE_LINE = File.readlines(SOURCE).each_with_index
                   .drop_while { |line, _| !line.include?('def ring_process') }
                   .find { |line, _| line.include?('q.pop') }[1] + 1
DELAY_S = 0.2

# The calls spawn makes on a meter; at spawn_ends, how many processes stand in their first receive.
class BoundaryMeter
  attr_reader :ready, :elapsed_s, :procs, :in_receive

  def initialize(processes)
    @processes = processes
  end

  def spawn_begins
    @t0 = Sys.now_ns
  end

  def spawn_ends(ready)
    @elapsed_s = (Sys.now_ns - @t0) / 1e9
    stacks = if @processes.is_a?(ThreadProcesses)
               (Thread.list - [Thread.current]).map(&:backtrace_locations)
             else
               @processes.instance_variable_get(:@scheduler).instance_variable_get(:@blocked)
                         .keys.map(&:backtrace_locations)
             end
    @procs = stacks.size
    @in_receive = stacks.count { |locs| in_first_receive?(locs) }
    @ready = ready
  end

  private

  # The innermost frames of this driver's code: the pop at RECEIVE_LINE, called from ring_process.
  def in_first_receive?(locs)
    ours = (locs || []).select { |l| l.path == SOURCE }
    ours[0]&.label == 'pop' && ours[0].lineno == RECEIVE_LINE && ours[1]&.label == 'ring_process'
  end
end

# Workloads whose first process to run waits DELAY_S before it arrives at the gate: a thread sleeps,
# a fiber (which cannot sleep under RingScheduler) spins on the clock.
class SlowFirst < Workloads
  def initialize(processes, threads)
    super(processes, nil)
    @token = Thread::Queue.new
    @token << DELAY_S
    @threads = threads
  end

  private

  def ring_process(*)
    delay = begin
      @token.pop(true)
    rescue ThreadError # empty: another process took the delay
      nil
    end
    wait(delay) if delay
    super
  end

  def wait(delay)
    return sleep(delay) if @threads

    until_ns = Sys.now_ns + (delay * 1e9)
    nil while Sys.now_ns < until_ns
  end
end

def spawn_once(variant, n, slow: false)
  threads = variant == 'threads'
  processes = threads ? ThreadProcesses.new : FiberProcesses.new
  work = slow ? SlowFirst.new(processes, threads) : Workloads.new(processes, nil)
  meter = BoundaryMeter.new(processes)
  work.spawn({ n: }, meter, false)
  meter
end

failures = []
%w[stock threads].each do |variant|
  [1, 2, 100, 2000].each do |n|
    3.times do
      m = spawn_once(variant, n)
      want = variant == 'threads' ? n - 1 : n
      next if m.ready == n && m.procs == n && m.in_receive >= want

      failures << "#{variant}, n=#{n}: ready #{m.ready}, #{m.procs} processes, " \
                  "#{m.in_receive} in their first receive at spawn_ends"
    end
  end
  [1, 100].each do |n|
    m = spawn_once(variant, n, slow: true)
    next if m.ready == n && m.elapsed_s >= DELAY_S

    failures << "#{variant}, n=#{n}, one process #{DELAY_S} s slow to its receive: ready #{m.ready}, " \
                "spawn ended after #{format('%.3f', m.elapsed_s)} s"
  end
end
failures.each { |f| warn "check_gate: #{f}" }
exit 1 unless failures.empty?
puts 'check_gate: every spawn ended with its processes in their first receive'
