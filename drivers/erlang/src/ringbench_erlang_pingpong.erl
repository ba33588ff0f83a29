%% pingpong: two processes, A sends ping to B, B answers pong; m round trips.
%% A is spawned first and learns B's pid from its start message, so neither
%% needs a set-up message: each arrives at the gate and blocks at once.
-module(ringbench_erlang_pingpong).
-export([pingpong/1]).

-spec pingpong(ringbench_params:params()) -> ringbench:phases().
pingpong(#{m := M}) ->
    Main = self(),
    #{setup => fun() ->
                       Gate = ringbench_ready:counter(2),
                       A = spawn(fun() ->
                                         ringbench_ready:arrive(Gate),
                                         receive {go, B} -> ping(B, M, Main) end
                                 end),
                       B = spawn(fun() -> ringbench_ready:arrive(Gate), pong(A, 0) end),
                       {ringbench_ready:await(Gate), {A, B}}
               end,
      run => fun({A, B}) ->
                     A ! {go, B},
                     receive pingpong_done -> B end
             end,
      proof => fun(B) ->
                       B ! {count, Main},
                       receive {count, C} -> C end
               end}.

ping(_B, 0, Main) -> Main ! pingpong_done;
ping(B, K, Main) ->
    B ! ping,
    receive pong -> ping(B, K - 1, Main) end.

%% B counts the round trips and says how many when asked.
pong(A, C) ->
    receive
        ping -> A ! pong, pong(A, C + 1);
        {count, From} -> From ! {count, C}
    end.
