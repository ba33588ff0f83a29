defmodule RingbenchElixir.Ring do
  @moduledoc """
  The ring (Armstrong's exercise; the chain of Programming Elixir closed into a loop) and the two
  workloads built on it: continuous mode and trace.

  Main spawns p(n-1) first and then p(n-2) … p0 with one `Enum.reduce`, as the book's chain is
  built, so each process is born knowing its successor; p(n-1), spawned before p0 exists, learns
  it from one `{:next, first}` message. Every process signals ready on the library's shared
  counter immediately before its first receive of the ring loop.

  Across nodes (`nodes` > 1, contract section 10; the library's `:ringbench_nodes` starts,
  connects and stops them): a builder on each node, started with `Node.spawn/4`, spawns that
  node's processes the same way, all nodes at once, with the node's own ready counter; a process
  whose successor lives on another node (or is p0) is spawned waiting for it, as p(n-1) is, and
  main sends it its successor's pid once every node has built. The loop is the same on every
  node, `send/2` to a pid wherever it lives; main is reached by the same registered name, a relay
  on every other node.
  """

  # Main's registered name: the ring processes need main only on a token's last hop and in the
  # proof, so they reach it by name rather than keep its pid live across every receive.
  @main :ringbench_ring_main

  defmodule Built do
    @moduledoc false
    # p0, the pids the tokens go in at (in token order), the ready signals seen, the node of
    # p(n-1) (p0's predecessor, for the proof's cross-node count) and the nodes' builders (none on
    # one node).
    defstruct [:first, :entries, :ready, :last_node, builders: []]
  end

  ## ring

  def ring(%{n: n, m: m, tokens: tokens, burst: burst} = params) do
    starts = :ringbench_params.token_starts(n, tokens, burst)
    cluster = Map.get(params, :cluster, :none)
    register_main(cluster)

    %{
      setup: fn ->
        ring = build(n, starts, &spawn_ring_process/3, cluster)
        {ring.ready, ring}
      end,
      run: fn ring ->
        inject(ring.entries, n * m)
        wait_done(tokens)
        ring
      end,
      proof: &proof/1
    }
  end

  # Main's name for the life of the driver (set up untimed, before the first setup); on every
  # other node it is a relay to main, set up once.
  defp register_main(cluster) do
    main = self()

    case Process.whereis(@main) do
      ^main -> true
      nil -> Process.register(main, @main)
    end

    if cluster != :none and Process.get(@main) == nil do
      :ok = :ringbench_nodes.relay(cluster, @main, main)
      Process.put(@main, :relayed)
    end

    :ok
  end

  # By module, function and arguments, as the book's chain spawns its counters.
  defp spawn_ring_process(_i, :last, ready), do: spawn(__MODULE__, :last, [ready])
  defp spawn_ring_process(_i, next, ready), do: spawn(__MODULE__, :enter, [next, ready])

  @doc false
  def enter(next, ready) do
    :ringbench_ready.signal(ready)
    loop(next, 0)
  end

  @doc false
  def last(ready) do
    receive do
      {:next, first} ->
        :ringbench_ready.signal(ready)
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
        send(@main, {:count, sum + count, crossed(from, cross, count)})

      {:stop, sum, cross, from, first} ->
        send(next, {:stop, sum + count, crossed(from, cross, count), node(), first})
    end
  end

  # The receipts of a process whose predecessor is on another node: hops that crossed nodes.
  defp crossed(from, cross, _count) when from == node(), do: cross
  defp crossed(_from, cross, count), do: cross + count

  ## Building, feeding and proving a ring (the three workloads share it)

  # Spawns p(n-1), then p(n-2) … p0, and closes the ring; returns once every process is ready.
  # spawner.(i, next, ready) spawns p(i) with its successor (:last for p(n-1), told p0 after).
  # starts: the index each token goes in at, ascending (:ringbench_params.token_starts/3).
  defp build(n, starts, spawner, :none) do
    ready = :ringbench_ready.counter(n)
    last = spawner.(n - 1, :last, ready)
    {starts, found} = entries(n - 1, last, Enum.reverse(starts), [])

    # (n - 2)..0//-1 is empty for n = 1: p0 is p(n-1), its own successor.
    {first, [], entries} =
      Enum.reduce((n - 2)..0//-1, {last, starts, found}, fn i, {next, starts, found} ->
        pid = spawner.(i, next, ready)
        {starts, found} = entries(i, pid, starts, found)
        {pid, starts, found}
      end)

    send(last, {:next, first})

    %Built{
      first: first,
      entries: entries,
      ready: :ringbench_ready.await(ready),
      last_node: node()
    }
  end

  # Across nodes: every node's builder spawns its processes at once; main joins the open ends (a
  # process whose successor is elsewhere gets it in a {:next, pid} message) and waits for every
  # node's ready count.
  defp build(n, starts, spawner, cluster) do
    main = self()
    nodes = :ringbench_nodes.members(cluster)

    builders =
      for {node, j} <- Enum.with_index(nodes) do
        Node.spawn(node, __MODULE__, :builder, [main, j, cluster, starts, spawner])
      end

    built =
      for b <- builders do
        receive do
          {:built, ^b, open, heads, entries} -> {open, heads, entries}
        end
      end

    heads = built |> Enum.flat_map(fn {_, heads, _} -> heads end) |> Map.new()

    for {open, _, _} <- built, {i, pid} <- open do
      send(pid, {:next, Map.fetch!(heads, rem(i + 1, n))})
    end

    at = built |> Enum.flat_map(fn {_, _, entries} -> entries end) |> Map.new()

    ready =
      Enum.sum(
        for b <- builders do
          receive do
            {:ready, ^b, count} -> count
          end
        end
      )

    %Built{
      first: Map.fetch!(heads, 0),
      entries: Enum.map(starts, &Map.fetch!(at, &1)),
      ready: ready,
      last_node: Enum.at(nodes, :ringbench_nodes.node_of(n - 1, cluster)),
      builders: builders
    }
  end

  # One node's builder: spawns the node's processes from the highest index down, each with its
  # successor when that is the process just spawned here, else waiting for it (open); reports the
  # open ones, the heads (those whose predecessor is elsewhere: main sends their pids on) and the
  # token entries, then the node's ready count; stays until the proof, then waits until the
  # node's processes have exited. If main goes first, it ends the node's ring processes.
  @doc false
  def builder(main, j, cluster, starts, spawner) do
    base = :erlang.system_info(:process_count)
    monitor = Process.monitor(main)
    mine = :ringbench_nodes.indices(j, cluster)
    wanted = MapSet.new(for s <- starts, :ringbench_nodes.node_of(s, cluster) == j, do: s)
    ready = :ringbench_ready.counter(length(mine))

    block = %{
      n: :ringbench_nodes.ring_size(cluster),
      j: j,
      cluster: cluster,
      spawner: spawner,
      ready: ready,
      wanted: wanted
    }

    {open, heads, entries, all} = spawn_block(mine, :none, block, {[], [], [], []})
    send(main, {:built, self(), open, heads, entries})

    case :ringbench_ready.await(ready, monitor) do
      :down ->
        Enum.each(all, &Process.exit(&1, :kill))

      count ->
        send(main, {:ready, self(), count})

        receive do
          {:settle, from} ->
            settle(base)
            send(from, {:settled, self()})

          {:DOWN, ^monitor, :process, ^main, _} ->
            Enum.each(all, &Process.exit(&1, :kill))
        end
    end

    :ok
  end

  defp spawn_block([], _prev, _block, acc), do: acc

  defp spawn_block([i | rest], prev, block, {open, heads, entries, all}) do
    %{n: n, j: j, cluster: cluster, spawner: spawner, ready: ready, wanted: wanted} = block
    succ = rem(i + 1, n)

    {pid, open} =
      case prev do
        {^succ, succ_pid} ->
          {spawner.(i, succ_pid, ready), open}

        _ ->
          last = spawner.(i, :last, ready)
          {last, [{i, last} | open]}
      end

    head? = i == 0 or :ringbench_nodes.node_of(i - 1, cluster) != j
    heads = if head?, do: [{i, pid} | heads], else: heads
    entries = if MapSet.member?(wanted, i), do: [{i, pid} | entries], else: entries
    spawn_block(rest, {i, pid}, block, {open, heads, entries, [pid | all]})
  end

  # Until this node's process count is back where the builder found it.
  defp settle(base) do
    if :erlang.system_info(:process_count) > base do
      Process.sleep(1)
      settle(base)
    end
  end

  # p(i)'s pid once for each token that goes in at i (starts descending, consumed as the spawn
  # goes down, so the pids come out in token order).
  defp entries(i, pid, [i | starts], found), do: entries(i, pid, starts, [pid | found])
  defp entries(_i, _pid, starts, found), do: {starts, found}

  defp inject(entries, token), do: Enum.each(entries, &send(&1, token))

  defp wait_done(0), do: :ok

  defp wait_done(left) do
    receive do
      :done -> wait_done(left - 1)
    end
  end

  # Untimed: a stop message goes round once from p0; the last process reports the sums. Across
  # nodes the proof returns the cross-node hops too, once every node's processes have exited.
  defp proof(%Built{first: first, last_node: last_node, builders: builders}) do
    send(first, {:stop, 0, 0, last_node, first})

    {count, cross} =
      receive do
        {:count, count, cross} -> {count, cross}
      end

    Enum.each(builders, &send(&1, {:settle, self()}))

    for b <- builders do
      receive do
        {:settled, ^b} -> :ok
      end
    end

    if builders == [], do: count, else: {count, %{cross_hops: cross}}
  end

  ## Continuous mode: tokens that never finish; p0 adds one lap to the atomics counter.

  def continuous(%{n: n, tokens: tokens, burst: burst} = params, laps) do
    cluster = Map.get(params, :cluster, :none)

    spawner = fn
      i, :last, ready ->
        spawn(fn ->
          receive do
            {:next, first} -> go_on(i, first, laps, ready, cluster)
          end
        end)

      i, next, ready ->
        spawn(fn -> go_on(i, next, laps, ready, cluster) end)
    end

    ring = build(n, :ringbench_params.token_starts(n, tokens, burst), spawner, cluster)
    fn -> inject(ring.entries, :tok) end
  end

  # p0 (on node 0) counts the laps; across nodes the first process of every other node counts
  # that node's laps for the cluster view (when it is on: the node's own counter).
  defp go_on(0, next, laps, ready, _cluster) do
    :ringbench_ready.signal(ready)
    lap_loop(next, laps)
  end

  defp go_on(_i, next, _laps, ready, :none) do
    :ringbench_ready.signal(ready)
    forward_loop(next)
  end

  defp go_on(i, next, _laps, ready, cluster) do
    :ringbench_ready.signal(ready)

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
      i, :last, ready ->
        spawn(fn ->
          receive do
            {:next, first} -> trace_on(tracer.(i), first, ready)
          end
        end)

      i, next, ready ->
        spawn(fn -> trace_on(tracer.(i), next, ready) end)
    end

    %{
      setup: fn ->
        ring = build(n, [0], spawner, cluster)
        {ring.ready, ring}
      end,
      run: fn ring ->
        inject(ring.entries, {:tok, 1, -1})

        receive do
          :done -> ring
        end
      end,
      proof: &proof/1
    }
  end

  defp trace_on(tracer, next, ready) do
    :ringbench_ready.signal(ready)
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
        send(main, {:count, sum + count, crossed(from, cross, count)})

      {:stop, sum, cross, from, first} ->
        send(next, {:stop, sum + count, crossed(from, cross, count), node(), first})
    end
  end
end
