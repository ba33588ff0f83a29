defmodule RingbenchElixir.Idle do
  @moduledoc """
  spawn: n idle processes, each made as a ring process is made (`spawn/3`, one process with its
  own mailbox) and blocked in its first receive; the contract's memory workload reads its bytes
  per process from them. Built as the book's chain is: an `Enum.reduce` in which each new process
  is given the one spawned before it, so the release walks the chain back to main and main keeps
  no list of n pids (which `runtime_mem_after` would count).
  """

  def spawn_idle(%{n: n}) do
    %{
      setup: fn ->
        main = self()

        {tail, got} =
          Enum.reduce(1..n, {main, 0}, fn _, {prev, got} ->
            pid = spawn(__MODULE__, :idle, [main, prev])
            # take the ready messages already in, so main's mailbox stays short while it spawns
            {pid, :ringbench_ready.drain(got)}
          end)

        ready = :ringbench_ready.wait(got, n)
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
  def idle(main, prev) do
    send(main, :ready)

    receive do
      :release -> send(prev, :release)
    end
  end
end
