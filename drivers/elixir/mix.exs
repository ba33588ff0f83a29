# The Elixir driver as a Mix project without dependencies: `MIX_ENV=prod mix compile` (build.sh)
# is the ecosystem's standard build. The BEAM family's library (drivers/common/erlang) is not a
# Mix dependency: build.sh compiles it with its own build.sh and puts its ebin/ on the code path
# for the compiler (`elixir -pa ... -S mix compile`); driver.toml does the same for the run.
defmodule RingbenchElixir.MixProject do
  use Mix.Project

  # The functions of the BEAM family's library that the driver calls.
  @library [
    {:ringbench, :main, 2},
    {:ringbench, :otp_version, 0},
    {:ringbench, :fail, 3},
    {:ringbench_json, :emit, 1},
    {:ringbench_params, :token_starts, 3},
    {:ringbench_ready, :counter, 1},
    {:ringbench_ready, :signal, 1},
    {:ringbench_ready, :await, 1},
    {:ringbench_ready, :drain, 1},
    {:ringbench_ready, :wait, 2},
    {:ringbench_ready, :await, 2},
    {:ringbench_nodes, :members, 1},
    {:ringbench_nodes, :node_of, 2},
    {:ringbench_nodes, :indices, 2},
    {:ringbench_nodes, :ring_size, 1},
    {:ringbench_nodes, :first_on_node, 2},
    {:ringbench_nodes, :relay, 3},
    {:ringbench_nodes, :laps, 0}
  ]

  def project do
    [
      app: :ringbench_elixir,
      version: "0.1.0",
      # The toolchain: Debian 12's Elixir 1.14 (on its Erlang/OTP 25).
      elixir: "~> 1.14.0",
      deps: [],
      # Mix names the application of a module after the folder above its ebin/, so it takes the
      # library (drivers/common/erlang/ebin) for an application called :erlang that this one
      # does not list. The library is on the code path, not an application: the calls listed
      # are left out of that check (any other call into it is still checked, and warned of if
      # undefined).
      xref: [exclude: @library]
    ]
  end

  # A library of workloads started by RingbenchElixir.main/0, not an OTP application; it calls
  # Logger (main/0 sends Logger's output to stderr), which the elixir launcher starts.
  def application, do: [extra_applications: [:logger]]
end
