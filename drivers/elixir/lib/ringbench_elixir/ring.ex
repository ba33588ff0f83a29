defmodule RingbenchElixir.Ring do
  @moduledoc """
  The ring (Armstrong's exercise; the chain of Programming Elixir closed into a loop) and the two
  workloads built on it: continuous mode and trace.

  This module writes the processes: how each is spawned and its receive loop. The BEAM family's
  `:ringbench_ring` (drivers/common/erlang) wires them into a ring, as the book's chain is built:
  p(n-1) first, then p(n-2) … p0, each born knowing its successor; p(n-1), spawned before p0
  exists, learns it from one `{:next, first}` message. Across nodes (`nodes` > 1, contract
  section 10) it runs a builder on each node. It also injects the tokens, waits for them and runs
  the proof. Every process arrives at the gate, the library's shared counter, immediately before
  its first receive of the ring loop.
  """

  # Main's registered name (:ringbench_ring.main_name/0): the ring processes need main only on a
  # token's last hop and in the proof, so they reach it by name rather than keep its pid live
  # across every receive.
  @main :ringbench_ring_main

  ## ring

  def ring(%{n: n, m: m, tokens: tokens, burst: burst} = params) do
    starts = :ringbench_params.token_starts(n, tokens, burst)
    cluster = Map.get(params, :cluster, :none)
    :ok = :ringbench_ring.register_main(cluster)

    %{
      setup: fn ->
        ring = :ringbench_ring.build(n, starts, &spawn_ring_process/3, cluster)
        {ring.ready, ring}
      end,
      run: fn ring ->
        :ringbench_ring.inject(ring.entries, n * m)
        :ringbench_ring.wait_done(tokens)
        ring
      end,
      proof: &:ringbench_ring.proof/1
    }
  end

  # By module, function and arguments, as the book's chain spawns its counters.
  defp spawn_ring_process(_i, :last, gate), do: spawn(__MODULE__, :last, [gate])
  defp spawn_ring_process(_i, next, gate), do: spawn(__MODULE__, :enter, [next, gate])

  @doc false
  def enter(next, gate) do
    :ringbench_ready.arrive(gate)
    loop(next, 0)
  end

  @doc false
  def last(gate) do
    receive do
      {:next, first} ->
        :ringbench_ready.arrive(gate)
        loop(first, 0)
    end
  end

  # One ring process: its successor and its count of receipts, nothing else live across the
  # receive. One hop is the first clause: a bare integer (an immediate: the send copies and
  # allocates no term), passed on one less. The stop message is the proof: it goes round once,
  # each process adds its count (and, when its predecessor, the stop's sender, is on another node,
  # adds it to the cross-node sum too), and the one whose successor is p0 reports the sums.
  @doc false
  def loop(next, count) do
    receive do
      token when is_integer(token) and token > 1 ->
        send(next, token - 1)
        loop(next, count + 1)

      1 ->
        send(@main, :done)
        loop(next, count + 1)

      {:stop, sum, cross, from, ^next} ->
        send(@main, {:count, sum + count, :ringbench_ring.crossed(from, cross, count)})

      {:stop, sum, cross, from, first} ->
        send(
          next,
          {:stop, sum + count, :ringbench_ring.crossed(from, cross, count), node(), first}
        )
    end
  end

  ## Continuous mode: tokens that never finish; p0 adds one lap to the atomics counter.

  def continuous(%{n: n, tokens: tokens, burst: burst} = params, laps) do
    cluster = Map.get(params, :cluster, :none)

    spawner = fn
      i, :last, gate ->
        spawn(fn ->
          receive do
            {:next, first} -> go_on(i, first, laps, gate, cluster)
          end
        end)

      i, next, gate ->
        spawn(fn -> go_on(i, next, laps, gate, cluster) end)
    end

    starts = :ringbench_params.token_starts(n, tokens, burst)
    %{entries: entries} = :ringbench_ring.build(n, starts, spawner, cluster)
    fn -> :ringbench_ring.inject(entries, :tok) end
  end

  # p0 (on node 0) counts the laps; across nodes the first process of every other node counts
  # that node's laps for the cluster view (when it is on: the node's own counter).
  defp go_on(0, next, laps, gate, _cluster) do
    :ringbench_ready.arrive(gate)
    lap_loop(next, laps)
  end

  defp go_on(_i, next, _laps, gate, :none) do
    :ringbench_ready.arrive(gate)
    forward_loop(next)
  end

  defp go_on(i, next, _laps, gate, cluster) do
    :ringbench_ready.arrive(gate)

    with true <- :ringbench_nodes.first_on_node(i, cluster),
         node_laps when node_laps != :none <- :ringbench_nodes.laps() do
      lap_loop(next, node_laps)
    else
      _ -> forward_loop(next)
    end
  end

  defp forward_loop(next) do
    receive do
      :tok ->
        send(next, :tok)
        forward_loop(next)
    end
  end

  # p0: one atomic add per lap, the only shared state.
  defp lap_loop(next, laps) do
    receive do
      :tok ->
        :atomics.add(laps, 1, 1)
        send(next, :tok)
        lap_loop(next, laps)
    end
  end

  ## trace: one token {:tok, hop, from}, hop counted up; each process prints its own hop before
  ## passing it on (the io server answers before emit returns, so lines come out in hop order).
  ## A warm-up runs the same ring and prints nothing.

  defmodule Tracer do
    @moduledoc false
    # node: [] on one node, else [node: j], the receiver's node index each hop names.
    defstruct [:index, :n, :hops, :main, :print?, node: []]
  end

  def trace(%{n: n, m: m} = params, kind) do
    main = self()
    cluster = Map.get(params, :cluster, :none)

    node_field = fn
      _i when cluster == :none -> []
      i -> [node: :ringbench_nodes.node_of(i, cluster)]
    end

    tracer = fn i ->
      %Tracer{
        index: i,
        n: n,
        hops: n * m,
        main: main,
        print?: kind == :measured,
        node: node_field.(i)
      }
    end

    spawner = fn
      i, :last, gate ->
        spawn(fn ->
          receive do
            {:next, first} -> trace_on(tracer.(i), first, gate)
          end
        end)

      i, next, gate ->
        spawn(fn -> trace_on(tracer.(i), next, gate) end)
    end

    %{
      setup: fn ->
        ring = :ringbench_ring.build(n, [0], spawner, cluster)
        {ring.ready, ring}
      end,
      run: fn ring ->
        :ringbench_ring.inject(ring.entries, {:tok, 1, -1})

        receive do
          :done -> ring
        end
      end,
      proof: &:ringbench_ring.proof/1
    }
  end

  defp trace_on(tracer, next, gate) do
    :ringbench_ready.arrive(gate)
    trace_loop(tracer, next, 0)
  end

  defp trace_loop(%Tracer{index: i, n: n, hops: hops, main: main} = tracer, next, count) do
    receive do
      {:tok, hop, from} ->
        if tracer.print? do
          :ringbench_json.emit(
            [type: :hop, hop: hop, lap: div(hop - 1, n) + 1, from: from, to: i] ++ tracer.node
          )
        end

        if hop < hops, do: send(next, {:tok, hop + 1, i}), else: send(main, :done)
        trace_loop(tracer, next, count + 1)

      {:stop, sum, cross, from, ^next} ->
        send(main, {:count, sum + count, :ringbench_ring.crossed(from, cross, count)})

      {:stop, sum, cross, from, first} ->
        send(
          next,
          {:stop, sum + count, :ringbench_ring.crossed(from, cross, count), node(), first}
        )
    end
  end
end
