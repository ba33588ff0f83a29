defmodule RingbenchElixir.GateTest do
  @moduledoc """
  One spawn boundary (docs/driver-contract.md, section 3): every workload with a set-up signals
  arrival as the ring does, by the library's gate counter. Main's receives are traced over each
  set-up: it must take one message, the gate's `:all_ready`, however many processes it spawned
  (the message form took n `:ready`), and the set-up must report every arrival.
  """
  use ExUnit.Case, async: false

  alias RingbenchElixir.{FanIn, Idle, PingPong, Selective}

  # The messages the calling process received while fun ran, and its value.
  defp received_during(fun) do
    tracer = spawn(fn -> collect([]) end)
    :erlang.trace(self(), true, [:receive, {:tracer, tracer}])
    value = fun.()
    :erlang.trace(self(), false, [:receive])
    # trace messages are delivered in order: the delimiter comes after them
    ref = :erlang.trace_delivered(self())

    receive do
      {:trace_delivered, _, ^ref} -> :ok
    end

    send(tracer, {:done, self()})

    receive do
      {:received, msgs} -> {msgs, value}
    end
  end

  defp collect(msgs) do
    receive do
      {:trace, _pid, :receive, msg} -> collect([msg | msgs])
      {:done, from} -> send(from, {:received, Enum.reverse(msgs)})
    end
  end

  # A workload's set-up under the trace, then its run and proof (which release the processes).
  # The gate's module is loaded first: loading it is a message from the code server.
  defp setup_traced(%{setup: setup} = phases) do
    {:module, :ringbench_ready} = :code.ensure_loaded(:ringbench_ready)
    {msgs, {ready, state}} = received_during(setup)
    state = if run = phases[:run], do: run.(state), else: state
    {msgs, ready, phases.proof.(state)}
  end

  test "spawn: one all_ready, n arrivals" do
    for n <- [1, 2, 5000] do
      assert {[:all_ready], ^n, ^n} = setup_traced(Idle.spawn_idle(%{n: n}))
    end
  end

  test "pingpong: one all_ready, 2 arrivals" do
    assert {[:all_ready], 2, 100} = setup_traced(PingPong.pingpong(%{m: 100}))
  end

  test "fanin: one all_ready, n + 1 arrivals" do
    assert {[:all_ready], 301, 900} = setup_traced(FanIn.fanin(%{n: 300, m: 3}))
  end

  test "selective: one all_ready, n arrivals" do
    for reverse <- [0, 1] do
      phases = Selective.selective(%{n: 200, m: 2, reverse: reverse})
      assert {[:all_ready], 200, 400} = setup_traced(phases)
    end
  end
end
