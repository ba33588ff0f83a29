%% The JSON Lines output: flat objects, strings escaped to ASCII.
-module(ringbench_json_tests).
-include_lib("eunit/include/eunit.hrl").

json(Record) -> iolist_to_binary(ringbench_json:encode(Record)).

a_result_record_test() ->
    ?assertEqual(<<"{\"type\":\"result\",\"workload\":\"ring\",\"iteration\":1,\"n\":10,"
                   "\"count\":-5}">>,
                 json([{type, result}, {workload, ring}, {iteration, 1}, {n, 10}, {count, -5}])).

lists_and_binary_keys_test() ->
    ?assertEqual(<<"{\"workloads\":[\"ring\",\"tree\"],\"memory_total\":7,\"empty\":[]}">>,
                 json([{workloads, [ring, <<"tree">>]}, {<<"memory_total">>, 7}, {empty, []}])).

big_integers_test() ->
    ?assertEqual(<<"{\"n\":4611686018427387903}">>, json([{n, (1 bsl 62) - 1}])).

escapes_test() ->
    ?assertEqual(<<"{\"message\":\"a \\\"b\\\" \\\\ c\\u000a\\u0001\"}">>,
                 json([{message, <<"a \"b\" \\ c\n", 1>>}])),
    ?assertEqual(<<"{\"m\":\"\\u00e9\\u20ac\\ud83d\\ude00\\u007f\"}">>,
                 json([{m, unicode:characters_to_binary([16#e9, 16#20ac, 16#1F600, 16#7f])}])).

empty_string_test() ->
    ?assertEqual(<<"{\"variant\":\"\"}">>, json([{variant, <<>>}])).

every_line_parses_as_json_test() ->
    %% OTP 25 has no json module: check the shape with the structure itself.
    Line = json([{type, describe}, {contract, 3}, {features, [tokens, stats]}]),
    ?assertMatch(<<"{", _/binary>>, Line),
    ?assertEqual($}, binary:last(Line)).
