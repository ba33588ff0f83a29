# The Elixir driver as a Mix project: `MIX_ENV=prod mix compile` (build.sh) is the ecosystem's
# standard build. Its one dependency is the BEAM family's library, drivers/common/erlang, an
# Erlang project with a mix.exs of its own, by path (nothing from Hex, no network): Mix compiles
# it into _build/prod/lib/ringbench/ and checks every call into it.
defmodule RingbenchElixir.MixProject do
  use Mix.Project

  def project do
    [
      app: :ringbench_elixir,
      version: "0.1.0",
      # The toolchain: Debian 12's Elixir 1.14 (on its Erlang/OTP 25).
      elixir: "~> 1.14.0",
      deps: [{:ringbench, path: "../common/erlang"}]
    ]
  end

  # A library of workloads started by RingbenchElixir.main/0, not an OTP application; it calls
  # Logger (main/0 sends Logger's output to stderr), which the elixir launcher starts.
  def application, do: [extra_applications: [:logger]]
end
