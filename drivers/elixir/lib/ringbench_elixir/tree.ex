defmodule RingbenchElixir.Tree do
  @moduledoc """
  tree, the "skynet" benchmark: a process per node. A process covering more than one leaf
  spawns `fanout` children, each covering an equal, contiguous part of its leaves, receives
  their sums (a bare integer each, in whatever order they come) and sends the total to its
  parent; a leaf sends its ordinal. Every process exits once it has sent. Spawning, messages
  and exits interleave in the one timed phase; main spawns the root and waits for its sum.
  """

  def tree(%{n: n, fanout: fanout}) do
    %{
      run: fn :undefined ->
        spawn(__MODULE__, :subtree, [self(), 0, n, fanout])

        receive do
          sum when is_integer(sum) -> sum
        end
      end,
      proof: fn sum -> sum end
    }
  end

  # The process covering leaves first … first + leaves - 1.
  @doc false
  def subtree(parent, first, 1, _fanout), do: send(parent, first)

  def subtree(parent, first, leaves, fanout) do
    each = div(leaves, fanout)
    me = self()

    for k <- 0..(fanout - 1) do
      spawn(__MODULE__, :subtree, [me, first + k * each, each, fanout])
    end

    send(parent, sum_of(fanout, 0))
  end

  defp sum_of(0, sum), do: sum

  defp sum_of(left, sum) do
    receive do
      child_sum -> sum_of(left - 1, sum + child_sum)
    end
  end
end
