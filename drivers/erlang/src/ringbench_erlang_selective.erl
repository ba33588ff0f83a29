%% selective: Erlang's own selective receive. n workers; each round main
%% sends every worker a request, in worker order, and collects the reply of
%% worker 0, 1, ... n-1 (reverse=0: each receive takes the first message) or
%% n-1 ... 0 (reverse=1: each receive scans past the replies still waiting).
-module(ringbench_erlang_selective).
-export([selective/1]).

-spec selective(ringbench_params:params()) -> ringbench:phases().
selective(#{n := N, m := M, reverse := Reverse}) ->
    Order = case Reverse of
                0 -> lists:seq(0, N - 1);
                1 -> lists:seq(N - 1, 0, -1)
            end,
    #{setup => fun() ->
                       Gate = ringbench_ready:counter(N),
                       Workers = spawn_workers(N - 1, self(), Gate, []),
                       {ringbench_ready:await(Gate), Workers}
               end,
      run => fun(Workers) -> {rounds(M, Workers, Order, 0), Workers} end,
      proof => fun({Count, Workers}) ->
                       [W ! stop || W <- Workers],
                       Count
               end}.

%% Workers are spawned n-1 first, so the list is in worker order 0 .. n-1.
spawn_workers(I, _Main, _Gate, Workers) when I < 0 -> Workers;
spawn_workers(I, Main, Gate, Workers) ->
    W = spawn(fun() -> ringbench_ready:arrive(Gate), worker(I, Main) end),
    spawn_workers(I - 1, Main, Gate, [W | Workers]).

worker(I, Main) ->
    receive
        req -> Main ! {reply, I}, worker(I, Main);
        stop -> ok
    end.

rounds(0, _Workers, _Order, Count) -> Count;
rounds(K, Workers, Order, Count) ->
    request(Workers),
    rounds(K - 1, Workers, Order, collect(Order, Count)).

request([]) -> ok;
request([W | Workers]) -> W ! req, request(Workers).

%% The receive matches worker I's reply only (I is bound).
collect([], Count) -> Count;
collect([I | Order], Count) -> receive {reply, I} -> collect(Order, Count + 1) end.
