%% spawn: n idle processes, each made as a ring process is made (spawn/3,
%% one process with its own mailbox) and blocked in its first receive; the
%% contract's memory workload reads its bytes per process from them.
-module(ringbench_erlang_spawn).
-export([spawn_idle/1]).
%% Spawned by module, function and arguments, as the ring processes are.
-export([idle/2]).

-spec spawn_idle(ringbench_params:params()) -> ringbench:phases().
spawn_idle(#{n := N}) ->
    #{setup => fun() ->
                       {Tail, Got} = spawn_chain(N, self(), 0),
                       Ready = ringbench_ready:wait(Got, N),
                       {Ready, {Tail, Ready}}
               end,
      proof => fun({Tail, Ready}) ->
                       %% untimed release: a message walks the chain back to main
                       Tail ! release,
                       receive release -> Ready end
               end}.

%% Each process knows only the one spawned before it (Prev), so the release
%% needs no list of n pids in main (which runtime_mem_after would count).
spawn_chain(0, Prev, Got) -> {Prev, Got};
spawn_chain(K, Prev, Got) ->
    P = spawn(?MODULE, idle, [self(), Prev]),
    spawn_chain(K - 1, P, ringbench_ready:drain(Got)).

idle(Main, Prev) ->
    Main ! ready,
    receive release -> Prev ! release end.
