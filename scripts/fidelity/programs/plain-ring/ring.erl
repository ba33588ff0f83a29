%% A plain Erlang ring, written here (ringbench issue 10): the ring a competent
%% Erlang programmer writes in an afternoon, no tricks.
%%
%% N processes, each knowing only the next one; K tokens (default 1), each
%% carrying N*M, are sent to the first process back to back; every process
%% forwards the value minus one, and the one that receives 1 tells main.
%% N*M*K hops in all. One line of output at the end.
%%
%%   erl -noshell -run ring main N M [K]
-module(ring).
-export([main/1]).

main([NArg, MArg | KArg]) ->
    N = list_to_integer(NArg),
    M = list_to_integer(MArg),
    K = case KArg of [] -> 1; [KStr] -> list_to_integer(KStr) end,
    Main = self(),
    %% The last process is spawned first and learns its successor (the first
    %% process) once that exists; every other one gets its successor at birth.
    Last = spawn(fun() -> receive {next, First} -> relay(First, Main) end end),
    First = lists:foldl(fun(_, Next) -> spawn(fun() -> relay(Next, Main) end) end,
                        Last, lists:seq(2, N)),
    Last ! {next, First},
    [First ! N * M || _ <- lists:seq(1, K)],
    wait(K),
    io:format("~p hops~n", [N * M * K]),
    halt().

relay(Next, Main) ->
    receive
        1 -> Main ! done, relay(Next, Main);
        V -> Next ! V - 1, relay(Next, Main)
    end.

wait(0) -> ok;
wait(K) -> receive done -> wait(K - 1) end.
