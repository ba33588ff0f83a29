%% Building, feeding and proving a ring: what the BEAM drivers' ring, continuous
%% mode and trace share (drivers/erlang's ringbench_erlang_ring, drivers/elixir's
%% RingbenchElixir.Ring). A driver writes its processes (their spawn, their
%% receive loops); this module wires them into a ring, on one node or across
%% nodes, and runs the untimed proof.
%%
%% Main spawns p(n-1) first, then p(n-2) ... p0, so each process gets its
%% successor's pid at birth; p(n-1), spawned before p0 exists, gets p0's pid
%% in one {next, First} message. Every process arrives at a shared gate (the
%% counter of ringbench_ready) immediately before its first receive.
%%
%% Across nodes (nodes > 1, contract section 10; the nodes are
%% ringbench_nodes'): a builder on each node spawns that node's processes the
%% same way, in parallel, with the node's own gate; a process whose
%% successor lives on another node (or is p0) is spawned waiting for it, as
%% p(n-1) is, and main sends it its successor once every node has built. Main
%% is reached by one registered name (main_name/0), a relay on every other
%% node.
%%
%% The drivers' processes keep two conventions with this module: a token's
%% last hop sends `done` to main_name(), and the proof is the message
%% {stop, Sum, Cross, From, First}: a process adds its receipt count to Sum
%% (and to Cross when From, its predecessor's node, is another: crossed/3),
%% forwards {stop, ..., node(), First} and exits; the one whose successor is
%% First sends {count, Sum, Cross} to main_name().
-module(ringbench_ring).
-export([main_name/0, register_main/1, build/4, inject/2, wait_done/1, proof/1, crossed/3]).
%% Spawned on each node by module, function and arguments.
-export([builder/5]).
-export_type([ring/0, spawner/0]).

-define(MAIN, ringbench_ring_main).

%% A built ring: p0, the pid each token goes in at (in token order), the
%% arrivals the gate saw, the node of p(n-1) (p0's predecessor, for the proof's
%% cross-node count) and the nodes' builders (none on one node).
-type ring() :: #{first := pid(), entries := [pid()], ready := pos_integer(),
                  last_node := node(), builders := [pid()]}.
%% Spawner(I, Next, Gate) spawns p(I) with its successor (Next = last: a
%% process that waits for {next, Pid} first) and the gate.
-type spawner() :: fun((non_neg_integer(), pid() | last, ringbench_ready:counter()) -> pid()).

%% The registered name the ring processes reach main by.
-spec main_name() -> atom().
main_name() -> ?MAIN.

%% The ring processes reach main by a registered name instead of holding its
%% pid: main is needed only on a token's last hop and in the proof, and a pid
%% kept in the loop would cost every hop a stack word saved across the
%% receive. The name is main's for the life of the driver; on other nodes
%% it is a relay to main (set up once, untimed).
-spec register_main(ringbench_nodes:cluster() | none) -> ok.
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

%% The proof's second sum: the receipts of every process whose predecessor
%% (the stop message's sender) is on another node, i.e. the hops that
%% crossed a node boundary.
-spec crossed(node(), non_neg_integer(), non_neg_integer()) -> non_neg_integer().
crossed(From, Cross, _C) when From =:= node() -> Cross;
crossed(_From, Cross, C) -> Cross + C.

%% Spawns p(n-1), then p(n-2) ... p0, and closes the ring; returns it once
%% every process has arrived at the gate. Starts: the index each token goes in
%% at, ascending (ringbench_params:token_starts/3).
-spec build(pos_integer(), [non_neg_integer()], spawner(), ringbench_nodes:cluster() | none) -> ring().
build(N, Starts, Spawn, none) ->
    Gate = ringbench_ready:counter(N),
    Last = Spawn(N - 1, last, Gate),
    {Starts1, Entries} = entries(N - 1, Last, lists:reverse(Starts), []),
    {First, AllEntries} = spawn_down(N - 2, Last, fun(I, Next) -> Spawn(I, Next, Gate) end,
                                     Starts1, Entries),
    Last ! {next, First},
    #{first => First, entries => AllEntries, ready => ringbench_ready:await(Gate),
      last_node => node(), builders => []};
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
    Arrived = lists:sum([receive {ready, B, R} -> R end || B <- Builders]),
    #{first => maps:get(0, Heads), entries => [maps:get(S, At) || S <- Starts], ready => Arrived,
      last_node => lists:nth(ringbench_nodes:node_of(N - 1, Cluster) + 1, Nodes),
      builders => Builders}.

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
%% the ring processes it spawned have exited. If main goes first, it ends the node's
%% ring processes (on a node the driver did not start, nothing is left).
-spec builder(pid(), non_neg_integer(), ringbench_nodes:cluster(), [non_neg_integer()],
              spawner()) -> ok.
builder(Main, J, Cluster, Starts, Spawn) ->
    Monitor = erlang:monitor(process, Main),
    Mine = ringbench_nodes:indices(J, Cluster),
    N = ringbench_nodes:ring_size(Cluster),
    Wanted = maps:from_list([{S, true} || S <- Starts, ringbench_nodes:node_of(S, Cluster) =:= J]),
    Gate = ringbench_ready:counter(length(Mine)),
    {Open, Heads, Entries, All} = spawn_block(Mine, none, #{n => N, j => J, cluster => Cluster,
                                                            spawn => Spawn, gate => Gate,
                                                            wanted => Wanted}, {[], [], [], []}),
    Main ! {built, self(), Open, Heads, Entries},
    case ringbench_ready:await(Gate, Monitor) of
        down -> [exit(P, kill) || P <- All], ok;
        Count ->
            Main ! {ready, self(), Count},
            receive
                {settle, From} -> gone(All), From ! {settled, self()}, ok;
                {'DOWN', Monitor, process, Main, _} -> [exit(P, kill) || P <- All], ok
            end
    end.

spawn_block([], _Prev, _B, Acc) -> Acc;
spawn_block([I | Rest], Prev, #{n := N, j := J, cluster := C, spawn := Spawn, gate := Gate,
                                 wanted := Wanted} = B, {Open, Heads, Entries, All}) ->
    Succ = (I + 1) rem N,
    {Pid, Open1} = case Prev of
                       {Succ, SuccPid} -> {Spawn(I, SuccPid, Gate), Open};
                       _ -> Last = Spawn(I, last, Gate), {Last, [{I, Last} | Open]}
                   end,
    Head = I =:= 0 orelse ringbench_nodes:node_of(I - 1, C) =/= J,
    Heads1 = case Head of true -> [{I, Pid} | Heads]; false -> Heads end,
    Entries1 = case maps:is_key(I, Wanted) of true -> [{I, Pid} | Entries]; false -> Entries end,
    spawn_block(Rest, {I, Pid}, B, {Open1, Heads1, Entries1, [Pid | All]}).

%% Until every one of Pids has exited. Not "until the node's process count
%% is back where the builder found it": any unrelated process that the node
%% starts meanwhile and keeps (kernel's, on a node that has just connected
%% and is loaded) would keep the count above it for ever, and the proof,
%% which waits for every builder, with it.
gone(Pids) ->
    Refs = [erlang:monitor(process, P) || P <- Pids],
    lists:foreach(fun(R) -> receive {'DOWN', R, process, _, _} -> ok end end, Refs).

%% Sends Token to each entry (in the timed phase: the tokens go in).
-spec inject([pid()], term()) -> ok.
inject([], _Token) -> ok;
inject([P | Ps], Token) -> P ! Token, inject(Ps, Token).

%% Main waits for K tokens to finish (each sends `done` on its last hop).
-spec wait_done(non_neg_integer()) -> ok.
wait_done(0) -> ok;
wait_done(K) -> receive done -> wait_done(K - 1) end.

%% Untimed: a stop message goes round once from p0; every process adds its
%% receipt count (and, when its predecessor is on another node, to the
%% cross-node sum too), forwards it and exits; the last one reports the
%% sums. Across nodes the proof returns the cross-node hops as well, once
%% every node's processes have exited.
-spec proof(ring()) -> non_neg_integer() | {non_neg_integer(), #{cross_hops := non_neg_integer()}}.
proof(#{first := First, last_node := LastNode, builders := Builders}) ->
    First ! {stop, 0, 0, LastNode, First},
    receive {count, C, Cross} -> ok end,
    [B ! {settle, self()} || B <- Builders],
    [receive {settled, B} -> ok end || B <- Builders],
    case Builders of
        [] -> C;
        _ -> {C, #{cross_hops => Cross}}
    end.
