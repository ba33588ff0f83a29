# frozen_string_literal: true

# ringbench-ruby: the Ruby driver of ringbench (driver contract version 4).
#
#   ruby driver.rb [--variant=stock|threads] describe
#   ruby driver.rb [--variant=stock|threads] run <workload> key=value ...
#
# Processes are fibers under a Fiber scheduler (stock) or OS threads (threads); every mailbox is a
# Thread::Queue. stdout carries JSON Lines only; diagnostics go to stderr. See README.md.

require 'json'
require_relative 'workloads'

CONTRACT = 4
NAME = 'ruby'
VARIANTS = %w[stock threads].freeze
WORKLOADS = %w[ring spawn pingpong fanin tree trace].freeze
FEATURES = %w[tokens continuous stats].freeze
COLLECTOR = 'ruby rgengc' # CRuby's one collector: generational, incremental mark and lazy sweep
EXIT = { 'bad_param' => 2, 'unknown_workload' => 2, 'unsupported' => 2, 'limit' => 3, 'failure' => 1 }.freeze
USAGE = 'usage: driver.rb [--variant=stock|threads] describe | run <workload> key=value ...'

# A contract error: its kind (section 4) and message.
class DriverError < StandardError
  attr_reader :kind

  def initialize(kind, message)
    super(message)
    @kind = kind
  end
end

# One record, one line, flushed by the caller where the contract asks (never in a timed phase).
def emit(rec)
  $stdout.write(JSON.generate(rec), "\n")
end

def die(kind, message)
  emit({ type: 'error', kind:, message: })
  $stdout.flush
  Process.exit!(EXIT.fetch(kind))
end

# ---------------------------------------------------------------- parameters (sections 2 and 6)

MAX_N = 100_000_000
MAX_M = 1_000_000_000
WORKLOAD_KEYS = {
  'ring' => { n: [1, MAX_N, nil], m: [1, MAX_M, nil], tokens: [1, MAX_N, 1], burst: [0, 1, 0] },
  'spawn' => { n: [1, MAX_N, nil] },
  'pingpong' => { m: [1, MAX_M, nil] },
  'fanin' => { n: [1, MAX_N, nil], m: [1, MAX_M, nil] },
  'selective' => { n: [1, MAX_N, nil], m: [1, MAX_M, nil], reverse: [0, 1, 0] },
  'tree' => { n: [1, MAX_N, nil], fanout: [2, 1000, 10] },
  'trace' => { n: [1, 100, nil], m: [1, 100, nil] }
}.freeze
COMMON_KEYS = { repeats: [1, 1_000_000, 1], warmup: [0, 1_000_000, 0], cores: [1, 1024, nil],
                sample_ms: [0, 86_400_000, 0], samples: [1, 1_000_000, 3], stats: [0, 1, 0] }.freeze
MAX_HOPS = 1 << 62

def bounds_text(key, low, high)
  low.zero? && high == 1 ? "#{key} must be 0 or 1" : "#{key} must be an integer in #{low}..#{high}"
end

def parse_params(workload, args)
  specs = WORKLOAD_KEYS.fetch(workload).merge(COMMON_KEYS)
  prm = {}
  args.each do |arg|
    key, eq, val = arg.partition('=')
    raise DriverError.new('bad_param', "expected key=value, got '#{arg}'") if eq.empty? || key.empty?

    spec = specs[key.to_sym]
    unless spec
      raise DriverError.new('bad_param', "unknown key '#{key}' for workload #{workload} " \
                                         "(allowed: #{specs.keys.join(', ')})")
    end
    raise DriverError.new('bad_param', "key '#{key}' given twice") if prm.key?(key.to_sym)

    low, high, = spec
    # ASCII digits only: no sign, no blanks, no other scripts' digits
    unless val.match?(/\A[0-9]+\z/) && val.length <= 30 && (low..high).cover?(val.to_i)
      raise DriverError.new('bad_param', "#{bounds_text(key, low, high)}, got '#{val}'")
    end

    prm[key.to_sym] = val.to_i
  end
  fill_defaults(workload, specs, prm)
  check_cross_keys(workload, prm)
  prm
end

def fill_defaults(workload, specs, prm)
  continuous = workload == 'ring' && prm.fetch(:sample_ms, 0).positive?
  specs.each do |key, (low, _, default)|
    next if prm.key?(key)

    if default.nil? && key != :cores
      next prm[key] = low if continuous && key == :m # ignored in continuous mode

      raise DriverError.new('bad_param', "missing required key '#{key}' for workload #{workload}")
    end
    prm[key] = default
  end
  prm[:cores] ||= Etc.nprocessors
end

def check_cross_keys(workload, prm)
  case workload
  when 'ring'
    if prm[:tokens] > prm[:n]
      raise DriverError.new('bad_param', "tokens must be an integer in 1..n (#{prm[:n]}), got '#{prm[:tokens]}'")
    end
    raise DriverError.new('bad_param', 'n*m*tokens must be < 2^62') if prm[:n] * prm[:m] * prm[:tokens] >= MAX_HOPS
  when 'fanin', 'selective'
    raise DriverError.new('bad_param', 'n*m must be < 2^62') if prm[:n] * prm[:m] >= MAX_HOPS
  when 'tree'
    power = 1
    power *= prm[:fanout] while power < prm[:n]
    unless power == prm[:n]
      raise DriverError.new('bad_param', "tree's n (leaves) must be a power of the fanout #{prm[:fanout]}, " \
                                         "got '#{prm[:n]}'")
    end
  end
  return unless prm[:sample_ms].positive? && workload != 'ring'

  raise DriverError.new('bad_param', "sample_ms > 0 (continuous mode) applies only to ring, not #{workload}")
end

# ---------------------------------------------------------------- the program

def expected_count(workload, prm)
  case workload
  when 'ring' then prm[:n] * prm[:m] * prm[:tokens]
  when 'spawn' then prm[:n]
  when 'pingpong' then prm[:m]
  when 'tree' then prm[:n] * (prm[:n] - 1) / 2
  else prm[:n] * prm[:m]
  end
end

def describe(variant)
  emit({ type: 'describe', contract: CONTRACT, name: NAME, runtime: 'CRuby',
         version: RUBY_DESCRIPTION, workloads: WORKLOADS, features: FEATURES, variant:,
         clock: Sys::CLOCK, collector: COLLECTOR })
end

GC_KEYS = %i[count minor_gc_count major_gc_count time total_allocated_objects].freeze

def stats_record(workload, iteration, gc_before, processes)
  gc_now = GC.stat
  rec = { type: 'stats', workload:, iteration: }
  GC_KEYS.each { |k| rec[:"gc_#{k}"] = gc_now[k] - gc_before[k] } # time: milliseconds
  rec[:gc_heap_live_slots] = gc_now[:heap_live_slots]
  rec[:rss_now] = Sys.status['VmRSS']
  rec.merge(processes.stats)
end

def run(variant, workload, prm)
  processes = variant == 'threads' ? ThreadProcesses.new : FiberProcesses.new
  work = Workloads.new(processes, method(:emit))
  meter = Meter.new
  expect = expected_count(workload, prm)
  (1 - prm[:warmup]).upto(prm[:repeats]) do |it|
    meter.reset
    gc_before = GC.stat if prm[:stats] == 1
    count = work.public_send(workload, prm, meter, it >= 1)
    raise DriverError.new('failure', "#{workload}: count #{count} != expected #{expect}") unless count == expect
    next if it < 1

    emit(result_record(workload, it, prm, count, meter))
    emit(stats_record(workload, it, gc_before, processes)) if prm[:stats] == 1
    $stdout.flush # each result as its iteration ends
  end
end

def result_record(workload, iteration, prm, count, meter)
  rec = { type: 'result', workload:, iteration: }
  WORKLOAD_KEYS[workload].each_key { |k| rec[k] = prm[k] }
  rec[:count] = count
  rec[:ready] = meter.ready unless meter.ready.nil?
  rec.merge(meter.fields).merge(meter.memory)
end

def main(argv)
  variant = VARIANTS.first
  if argv.first&.start_with?('--')
    opt = argv.shift
    variant = opt.delete_prefix('--variant=')
    unless opt.start_with?('--variant=') && VARIANTS.include?(variant)
      raise DriverError.new('bad_param', "unknown option '#{opt}'; #{USAGE}")
    end
  end
  verb = argv.shift
  case verb
  when 'describe'
    raise DriverError.new('bad_param', "describe takes no arguments; #{USAGE}") unless argv.empty?

    describe(variant)
  when 'run'
    run_verb(variant, argv)
  else
    raise DriverError.new('bad_param', verb ? "unknown verb '#{verb}'; #{USAGE}" : "no verb given; #{USAGE}")
  end
end

def run_verb(variant, argv)
  workload = argv.shift
  raise DriverError.new('bad_param', "run needs a workload; #{USAGE}") unless workload

  unless WORKLOAD_KEYS.key?(workload)
    raise DriverError.new('unknown_workload',
                          "unknown workload '#{workload}' (this driver knows: #{WORKLOADS.join(', ')})")
  end

  prm = parse_params(workload, argv)
  if workload == 'selective'
    raise DriverError.new('unsupported', 'Ruby has no selective receive: Thread::Queue#pop always takes the ' \
                                         'oldest message and cannot skip those that do not match')
  end
  run(variant, workload, prm)
end

# Errors the machine or the runtime raises when a process cannot be made: a limit, not a bug.
LIMIT_TEXT = Regexp.union(/can't (set a guard page|alloc machine stack|create Thread|allocate)/,
                          'Cannot allocate memory', 'Resource temporarily unavailable')

if $PROGRAM_NAME == __FILE__
  require 'etc'
  begin
    main(ARGV.dup)
  rescue DriverError => e
    die(e.kind, e.message)
  rescue NoMemoryError, FiberError, ThreadError, SystemCallError => e
    raise unless e.is_a?(NoMemoryError) || e.message.match?(LIMIT_TEXT)

    die('limit', "#{e.class}: #{e.message} (#{Sys.status['Threads']} OS threads alive); fibers need " \
                 'two memory mappings each (sysctl vm.max_map_count), threads a task each (kernel.threads-max, ' \
                 'ulimit -u), both memory: raise the limit or use a smaller n')
  rescue StandardError => e
    warn e.full_message
    die('failure', "#{e.class}: #{e.message}")
  end
  $stdout.flush
  Process.exit!(0)
end
