%% The ring (Armstrong's exercise) and the two workloads built on it:
%% continuous mode (docs/driver-contract.md, section 5) and trace.
%%
%% This module writes the processes: how each is spawned and its receive
%% loop. The family's ringbench_ring wires them into a ring (p(n-1) spawned
%% first, then p(n-2) ... p0, each with its successor's pid; across nodes a
%% builder per node), injects the tokens, waits for them and runs the proof.
%% Every process arrives at the gate, the shared counter (ringbench_ready),
%% immediately before its first receive of the ring loop.
-module(ringbench_erlang_ring).
-export([ring/1, continuous/2, trace/2]).
%% Spawned by module, function and arguments, not from a fun.
-export([ring_enter/2, ring_last/1]).

%% Main's registered name for the ring processes (ringbench_ring:main_name/0).
-define(MAIN, ringbench_ring_main).

%% ---------------------------------------------------------------------------
%% ring

-spec ring(ringbench_params:params()) -> ringbench:phases().
ring(#{n := N, m := M, tokens := Tokens, burst := Burst} = P) ->
    Starts = ringbench_params:token_starts(N, Tokens, Burst),
    Cluster = maps:get(cluster, P, none),
    ringbench_ring:register_main(Cluster),
    #{setup => fun() ->
                       Ring = ringbench_ring:build(N, Starts, fun spawn_ring_process/3, Cluster),
                       {maps:get(ready, Ring), Ring}
               end,
      run => fun(Ring) ->
                     ringbench_ring:inject(maps:get(entries, Ring), N * M),
                     ringbench_ring:wait_done(Tokens),
                     Ring
             end,
      proof => fun ringbench_ring:proof/1}.

spawn_ring_process(_I, last, Gate) -> spawn(?MODULE, ring_last, [Gate]);
spawn_ring_process(_I, Next, Gate) -> spawn(?MODULE, ring_enter, [Next, Gate]).

ring_enter(Next, Gate) ->
    ringbench_ready:arrive(Gate),
    ring_loop(Next, 0).

ring_last(Gate) ->
    receive
        {next, First} ->
            ringbench_ready:arrive(Gate),
            ring_loop(First, 0)
    end.

%% One ring process: it knows its successor and counts its receipts; nothing
%% else is live across the receive (two stack words, Next and C). One hop is
%% the first clause: take a bare integer (an immediate: the send copies and
%% allocates no term, so no hop ever starts a collection), send V - 1, loop
%% with the count + 1. The seeds' loop and the Benchmarks Game thread-ring
%% loop, plus the receipt count the proof needs.
ring_loop(Next, C) ->
    receive
        V when is_integer(V), V > 1 ->
            Next ! V - 1,
            ring_loop(Next, C + 1);
        1 ->
            ?MAIN ! done,
            ring_loop(Next, C + 1);
        {stop, Sum, Cross, From, First} when Next =:= First ->
            ?MAIN ! {count, Sum + C, ringbench_ring:crossed(From, Cross, C)};
        {stop, Sum, Cross, From, First} ->
            Next ! {stop, Sum + C, ringbench_ring:crossed(From, Cross, C), node(), First}
    end.

%% ---------------------------------------------------------------------------
%% Continuous mode: the ring with tokens that never finish; p0 counts laps.

-spec continuous(ringbench_params:params(), atomics:atomics_ref()) -> fun(() -> ok).
continuous(#{n := N, tokens := Tokens, burst := Burst} = P, Laps) ->
    Cluster = maps:get(cluster, P, none),
    Spawn = fun(I, last, Gate) ->
                    spawn(fun() -> receive {next, First} -> go_on(I, First, Laps, Gate, Cluster) end end);
               (I, Next, Gate) ->
                    spawn(fun() -> go_on(I, Next, Laps, Gate, Cluster) end)
            end,
    Ring = ringbench_ring:build(N, ringbench_params:token_starts(N, Tokens, Burst), Spawn, Cluster),
    Entries = maps:get(entries, Ring),
    fun() -> ringbench_ring:inject(Entries, tok) end.

%% p0 counts the laps; across nodes the first process of every other node
%% counts that node's laps for the cluster view (when it is on).
go_on(0, Next, Laps, Gate, _Cluster) ->
    ringbench_ready:arrive(Gate), lap_loop(Next, Laps);
go_on(_I, Next, _Laps, Gate, none) ->
    ringbench_ready:arrive(Gate), forward_loop(Next);
go_on(I, Next, _Laps, Gate, Cluster) ->
    ringbench_ready:arrive(Gate),
    case ringbench_nodes:first_on_node(I, Cluster) andalso ringbench_nodes:laps() of
        false -> forward_loop(Next);
        none -> forward_loop(Next);
        NodeLaps -> lap_loop(Next, NodeLaps)
    end.

forward_loop(Next) ->
    receive tok -> Next ! tok, forward_loop(Next) end.

%% p0: one atomic add per lap, the only shared state.
lap_loop(Next, Laps) ->
    receive
        tok ->
            atomics:add(Laps, 1, 1),
            Next ! tok,
            lap_loop(Next, Laps)
    end.

%% ---------------------------------------------------------------------------
%% trace: the ring with one token {tok, Hop, SenderIndex}, hop counted up
%% (hop = n*m - v + 1 of ring's countdown); each process prints its hop
%% itself before forwarding. io:put_chars is synchronous, so the lines come
%% out in hop order. A warm-up runs the same ring and prints nothing.

-record(tracer, {index :: non_neg_integer(), n :: pos_integer(), hops :: pos_integer(),
                 main :: pid(), print :: boolean(), node = [] :: [{node, non_neg_integer()}]}).

-spec trace(ringbench_params:params(), ringbench:kind()) -> ringbench:phases().
trace(#{n := N, m := M} = P, Kind) ->
    Main = self(),
    Cluster = maps:get(cluster, P, none),
    %% Across nodes each hop also names the receiver's node.
    NodeField = fun(_I) when Cluster =:= none -> [];
                   (I) -> [{node, ringbench_nodes:node_of(I, Cluster)}]
                end,
    Tracer = fun(I) -> #tracer{index = I, n = N, hops = N * M, main = Main,
                               print = Kind =:= measured, node = NodeField(I)} end,
    Spawn = fun(I, last, Gate) ->
                    spawn(fun() -> receive {next, First} -> trace_on(Tracer(I), First, Gate) end end);
               (I, Next, Gate) ->
                    spawn(fun() -> trace_on(Tracer(I), Next, Gate) end)
            end,
    #{setup => fun() ->
                       Ring = ringbench_ring:build(N, [0], Spawn, Cluster),
                       {maps:get(ready, Ring), Ring}
               end,
      run => fun(Ring) ->
                     ringbench_ring:inject(maps:get(entries, Ring), {tok, 1, -1}),
                     receive done -> Ring end
             end,
      proof => fun ringbench_ring:proof/1}.

trace_on(Tracer, Next, Gate) ->
    ringbench_ready:arrive(Gate),
    trace_loop(Tracer, Next, 0).

trace_loop(#tracer{index = I, n = N, hops = Hops, main = Main} = T, Next, C) ->
    receive
        {tok, Hop, From} ->
            T#tracer.print andalso
                ringbench_json:emit([{type, hop}, {hop, Hop}, {lap, (Hop - 1) div N + 1},
                                     {from, From}, {to, I} | T#tracer.node]),
            case Hop < Hops of
                true -> Next ! {tok, Hop + 1, I};
                false -> Main ! done
            end,
            trace_loop(T, Next, C + 1);
        {stop, Sum, Cross, From, First} when Next =:= First ->
            Main ! {count, Sum + C, ringbench_ring:crossed(From, Cross, C)};
        {stop, Sum, Cross, From, First} ->
            Next ! {stop, Sum + C, ringbench_ring:crossed(From, Cross, C), node(), First}
    end.
