%% The gate (docs/driver-contract.md, section 3): the spawn phase ends when
%% the main process knows that every process is blocked in its first
%% receive. Each process arrives immediately before that receive by adding
%% one to a shared atomics counter (arrive/1); the one whose addition
%% completes the count sends main `all_ready`, the phase's only message, and
%% main blocks until it comes (await/1). Every workload with a set-up uses
%% it, the ring and spawn alike: not n `ready` messages to main, whose
%% senders may still be runnable, short of their first receive, when main
%% has taken the last of them.
-module(ringbench_ready).
-export([counter/1, arrive/1, await/1, await/2]).
-export_type([counter/0]).

-opaque counter() :: {atomics:atomics_ref(), pos_integer(), pid()}.

%% A counter for N processes, reporting to the calling process.
-spec counter(pos_integer()) -> counter().
counter(N) -> {atomics:new(1, [{signed, false}]), N, self()}.

-spec arrive(counter()) -> ok.
arrive({Counter, N, Main}) ->
    case atomics:add_get(Counter, 1, 1) of
        N -> Main ! all_ready, ok;
        _ -> ok
    end.

%% Block until every process has arrived; the count seen.
-spec await(counter()) -> pos_integer().
await({Counter, _N, _Main}) ->
    receive all_ready -> atomics:get(Counter, 1) end.

%% The same, unless the process monitored by Monitor goes first (a node's
%% builder whose driver is gone): then down.
-spec await(counter(), reference()) -> pos_integer() | down.
await({Counter, _N, _Main}, Monitor) ->
    receive
        all_ready -> atomics:get(Counter, 1);
        {'DOWN', Monitor, process, _, _} -> down
    end.
