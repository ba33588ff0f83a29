%% Where a ring's processes live across nodes (ringbench_nodes, contract
%% section 10): the closed forms against a walk of the ring.
-module(ringbench_nodes_tests).
-include_lib("eunit/include/eunit.hrl").

%% The edges p(i) -> p(i+1 mod n) whose ends are on different nodes.
walk(N, K, Pl) ->
    Node = fun(I) -> case Pl of 0 -> I * K div N; 1 -> I rem K end end,
    length([I || I <- lists:seq(0, N - 1), Node(I) =/= Node((I + 1) rem N)]).

cross_per_lap_test_() ->
    [?_assertEqual({N, K, Pl, walk(N, K, Pl)}, {N, K, Pl, ringbench_nodes:cross_per_lap(N, K, Pl)})
     || N <- lists:seq(1, 40), K <- lists:seq(1, min(N, 9)), Pl <- [0, 1]].

contiguous_is_k_a_lap_test() ->
    ?assertEqual(4, ringbench_nodes:cross_per_lap(100000, 4, 0)),
    ?assertEqual(10000, ringbench_nodes:cross_per_lap(10000, 2, 1)),
    ?assertEqual(10000, ringbench_nodes:cross_per_lap(10001, 2, 1)).

expected_cross_hops_test() ->
    {ok, P} = ringbench_params:parse(ring, ["n=10", "m=3", "tokens=2", "nodes=2"]),
    ?assertEqual(#{cross_hops => 2 * 3 * 2}, ringbench_params:expected_more(ring, P)),
    {ok, P1} = ringbench_params:parse(ring, ["n=10", "m=3"]),
    ?assertEqual(#{}, ringbench_params:expected_more(ring, P1)).

indices_are_the_nodes_processes_test_() ->
    [?_assertEqual({N, K, Pl, [[I || I <- lists:seq(N - 1, 0, -1), ringbench_nodes:node_of(I, N, K, Pl) =:= J]
                               || J <- lists:seq(0, K - 1)]},
                   {N, K, Pl, [ringbench_nodes:indices(J, N, K, Pl) || J <- lists:seq(0, K - 1)]})
     || N <- lists:seq(1, 30), K <- lists:seq(1, min(N, 7)), Pl <- [0, 1]].

every_node_holds_a_process_test() ->
    [?assert(ringbench_nodes:indices(J, N, K, Pl) =/= [])
     || N <- lists:seq(1, 30), K <- lists:seq(1, N), Pl <- [0, 1], J <- lists:seq(0, K - 1)].

%% A local node's standard_io is forwarded to the driver's stdout, which
%% carries only records: the node's own reports must go to its stderr. (A
%% warning of global's, printed by a node as the ring's nodes stopped, once
%% reached a record stream.) Needs a VM started as the driver's command
%% starts it (-epmd_module ringbench_epmd), as check.sh does.
a_local_nodes_reports_go_to_its_stderr_test_() ->
    {timeout, 60,
     fun() ->
             P = ringbench_nodes:setup(#{nodes => 2, n => 2, node_placement => 0}),
             try
                 [_, Other] = ringbench_nodes:members(maps:get(cluster, P)),
                 {ok, #{config := Config}} = erpc:call(Other, logger, get_handler_config, [default]),
                 ?assertEqual(standard_error, maps:get(type, Config))
             after
                 ringbench_nodes:teardown(P)
             end
     end}.

%% A node of the ring killed (kill -9) while the measuring process waits:
%% the watcher ends that process at once with a failure naming the node
%% (without it, the ring waits for a token that was on the node until the
%% orchestrator's timeout, 70 s later).
a_node_that_dies_ends_the_run_naming_it_test_() ->
    {timeout, 60,
     fun() ->
             Test = self(),
             {Owner, Ref} = spawn_monitor(
                              fun() ->
                                      P = ringbench_nodes:watch(
                                            ringbench_nodes:setup(#{nodes => 2, n => 2, node_placement => 0})),
                                      Test ! {cluster, P},
                                      receive never -> ok end
                              end),
             P = receive {cluster, Got} -> Got end,
             try
                 [_, Other] = ringbench_nodes:members(maps:get(cluster, P)),
                 OsPid = erpc:call(Other, os, getpid, []),
                 T0 = erlang:monotonic_time(millisecond),
                 _ = os:cmd("kill -9 " ++ OsPid),
                 receive
                     {'DOWN', Ref, process, Owner, Reason} ->
                         ?assertMatch({ringbench_error, failure, _}, Reason),
                         {_, _, Msg} = Reason,
                         ?assertNotEqual(nomatch, string:find(Msg, atom_to_list(Other))),
                         ?assertNotEqual(nomatch, string:find(Msg, "node 1 of 2")),
                         ?assert(erlang:monotonic_time(millisecond) - T0 < 5000)
                 after 10000 ->
                         exit(Owner, kill),
                         ?assert(false)   % the watcher did not end the run
                 end
             after
                 ringbench_nodes:teardown(P)
             end
     end}.

%% Stopping the nodes at the end of a run is not a failure: teardown stops
%% the watcher first, and the measuring process ends normally.
teardown_is_not_a_node_failure_test_() ->
    {timeout, 60,
     fun() ->
             {Owner, Ref} = spawn_monitor(
                              fun() ->
                                      P = ringbench_nodes:watch(
                                            ringbench_nodes:setup(#{nodes => 2, n => 2, node_placement => 0})),
                                      ringbench_nodes:teardown(P),
                                      receive after 500 -> ok end   % a late nodedown would land here
                              end),
             receive {'DOWN', Ref, process, Owner, Reason} -> ?assertEqual(normal, Reason) end
     end}.
