%% ring_benchmark.erl -- RECONSTRUCTED, not the original text.
%%
%% The 2009 Erlang ring benchmark (IBM ThinkPad T60, Core 2 T7200, one core,
%% erl +P 500000) was published as two tables, process creation time (ms) for
%% N processes and message-passing time (ms) for N processes x M laps, from a
%% program ring_benchmark.erl whose text could not be found (see README.md).
%% This is the program those tables describe, written in the form of the
%% Programming Erlang exercise it answered ("Create N processes in a ring.
%% Send a message round the ring M times so that a total of N * M messages
%% get sent. Time how long this takes for different values of N and M."):
%% the main process is one of the N, spawns the other N-1 as a chain that
%% ends at itself, sends one message and counts the laps as it comes back;
%% the other processes forward whatever they receive. Both phases are timed
%% with statistics(wall_clock) and printed once each, in ms.
%%
%%   erl +P 500000 -noshell -run ring_benchmark main N M
-module(ring_benchmark).
-export([main/1, start/2]).

main([N, M]) ->
    start(list_to_integer(N), list_to_integer(M)),
    halt().

start(N, M) ->
    statistics(wall_clock),
    Next = chain(N - 1, self()),
    {_, T1} = statistics(wall_clock),
    io:format("process creation: ~p ms for ~p processes~n", [T1, N]),
    statistics(wall_clock),
    Next ! token,
    laps(M, Next),
    {_, T2} = statistics(wall_clock),
    io:format("message passing: ~p ms for ~p processes x ~p laps~n", [T2, N, M]),
    Next ! stop.

%% K processes, each spawned with the pid of the one before it; the first
%% one forwards to the main process, which closes the ring.
chain(0, Next) -> Next;
chain(K, Next) -> chain(K - 1, spawn(fun() -> forward(Next) end)).

forward(Next) ->
    receive
        stop -> Next ! stop;
        Msg -> Next ! Msg, forward(Next)
    end.

%% The main process: each time the message comes back one lap is done.
laps(1, _Next) ->
    receive token -> ok end;
laps(M, Next) ->
    receive token -> Next ! token, laps(M - 1, Next) end.
