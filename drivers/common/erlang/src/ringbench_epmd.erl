%% The name service of a ringbench cluster: an epmd module (kernel's
%% -epmd_module, see erl_epmd(3)) that needs no epmd daemon for the nodes a
%% driver starts itself, so that nothing is left running when the driver ends
%% (docs/driver-contract.md, section 8).
%%
%% Every node of a local cluster (the driver's own and each one it starts)
%% is started with `-epmd_module ringbench_epmd`. A node listens on a port
%% the kernel picks; register_node/3 notes it (no daemon is told). The driver
%% asks each node for its port (own_port/0) and tells every node every port
%% (add/3); port_please/3 and address_please/3 answer from that table. A name
%% the table does not hold (a node on another host that the user started
%% with an ordinary epmd) is looked up the ordinary way, by erl_epmd.
%%
%% The table is an ETS table owned by the process the distribution
%% supervisor starts (start_link/0); it lives as long as distribution does.
-module(ringbench_epmd).
-export([start_link/0, register_node/2, register_node/3, listen_port_please/2,
         port_please/2, port_please/3, address_please/3, names/1]).
-export([add/3, own_port/0]).
-export([init/1]).

-define(TABLE, ringbench_epmd).
%% The distribution protocol version OTP 23 and later speak (erl_epmd's high).
-define(VERSION, 6).

%% ---------------------------------------------------------------------------
%% The epmd module's callbacks

-spec start_link() -> {ok, pid()}.
start_link() ->
    proc_lib:start_link(?MODULE, init, [self()]).

-spec init(pid()) -> no_return().
init(Parent) ->
    ?TABLE = ets:new(?TABLE, [named_table, public, set, {read_concurrency, true}]),
    proc_lib:init_ack(Parent, {ok, self()}),
    wait().

wait() ->
    receive _ -> wait() end.

register_node(Name, Port) ->
    register_node(Name, Port, inet_tcp).

%% Called once the node listens: note the port; no daemon is told. A fresh
%% creation each start (never 0..3, which older nodes read as special).
register_node(_Name, Port, _Driver) ->
    true = ets:insert(?TABLE, {own_port, Port}),
    {ok, 4 + rand:uniform(16#7ffffff0)}.

%% Listen on the fixed port of -erl_epmd_port when given (as erl_epmd does),
%% else on any free one.
listen_port_please(_Name, _Host) ->
    case init:get_argument(erl_epmd_port) of
        {ok, [[Port | _] | _]} -> {ok, list_to_integer(Port)};
        _ -> {ok, 0}
    end.

port_please(Name, Host) ->
    port_please(Name, Host, infinity).

port_please(Name, Host, Timeout) ->
    case lookup(Name, Host) of
        {ok, _Address, Port} -> {port, Port, ?VERSION};
        error -> erl_epmd:port_please(Name, Host, Timeout)
    end.

%% For a node of the table, its address and port at once (OTP 23+: no
%% port_please/3 follows).
address_please(Name, Host, Family) ->
    case lookup(Name, Host) of
        {ok, local, Port} -> {ok, loopback(Family), Port, ?VERSION};
        {ok, remote, Port} ->
            case inet:getaddr(Host, Family) of
                {ok, Ip} -> {ok, Ip, Port, ?VERSION};
                Error -> Error
            end;
        error -> erl_epmd:address_please(Name, Host, Family)
    end.

names(Host) ->
    erl_epmd:names(Host).

%% ---------------------------------------------------------------------------
%% The table

%% A node's distribution port: local (a node of this machine, reached on the
%% loopback interface, whatever its host name) or remote (at its host's
%% address, without asking that host's epmd).
-spec add(string(), local | {remote, string()}, inet:port_number()) -> true.
add(Name, local, Port) -> ets:insert(?TABLE, {{Name, local}, Port});
add(Name, {remote, Host}, Port) -> ets:insert(?TABLE, {{Name, Host}, Port}).

%% The port this node listens on (once distribution has started).
-spec own_port() -> inet:port_number().
own_port() ->
    [{own_port, Port}] = ets:lookup(?TABLE, own_port),
    Port.

lookup(Name0, Host0) ->
    Name = to_list(Name0),
    Host = to_list(Host0),
    case ets:whereis(?TABLE) of
        undefined -> error;
        _ ->
            case {ets:lookup(?TABLE, {Name, local}), ets:lookup(?TABLE, {Name, Host})} of
                {[{_, Port}], _} -> {ok, local, Port};
                {[], [{_, Port}]} -> {ok, remote, Port};
                {[], []} -> error
            end
    end.

to_list(A) when is_atom(A) -> atom_to_list(A);
to_list(L) when is_list(L) -> L;
to_list(Ip) when is_tuple(Ip) -> inet:ntoa(Ip).

loopback(inet6) -> {0, 0, 0, 0, 0, 0, 0, 1};
loopback(_) -> {127, 0, 0, 1}.
