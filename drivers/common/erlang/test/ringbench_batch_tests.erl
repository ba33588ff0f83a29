%% The batch verb's loop (ringbench_batch): lines split at TABs as a command
%% line would arrive, the loop's done records and where it stops, lines read
%% from a port however long, and a line's isolation (every process it
%% started is gone when it returns, its output reaches the caller's group
%% leader, a process ended from outside is reported with its reason).
-module(ringbench_batch_tests).
-include_lib("eunit/include/eunit.hrl").

split_test() ->
    ?assertEqual([], ringbench_batch:split(<<>>)),
    ?assertEqual(["ring", "n= 3", "m=1"], ringbench_batch:split(<<"ring\tn= 3\tm=1">>)),
    ?assertEqual(["ring n=3 m=1"], ringbench_batch:split(<<"ring n=3 m=1">>)),
    ?assertEqual(["ring", "", "m=1", ""], ringbench_batch:split(<<"ring\t\tm=1\t">>)),
    ?assertEqual(["n=", [16#e9]], ringbench_batch:split(<<"n=\t", 16#c3, 16#a9>>)),
    %% not UTF-8: the bytes, as erl gives an argument it cannot decode
    ?assertEqual(["n=", [16#ff]], ringbench_batch:split(<<"n=\t", 16#ff>>)).

%% A stream of the given lines, each already split.
stream([]) -> fun() -> eof end;
stream([Args | Rest]) -> fun() -> {line, Args, stream(Rest)} end.

%% Runs the loop over Lines whose status is the first argument's number;
%% {what it returned, the lines it ran, the records it emitted}.
run_loop(Lines) ->
    Self = self(),
    Line = fun([S | _] = Args) -> Self ! {ran, Args}, list_to_integer(S) end,
    Emit = fun(Record) -> Self ! {emitted, Record}, ok end,
    Status = ringbench_batch:loop(stream(Lines), Line, Emit),
    {Status, drain(ran), drain(emitted)}.

drain(Tag) ->
    receive {Tag, X} -> [X | drain(Tag)] after 0 -> [] end.

done(E) -> [{type, done}, {exit, E}].

loop_goes_on_after_0_and_2_and_ends_at_eof_test() ->
    ?assertEqual({0, [["0"], ["2", "x"], ["0"]], [done(0), done(2), done(0)]},
                 run_loop([["0"], ["2", "x"], ["0"]])),
    ?assertEqual({0, [], []}, run_loop([])).

loop_stops_after_1_or_3_test_() ->
    [?_assertEqual({E, [["0"], [S]], [done(0), done(E)]}, run_loop([["0"], [S], ["0"]]))
     || {E, S} <- [{1, "1"}, {3, "3"}]].

%% Lines through a port whose line length (4) is shorter than some lines:
%% each comes whole; an empty line is no argument; the last line has no
%% newline.
lines_from_a_port_test() ->
    Port = open_port({spawn, "printf 'ring\\tn=3\\n\\nabcdefghij\\tklmnop\\nlast'"},
                     [in, binary, {line, 4}, eof]),
    Read = ringbench_batch:lines(Port),
    {line, L1, R1} = Read(),
    {line, L2, R2} = R1(),
    {line, L3, R3} = R2(),
    {line, L4, R4} = R3(),
    ?assertEqual([["ring", "n=3"], [], ["abcdefghij", "klmnop"], ["last"]], [L1, L2, L3, L4]),
    ?assertEqual(eof, R4()),
    port_close(Port).

%% A line that leaves processes behind (idle, linked, trapping exits, one
%% spawned by another, one still spawning): none outlives isolated/1.
nothing_outlives_a_line_test() ->
    Before = erlang:system_info(process_count),
    Self = self(),
    Idle = fun() -> receive never -> ok end end,
    Spawner = fun Loop() -> spawn(Idle), receive never -> ok after 1 -> Loop() end end,
    {ok, Pids} = ringbench_batch:isolated(
                   fun() ->
                           Trapping = spawn(fun() -> process_flag(trap_exit, true), Idle() end),
                           Parent = spawn(fun() ->
                                                  Child = spawn(Idle),
                                                  Self ! {child, Child},
                                                  Idle()
                                          end),
                           Many = [spawn(Idle) || _ <- lists:seq(1, 1000)],
                           [spawn_link(Idle), Trapping, Parent, spawn(Spawner) | Many]
                   end),
    Child = receive {child, C} -> C end,
    ?assertEqual([], [P || P <- [Child | Pids], is_process_alive(P)]),
    ?assertEqual(Before, erlang:system_info(process_count)).

%% Ended from outside: the reason is the outcome, and the line's other
%% processes are gone all the same.
a_line_ended_from_outside_test() ->
    Self = self(),
    Outcome = ringbench_batch:isolated(
                fun() ->
                        Self ! {idle, spawn(fun() -> receive never -> ok end end)},
                        exit({ringbench_error, failure, "a node went down"})
                end),
    ?assertEqual({died, {ringbench_error, failure, "a node went down"}}, Outcome),
    Idle = receive {idle, P} -> P end,
    ?assertNot(is_process_alive(Idle)).

%% What a line prints reaches the group leader of the process that runs the
%% batch, in order, each request answered.
output_reaches_the_callers_group_leader_test() ->
    Leader = spawn(fun() -> io_server([]) end),
    Self = self(),
    spawn(fun() ->
                  group_leader(Leader, self()),
                  Self ! {outcome, ringbench_batch:isolated(
                                     fun() ->
                                             ok = io:put_chars("one\n"),
                                             Pid = spawn(fun() -> io:put_chars("two\n") end),
                                             Ref = monitor(process, Pid),
                                             receive {'DOWN', Ref, _, _, _} -> ok end,
                                             done
                                     end)}
          end),
    ?assertEqual({ok, done}, receive {outcome, O} -> O end),
    Leader ! {written, self()},
    ?assertEqual(<<"one\ntwo\n">>, receive {written, W} -> W end).

%% Just enough of the io protocol for put_chars.
io_server(Acc) ->
    receive
        {io_request, From, ReplyAs, {put_chars, unicode, Chars}} ->
            From ! {io_reply, ReplyAs, ok},
            io_server([Acc, unicode:characters_to_binary(Chars)]);
        {io_request, From, ReplyAs, {put_chars, unicode, M, F, A}} ->
            From ! {io_reply, ReplyAs, ok},
            io_server([Acc, unicode:characters_to_binary(apply(M, F, A))]);
        {written, From} ->
            From ! {written, iolist_to_binary(Acc)}
    end.
