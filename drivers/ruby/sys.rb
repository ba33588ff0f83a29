# frozen_string_literal: true

require 'fiddle'

# The clocks of a phase, the process's context switches, and its memory (contract sections 3 and 4).
module Sys
  CLOCK = 'Process.clock_gettime(CLOCK_MONOTONIC, :nanosecond); CPU: CLOCK_PROCESS_CPUTIME_ID; ' \
          'context switches: getrusage(RUSAGE_SELF) through Fiddle'

  # getrusage(2) from libc through Fiddle (Ruby's Process.times has no context switches). struct
  # rusage on x86-64 Linux: two timevals (32 bytes), then 14 longs; ru_nvcsw and ru_nivcsw are the
  # last two, at bytes 128 and 136.
  RUSAGE_SELF = 0
  RUSAGE_SIZE = 144
  NVCSW_OFFSET = 128
  GETRUSAGE = Fiddle::Function.new(Fiddle::Handle::DEFAULT['getrusage'],
                                   [Fiddle::TYPE_INT, Fiddle::TYPE_VOIDP], Fiddle::TYPE_INT)
  RUSAGE = Fiddle::Pointer.malloc(RUSAGE_SIZE, Fiddle::RUBY_FREE)

  module_function

  def now_ns
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  end

  def cpu_ns
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
  end

  # [voluntary, involuntary] context switches of the whole process, every thread.
  def switches
    return [0, 0] unless GETRUSAGE.call(RUSAGE_SELF, RUSAGE).zero?

    RUSAGE[NVCSW_OFFSET, 16].unpack('q2')
  end

  # VmRSS, VmHWM (bytes) and Threads of /proc/self/status.
  def status
    out = {}
    File.foreach('/proc/self/status') do |line|
      key, value = line.split(':', 2)
      case key
      when 'VmRSS', 'VmHWM' then out[key] = value.to_i * 1024
      when 'Threads' then out[key] = value.to_i
      end
    end
    out
  end

  # The kernel's peak-RSS mark (VmHWM) reset to the current RSS.
  def reset_peak_rss
    File.write('/proc/self/clear_refs', '5')
  rescue SystemCallError => e
    warn "ringbench-ruby: cannot reset the peak RSS (#{e.message}); rss_peak is the process's peak so far"
  end
end

# The marks of one iteration's phases, and the memory of the process's first spawn phase (or tree).
# A phase's start reads the switches, then the CPU clock, then the wall clock; its end the reverse:
# neither clock holds the getrusage call. Memory is read on the first spawn phase (or tree) only,
# *_after after the process's one forced collection (GC.start, untimed), and echoed; later
# iterations force no collection.
class Meter
  attr_reader :ready, :fields

  def initialize
    @memory = nil
    reset
  end

  def reset
    @ready = nil
    @fields = { setup_ns: 0, run_ns: 0, setup_cpu_ns: 0, run_cpu_ns: 0,
                setup_vcsw: 0, setup_ivcsw: 0, run_vcsw: 0, run_ivcsw: 0 }
  end

  def memory
    @memory || {}
  end

  def spawn_begins
    @before = Sys.status if @memory.nil?
    @mark = start_mark
  end

  def spawn_ends(ready)
    finish(:setup, end_mark)
    @ready = ready
    remember_after
  end

  def run_begins
    @mark = start_mark
  end

  def run_ends
    finish(:run, end_mark)
  end

  def tree_begins
    if @memory.nil?
      @before = Sys.status
      Sys.reset_peak_rss
    end
    run_begins
  end

  def tree_ends
    run_ends
    peak = @memory.nil? ? Sys.status['VmHWM'] : 0
    remember_after(rss_peak: peak)
  end

  private

  def start_mark
    vcsw, ivcsw = Sys.switches
    cpu = Sys.cpu_ns
    [Sys.now_ns, cpu, vcsw, ivcsw]
  end

  def end_mark
    t = Sys.now_ns
    cpu = Sys.cpu_ns
    vcsw, ivcsw = Sys.switches
    [t, cpu, vcsw, ivcsw]
  end

  def finish(phase, last)
    first = @mark
    @fields[:"#{phase}_ns"] = last[0] - first[0]
    @fields[:"#{phase}_cpu_ns"] = last[1] - first[1]
    @fields[:"#{phase}_vcsw"] = last[2] - first[2]
    @fields[:"#{phase}_ivcsw"] = last[3] - first[3]
  end

  def remember_after(extra = {})
    return unless @memory.nil?

    GC.start # the process's one full collection, with its one memory reading (untimed)
    now = Sys.status
    @memory = { rss_before: @before['VmRSS'], rss_after: now['VmRSS'] }.merge(extra)
    @memory[:threads_before] = @before['Threads']
    @memory[:threads_after] = now['Threads']
  end
end
