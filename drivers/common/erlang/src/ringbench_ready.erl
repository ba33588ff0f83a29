%% The gate (docs/driver-contract.md, section 3): the spawn phase ends when
%% the main process knows that every process is blocked in its first
%% receive. Each process arrives immediately before that receive, in one of
%% the contract's two forms:
%%
%%   a message   - the process sends `ready` to main; main counts them
%%                 (drain/1 while it spawns, wait/2 after)
%%   a counter   - the process adds one to a shared atomics counter; the one
%%                 that completes the count sends main `all_ready`, the
%%                 phase's only message (counter/1, arrive/1, await/1)
%%
%% The counter costs main one message instead of n; the rings use it.
-module(ringbench_ready).
-export([drain/1, wait/2, counter/1, arrive/1, await/1, await/2]).
-export_type([counter/0]).

-opaque counter() :: {atomics:atomics_ref(), pos_integer(), pid()}.

%% Take the ready messages that have already arrived (main calls it after
%% each spawn, so its mailbox stays short while it spawns).
-spec drain(non_neg_integer()) -> non_neg_integer().
drain(Got) ->
    receive ready -> drain(Got + 1)
    after 0 -> Got
    end.

%% Wait until N ready messages have arrived in all.
-spec wait(non_neg_integer(), non_neg_integer()) -> non_neg_integer().
wait(Got, N) when Got >= N -> Got;
wait(Got, N) -> receive ready -> wait(Got + 1, N) end.

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
