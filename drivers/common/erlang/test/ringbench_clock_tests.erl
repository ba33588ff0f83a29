%% The context switches a phase reports (contract 4): whole-VM counts from
%% getrusage by the NIF, or from /proc/self/task/*/status without it.
-module(ringbench_clock_tests).
-include_lib("eunit/include/eunit.hrl").

%% A phase in which the only running process sleeps 20 times: each time its
%% scheduler runs out of work and its thread sleeps in the kernel, which is
%% a voluntary context switch. A mark that did not read the switches, or
%% read the wrong counter, would see (about) none. 10 ms a sleep, not 2: on a
%% loaded host a scheduler preempted while it spins before sleeping can find
%% a short timer already due, and not sleep (under 10 of 20 in a CI run).
sleeping_is_voluntary(Source) ->
    {V0, I0} = ringbench_clock:context_switches(Source),
    [receive after 10 -> ok end || _ <- lists:seq(1, 20)],
    {V1, I1} = ringbench_clock:context_switches(Source),
    ?assert(V1 - V0 >= 10),
    ?assert(I1 >= I0).

proc_counts_sleeps_test() ->
    sleeping_is_voluntary(proc).

nif_counts_sleeps_test() ->
    case ringbench_clock:switches_source() of
        nif -> sleeping_is_voluntary(nif);
        proc -> ?debugMsg("NIF not loaded: only the /proc fallback is tested")
    end.

%% Both sources count the same thing: /proc sums the threads alive, the NIF
%% every thread the VM had, so read in the order NIF, /proc, NIF the /proc
%% figure cannot exceed the second NIF figure, and (BEAM's threads live as
%% long as the VM) is not far below the first.
the_sources_agree_test() ->
    case ringbench_clock:switches_source() of
        nif ->
            {V0, I0} = ringbench_clock:context_switches(nif),
            {V, I} = ringbench_clock:context_switches(proc),
            {V1, I1} = ringbench_clock:context_switches(nif),
            ?assert(V =< V1 andalso I =< I1),
            ?assert(V >= V0 * 9 div 10 andalso I >= I0 * 9 div 10);
        proc ->
            ok
    end.

%% describe's clock says where the counts come from.
describe_names_the_source_test() ->
    Clock = ringbench_clock:describe(),
    ?assertNotEqual(nomatch, binary:match(Clock, <<"context switches: ">>)).
