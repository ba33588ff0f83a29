%% One spawn boundary (docs/driver-contract.md, section 3): every workload
%% with a set-up signals arrival as the ring does, by the gate's counter.
%% Main's receives are traced over each set-up: it must take one message,
%% the gate's all_ready, however many processes it spawned (the message
%% form took n `ready`), and the set-up must report every arrival.
-module(ringbench_erlang_gate_tests).
-include_lib("eunit/include/eunit.hrl").

%% The messages the calling process received while Fun ran, and its value.
received_during(Fun) ->
    Tracer = spawn(fun() -> collect([]) end),
    erlang:trace(self(), true, ['receive', {tracer, Tracer}]),
    Value = Fun(),
    erlang:trace(self(), false, ['receive']),
    %% trace messages are delivered in order: the delimiter comes after them
    erlang:trace_delivered(self()),
    receive {trace_delivered, _, _} -> ok end,
    Tracer ! {done, self()},
    receive {received, Msgs} -> {Msgs, Value} end.

collect(Msgs) ->
    receive
        {trace, _Pid, 'receive', Msg} -> collect([Msg | Msgs]);
        {done, From} -> From ! {received, lists:reverse(Msgs)}
    end.

%% Runs a workload's set-up under the trace, then its proof (which releases
%% the processes); returns the set-up's messages and ready count.
%% The gate's module is loaded first: loading it is a message from the code
%% server.
setup_traced(#{setup := Setup} = Phases) ->
    {module, ringbench_ready} = code:ensure_loaded(ringbench_ready),
    {Msgs, {Ready, State}} = received_during(Setup),
    Proved = case Phases of
                 #{run := Run, proof := Proof} -> Proof(Run(State));
                 #{proof := Proof} -> Proof(State)
             end,
    {Msgs, Ready, Proved}.

spawn_test() ->
    [begin
         {Msgs, Ready, Count} = setup_traced(ringbench_erlang_spawn:spawn_idle(#{n => N})),
         ?assertEqual({[all_ready], N, N}, {Msgs, Ready, Count})
     end || N <- [1, 2, 5000]].

pingpong_test() ->
    {Msgs, Ready, Count} = setup_traced(ringbench_erlang_pingpong:pingpong(#{m => 100})),
    ?assertEqual({[all_ready], 2, 100}, {Msgs, Ready, Count}).

fanin_test() ->
    Phases = ringbench_erlang_fanin:fanin(#{n => 300, m => 3}),
    {Msgs, Ready, Count} = setup_traced(Phases),
    ?assertEqual({[all_ready], 301, 900}, {Msgs, Ready, Count}).

selective_test() ->
    [begin
         Phases = ringbench_erlang_selective:selective(#{n => 200, m => 2, reverse => Reverse}),
         {Msgs, Ready, Count} = setup_traced(Phases),
         ?assertEqual({[all_ready], 200, 400}, {Msgs, Ready, Count})
     end || Reverse <- [0, 1]].
