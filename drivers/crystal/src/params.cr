module Ringbench
  # One key of a workload (contract sections 2 and 6).
  record KeySpec, name : String, min : Int64, max : Int64, default : Int64 = 0_i64, required : Bool = false

  MAX_N    =   100_000_000_i64
  MAX_M    = 1_000_000_000_i64
  LIMIT_62 = (1_i64 << 62) - 1 # products must be < 2^62

  COMMON_KEYS = [
    KeySpec.new("repeats", 1, 1_000_000, 1),
    KeySpec.new("warmup", 0, 1_000_000, 0),
    KeySpec.new("cores", 1, 1_024, 0),
    KeySpec.new("sample_ms", 0, 86_400_000, 0),
    KeySpec.new("samples", 1, 1_000_000, 3),
    KeySpec.new("stats", 0, 1, 0),
  ]

  WORKLOAD_KEYS = {
    "ring" => [
      KeySpec.new("n", 1, MAX_N, required: true),
      KeySpec.new("m", 1, MAX_M, required: true),
      KeySpec.new("tokens", 1, MAX_N, 1),
      KeySpec.new("burst", 0, 1, 0),
    ],
    "spawn"    => [KeySpec.new("n", 1, MAX_N, required: true)],
    "pingpong" => [KeySpec.new("m", 1, MAX_M, required: true)],
    "fanin"    => [
      KeySpec.new("n", 1, MAX_N, required: true),
      KeySpec.new("m", 1, MAX_M, required: true),
    ],
    "tree" => [
      KeySpec.new("n", 1, MAX_N, required: true),
      KeySpec.new("fanout", 2, 1_000, 10),
    ],
    "trace" => [
      KeySpec.new("n", 1, 100, required: true),
      KeySpec.new("m", 1, 100, required: true),
    ],
  }

  # The workloads `describe` lists, in order. selective is known and answered
  # `unsupported` (README.md, "Contract deviations").
  WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]

  class Params
    getter vals = {} of String => Int64
    getter given = Set(String).new

    def [](k : String) : Int64
      @vals[k]
    end

    def i(k : String) : Int32
      @vals[k].to_i32
    end
  end

  # ASCII digits and nothing else: a sign, a space or a non-ASCII digit is
  # bad_param (contract section 6).
  def self.decimal?(s : String) : Bool
    !s.empty? && s.each_byte.all? { |b| '0'.ord <= b <= '9'.ord }
  end

  def self.bounds_text(ks : KeySpec) : String
    ks.min == 0 && ks.max == 1 ? "0 or 1" : "in #{ks.min}..#{ks.max}"
  end

  def self.parse_params(workload : String, args : Array(String)) : Params
    specs = WORKLOAD_KEYS[workload] + COMMON_KEYS
    by_name = specs.to_h { |ks| {ks.name, ks} }
    p = Params.new
    args.each do |a|
      eq = a.index('=')
      die(BAD_PARAM, "argument '#{a}' is not key=value") unless eq
      k, v = a[0, eq], a[eq + 1..]
      ks = by_name[k]?
      die(BAD_PARAM, "unknown key '#{k}' for workload #{workload} (known: #{by_name.keys.sort.join(", ")})") unless ks
      die(BAD_PARAM, "key #{k} given twice") if p.given.includes?(k)
      die(BAD_PARAM, "#{k} must be a decimal integer #{bounds_text(ks)}, got '#{v}'") unless decimal?(v)
      x = v.to_i64?
      if x.nil? || x < ks.min || x > ks.max
        die(BAD_PARAM, "#{k} must be an integer #{bounds_text(ks)}, got '#{v}'")
      end
      p.vals[k] = x
      p.given << k
    end
    # In continuous mode m is ignored and may be left out (section 6).
    continuous = workload == "ring" && p.vals.fetch("sample_ms", 0_i64) > 0
    specs.each do |ks|
      next if p.given.includes?(ks.name)
      if ks.required && !(continuous && ks.name == "m")
        die(BAD_PARAM, "missing required key #{ks.name} for workload #{workload}")
      end
      p.vals[ks.name] = ks.required ? ks.min : ks.default
    end
    cross_checks(workload, p)
    p
  end

  # Cross-key bounds (section 6).
  private def self.cross_checks(workload : String, p : Params) : Nil
    case workload
    when "ring"
      n, m, t = p["n"], p["m"], p["tokens"]
      die(BAD_PARAM, "tokens must be <= n (#{n}), got '#{t}'") if t > n
      # n*m <= 10^17 fits an Int64; then n*m*t < 2^62 iff n*m <= (2^62-1) div t.
      if n * m > LIMIT_62 // t
        die(BAD_PARAM, "n*m*tokens must be < 2^62, got n=#{n} m=#{m} tokens=#{t}")
      end
    when "fanin"
      die(BAD_PARAM, "n*m must be < 2^62") if p["n"] * p["m"] > LIMIT_62
    when "tree"
      n, f = p["n"], p["fanout"]
      while n % f == 0
        n //= f
      end
      if n != 1
        die(BAD_PARAM, "tree's n (leaves) must be a power of the fanout #{f}, got '#{p["n"]}'")
      end
    end
    if workload != "ring" && p["sample_ms"] > 0
      die(BAD_PARAM, "sample_ms > 0 (continuous mode) applies only to workload ring, not #{workload}")
    end
  end
end
