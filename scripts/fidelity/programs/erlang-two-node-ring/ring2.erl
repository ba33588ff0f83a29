%% A plain two-node Erlang ring, written here (ringbench issue 43): the ring
%% of plain-ring spread over K BEAM nodes of this machine, as an Erlang
%% programmer spreads one: the main node starts its peers with OTP's peer
%% module, spawns each ring process on its node with spawn(Node, Fun), and
%% the token is the same countdown sent with `!`, which Erlang distribution
%% carries between nodes.
%%
%% N processes, process i on node i mod K (Placement 1, interleaved) or on
%% node i*K div N (Placement 0, contiguous blocks); node 0 is this one.
%% One token carrying N*M is sent to the first process; every process
%% forwards the value minus one, and the one that receives 1 tells main.
%% N*M hops in all. One line of output at the end; the peers are stopped
%% (peer:stop) before main halts, and each peer halts by itself if main
%% goes away first (peer's link to its control process).
%%
%% With Cores = 1 (ringbench pins this node to one CPU) each peer gets one
%% scheduler and is pinned apart, to another online CPU (taskset), as
%% ringbench's own driver pins its nodes; otherwise every node may use every
%% CPU. run.sh starts the name service and the cookie (see there).
%%
%%   erl -sname ring2_main -noshell -run ring2 main N M K Placement Cores
-module(ring2).
-export([main/1]).

main([NArg, MArg, KArg, PArg, CArg]) ->
    N = list_to_integer(NArg),
    M = list_to_integer(MArg),
    K = list_to_integer(KArg),
    Placement = list_to_integer(PArg),
    Cores = list_to_integer(CArg),
    Peers = [start_peer(J, Cores) || J <- lists:seq(1, K - 1)],
    Nodes = list_to_tuple([node() | [Node || {_, Node} <- Peers]]),
    NodeOf = fun(I) when Placement =:= 1 -> element(I rem K + 1, Nodes);
                (I) -> element(I * K div N + 1, Nodes)
             end,
    Main = self(),
    %% The last process is spawned first and learns its successor (the first
    %% process) once that exists; every other one gets its successor at birth.
    Last = spawn(NodeOf(N - 1), fun() -> receive {next, First} -> relay(First, Main) end end),
    First = lists:foldl(fun(I, Next) -> spawn(NodeOf(I), fun() -> relay(Next, Main) end) end,
                        Last, lists:seq(N - 2, 0, -1)),
    Last ! {next, First},
    First ! N * M,
    receive done -> ok end,
    io:format("~p hops over ~p nodes~n", [N * M, K]),
    [peer:stop(Peer) || {Peer, _} <- Peers],
    halt().

relay(Next, Main) ->
    receive
        1 -> Main ! done, relay(Next, Main);
        V -> Next ! V - 1, relay(Next, Main)
    end.

start_peer(J, Cores) ->
    Name = "ring2_peer" ++ integer_to_list(J),
    Args = ["-start_epmd", "false", "-pa", filename:dirname(code:which(?MODULE)) | schedulers(Cores)],
    {ok, Peer, Node} = peer:start_link(#{name => Name, args => Args, exec => exec(J, Cores)}),
    {Peer, Node}.

schedulers(1) -> ["+S", "1:1"];
schedulers(_) -> [].

%% At one core: pinned apart from this node, to the other online CPUs in
%% turn (sharing them when there are more peers than CPUs).
exec(J, 1) ->
    Erl = os:find_executable("erl"),
    Own = own_cpu(),
    Online = lists:seq(0, erlang:system_info(logical_processors_online) - 1),
    case {Own, Online -- [Own]} of
        {false, _} -> Erl;
        {_, []} -> Erl;
        {_, Others} -> {os:find_executable("taskset"),
                        ["-c", integer_to_list(lists:nth((J - 1) rem length(Others) + 1, Others)), Erl]}
    end;
exec(_, _) ->
    os:find_executable("erl").

%% The one CPU this node may run on, or false.
own_cpu() ->
    {ok, Status} = file:read_file("/proc/self/status"),
    case re:run(Status, "Cpus_allowed_list:\\s*(\\d+)\\s", [{capture, all_but_first, list}]) of
        {match, [Cpu]} -> list_to_integer(Cpu);
        nomatch -> false
    end.
