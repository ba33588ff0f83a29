# The BEAM family's library as a Mix project, so that the Elixir driver depends on it the
# ecosystem's way: `{:ringbench, path: "../common/erlang"}` in drivers/elixir/mix.exs. Mix
# compiles src/*.erl with erlc into the depending project's build
# (_build/<env>/lib/ringbench/ebin, with a ringbench.app) and links this folder's priv/ beside
# it, where build.sh puts the CPU-clock NIF (ringbench_clock:load_nif/0 looks beside its ebin/).
# The Erlang driver builds the same sources with build.sh (erlc into ebin/). Nothing from Hex.
defmodule Ringbench.MixProject do
  use Mix.Project

  def project do
    [
      app: :ringbench,
      version: "0.1.0",
      language: :erlang,
      erlc_options: [:debug_info],
      deps: []
    ]
  end

  # A library, not an OTP application: no module to start. ringbench_perf compiles snippets
  # (compiler); ringbench_nodes starts peer nodes (kernel, stdlib).
  def application, do: [extra_applications: [:compiler]]
end
