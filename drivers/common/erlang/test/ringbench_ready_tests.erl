%% The hand-written gate (ringbench_ready: counter/1, arrive/1,
%% await/1,2) under concurrency: many processes arrive at once, on every
%% scheduler; the one whose increment completes the count wakes main, once,
%% and never before the last has arrived.
-module(ringbench_ready_tests).
-include_lib("eunit/include/eunit.hrl").

%% N processes, each blocked until the gate opens; then every one arrives.
%% The gate is a process whose exit every waiter monitors: its 'DOWN'
%% messages release them all at once, on whichever scheduler each runs.
arrive_at_once(N) ->
    Counter = ringbench_ready:counter(N),
    Gate = spawn(fun() -> receive open -> ok end end),
    Main = self(),
    Pids = [spawn(fun() ->
                          Ref = erlang:monitor(process, Gate),
                          Main ! {waiting, self()},
                          receive {'DOWN', Ref, process, Gate, _} -> ok end,
                          ok = ringbench_ready:arrive(Counter)
                  end)
            || _ <- lists:seq(1, N)],
    [receive {waiting, P} -> ok end || P <- Pids],
    Gate ! open,
    Count = ringbench_ready:await(Counter),
    %% exactly one wake-up: no second all_ready, now or after every arrival
    [begin Ref = erlang:monitor(process, P), receive {'DOWN', Ref, _, _, _} -> ok end end
     || P <- Pids],
    Second = receive all_ready -> twice after 50 -> once end,
    {Count, Second}.

many_at_once_wake_main_exactly_once_test_() ->
    {timeout, 120,
     fun() ->
             [?assertEqual({N, once}, arrive_at_once(N))
              || N <- [1, 2, 3, 64, 1000, 20000, 1000, 64, 2, 1]]
     end}.

%% Rounds back to back: a counter wakes only the main that made it, once.
repeated_rounds_test_() ->
    {timeout, 120,
     fun() -> [?assertEqual({500, once}, arrive_at_once(500)) || _ <- lists:seq(1, 50)] end}.

%% N - 1 arrivals do not wake main; the last one does.
not_before_the_last_test() ->
    N = 100,
    Counter = ringbench_ready:counter(N),
    [spawn(fun() -> ringbench_ready:arrive(Counter) end) || _ <- lists:seq(1, N - 1)],
    ?assertEqual(timeout, receive all_ready -> early after 200 -> timeout end),
    ok = ringbench_ready:arrive(Counter),
    ?assertEqual(N, ringbench_ready:await(Counter)),
    ?assertEqual(timeout, receive all_ready -> twice after 50 -> timeout end).

%% await/2: the count when every process arrives; down when the monitored
%% process (a builder's driver) goes first.
await_with_monitor_test() ->
    Counter = ringbench_ready:counter(2),
    Alive = spawn(fun() -> receive stop -> ok end end),
    Ref = erlang:monitor(process, Alive),
    [spawn(fun() -> ringbench_ready:arrive(Counter) end) || _ <- [1, 2]],
    ?assertEqual(2, ringbench_ready:await(Counter, Ref)),
    Never = ringbench_ready:counter(5),
    Alive ! stop,
    ?assertEqual(down, ringbench_ready:await(Never, Ref)).
