defmodule RingbenchElixir.Selective do
  @moduledoc """
  selective: the BEAM's own selective receive. n workers; each round main sends every worker a
  request, in worker order, and collects the reply of worker 0, 1 … n-1 (reverse=0: each receive
  takes the first message) or n-1 … 0 (reverse=1: each receive scans past the replies still
  waiting). The receive matches worker i's reply only: `{:reply, ^i}`, i pinned.
  """

  def selective(%{n: n, m: m, reverse: reverse}) do
    order = if reverse == 1, do: Enum.to_list((n - 1)..0//-1), else: Enum.to_list(0..(n - 1))

    %{
      setup: fn ->
        main = self()
        gate = :ringbench_ready.counter(n)

        # spawned n-1 first, so that the list ends in worker order 0 … n-1
        workers =
          Enum.reduce((n - 1)..0//-1, [], fn i, workers ->
            worker =
              spawn(fn ->
                :ringbench_ready.arrive(gate)
                worker(i, main)
              end)

            [worker | workers]
          end)

        {:ringbench_ready.await(gate), workers}
      end,
      run: fn workers -> {rounds(m, workers, order, 0), workers} end,
      proof: fn {count, workers} ->
        Enum.each(workers, &send(&1, :stop))
        count
      end
    }
  end

  defp worker(i, main) do
    receive do
      :req ->
        send(main, {:reply, i})
        worker(i, main)

      :stop ->
        :ok
    end
  end

  defp rounds(0, _workers, _order, count), do: count

  defp rounds(left, workers, order, count) do
    Enum.each(workers, &send(&1, :req))
    rounds(left - 1, workers, order, collect(order, count))
  end

  defp collect([], count), do: count

  defp collect([i | order], count) do
    receive do
      {:reply, ^i} -> collect(order, count + 1)
    end
  end
end
