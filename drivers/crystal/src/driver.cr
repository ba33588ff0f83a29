# The Crystal driver of ringbench (driver contract version 4), as a library:
# ringbench_crystal.cr runs it, spec/ tests it.
#
#   ringbench-crystal describe
#   ringbench-crystal run <workload> key=value ...
#
# A process is a fiber (`spawn`) that owns the receiving end of an unbuffered
# `Channel(Int64)`. stdout carries JSON Lines only; diagnostics go to stderr.
# See README.md.

{% unless compare_versions(Crystal::VERSION, "1.6.0") >= 0 && compare_versions(Crystal::VERSION, "1.7.0") < 0 %}
  {% raise "ringbench-crystal is pinned to Crystal 1.6 (Debian's crystal 1.6.0), not #{Crystal::VERSION}" %}
{% end %}

require "./records"
require "./params"
require "./sys"
require "./workloads"

module Ringbench
  CONTRACT = 4
  NAME     = "crystal"
  USAGE    = "usage: ringbench-crystal describe | run <workload> key=value ..."

  CLOCK = "Time.monotonic (CLOCK_MONOTONIC); CPU from getrusage (1 µs)"
  # Crystal's one collector: the Boehm-Demers-Weiser conservative collector
  # (libgc), unless a program is built with -Dgc_none.
  {% if flag?(:gc_none) %}
    COLLECTOR = ""
  {% else %}
    COLLECTOR = "boehm"
  {% end %}

  SELECTIVE_REASON = "Crystal has no selective receive: Channel#receive always takes the oldest value, and " \
                     "`select` waits on several channels and takes whichever is ready first; it chooses among " \
                     "channels, never scans one inbox past messages that do not match, so the scan this " \
                     "workload measures (reverse=1) has no Crystal equivalent (one channel per worker would " \
                     "measure something else)"

  def self.main(argv : Array(String)) : Nil
    args = argv.dup
    # One way of running, so no variants: the only option a driver takes,
    # --variant=, is refused like any other.
    if (opt = args.first?) && opt.starts_with?("--")
      die(BAD_PARAM, "unknown option '#{opt}' (this driver has no variants); #{USAGE}")
    end
    die(BAD_PARAM, "no verb given; #{USAGE}") if args.empty?
    case args[0]
    when "describe"
      die(BAD_PARAM, "describe takes no arguments; #{USAGE}") if args.size > 1
      Rec.new("describe").int("contract", CONTRACT).str("name", NAME)
        .str("runtime", "Crystal").str("version", "#{Crystal::VERSION} (LLVM #{Crystal::LLVM_VERSION}, libgc #{gc_version})")
        .strs("workloads", WORKLOADS).strs("features", ["tokens", "continuous", "stats"])
        .str("variant", "").str("clock", CLOCK).str("collector", COLLECTOR).emit
    when "run"
      die(BAD_PARAM, "run needs a workload; #{USAGE}") if args.size < 2
      workload = args[1]
      die(UNSUPPORTED, SELECTIVE_REASON) if workload == "selective"
      unless WORKLOAD_KEYS.has_key?(workload)
        die(UNKNOWN_WORKLOAD, "unknown workload '#{workload}' (this driver knows: #{WORKLOADS.join(", ")})")
      end
      run(workload, parse_params(workload, args[2..]))
    else
      die(BAD_PARAM, "unknown verb '#{args[0]}'; #{USAGE}")
    end
  end

  def self.gc_version : String
    v = LibGCX.get_version
    "#{v >> 16}.#{(v >> 8) & 0xff}.#{v & 0xff}"
  end

  # The processes a workload needs at once, for the advice of a limit error.
  def self.processes(workload : String, p : Params) : Int64
    case workload
    when "ring", "spawn", "trace" then p["n"]
    when "pingpong"               then 2_i64
    when "fanin"                  then p["n"] + 1
    else # tree: leaves + inner processes
      f = p["fanout"]
      (f * p["n"] - 1) // (f - 1)
    end
  end

  # The iteration loop: warm-ups first (not printed), then each measured
  # iteration's result (and stats) printed as soon as it ends.
  def self.run(workload : String, p : Params) : Nil
    self.wanted_processes = processes(workload, p)
    continuous(p) if workload == "ring" && p["sample_ms"] > 0
    want_stats = p["stats"] == 1
    (1 - p.i("warmup")..p.i("repeats")).each do |it|
      measured = it >= 1
      before = take_stats if want_stats && measured
      r = case workload
          when "ring"     then ring_iter(p.i("n"), p["m"], p.i("tokens"), p["burst"] == 1)
          when "spawn"    then spawn_iter(p.i("n"))
          when "pingpong" then pingpong_iter(p["m"])
          when "fanin"    then fanin_iter(p.i("n"), p["m"])
          when "tree"     then tree_iter(p["n"], p.i("fanout"))
          else                 trace_iter(p.i("n"), p.i("m"), measured)
          end
      next unless measured
      out = Rec.new("result").str("workload", workload).int("iteration", it)
      WORKLOAD_KEYS[workload].each { |ks| out.int(ks.name, p[ks.name]) }
      out.int("count", r.count)
      out.int("ready", r.ready) unless workload == "tree" # a tree's processes never idle
      out.int("setup_ns", r.setup.ns).int("run_ns", r.run.ns)
        .int("setup_cpu_ns", r.setup.cpu_ns).int("run_cpu_ns", r.run.cpu_ns)
        .int("setup_vcsw", r.setup.vcsw).int("setup_ivcsw", r.setup.ivcsw)
        .int("run_vcsw", r.run.vcsw).int("run_ivcsw", r.run.ivcsw)
        .int("rss_before", FIRST.rss_before).int("rss_after", FIRST.rss_after)
      out.int("rss_peak", FIRST.rss_peak) if workload == "tree"
      out.int("runtime_mem_before", FIRST.mem_before).int("runtime_mem_after", FIRST.mem_after).emit
      emit_stats(workload, it, before.not_nil!, take_stats, r.fibers_peak) if want_stats
    end
  end
end
