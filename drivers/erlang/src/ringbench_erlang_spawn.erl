%% spawn: n idle processes, each made as a ring process is made (spawn/3,
%% one process with its own mailbox), arriving at the gate as a ring process
%% does (ringbench_ready's counter) and blocked in its first receive; the
%% contract's memory workload reads its bytes per process from them.
-module(ringbench_erlang_spawn).
-export([spawn_idle/1]).
%% Spawned by module, function and arguments, as the ring processes are.
-export([idle/2]).

-spec spawn_idle(ringbench_params:params()) -> ringbench:phases().
spawn_idle(#{n := N}) ->
    #{setup => fun() ->
                       Gate = ringbench_ready:counter(N),
                       Tail = spawn_chain(N, self(), Gate),
                       Ready = ringbench_ready:await(Gate),
                       {Ready, {Tail, Ready}}
               end,
      proof => fun({Tail, Ready}) ->
                       %% untimed release: a message walks the chain back to main
                       Tail ! release,
                       receive release -> Ready end
               end}.

%% Each process knows only the one spawned before it (Prev), so the release
%% needs no list of n pids in main (which runtime_mem_after would count); main
%% holds the tail and the gate, one atomics counter, and its mailbox gets one
%% message however large n is.
spawn_chain(0, Prev, _Gate) -> Prev;
spawn_chain(K, Prev, Gate) ->
    P = spawn(?MODULE, idle, [Gate, Prev]),
    spawn_chain(K - 1, P, Gate).

%% As ring_enter/2: arrive, then the first receive; only Prev is live in it.
idle(Gate, Prev) ->
    ringbench_ready:arrive(Gate),
    receive release -> Prev ! release end.
