%% A ring across BEAM nodes (docs/driver-contract.md, section 10): the
%% nodes, connected by Erlang distribution, and what a workload needs to
%% spread its processes over them. The iteration loop (ringbench) starts the
%% cluster before the first iteration and stops it after the last, untimed;
%% a driver's workload asks where process i lives (node_of/2), spawns on
%% each node, and proves its cross-node hops. Everything here is plain
%% Erlang, callable from Elixir (:ringbench_nodes.nodes(cluster)).
%%
%% Local nodes (the default): the driver's own VM is node 0; it starts K-1
%% more on this machine with OTP's peer module, each a child of the driver
%% that reads its control channel on stdin and halts when that closes, so a
%% node never outlives the driver however the driver ends. No epmd daemon
%% is involved: every node runs with -epmd_module ringbench_epmd (ports
%% exchanged by the driver) and listens on the loopback interface only. The
%% cookie is fresh and random, set after distribution starts
%% (erlang:set_cookie/1, never on a command line); -nocookie keeps the
%% kernel from reading or creating ~/.erlang.cookie. Each node gets the
%% driver VM's emulator flags (its variant, its process table) and as many
%% schedulers; when the driver is pinned to one CPU (--cores 1), the other
%% nodes are pinned apart to the other online CPUs (taskset), sharing them
%% round-robin when there are more nodes than CPUs.
%%
%% Nodes on other hosts (a cluster file, RINGBENCH_CLUSTER): the user
%% starts them; the driver connects to them, checks the OTP major and the
%% cookie, loads its modules onto them, and leaves them running.
-module(ringbench_nodes).
-export([setup/1, watch/1, teardown/1, members/1, count/1, ring_size/1, node_of/2, node_of/4, indices/2, indices/4,
         first_on_node/2,
         cross_per_lap/3, relay/3, laps/0, start_view/2, view/2, describe/1]).
%% Spawned on other nodes.
-export([relay_loop/2, sampler/2]).
%% The watcher (watch/1), spawned here.
-export([watcher/3]).

-record(cluster, {nodes :: [node()],                 % node 0 (this VM) first
                  placement :: 0 | 1,                % 0 contiguous, 1 interleaved
                  n :: pos_integer(),
                  peers = [] :: [{pid(), string()}],  % local nodes: peer process, OS pid
                  remote = false :: boolean(),
                  cpus = [] :: [string()],           % where each node runs ("" unpinned)
                  samplers = [] :: [pid()],
                  watcher = none :: pid() | none}).   % watch/1's process
-opaque cluster() :: #cluster{}.
-export_type([cluster/0]).

-define(SAMPLER, ringbench_node_sampler).
-define(LAPS, ringbench_node_laps).
-define(BOOT_TIMEOUT, 30000).

%% ---------------------------------------------------------------------------
%% Starting and stopping

%% Params with the cluster added (key `cluster`) when nodes > 1; unchanged
%% otherwise. A problem of the user's making (an unreachable node, a cookie
%% or OTP mismatch) is bad_param; one of this machine's, failure.
-spec setup(ringbench_params:params()) -> ringbench_params:params().
setup(#{nodes := K} = P) when K > 1 ->
    C = case cluster_file() of
            none -> start_local(P);
            {ok, Spec} -> start_remote(P, Spec)
        end,
    P#{cluster => C};
setup(P) ->
    P.

%% Params whose cluster (if any) is watched: from now on, a node that goes
%% down (killed, its host gone, the connection lost) ends the calling
%% process, the one that measures, with a failure naming the node, however
%% long that process is blocked (a ring waits for ever for a token that was
%% on the node). The caller is ended by an exit signal whose reason is
%% {ringbench_error, failure, Message}; ringbench:main/2 turns it into the
%% error record. Stopped by teardown/1, before the nodes are.
-spec watch(ringbench_params:params()) -> ringbench_params:params().
watch(#{cluster := #cluster{nodes = [_ | Others]} = C} = P) ->
    W = spawn(?MODULE, watcher, [self(), Others, length(Others) + 1]),
    Ref = erlang:monitor(process, W),
    receive
        {watching, W} -> erlang:demonitor(Ref, [flush]), P#{cluster => C#cluster{watcher = W}};
        {'DOWN', Ref, process, W, Why} -> ringbench:fail(failure, "could not watch the nodes: ~0p", [Why])
    end;
watch(P) ->
    P.

-spec teardown(ringbench_params:params()) -> ok.
teardown(#{cluster := #cluster{peers = Peers, watcher = W}}) ->
    %% The nodes about to stop are not failures: the watcher goes first.
    stop_watcher(W),
    %% Closing a peer's stdin halts it; then wait until its OS process is gone.
    [catch peer:stop(Peer) || {Peer, _} <- Peers],
    [wait_gone(OsPid, 50) || {_, OsPid} <- Peers],
    _ = net_kernel:stop(),
    ok;
teardown(_P) ->
    ok.

stop_watcher(none) -> ok;
stop_watcher(W) ->
    Ref = erlang:monitor(process, W),
    W ! {stop, self()},
    receive {'DOWN', Ref, process, W, _} -> ok end.

%% The watcher: subscribed to the distribution's node events before watch/1
%% returns (a node already gone by then is reported at once); on the first
%% nodedown of a node of the cluster it ends Owner. It ends when Owner does.
-spec watcher(pid(), [node()], pos_integer()) -> ok.
watcher(Owner, Nodes, K) ->
    ok = net_kernel:monitor_nodes(true, [nodedown_reason]),
    Ref = erlang:monitor(process, Owner),
    Owner ! {watching, self()},
    Connected = nodes(connected),
    [self() ! {nodedown, Node, [{nodedown_reason, not_connected}]}
     || Node <- Nodes, not lists:member(Node, Connected)],
    watch_loop(Owner, Ref, Nodes, K).

watch_loop(Owner, Ref, Nodes, K) ->
    receive
        {'DOWN', Ref, process, Owner, _} -> ok;
        {stop, _From} -> ok;
        {nodedown, Node, Info} ->
            case index_of(Node, Nodes, 1) of
                none -> watch_loop(Owner, Ref, Nodes, K);   % not one of ours
                J ->
                    Why = proplists:get_value(nodedown_reason, Info, unknown),
                    Msg = lists:flatten(
                            io_lib:format("node ~p of ~p (~s) went down (~0p): its ring processes and "
                                          "any token they held are gone, so the run cannot finish",
                                          [J, K, Node, Why])),
                    exit(Owner, {ringbench_error, failure, Msg}),
                    ok
            end;
        _NodeUp ->
            watch_loop(Owner, Ref, Nodes, K)
    end.

%% Node's index in the cluster (node 0 is this VM, Nodes the others).
index_of(_Node, [], _J) -> none;
index_of(Node, [Node | _], J) -> J;
index_of(Node, [_ | Rest], J) -> index_of(Node, Rest, J + 1).

wait_gone(_OsPid, 0) -> ok;
wait_gone(OsPid, Tries) ->
    case filelib:is_dir("/proc/" ++ OsPid) andalso not zombie(OsPid) of
        true -> receive after 20 -> wait_gone(OsPid, Tries - 1) end;
        false -> ok
    end.

zombie(OsPid) ->
    case file:read_file("/proc/" ++ OsPid ++ "/stat") of
        {ok, Stat} ->
            [_, AfterName] = string:split(Stat, ") ", trailing),
            binary:first(AfterName) =:= $Z;
        _ -> true
    end.

%% ---------------------------------------------------------------------------
%% Local nodes

start_local(#{nodes := K, n := N} = P) ->
    Base = "ringbench_" ++ os:getpid() ++ "_" ++ integer_to_list(rand:uniform(1 bsl 30)),
    Cookie = list_to_atom(random_cookie()),
    application:set_env(kernel, inet_dist_use_interface, {127, 0, 0, 1}),
    start_distribution(Base ++ "_0", shortnames),
    erlang:set_cookie(Cookie),
    Cpus = placement_cpus(K),
    Me = self(),
    Starters = [spawn_link(fun() -> Me ! {peer, J, start_peer(Base, J, Cpu, Cookie)} end)
                || {J, Cpu} <- lists:zip(lists:seq(1, K - 1), tl(Cpus))],
    Started = [receive {peer, J, Got} -> Got end || J <- lists:seq(1, length(Starters))],
    Peers = [{Peer, OsPid} || {Peer, OsPid, _Node, _Name, _Port} <- Started],
    Ports = [{Name, Port} || {_, _, _, Name, Port} <- Started],
    Nodes = [node() | [Node || {_, _, Node, _, _} <- Started]],
    %% Every node learns every port (the peers over their control channel),
    %% then every pair connects: nothing of the name service or the
    %% connections is left for a timed phase. The ports come first: once
    %% node 0 connects, global on each peer connects at once to the nodes
    %% node 0 knows, and an attempt that finds no port fails; on OTP 25
    %% (prevent_overlapping_partitions) global then disconnects nodes of the
    %% ring, an erpc noconnection or a node down a moment later.
    [ringbench_epmd:add(Name, local, Port) || {Name, Port} <- Ports],
    [[true = peer:call(Peer, ringbench_epmd, add, [Nm, local, Pt]) || {Nm, Pt} <- Ports]
     || {Peer, _} <- Peers],
    [connect_local(Node) || Node <- tl(Nodes)],
    mesh(Nodes),
    #cluster{nodes = Nodes, placement = maps:get(node_placement, P), n = N,
             peers = Peers, cpus = Cpus}.

start_distribution(Name, Domain) ->
    case net_kernel:start(list_to_atom(Name), #{name_domain => Domain}) of
        {ok, _} -> ok;
        {error, Why} ->
            ringbench:fail(failure, "could not start Erlang distribution as ~s: ~0p "
                           "(was the VM started with -epmd_module ringbench_epmd?)", [Name, Why])
    end.

%% A node of this machine, started by the peer module with its control
%% channel on stdin/stdout (so it halts when the driver goes), distribution
%% started afterwards on the loopback interface with the cookie given.
start_peer(Base, J, Cpu, Cookie) ->
    Name = Base ++ "_" ++ integer_to_list(J),
    Erl = case os:find_executable("erl") of
              false -> ringbench:fail(failure, "erl is not on PATH: cannot start node ~p", [J]);
              E -> E
          end,
    Exec = case Cpu of
               "" -> Erl;
               _ -> {os:find_executable("taskset"), ["-c", Cpu, Erl]}
           end,
    Args = emulator_flags() ++ code_path() ++
        ["-epmd_module", "ringbench_epmd", "-nocookie", "-start_epmd", "false",
         "-kernel", "inet_dist_use_interface", "{127,0,0,1}",
         %% A peer's standard_io is forwarded to this node's, the driver's
         %% stdout, which carries only records: its reports (global's
         %% warning when a node leaves, say) go to its own stderr from boot.
         "-kernel", "logger", "[{handler,default,logger_std_h,#{config=>#{type=>standard_error}}}]"],
    Peer = case peer:start(#{connection => standard_io, exec => Exec, args => Args,
                             env => peer_env(), wait_boot => ?BOOT_TIMEOUT}) of
               {ok, Pid, _} -> Pid;
               {error, Why} -> ringbench:fail(failure, "could not start node ~p: ~0p", [J, Why])
           end,
    OsPid = peer:call(Peer, os, getpid, []),
    case peer:call(Peer, net_kernel, start, [list_to_atom(Name), #{name_domain => shortnames}]) of
        {ok, _} -> ok;
        Error -> ringbench:fail(failure, "node ~p could not start distribution: ~0p", [J, Error])
    end,
    true = peer:call(Peer, erlang, set_cookie, [Cookie]),
    Port = peer:call(Peer, ringbench_epmd, own_port, []),
    Node = peer:call(Peer, erlang, node, []),
    {Peer, OsPid, Node, Name, Port}.

%% A peer's control channel is its stdin: a -noinput that the driver's own
%% environment adds to erl's command line (the Elixir driver's ERL_ZFLAGS,
%% drivers/elixir/driver.toml) is not passed on to it.
peer_env() ->
    case os:getenv("ERL_ZFLAGS") of
        false -> [];
        Flags -> [{"ERL_ZFLAGS", string:join([F || F <- string:lexemes(Flags, " "), F =/= "-noinput"], " ")}]
    end.

%% The emulator flags this VM was started with (erlexec's -X form, before
%% the first "--"), as +X for another erl, with this VM's schedulers.
emulator_flags() ->
    Emu = lists:takewhile(fun(A) -> A =/= "--" end, tl(erlang:system_info(emu_args))),
    Schedulers = integer_to_list(erlang:system_info(schedulers_online)),
    ["+S", Schedulers ++ ":" ++ Schedulers | plus_form(drop_flag("-S", Emu))].

drop_flag(_F, []) -> [];
drop_flag(F, [F, _Value | Rest]) -> drop_flag(F, Rest);
drop_flag(F, [A | Rest]) -> [A | drop_flag(F, Rest)].

plus_form(Args) ->
    [case A of [$-, C | More] when C >= $A, C =< $z -> [$+, C | More]; _ -> A end || A <- Args].

%% The code path beyond OTP's own (the driver's and the library's ebin, and
%% for an Elixir driver Elixir's), so every node runs the same modules.
code_path() ->
    Otp = code:lib_dir(),
    Dirs = [D || D <- code:get_path(), D =/= ".", not lists:prefix(Otp, D)],
    lists:append([["-pa", D] || D <- Dirs]).

random_cookie() ->
    [$a + (B rem 26) || <<B>> <= crypto:strong_rand_bytes(32)].

%% Where each node runs: when this VM is pinned to one CPU (--cores 1), the
%% others are pinned to the other online CPUs, highest first (the
%% orchestrator pins the driver to the highest), round-robin when there are
%% more nodes than CPUs; otherwise every node may use every CPU ("").
placement_cpus(K) ->
    case {allowed_cpus(), online_cpus(), os:find_executable("taskset")} of
        {[Own], Online, Taskset} when Taskset =/= false, Online =/= [] ->
            Others = lists:reverse(lists:sort(Online -- [Own])),
            Order = [Own | Others],
            Cpus = [integer_to_list(lists:nth((J rem length(Order)) + 1, Order))
                    || J <- lists:seq(0, K - 1)],
            K > length(Order) andalso
                io:format(standard_error, "ringbench: ~p nodes on ~p CPUs: nodes share CPUs "
                          "(pinned round-robin: ~s)~n", [K, length(Order), lists:join(",", Cpus)]),
            Cpus;
        {[_], _, false} ->
            io:format(standard_error, "ringbench: taskset not found: the other nodes are not pinned~n", []),
            lists:duplicate(K, "");
        _ ->
            lists:duplicate(K, "")
    end.

allowed_cpus() ->
    case file:read_file("/proc/self/status") of
        {ok, Status} ->
            case re:run(Status, "Cpus_allowed_list:\\s*(\\S+)", [{capture, all_but_first, list}]) of
                {match, [List]} -> cpu_list(List);
                nomatch -> []
            end;
        _ -> []
    end.

online_cpus() ->
    case file:read_file("/sys/devices/system/cpu/online") of
        {ok, Text} -> cpu_list(string:trim(binary_to_list(Text)));
        _ -> []
    end.

%% "0-3,6" -> [0,1,2,3,6]
cpu_list(Text) ->
    lists:append([case string:split(R, "-") of
                      [A, B] -> lists:seq(list_to_integer(A), list_to_integer(B));
                      [A] -> [list_to_integer(A)]
                  end || R <- string:lexemes(Text, ","), R =/= ""]).

%% This node connected to a local node it started: a node that cannot be
%% reached is one line naming the carrier (with TLS distribution, the
%% certificates are the usual cause), never an erpc stack trace.
connect_local(Node) ->
    case net_kernel:connect_node(Node) of
        true -> ok;
        _ -> ringbench:fail(failure, "could not connect to the local node ~s over Erlang distribution (~s)",
                            [Node, carrier()])
    end.

carrier() ->
    case init:get_argument(proto_dist) of
        {ok, [[Proto | _] | _]} when Proto =:= "inet_tls"; Proto =:= "inet6_tls" ->
            Proto ++ ": check the certificates and keys named in -ssl_dist_optfile, and that every node "
                "starts with the same -proto_dist";
        {ok, [[Proto | _] | _]} -> Proto;
        _ -> "inet_tcp"
    end.

%% Every pair of nodes connected (each node to every node after it).
mesh(Nodes) ->
    [case erpc:call(A, net_kernel, connect_node, [B]) of
         true -> ok;
         _ -> ringbench:fail(failure, "node ~s could not connect to ~s", [A, B])
     end || A <- Nodes, B <- Nodes, A < B],
    ok.

%% ---------------------------------------------------------------------------
%% Nodes on other hosts

%% The cluster file named by RINGBENCH_CLUSTER (set by the manifest; empty
%% for local nodes): lines key=value, `hosts` (comma-separated
%% [name@]host[:port]) and `cookie`. Written by the orchestrator, mode 0600.
cluster_file() ->
    case os:getenv("RINGBENCH_CLUSTER") of
        false -> none;
        "" -> none;
        Path ->
            case file:read_file(Path) of
                {ok, Text} ->
                    Lines = [string:split(L, "=") || L <- string:lexemes(binary_to_list(Text), "\n")],
                    Spec = maps:from_list([{K, V} || [K, V] <- Lines]),
                    {ok, Spec};
                {error, Why} ->
                    ringbench:fail(failure, "cannot read the cluster file ~ts: ~p", [Path, Why])
            end
    end.

start_remote(#{nodes := K, n := N} = P, Spec) ->
    Hosts = [parse_host(H) || H <- string:lexemes(maps:get("hosts", Spec, ""), ",")],
    length(Hosts) =:= K - 1 orelse
        ringbench:fail(bad_param, "nodes=~p but the cluster file names ~p hosts (nodes = hosts + 1: "
                       "this node and one on each host)", [K, length(Hosts)]),
    Cookie = case maps:find("cookie", Spec) of
                 {ok, C} when C =/= "" -> list_to_atom(C);
                 _ -> ringbench:fail(bad_param, "the cluster file has no cookie", [])
             end,
    Long = lists:any(fun({_, Host, _}) -> lists:member($., Host) end, Hosts),
    Self = "ringbench_" ++ os:getpid() ++ "_" ++ integer_to_list(rand:uniform(1 bsl 30)),
    {Name, Domain} = case Long of
                         true -> {Self ++ "@" ++ own_address(Hosts), longnames};
                         false -> {Self, shortnames}
                     end,
    start_distribution(Name, Domain),
    erlang:set_cookie(Cookie),
    [ringbench_epmd:add(Nm, {remote, Host}, Port) || {Nm, Host, Port} <- Hosts, Port =/= none],
    Nodes = [node() | [connect(H) || H <- Hosts]],
    check_otp(tl(Nodes)),
    load_code(tl(Nodes)),
    %% Nodes that run this name service too learn the ports given.
    Given = [{Nm, Host, Port} || {Nm, Host, Port} <- Hosts, Port =/= none],
    [erpc:call(Node, lists, foreach,
               [fun({Nm, Host, Port}) -> ringbench_epmd:add(Nm, {remote, Host}, Port) end, Given])
     || Node <- tl(Nodes), erpc:call(Node, net_kernel, epmd_module, []) =:= ringbench_epmd],
    mesh(Nodes),
    #cluster{nodes = Nodes, placement = maps:get(node_placement, P), n = N, remote = true,
             cpus = lists:duplicate(K, "")}.

%% "[name@]host[:port]": the default name is ringbench.
parse_host(Text) ->
    {Name, HostPort} = case string:split(Text, "@") of
                           [H] -> {"ringbench", H};
                           [Nm, H] -> {Nm, H}
                       end,
    case string:split(HostPort, ":", trailing) of
        [Host, Port] when Port =/= "" -> {Name, Host, list_to_integer(Port)};
        _ -> {Name, HostPort, none}
    end.

%% This machine's address as the first host sees it (the route's source).
own_address([{_, Host, _} | _]) ->
    {ok, S} = gen_udp:open(0),
    try
        ok = gen_udp:connect(S, Host, 4369),
        {ok, {Ip, _}} = inet:sockname(S),
        inet:ntoa(Ip)
    catch _:_ ->
        ringbench:fail(bad_param, "host ~s: unknown or unreachable (no route to it)", [Host])
    after
        gen_udp:close(S)
    end.

%% Connect, or say why not: no such host, no epmd there, no such node, or a
%% node that refused us (a different cookie, or TLS on one side only).
connect({Name, Host, Port}) ->
    Node = list_to_atom(Name ++ "@" ++ Host),
    case net_kernel:connect_node(Node) of
        true -> Node;
        _ when Port =/= none ->
            case gen_tcp:connect(Host, Port, [], 5000) of
                {ok, S} ->
                    gen_tcp:close(S),
                    ringbench:fail(bad_param, "node ~s refused the connection: its cookie differs "
                                   "from ours (or it runs TLS distribution and we do not, or the "
                                   "reverse)", [Node]);
                {error, Why} ->
                    ringbench:fail(bad_param, "node ~s is unreachable: nothing accepts connections "
                                   "on ~s port ~p (~s)", [Node, Host, Port, inet:format_error(Why)])
            end;
        _ ->
            case inet:getaddr(Host, inet) of
                {error, _} ->
                    ringbench:fail(bad_param, "host ~s: unknown (no address for it)", [Host]);
                {ok, _} ->
                    case erl_epmd:names(Host) of
                        {error, _} ->
                            ringbench:fail(bad_param, "host ~s: unreachable, or no epmd listening "
                                           "on its port 4369 (is a node started there?)", [Host]);
                        {ok, Names} ->
                            case lists:keymember(Name, 1, Names) of
                                false ->
                                    ringbench:fail(bad_param, "host ~s has no node named ~s "
                                                   "(its epmd knows: ~s)",
                                                   [Host, Name, names_text(Names)]);
                                true ->
                                    ringbench:fail(bad_param, "node ~s refused the connection: "
                                                   "its cookie differs from ours (or it runs TLS "
                                                   "distribution and we do not, or the reverse)",
                                                   [Node])
                            end
                    end
            end
    end.

names_text([]) -> "none";
names_text(Names) -> lists:join(", ", [N || {N, _} <- Names]).

check_otp(Nodes) ->
    Ours = erlang:system_info(otp_release),
    [case erpc:call(Node, erlang, system_info, [otp_release]) of
         Ours -> ok;
         Theirs -> ringbench:fail(bad_param, "node ~s runs OTP ~s, this one OTP ~s: "
                                  "the same OTP major is needed", [Node, Theirs, Ours])
     end || Node <- Nodes],
    ok.

%% The modules of the driver's and the library's code path, loaded onto
%% each remote node unless it has them already (same MD5).
load_code(Nodes) ->
    Otp = code:lib_dir(),
    Dirs = [D || D <- code:get_path(), D =/= ".", not lists:prefix(Otp, D)],
    Mods = [list_to_atom(filename:basename(F, ".beam"))
            || D <- Dirs, F <- filelib:wildcard(filename:join(D, "*.beam"))],
    [load_onto(Node, Mod) || Node <- Nodes, Mod <- Mods],
    ok.

load_onto(Node, Mod) ->
    {Mod, Bin, File} = code:get_object_code(Mod),
    Md5 = Mod:module_info(md5),
    case catch erpc:call(Node, Mod, module_info, [md5]) of
        Md5 -> ok;
        _ -> {module, Mod} = erpc:call(Node, code, load_binary, [Mod, File, Bin]), ok
    end.

%% ---------------------------------------------------------------------------
%% Where processes live

-spec members(cluster()) -> [node()].
members(#cluster{nodes = Nodes}) -> Nodes.

-spec count(cluster()) -> pos_integer().
count(#cluster{nodes = Nodes}) -> length(Nodes).

%% The ring's n (the processes spread over the nodes).
-spec ring_size(cluster()) -> pos_integer().
ring_size(#cluster{n = N}) -> N.

%% The node index of process I (0 ... n-1): contiguous blocks (I*K div N,
%% block sizes differing by one at most) or interleaved (I rem K).
-spec node_of(non_neg_integer(), cluster()) -> non_neg_integer().
node_of(I, #cluster{nodes = Nodes, placement = Pl, n = N}) ->
    node_of(I, N, length(Nodes), Pl).

-spec node_of(non_neg_integer(), pos_integer(), pos_integer(), 0 | 1) -> non_neg_integer().
node_of(I, N, K, 0) -> I * K div N;
node_of(I, _N, K, 1) -> I rem K.

%% The process indices on node J, descending.
-spec indices(non_neg_integer(), cluster()) -> [non_neg_integer()].
indices(J, #cluster{nodes = Nodes, placement = Pl, n = N}) ->
    indices(J, N, length(Nodes), Pl).

-spec indices(non_neg_integer(), pos_integer(), pos_integer(), 0 | 1) -> [non_neg_integer()].
indices(J, N, K, 0) -> lists:seq(first_of(J + 1, N, K) - 1, first_of(J, N, K), -1);
indices(J, N, K, 1) -> lists:seq(J + ((N - 1 - J) div K) * K, J, -K).

%% Whether I is the lowest index of its node (the process that counts the
%% node's laps in the cluster view).
-spec first_on_node(non_neg_integer(), cluster()) -> boolean().
first_on_node(0, _C) -> true;
first_on_node(I, #cluster{nodes = Nodes, placement = 0, n = N}) ->
    K = length(Nodes),
    node_of(I - 1, N, K, 0) =/= node_of(I, N, K, 0);
first_on_node(I, #cluster{nodes = Nodes, placement = 1}) ->
    I < length(Nodes).

%% The first index of contiguous block J: the least I with I*K div N >= J.
first_of(J, N, K) -> (J * N + K - 1) div K.

%% The ring's edges p(i) -> p(i+1 mod n) that join two nodes: each lap of
%% each token crosses them once. Contiguous: one per block (K), interleaved:
%% every edge, but the closing one when p(n-1) and p0 share a node.
-spec cross_per_lap(pos_integer(), pos_integer(), 0 | 1) -> non_neg_integer().
cross_per_lap(_N, 1, _Pl) -> 0;
cross_per_lap(_N, K, 0) -> K;
cross_per_lap(N, K, 1) when (N - 1) rem K =:= 0 -> N - 1;
cross_per_lap(N, _K, 1) -> N.

%% ---------------------------------------------------------------------------
%% Services on every node

%% Registers Name on every node but this one as a process that forwards
%% what it receives to To (a ring process reaches main by a registered
%% name, whichever node it is on). Idempotent. A relay ends when To does
%% (or its node goes), so none is left on a node the driver did not start.
-spec relay(cluster(), atom(), pid()) -> ok.
relay(#cluster{nodes = [_ | Others]}, Name, To) ->
    Me = self(),
    [begin
         Pid = spawn(Node, ?MODULE, relay_loop, [To, {Name, Me}]),
         receive {relayed, Pid} -> ok end
     end || Node <- Others],
    ok.

-spec relay_loop(pid(), {atom(), pid()} | monitor) -> no_return() | ok.
relay_loop(To, {Name, From}) ->
    _ = catch register(Name, self()),    % a relay of this driver is there already: this one ends
    From ! {relayed, self()},
    case whereis(Name) =:= self() of
        true -> erlang:monitor(process, To), relay_loop(To, monitor);
        false -> ok
    end;
relay_loop(To, monitor) ->
    receive
        {'DOWN', _, process, To, _} -> ok;
        Msg -> To ! Msg, relay_loop(To, monitor)
    end.

%% This node's lap counter for the cluster view (one per node, made when the
%% view starts; none without a view): the first ring process of each node
%% adds one per lap.
-spec laps() -> atomics:atomics_ref() | none.
laps() -> persistent_term:get(?LAPS, none).

%% ---------------------------------------------------------------------------
%% The cluster view (continuous mode, stats=1): per node, sampled with the
%% ring's own samples, what erlperf's cluster monitor shows.

%% Starts a sampler on every node, each with its node's lap counter (laps/0
%% on that node; node 0's is Laps, p0's counter of continuous mode); with no
%% cluster, on this node alone. Returns the cluster (or view) to sample.
-spec start_view(ringbench_params:params(), atomics:atomics_ref()) -> cluster().
start_view(#{cluster := #cluster{nodes = Nodes} = C}, Laps) ->
    Me = self(),
    Samplers = [begin
                    Counter = case J of 0 -> Laps; _ -> none end,
                    Pid = spawn(Node, ?MODULE, sampler, [Me, Counter]),
                    receive {started, Pid} -> Pid end
                end || {J, Node} <- lists:zip(lists:seq(0, length(Nodes) - 1), Nodes)],
    C#cluster{samplers = Samplers};
start_view(#{n := N} = P, Laps) ->
    start_view(P#{cluster => #cluster{nodes = [node()], placement = 0, n = N}}, Laps).

%% The node records of one sample, node 0 first: hops (the node's receipts,
%% at lap granularity: its laps times its processes), distribution packets
%% read and written, scheduler active and total time, memory, processes,
%% the node's OS process CPU time, elapsed time on the node's own clock.
-spec view(cluster(), pos_integer()) -> [ringbench_json:record()].
view(#cluster{samplers = Samplers, nodes = Nodes, n = N} = C, Seq) ->
    Ref = make_ref(),
    [S ! {sample, self(), Ref} || S <- Samplers],
    Got = [receive {Ref, S, Figures} -> Figures end || S <- Samplers],
    K = length(Nodes),
    [[{type, node}, {seq, Seq}, {node, J}, {name, atom_to_binary(Node, utf8)},
      {processes_in_ring, processes_on(J, C, N, K)}] ++ Figures
     || {J, Node, Figures} <- lists:zip3(lists:seq(0, K - 1), Nodes, Got)].

processes_on(J, C, _N, _K) -> length(indices(J, C)).

%% One node's sampler: high priority, so a busy ring does not delay it;
%% scheduler wall time is on while it lives (the flag is the caller's). It
%% ends when the process that started it does.
-spec sampler(pid(), atomics:atomics_ref() | none) -> ok.
sampler(From, Counter) ->
    process_flag(priority, high),
    Laps = case Counter of
               none -> atomics:new(1, [{signed, false}]);
               _ -> Counter
           end,
    persistent_term:put(?LAPS, Laps),
    erlang:monitor(process, From),
    erlang:system_flag(scheduler_wall_time, true),
    T0 = erlang:monotonic_time(nanosecond),
    From ! {started, self()},
    sampler_loop(From, Laps, T0).

sampler_loop(Main, Laps, T0) ->
    receive
        {'DOWN', _, process, Main, _} -> ok;
        {sample, From, Ref} ->
            Now = erlang:monotonic_time(nanosecond),
            {Active, Total} = scheduler_time(),
            {In, Out} = dist_packets(),
            From ! {Ref, self(),
                    [{elapsed_ns, Now - T0}, {laps, atomics:get(Laps, 1)},
                     {sched_active, Active}, {sched_total, Total},
                     {dist_in, In}, {dist_out, Out},
                     {memory, erlang:memory(total)},
                     {processes, erlang:system_info(process_count)},
                     {cpu_ns, ringbench_clock:cpu_ns()}]},
            sampler_loop(Main, Laps, T0)
    end.

%% Normal schedulers' active and total time since the flag went on
%% (erlang:statistics(scheduler_wall_time); units are the runtime's own,
%% only their ratio means anything).
scheduler_time() ->
    Normal = erlang:system_info(schedulers),
    case erlang:statistics(scheduler_wall_time) of
        undefined -> {0, 0};
        List ->
            Mine = [{A, T} || {Id, A, T} <- List, Id =< Normal],
            {lists:sum([A || {A, _} <- Mine]), lists:sum([T || {_, T} <- Mine])}
    end.

%% Distribution packets received and sent over every connection (TCP
%% distribution: the socket's counters; other carriers report 0).
dist_packets() ->
    Counts = [case catch inet:getstat(Port, [recv_cnt, send_cnt]) of
                  {ok, Stat} -> {proplists:get_value(recv_cnt, Stat, 0),
                                 proplists:get_value(send_cnt, Stat, 0)};
                  _ -> {0, 0}
              end || {_Node, Port} <- erlang:system_info(dist_ctrl), is_port(Port)],
    {lists:sum([I || {I, _} <- Counts]), lists:sum([O || {_, O} <- Counts])}.

%% What stderr says of the cluster once it runs.
-spec describe(cluster()) -> string().
describe(#cluster{nodes = Nodes, cpus = Cpus, remote = Remote}) ->
    lists:flatten(io_lib:format("~p nodes (~s): ~s", [length(Nodes),
        case Remote of true -> "this one and remote hosts"; false -> "local" end,
        lists:join(", ", [case Cpu of
                              "" -> atom_to_list(N);
                              _ -> atom_to_list(N) ++ " on CPU " ++ Cpu
                          end || {N, Cpu} <- lists:zip(Nodes, Cpus)])])).
