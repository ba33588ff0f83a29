require "json"

module Ringbench
  # The records of the contract (section 4): one JSON object per line on
  # stdout, keys in insertion order, each written at once and flushed.
  struct Rec
    @io : IO::Memory

    def initialize(type : String)
      @io = IO::Memory.new(256)
      @io << %({"type":)
      type.to_json(@io)
    end

    def int(k : String, v : Int) : self
      key(k)
      @io << v
      self
    end

    def str(k : String, v : String) : self
      key(k)
      v.to_json(@io)
      self
    end

    def strs(k : String, vs : Array(String)) : self
      key(k)
      vs.to_json(@io)
      self
    end

    # One write(2) per record, then a flush: results reach the orchestrator
    # as each iteration ends, and trace records never interleave.
    def emit : Nil
      @io << "}\n"
      STDOUT.write(@io.to_slice)
      STDOUT.flush
    end

    # The record as one line, for the continuous-mode sampler thread, which
    # writes with write(2) itself rather than through STDOUT's buffer.
    def line : Bytes
      @io << "}\n"
      @io.to_slice
    end

    private def key(k : String) : Nil
      @io << ','
      k.to_json(@io)
      @io << ':'
    end
  end

  # Error kinds and their exit codes (contract section 4).
  BAD_PARAM        = "bad_param"
  UNKNOWN_WORKLOAD = "unknown_workload"
  UNSUPPORTED      = "unsupported"
  LIMIT            = "limit"
  FAILURE          = "failure"

  def self.exit_code(kind : String) : Int32
    case kind
    when BAD_PARAM, UNKNOWN_WORKLOAD, UNSUPPORTED then 2
    when LIMIT                                    then 3
    else                                               1
    end
  end

  # Prints one error record and exits; nothing is printed after it.
  def self.die(kind : String, message : String) : NoReturn
    Rec.new("error").str("kind", kind).str("message", message).emit
    exit(exit_code(kind))
  end
end
