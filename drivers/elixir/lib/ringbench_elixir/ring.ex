defmodule RingbenchElixir.Ring do
  @moduledoc """
  The ring (Armstrong's exercise; the chain of Programming Elixir closed into a loop) and the two
  workloads built on it: continuous mode and trace.

  Main spawns p(n-1) first and then p(n-2) … p0 with one `Enum.reduce`, as the book's chain is
  built, so each process is born knowing its successor; p(n-1), spawned before p0 exists, learns
  it from one `{:next, first}` message. Every process signals ready on the library's shared
  counter immediately before its first receive of the ring loop.
  """

  # Main's registered name: the ring processes need main only on a token's last hop and in the
  # proof, so they reach it by name rather than keep its pid live across every receive.
  @main :ringbench_ring_main

  defmodule Built do
    @moduledoc false
    # p0, the pids the tokens go in at (in token order), and the ready signals seen.
    defstruct [:first, :entries, :ready]
  end

  ## ring

  def ring(%{n: n, m: m, tokens: tokens, burst: burst}) do
    starts = :ringbench_params.token_starts(n, tokens, burst)

    %{
      setup: fn ->
        register_main()
        ring = build(n, starts, &spawn_ring_process/3)
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

  defp register_main do
    main = self()

    case Process.whereis(@main) do
      ^main -> :ok
      nil -> Process.register(main, @main)
    end
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
  # each process adds its count, and the one whose successor is p0 reports the sum.
  @doc false
  def loop(next, count) do
    receive do
      token when is_integer(token) and token > 1 ->
        send(next, token - 1)
        loop(next, count + 1)

      1 ->
        send(@main, :done)
        loop(next, count + 1)

      {:stop, sum, ^next} ->
        send(@main, {:count, sum + count})

      {:stop, sum, first} ->
        send(next, {:stop, sum + count, first})
    end
  end

  ## Building, feeding and proving a ring (the three workloads share it)

  # Spawns p(n-1), then p(n-2) … p0, and closes the ring; returns once every process is ready.
  # spawner.(i, next, ready) spawns p(i) with its successor (:last for p(n-1), told p0 after).
  # starts: the index each token goes in at, ascending (:ringbench_params.token_starts/3).
  defp build(n, starts, spawner) do
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
    %Built{first: first, entries: entries, ready: :ringbench_ready.await(ready)}
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

  # Untimed: a stop message goes round once from p0; the last process reports the sum.
  defp proof(%Built{first: first}) do
    send(first, {:stop, 0, first})

    receive do
      {:count, count} -> count
    end
  end

  ## Continuous mode: tokens that never finish; p0 adds one lap to the atomics counter.

  def continuous(%{n: n, tokens: tokens, burst: burst}, laps) do
    spawner = fn
      i, :last, ready ->
        spawn(fn ->
          receive do
            {:next, first} -> go_on(i, first, laps, ready)
          end
        end)

      i, next, ready ->
        spawn(fn -> go_on(i, next, laps, ready) end)
    end

    ring = build(n, :ringbench_params.token_starts(n, tokens, burst), spawner)
    fn -> inject(ring.entries, :tok) end
  end

  defp go_on(0, next, laps, ready) do
    :ringbench_ready.signal(ready)
    lap_loop(next, laps)
  end

  defp go_on(_i, next, _laps, ready) do
    :ringbench_ready.signal(ready)
    forward_loop(next)
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
    defstruct [:index, :n, :hops, :main, :print?]
  end

  def trace(%{n: n, m: m}, kind) do
    main = self()

    tracer = fn i ->
      %Tracer{index: i, n: n, hops: n * m, main: main, print?: kind == :measured}
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
        ring = build(n, [0], spawner)
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
          :ringbench_json.emit(type: :hop, hop: hop, lap: div(hop - 1, n) + 1, from: from, to: i)
        end

        if hop < hops, do: send(next, {:tok, hop + 1, i}), else: send(main, :done)
        trace_loop(tracer, next, count + 1)

      {:stop, sum, ^next} ->
        send(main, {:count, sum + count})

      {:stop, sum, first} ->
        send(next, {:stop, sum + count, first})
    end
  end
end
