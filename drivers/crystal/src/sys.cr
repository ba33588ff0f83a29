# Clocks, memory, the collector's figures and the limits: what the driver
# reads about itself, always outside timed phases (but the two clocks).

lib LibC
  TIMER_ABSTIME = 1
  fun clock_nanosleep(clock : ClockidT, flags : Int, req : Timespec*, rem : Timespec*) : Int
end

lib LibGCX
  # Boehm GC (libgc 8.2): calls Crystal's bindings leave out.
  fun set_oom_fn = GC_set_oom_fn(fn : LibC::SizeT -> Void*)
  fun start_performance_measurement = GC_start_performance_measurement
  fun get_full_gc_total_time = GC_get_full_gc_total_time : LibC::ULong
  fun get_version = GC_get_version : LibC::UInt
end

module Ringbench
  # A mark is taken at each phase boundary: the monotonic clock, and from one
  # getrusage call the CPU time and the context switches of the whole process
  # (every thread). getrusage is read before the clock at a phase's start and
  # after it at its end, so the wall interval holds no getrusage call.
  # Nothing allocates.
  record Mark, t : Time::Span, cpu : Int64, vcsw : Int64, ivcsw : Int64

  # What one timed phase measured (contract section 4).
  record Span, ns : Int64 = 0_i64, cpu_ns : Int64 = 0_i64, vcsw : Int64 = 0_i64, ivcsw : Int64 = 0_i64

  # {CPU ns, voluntary, involuntary context switches} of the whole process.
  def self.rusage : {Int64, Int64, Int64}
    LibC.getrusage(LibC::RUSAGE_SELF, out ru)
    cpu = (ru.ru_utime.tv_sec.to_i64 + ru.ru_stime.tv_sec.to_i64) * 1_000_000_000 +
          (ru.ru_utime.tv_usec.to_i64 + ru.ru_stime.tv_usec.to_i64) * 1_000
    {cpu, ru.ru_nvcsw.to_i64, ru.ru_nivcsw.to_i64}
  end

  # The mark that starts a phase: getrusage, then the clock.
  def self.begin_mark : Mark
    cpu, v, iv = rusage
    Mark.new(Time.monotonic, cpu, v, iv)
  end

  # The mark that ends a phase: the clock, then getrusage.
  def self.end_mark : Mark
    t = Time.monotonic
    cpu, v, iv = rusage
    Mark.new(t, cpu, v, iv)
  end

  # What was measured from a to b.
  def self.between(a : Mark, b : Mark) : Span
    Span.new((b.t - a.t).total_nanoseconds.to_i64, b.cpu - a.cpu, b.vcsw - a.vcsw, b.ivcsw - a.ivcsw)
  end

  # ------------------------------------------------------------- memory

  # One "Name:   value kB" field of /proc/self/status, in bytes for kB fields.
  # Read through a stack buffer: nothing allocated, so that reading memory
  # around a phase changes neither the heap nor the collector's pacing.
  def self.status_field(name : String) : Int64
    buf = uninitialized UInt8[8192]
    fd = LibC.open("/proc/self/status", LibC::O_RDONLY)
    return 0_i64 if fd < 0
    k = LibC.read(fd, buf.to_unsafe, buf.size)
    LibC.close(fd)
    return 0_i64 if k <= 0
    text = Bytes.new(buf.to_unsafe, k)
    at = 0
    while at < text.size
      eol = text.index('\n'.ord.to_u8, at) || text.size
      line = text[at, eol - at]
      if line.size > name.bytesize && line[name.bytesize] == ':'.ord && line[0, name.bytesize] == name.to_slice
        return parse_field(line[name.bytesize + 1..])
      end
      at = eol + 1
    end
    0_i64
  end

  # "   1234 kB" -> 1234 * 1024; "   17" -> 17.
  private def self.parse_field(f : Bytes) : Int64
    i = 0
    while i < f.size && (f[i] == ' '.ord || f[i] == '\t'.ord)
      i += 1
    end
    v = 0_i64
    while i < f.size && '0'.ord <= f[i] <= '9'.ord
      v = v * 10 + (f[i] - '0'.ord)
      i += 1
    end
    while i < f.size && f[i] == ' '.ord
      i += 1
    end
    i + 1 < f.size && f[i] == 'k'.ord && f[i + 1] == 'B'.ord ? v * 1024 : v
  end

  def self.rss : Int64
    status_field("VmRSS")
  end

  # The collector's own accounting of the memory in use: the heap minus
  # its free bytes (Boehm excludes unmapped memory from both). Fiber stacks
  # are not in it: they are mmap'd by the runtime, outside the heap.
  def self.runtime_mem : Int64
    s = GC.stats
    (s.heap_size - s.free_bytes).to_i64
  end

  # Memory read around the first spawn phase (or tree) of this driver process
  # (contract section 3); every later iteration echoes these values.
  class FirstSpawn
    property before = false
    property after = false
    property rss_before = 0_i64
    property rss_after = 0_i64
    property rss_peak = 0_i64
    property mem_before = 0_i64
    property mem_after = 0_i64
  end

  FIRST = FirstSpawn.new

  def self.memory_before_spawn : Nil
    return if FIRST.before
    FIRST.before = true
    FIRST.mem_before = runtime_mem
    FIRST.rss_before = rss
  end

  # On the first spawn phase (or tree) only: the process's one forced
  # collection (GC.collect, Boehm's GC_gcollect; untimed), then *_after. Later
  # iterations force none: the next timed phase would pay to regrow the heap.
  def self.memory_after_spawn : Nil
    return if FIRST.after
    FIRST.after = true
    GC.collect
    FIRST.rss_after = rss
    FIRST.mem_after = runtime_mem
  end

  # Resets the kernel's peak-RSS mark so that the first tree's rss_peak is
  # its own; where refused, rss_peak is the process's peak so far.
  def self.reset_peak_rss : Nil
    fd = LibC.open("/proc/self/clear_refs", LibC::O_WRONLY)
    if fd < 0 || LibC.write(fd, "5".to_unsafe, 1) != 1
      STDERR.puts "ringbench-crystal: cannot reset the peak RSS (#{Errno.value.message}); rss_peak is the process's peak so far"
    end
    LibC.close(fd) if fd >= 0
  end

  # ------------------------------------------------------------- stats

  record StatsSnap, gc : GC::ProfStats, full_gc_ms : UInt64

  def self.take_stats : StatsSnap
    StatsSnap.new(GC.prof_stats, LibGCX.get_full_gc_total_time.to_u64)
  end

  # Live fibers (main and the runtime's own included): one walk of the
  # runtime's list of fibers, untimed.
  def self.fiber_count : Int64
    k = 0_i64
    Fiber.unsafe_each { k += 1 }
    k
  end

  def self.emit_stats(workload : String, iteration : Int32, a : StatsSnap, b : StatsSnap, fibers_peak : Int64) : Nil
    Rec.new("stats").str("workload", workload).int("iteration", iteration)
      .int("gc_collections", b.gc.gc_no - a.gc.gc_no)
      .int("gc_full_time_ms", b.full_gc_ms - a.full_gc_ms)
      .int("gc_collections_total", b.gc.gc_no)
      .int("gc_heap_bytes", b.gc.heap_size)
      .int("gc_free_bytes", b.gc.free_bytes)
      .int("gc_unmapped_bytes", b.gc.unmapped_bytes)
      .int("gc_allocated_bytes", (b.gc.bytes_since_gc + b.gc.bytes_before_gc) - (a.gc.bytes_since_gc + a.gc.bytes_before_gc))
      .int("gc_reclaimed_bytes", (b.gc.bytes_reclaimed_since_gc + b.gc.reclaimed_bytes_before_gc) - (a.gc.bytes_reclaimed_since_gc + a.gc.reclaimed_bytes_before_gc))
      .int("gc_markers", b.gc.markers_m1 + 1)
      .int("fibers_peak", fibers_peak)
      .int("fibers_now", fiber_count)
      .int("stack_pool", Fiber.stack_pool.lazy_size)
      .int("os_threads", status_field("Threads"))
      .emit
  end

  # ------------------------------------------------------------- limits

  # The processes the current workload needs at once, for the advice of a
  # limit error (set before each workload runs).
  class_property wanted_processes = 0_i64

  # Reads a small /proc file into a stack buffer: no allocation, so that it
  # works when the heap cannot grow.
  def self.read_proc_int(path : String) : Int64
    buf = uninitialized UInt8[64]
    fd = LibC.open(path, LibC::O_RDONLY)
    return -1_i64 if fd < 0
    k = LibC.read(fd, buf.to_unsafe, buf.size)
    LibC.close(fd)
    v = 0_i64
    k.times do |i|
      c = buf[i]
      break unless '0'.ord <= c <= '9'.ord
      v = v * 10 + (c - '0'.ord)
    end
    v
  end

  # The memory maps this process holds now: the lines of /proc/self/maps,
  # counted through a stack buffer.
  def self.map_count : Int64
    buf = uninitialized UInt8[16384]
    fd = LibC.open("/proc/self/maps", LibC::O_RDONLY)
    return -1_i64 if fd < 0
    lines = 0_i64
    while (k = LibC.read(fd, buf.to_unsafe, buf.size)) > 0
      k.times { |i| lines += 1 if buf[i] == '\n'.ord }
    end
    LibC.close(fd)
    lines
  end

  # A fiber could not be created: Crystal maps each fiber's 8 MiB stack with
  # mmap and protects its lowest page as a guard, two memory maps per fiber,
  # and raises when mmap fails. This names the limit and how to raise it.
  def self.spawn_failed(ex : Exception) : NoReturn
    maps = map_count
    max = read_proc_int("/proc/sys/vm/max_map_count")
    want = wanted_processes
    what = "#{ex.class}: #{ex.message}"
    if max > 0 && maps >= max - 64
      raise_to = 2 * want + 65_530
      die(LIMIT, "fiber stacks: the process holds #{maps} memory maps and vm.max_map_count is #{max} " \
                 "(#{what}); each Crystal fiber takes two maps (its 8 MiB stack and the guard page), so " \
                 "#{want} processes need about #{2 * want} beside the runtime's own; raise it with " \
                 "`sysctl -w vm.max_map_count=#{raise_to}`")
    end
    die(LIMIT, "fiber stacks: a fiber's 8 MiB stack could not be mapped (#{what}) with #{maps} memory maps " \
               "in use (vm.max_map_count #{max}): the address space or memory is exhausted; " \
               "#{want} processes take 8 MiB of address space each; use a smaller n, free memory, " \
               "or raise `ulimit -v`")
  end

  # The collector could not grow its heap. Nothing may be allocated here, so
  # the record is a constant.
  OOM_RECORD = %({"type":"error","kind":"limit","message":"the Boehm collector could not get memory from the kernel for its heap: memory, the address space or vm.max_map_count (each Crystal fiber holds two maps) is exhausted; use a smaller n, free memory, or raise vm.max_map_count with `sysctl -w vm.max_map_count=...`"}\n)

  def self.install_oom_handler : Nil
    LibGCX.set_oom_fn ->(_size : LibC::SizeT) do
      LibC.write(1, OOM_RECORD.to_unsafe, OOM_RECORD.bytesize)
      LibC._exit(3)
      Pointer(Void).null
    end
  end
end
