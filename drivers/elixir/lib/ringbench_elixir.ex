defmodule RingbenchElixir do
  @moduledoc """
  The Elixir driver: plain processes (`spawn`), every message a real `send`, every wait a
  pattern-matching `receive`. This module names the workloads; each lives in a module of its
  own, and the protocol (verbs, parameters, iterations, clocks, memory, records) is the BEAM
  family's library, drivers/common/erlang, whose `:ringbench` behaviour this module implements.

      elixir -pa ... main.exs --variant=stock run ring n=1000 m=10
  """

  @behaviour :ringbench

  alias RingbenchElixir.{FanIn, Idle, Perf, PingPong, Ring, Selective, Tree}

  @doc "Entry point (main.exs): System.argv() holds the driver's arguments."
  @spec main() :: no_return()
  def main do
    # stdout carries only records: what Logger prints (a perf snippet's, a report) goes to stderr.
    Logger.configure_backend(:console, device: :standard_error)
    :ringbench.main(__MODULE__, Enum.map(System.argv(), &String.to_charlist/1))
  end

  @impl true
  def info do
    %{
      name: "elixir",
      runtime: "Elixir",
      version: "#{System.version()} on Erlang/OTP #{:ringbench.otp_version()}",
      workloads: [:ring, :spawn, :pingpong, :fanin, :selective, :tree, :trace],
      features: [:tokens, :continuous, :stats, :nodes, :perf],
      variants: [:stock, :tuned]
    }
  end

  @impl true
  def phases(:ring, params, _kind), do: Ring.ring(params)
  def phases(:trace, params, kind), do: Ring.trace(params, kind)
  def phases(:spawn, params, _kind), do: Idle.spawn_idle(params)
  def phases(:pingpong, params, _kind), do: PingPong.pingpong(params)
  def phases(:fanin, params, _kind), do: FanIn.fanin(params)
  def phases(:selective, params, _kind), do: Selective.selective(params)
  def phases(:tree, params, _kind), do: Tree.tree(params)

  @impl true
  def continuous(params, laps), do: Ring.continuous(params, laps)

  # `ringbench perf -r elixir`: snippets in Elixir, measured by the library's runner.
  @impl true
  def perf_language, do: Perf.language()
end
