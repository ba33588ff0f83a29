%% fanin: n senders, one receiver; on a start signal each sender sends m
%% messages; the run ends when the receiver has all n*m.
%%
%% The receiver is spawned with {message_queue_data, off_heap}, the setting
%% the Erlang documentation gives for a process many processes send to
%% (erlang:process_flag/2): senders enqueue without the receiver's main lock
%% and its collections do not copy the queue. A property of the one process,
%% written in the program, not a VM setting.
-module(ringbench_erlang_fanin).
-export([fanin/1]).

-spec fanin(ringbench_params:params()) -> ringbench:phases().
fanin(#{n := N, m := M}) ->
    Main = self(),
    #{setup => fun() ->
                       Gate = ringbench_ready:counter(N + 1),
                       Receiver = spawn_opt(fun() ->
                                                    ringbench_ready:arrive(Gate),
                                                    receive_all(N * M, 0, Main)
                                            end,
                                            [{message_queue_data, off_heap}]),
                       Senders = spawn_senders(N, Receiver, M, Gate, []),
                       {ringbench_ready:await(Gate), Senders}
               end,
      run => fun(Senders) ->
                     go(Senders),
                     receive {fanin_done, Count} -> Count end
             end,
      proof => fun(Count) -> Count end}.

spawn_senders(0, _Receiver, _M, _Gate, Senders) -> Senders;
spawn_senders(K, Receiver, M, Gate, Senders) ->
    S = spawn(fun() -> ringbench_ready:arrive(Gate), receive go -> send(Receiver, M) end end),
    spawn_senders(K - 1, Receiver, M, Gate, [S | Senders]).

go([]) -> ok;
go([S | Senders]) -> S ! go, go(Senders).

send(_Receiver, 0) -> ok;
send(Receiver, K) -> Receiver ! msg, send(Receiver, K - 1).

receive_all(0, Count, Main) -> Main ! {fanin_done, Count};
receive_all(Left, Count, Main) -> receive msg -> receive_all(Left - 1, Count + 1, Main) end.
