defmodule RingbenchElixir.Idle do
  @moduledoc """
  spawn: n idle processes, each made as a ring process is made (`spawn/3`, one process with its
  own mailbox), arriving at the gate as a ring process does (the library's `:atomics` counter)
  and blocked in its first receive; the contract's memory workload reads its bytes per process
  from them. Built as the book's chain is: an `Enum.reduce` in which each new process is given
  the one spawned before it, so the release walks the chain back to main and main keeps no list
  of n pids (which `runtime_mem_after` would count), only the tail and the gate; its mailbox
  gets one message however large n is.
  """

  def spawn_idle(%{n: n}) do
    %{
      setup: fn ->
        main = self()

        gate = :ringbench_ready.counter(n)
        tail = Enum.reduce(1..n, main, fn _, prev -> spawn(__MODULE__, :idle, [gate, prev]) end)
        ready = :ringbench_ready.await(gate)
        {ready, {tail, ready}}
      end,
      proof: fn {tail, ready} ->
        # untimed release: a message walks the chain back to main
        send(tail, :release)

        receive do
          :release -> ready
        end
      end
    }
  end

  @doc false
  def idle(gate, prev) do
    :ringbench_ready.arrive(gate)

    receive do
      :release -> send(prev, :release)
    end
  end
end
