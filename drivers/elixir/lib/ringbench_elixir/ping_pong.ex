defmodule RingbenchElixir.PingPong do
  @moduledoc """
  pingpong: two processes; A sends `:ping` to B, B answers `:pong`; m round trips, counted by B.
  A is spawned first and learns B's pid from its start message, so neither needs a set-up
  message: each arrives at the gate and blocks at once.
  """

  def pingpong(%{m: m}) do
    main = self()

    %{
      setup: fn ->
        gate = :ringbench_ready.counter(2)

        a =
          spawn(fn ->
            :ringbench_ready.arrive(gate)

            receive do
              {:go, b} -> ping(b, m, main)
            end
          end)

        b =
          spawn(fn ->
            :ringbench_ready.arrive(gate)
            pong(a, 0)
          end)

        {:ringbench_ready.await(gate), {a, b}}
      end,
      run: fn {a, b} ->
        send(a, {:go, b})

        receive do
          :pingpong_done -> b
        end
      end,
      proof: fn b ->
        send(b, {:count, main})

        receive do
          {:count, count} -> count
        end
      end
    }
  end

  defp ping(_b, 0, main), do: send(main, :pingpong_done)

  defp ping(b, left, main) do
    send(b, :ping)

    receive do
      :pong -> ping(b, left - 1, main)
    end
  end

  defp pong(a, count) do
    receive do
      :ping ->
        send(a, :pong)
        pong(a, count + 1)

      {:count, from} ->
        send(from, {:count, count})
    end
  end
end
