%% The ring (Armstrong's exercise) and the two workloads built on it:
%% continuous mode (docs/driver-contract.md, section 5) and trace.
%%
%% Main spawns p(n-1) first, then p(n-2) ... p0, so each process gets its
%% successor's pid at birth; p(n-1), spawned before p0 exists, gets p0's pid
%% in one set-up message. Every process signals ready on a shared counter
%% (ringbench_ready) immediately before its first receive of the ring loop.
%%
%% Across nodes (nodes > 1, section 10; the nodes are ringbench_nodes'): a
%% builder on each node spawns that node's processes the same way, in
%% parallel, with the node's own ready counter; a process whose successor
%% lives on another node (or is p0) is spawned waiting for it, as p(n-1) is,
%% and main sends it its successor once every node has built. The ring
%% loop is the same on every node; main is reached by the same registered
%% name, a relay on every other node.
-module(ringbench_erlang_ring).
-export([ring/1, continuous/2, trace/2]).
%% Spawned by module, function and arguments, not from a fun.
-export([ring_enter/2, ring_last/1, builder/5]).

%% Main's registered name for the ring processes (ring_loop/2).
-define(MAIN, ringbench_ring_main).

%% A built ring: p0, the pid each token goes in at (in token order), the
%% ready signals seen, the node of p(n-1) (p0's predecessor, for the proof's
%% cross-node count) and the nodes' builders (none on one node).
-record(ring, {first :: pid(), entries :: [pid()], ready :: pos_integer(),
               last_node :: node(), builders = [] :: [pid()]}).

%% ---------------------------------------------------------------------------
%% ring

-spec ring(ringbench_params:params()) -> ringbench:phases().
ring(#{n := N, m := M, tokens := Tokens, burst := Burst} = P) ->
    Starts = ringbench_params:token_starts(N, Tokens, Burst),
    Cluster = maps:get(cluster, P, none),
    register_main(Cluster),
    #{setup => fun() ->
                       Ring = build(N, Starts, fun spawn_ring_process/3, Cluster),
                       {Ring#ring.ready, Ring}
               end,
      run => fun(Ring) ->
                     inject(Ring#ring.entries, N * M),
                     wait_done(Tokens),
                     Ring
             end,
      proof => fun proof/1}.

%% The ring processes reach main by a registered name instead of holding its
%% pid: main is needed only on a token's last hop and in the proof, and a pid
%% kept in the loop would cost every hop a stack word saved across the
%% receive. The name is main's for the life of the driver; on other nodes
%% it is a relay to main (set up once, untimed).
register_main(Cluster) ->
    Main = self(),
    case whereis(?MAIN) of
        Main -> ok;
        undefined -> true = register(?MAIN, Main), ok
    end,
    case Cluster =/= none andalso get(?MAIN) =:= undefined of
        true -> ok = ringbench_nodes:relay(Cluster, ?MAIN, Main), put(?MAIN, relayed), ok;
        false -> ok
    end.

spawn_ring_process(_I, last, Ready) -> spawn(?MODULE, ring_last, [Ready]);
spawn_ring_process(_I, Next, Ready) -> spawn(?MODULE, ring_enter, [Next, Ready]).

ring_enter(Next, Ready) ->
    ringbench_ready:signal(Ready),
    ring_loop(Next, 0).

ring_last(Ready) ->
    receive
        {next, First} ->
            ringbench_ready:signal(Ready),
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
            ?MAIN ! {count, Sum + C, crossed(From, Cross, C)};
        {stop, Sum, Cross, From, First} ->
            Next ! {stop, Sum + C, crossed(From, Cross, C), node(), First}
    end.

%% The proof's second sum: the receipts of every process whose predecessor
%% (the stop message's sender) is on another node, i.e. the hops that
%% crossed a node boundary.
crossed(From, Cross, _C) when From =:= node() -> Cross;
crossed(_From, Cross, C) -> Cross + C.

%% ---------------------------------------------------------------------------
%% Building, feeding and proving a ring (the three workloads share it)

%% Spawns p(n-1), then p(n-2) ... p0, and closes the ring; returns it once
%% every process has signalled ready. Spawn(I, Next, Ready) spawns p(I) with
%% its successor (Next = last for p(n-1), which is told p0 afterwards).
%% Starts: the index each token goes in at (ringbench_params:token_starts/3).
build(N, Starts, Spawn, none) ->
    Ready = ringbench_ready:counter(N),
    Last = Spawn(N - 1, last, Ready),
    {Starts1, Entries} = entries(N - 1, Last, lists:reverse(Starts), []),
    {First, AllEntries} = spawn_down(N - 2, Last, fun(I, Next) -> Spawn(I, Next, Ready) end,
                                     Starts1, Entries),
    Last ! {next, First},
    #ring{first = First, entries = AllEntries, ready = ringbench_ready:await(Ready),
          last_node = node()};
%% Across nodes: every node's builder spawns its processes at once; main
%% joins the open ends (a process whose successor is elsewhere gets it in a
%% {next, Pid} message) and waits for every node's ready count.
build(N, Starts, Spawn, Cluster) ->
    Main = self(),
    Nodes = ringbench_nodes:members(Cluster),
    Builders = [spawn(Node, ?MODULE, builder, [Main, J, Cluster, Starts, Spawn])
                || {J, Node} <- lists:zip(lists:seq(0, length(Nodes) - 1), Nodes)],
    Built = [receive {built, B, Open, Heads, Entries} -> {Open, Heads, Entries} end
             || B <- Builders],
    Heads = maps:from_list(lists:append([H || {_, H, _} <- Built])),
    [Pid ! {next, maps:get((I + 1) rem N, Heads)} || {Open, _, _} <- Built, {I, Pid} <- Open],
    At = maps:from_list(lists:append([E || {_, _, E} <- Built])),
    Ready = lists:sum([receive {ready, B, R} -> R end || B <- Builders]),
    #ring{first = maps:get(0, Heads), entries = [maps:get(S, At) || S <- Starts], ready = Ready,
          last_node = lists:nth(ringbench_nodes:node_of(N - 1, Cluster) + 1, Nodes),
          builders = Builders}.

%% Spawns p(I), p(I-1) ... p0; Starts is descending, Entries in token order.
spawn_down(I, Next, _Spawn, _Starts, Entries) when I < 0 ->
    {Next, Entries};
spawn_down(I, Next, Spawn, Starts, Entries) ->
    P = Spawn(I, Next),
    {Starts1, Entries1} = entries(I, P, Starts, Entries),
    spawn_down(I - 1, P, Spawn, Starts1, Entries1).

%% p(I)'s pid once for each token that goes in at I.
entries(I, P, [I | Starts], Entries) -> entries(I, P, Starts, [P | Entries]);
entries(_I, _P, Starts, Entries) -> {Starts, Entries}.

%% One node's builder: spawns the node's processes from the highest index
%% down, each with its successor when that is the process just spawned here,
%% else waiting for it (open); reports the open ones, the heads (those whose
%% predecessor is open: main sends their pids to it) and the token entries;
%% reports the node's ready count; stays until the proof, then waits until
%% the node's processes have exited. If main goes first, it ends the node's
%% ring processes (on a node the driver did not start, nothing is left).
-spec builder(pid(), non_neg_integer(), ringbench_nodes:cluster(), [non_neg_integer()],
              fun()) -> ok.
builder(Main, J, Cluster, Starts, Spawn) ->
    Base = erlang:system_info(process_count),
    Monitor = erlang:monitor(process, Main),
    Mine = ringbench_nodes:indices(J, Cluster),
    N = ringbench_nodes:ring_size(Cluster),
    Wanted = maps:from_list([{S, true} || S <- Starts, ringbench_nodes:node_of(S, Cluster) =:= J]),
    Ready = ringbench_ready:counter(length(Mine)),
    {Open, Heads, Entries, All} = spawn_block(Mine, none, #{n => N, j => J, cluster => Cluster,
                                                            spawn => Spawn, ready => Ready,
                                                            wanted => Wanted}, {[], [], [], []}),
    Main ! {built, self(), Open, Heads, Entries},
    case ringbench_ready:await(Ready, Monitor) of
        down -> [exit(P, kill) || P <- All], ok;
        Count ->
            Main ! {ready, self(), Count},
            receive
                {settle, From} -> settle(Base), From ! {settled, self()}, ok;
                {'DOWN', Monitor, process, Main, _} -> [exit(P, kill) || P <- All], ok
            end
    end.

spawn_block([], _Prev, _B, Acc) -> Acc;
spawn_block([I | Rest], Prev, #{n := N, j := J, cluster := C, spawn := Spawn, ready := Ready,
                                 wanted := Wanted} = B, {Open, Heads, Entries, All}) ->
    Succ = (I + 1) rem N,
    {Pid, Open1} = case Prev of
                       {Succ, SuccPid} -> {Spawn(I, SuccPid, Ready), Open};
                       _ -> Last = Spawn(I, last, Ready), {Last, [{I, Last} | Open]}
                   end,
    Head = I =:= 0 orelse ringbench_nodes:node_of(I - 1, C) =/= J,
    Heads1 = case Head of true -> [{I, Pid} | Heads]; false -> Heads end,
    Entries1 = case maps:is_key(I, Wanted) of true -> [{I, Pid} | Entries]; false -> Entries end,
    spawn_block(Rest, {I, Pid}, B, {Open1, Heads1, Entries1, [Pid | All]}).

%% Until this node's process count is back where the builder found it.
settle(Base) ->
    case erlang:system_info(process_count) =< Base of
        true -> ok;
        false -> receive after 1 -> settle(Base) end
    end.

inject([], _Token) -> ok;
inject([P | Ps], Token) -> P ! Token, inject(Ps, Token).

wait_done(0) -> ok;
wait_done(K) -> receive done -> wait_done(K - 1) end.

%% Untimed: a stop message goes round once from p0; every process adds its
%% receipt count (and, when its predecessor is on another node, to the
%% cross-node sum too), forwards it and exits; the last one reports the
%% sums. Across nodes the proof returns the cross-node hops as well, once
%% every node's processes have exited.
proof(#ring{first = First, last_node = LastNode, builders = Builders}) ->
    First ! {stop, 0, 0, LastNode, First},
    receive {count, C, Cross} -> ok end,
    [B ! {settle, self()} || B <- Builders],
    [receive {settled, B} -> ok end || B <- Builders],
    case Builders of
        [] -> C;
        _ -> {C, #{cross_hops => Cross}}
    end.

%% ---------------------------------------------------------------------------
%% Continuous mode: the ring with tokens that never finish; p0 counts laps.

-spec continuous(ringbench_params:params(), atomics:atomics_ref()) -> fun(() -> ok).
continuous(#{n := N, tokens := Tokens, burst := Burst} = P, Laps) ->
    Cluster = maps:get(cluster, P, none),
    Spawn = fun(I, last, Ready) ->
                    spawn(fun() -> receive {next, First} -> go_on(I, First, Laps, Ready, Cluster) end end);
               (I, Next, Ready) ->
                    spawn(fun() -> go_on(I, Next, Laps, Ready, Cluster) end)
            end,
    Ring = build(N, ringbench_params:token_starts(N, Tokens, Burst), Spawn, Cluster),
    fun() -> inject(Ring#ring.entries, tok) end.

%% p0 counts the laps; across nodes the first process of every other node
%% counts that node's laps for the cluster view (when it is on).
go_on(0, Next, Laps, Ready, _Cluster) ->
    ringbench_ready:signal(Ready), lap_loop(Next, Laps);
go_on(_I, Next, _Laps, Ready, none) ->
    ringbench_ready:signal(Ready), forward_loop(Next);
go_on(I, Next, _Laps, Ready, Cluster) ->
    ringbench_ready:signal(Ready),
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
    Spawn = fun(I, last, Ready) ->
                    spawn(fun() -> receive {next, First} -> trace_on(Tracer(I), First, Ready) end end);
               (I, Next, Ready) ->
                    spawn(fun() -> trace_on(Tracer(I), Next, Ready) end)
            end,
    #{setup => fun() ->
                       Ring = build(N, [0], Spawn, Cluster),
                       {Ring#ring.ready, Ring}
               end,
      run => fun(Ring) ->
                     inject(Ring#ring.entries, {tok, 1, -1}),
                     receive done -> Ring end
             end,
      proof => fun proof/1}.

trace_on(Tracer, Next, Ready) ->
    ringbench_ready:signal(Ready),
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
            Main ! {count, Sum + C, crossed(From, Cross, C)};
        {stop, Sum, Cross, From, First} ->
            Next ! {stop, Sum + C, crossed(From, Cross, C), node(), First}
    end.
