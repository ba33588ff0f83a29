%% The parameter parser against the contract's bounds table (section 6):
%% each bound accepted, one past it refused, malformed arguments refused.
-module(ringbench_params_tests).
-include_lib("eunit/include/eunit.hrl").

ok(W, Args) ->
    {ok, P} = ringbench_params:parse(W, Args),
    P.

refused(W, Args) ->
    ?assertMatch({error, [_ | _]}, ringbench_params:parse(W, Args)).

defaults_are_filled_in_test() ->
    ?assertEqual(#{n => 3, m => 2, tokens => 1, burst => 0, nodes => 1, node_placement => 0,
                   repeats => 1, warmup => 0, cores => undefined, sample_ms => 0, samples => 3,
                   stats => 0},
                 ok(ring, ["n=3", "m=2"])),
    ?assertMatch(#{n := 100, fanout := 10}, ok(tree, ["n=100"])),
    ?assertMatch(#{reverse := 0}, ok(selective, ["n=1", "m=1"])).

bounds_test_() ->
    Cases = [  % {workload, fixed args, key, the bound, one past it}
             {ring, ["m=1"], "n", "1", "0"},
             {ring, ["m=1"], "n", "100000000", "100000001"},
             {ring, ["n=1"], "m", "1", "0"},
             {ring, ["n=1"], "m", "1000000000", "1000000001"},
             {ring, ["n=3", "m=1"], "tokens", "3", "4"},
             {ring, ["n=3", "m=1"], "tokens", "1", "0"},
             {ring, ["n=3", "m=1"], "burst", "1", "2"},
             {ring, ["n=3", "m=1"], "repeats", "1", "0"},
             {ring, ["n=3", "m=1"], "repeats", "1000000", "1000001"},
             {ring, ["n=3", "m=1"], "warmup", "1000000", "1000001"},
             {ring, ["n=3", "m=1"], "cores", "1", "0"},
             {ring, ["n=3", "m=1"], "cores", "1024", "1025"},
             {ring, ["n=3", "m=1"], "sample_ms", "86400000", "86400001"},
             {ring, ["n=3", "m=1", "sample_ms=10"], "samples", "1", "0"},
             {ring, ["n=3", "m=1", "sample_ms=10"], "samples", "1000000", "1000001"},
             {ring, ["n=3", "m=1"], "stats", "1", "2"},
             {ring, ["n=3", "m=1"], "nodes", "1", "0"},
             {ring, ["n=300", "m=1"], "nodes", "256", "257"},
             {ring, ["n=3", "m=1"], "nodes", "3", "4"},
             {ring, ["n=3", "m=1"], "node_placement", "1", "2"},
             {trace, ["n=2", "m=1"], "nodes", "2", "3"},
             {trace, ["m=1"], "n", "100", "101"},
             {trace, ["n=1"], "m", "100", "101"},
             {selective, ["n=1", "m=1"], "reverse", "1", "2"},
             {tree, ["n=1"], "fanout", "2", "1"},
             {tree, ["n=1"], "fanout", "1000", "1001"},
             {pingpong, [], "m", "1", "0"},
             {spawn, [], "n", "100000000", "100000001"}],
    [{lists:flatten(io_lib:format("~s ~s=~s/~s", [W, K, Good, Bad])),
      fun() ->
              ok(W, Fixed ++ [K ++ "=" ++ Good]),
              refused(W, Fixed ++ [K ++ "=" ++ Bad])
      end} || {W, Fixed, K, Good, Bad} <- Cases].

malformed_arguments_test_() ->
    [?_test(refused(ring, Args)) ||
        Args <- [["n=3", "n=3", "m=1"], ["n=+3", "m=1"], ["n=-3", "m=1"], ["n3", "m=1"],
                 ["n=3", "m=1", "tokens="], ["n= 3", "m=1"], ["n=3 ", "m=1"],
                 ["n=1.5", "m=1"], ["n=abc", "m=1"], ["n=" ++ [16#663], "m=1"],
                 ["n=3", "m=1", "colour=3"], ["m=1"], ["n=3"], []]].

continuous_mode_needs_no_m_test() ->
    ?assertMatch(#{m := 1, sample_ms := 100}, ok(ring, ["n=3", "sample_ms=100"])),
    refused(spawn, ["n=3", "sample_ms=100"]).

products_below_2_62_test() ->
    ok(ring, ["n=100000000", "m=1000000000", "tokens=46"]),
    refused(ring, ["n=100000000", "m=1000000000", "tokens=47"]),
    ok(fanin, ["n=100000000", "m=1000000000"]),
    ?assertEqual(ok, element(1, ringbench_params:parse(selective, ["n=100000000", "m=1000000000"]))).

tree_size_is_a_power_of_the_fanout_test() ->
    [ok(tree, ["n=" ++ N, "fanout=" ++ F]) ||
        {N, F} <- [{"1", "10"}, {"10", "10"}, {"1000000", "10"}, {"1024", "2"}, {"27", "3"},
                   {"1", "1000"}, {"1000", "1000"}]],
    [refused(tree, ["n=" ++ N, "fanout=" ++ F]) ||
        {N, F} <- [{"12", "10"}, {"8", "3"}, {"100", "1000"}, {"20", "10"}, {"0", "10"}]].

expected_counts_test() ->
    ?assertEqual(42, ringbench_params:expected_count(ring, ok(ring, ["n=7", "m=2", "tokens=3"]))),
    ?assertEqual(49995000, ringbench_params:expected_count(tree, ok(tree, ["n=10000"]))),
    ?assertEqual(0, ringbench_params:expected_count(tree, ok(tree, ["n=1"]))).

token_starts_test() ->
    ?assertEqual([0, 2, 4], ringbench_params:token_starts(7, 3, 0)),
    ?assertEqual([0, 0, 0], ringbench_params:token_starts(7, 3, 1)),
    ?assertEqual([0, 1, 2, 3, 4], ringbench_params:token_starts(5, 5, 0)).

workload_names_test() ->
    ?assertEqual({ok, tree}, ringbench_params:workload("tree")),
    ?assertEqual(error, ringbench_params:workload("no-such-workload")).

tree_refusal_names_the_nearest_sizes_test() ->
    {error, Msg} = ringbench_params:parse(tree, ["n=12", "fanout=10"]),
    ?assertNotEqual(nomatch, string:find(Msg, "the nearest are 10 and 100")).
