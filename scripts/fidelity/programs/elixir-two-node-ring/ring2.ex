# A plain two-node Elixir ring, written here (ringbench issue 43): the ring
# of the erlang-two-node-ring program in Elixir, as an Elixir programmer
# spreads one over nodes: the main node starts its peers with OTP's :peer
# module, spawns each ring process on its node with Node.spawn/2, and the
# token is a countdown sent with send/2, which Erlang distribution carries
# between nodes.
#
# N processes, process i on node i mod K (placement 1, interleaved) or on
# node i*K div N (placement 0, contiguous blocks); node 0 is this one. One
# token carrying N*M goes to the first process; each process forwards the
# value minus one, and the one that receives 1 tells main: N*M hops. The
# peers are stopped (:peer.stop) before main halts, and each halts by itself
# if main goes first (its connection to main). With cores = 1 each peer gets
# one scheduler and is pinned apart with taskset, as ringbench's driver pins
# its nodes. run.sh provides the name service and the cookie.
#
#   elixir --sname ring2_main -pa DIR -e "Ring2.main(System.argv())" N M K PLACEMENT CORES
defmodule Ring2 do
  def main([n, m, k, placement, cores]) do
    [n, m, k, placement, cores] = Enum.map([n, m, k, placement, cores], &String.to_integer/1)
    peers = for j <- 1..(k - 1)//1, do: start_peer(j, cores)
    nodes = List.to_tuple([node() | Enum.map(peers, &elem(&1, 1))])

    node_of = fn
      i when placement == 1 -> elem(nodes, rem(i, k))
      i -> elem(nodes, div(i * k, n))
    end

    main = self()
    # The last process is spawned first and learns its successor (the first
    # process) once that exists; every other one gets its successor at birth.
    last = Node.spawn(node_of.(n - 1), fn -> receive do {:next, first} -> relay(first, main) end end)

    first =
      Enum.reduce((n - 2)..0//-1, last, fn i, next ->
        Node.spawn(node_of.(i), fn -> relay(next, main) end)
      end)

    send(last, {:next, first})
    send(first, n * m)
    receive do: (:done -> :ok)
    IO.puts("#{n * m} hops over #{k} nodes")
    Enum.each(peers, fn {peer, _} -> :peer.stop(peer) end)
  end

  defp relay(next, main) do
    receive do
      1 ->
        send(main, :done)
        relay(next, main)

      v ->
        send(next, v - 1)
        relay(next, main)
    end
  end

  # The peer runs this module and Elixir's own from the same code path.
  defp start_peer(j, cores) do
    paths = Enum.flat_map(:code.get_path(), fn d -> ["-pa", to_string(d)] end)
    sched = if cores == 1, do: [~c"+S", ~c"1:1"], else: []
    args = [~c"-start_epmd", ~c"false" | Enum.map(paths, &to_charlist/1)] ++ sched
    name = ~c"ring2_peer#{j}"
    {:ok, peer, node} = :peer.start_link(%{name: name, args: args, exec: exec(j, cores)})
    {peer, node}
  end

  # At one core: pinned apart from this node, to the other online CPUs in turn.
  defp exec(j, 1) do
    erl = :os.find_executable(~c"erl")
    online = Enum.to_list(0..(:erlang.system_info(:logical_processors_online) - 1))

    case own_cpu() do
      nil ->
        erl

      own ->
        case online -- [own] do
          [] -> erl
          others -> {:os.find_executable(~c"taskset"), [~c"-c", ~c"#{Enum.at(others, rem(j - 1, length(others)))}", erl]}
        end
    end
  end

  defp exec(_, _), do: :os.find_executable(~c"erl")

  # The one CPU this node may run on, or nil.
  defp own_cpu do
    case Regex.run(~r/Cpus_allowed_list:\s*(\d+)\s/, File.read!("/proc/self/status")) do
      [_, cpu] -> String.to_integer(cpu)
      nil -> nil
    end
  end
end
