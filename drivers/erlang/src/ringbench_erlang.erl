%% The Erlang driver: plain BEAM processes, each a tail-recursive receive
%% loop, every message a real Pid ! Msg. This module names the workloads;
%% each lives in its own module, and the protocol (verbs, parameters,
%% iterations, clocks, memory, records) is drivers/common/erlang's.
%%
%%   erl ... -s ringbench_erlang main -extra --variant=stock run ring n=1000 m=10
-module(ringbench_erlang).
-behaviour(ringbench).
-export([main/0, info/0, phases/3, continuous/2]).

-spec main() -> no_return().
main() -> ringbench:main(?MODULE).

info() ->
    #{name => <<"erlang">>, runtime => <<"Erlang/OTP">>,
      workloads => [ring, spawn, pingpong, fanin, selective, tree, trace],
      features => [tokens, continuous, stats, nodes, perf],
      variants => [stock, tuned]}.

phases(ring, P, _Kind) -> ringbench_erlang_ring:ring(P);
phases(trace, P, Kind) -> ringbench_erlang_ring:trace(P, Kind);
phases(spawn, P, _Kind) -> ringbench_erlang_spawn:spawn_idle(P);
phases(pingpong, P, _Kind) -> ringbench_erlang_pingpong:pingpong(P);
phases(fanin, P, _Kind) -> ringbench_erlang_fanin:fanin(P);
phases(selective, P, _Kind) -> ringbench_erlang_selective:selective(P);
phases(tree, P, _Kind) -> ringbench_erlang_tree:tree(P).

continuous(P, Laps) -> ringbench_erlang_ring:continuous(P, Laps).
