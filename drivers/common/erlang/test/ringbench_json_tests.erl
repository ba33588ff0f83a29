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

%% decode/1: what a perf job (docs/driver-contract.md, section 10) holds.
decode_a_job_test() ->
    ?assertEqual({ok, #{<<"perf">> => 1, <<"mode">> => <<"continuous">>, <<"cv">> => null,
                        <<"ask">> => false, <<"x">> => 0.02,
                        <<"snippets">> => [#{<<"runner">> => <<"rand:uniform().">>, <<"init">> => null}]}},
                 ringbench_json:decode(<<" {\"perf\": 1, \"mode\": \"continuous\", \"cv\": null, \"ask\": false, "
                                         "\"x\": 0.02, \"snippets\": [{\"runner\": \"rand:uniform().\", "
                                         "\"init\": null}]}\n">>)).

decode_strings_test() ->
    ?assertEqual({ok, <<"a \"b\" \\ c\n/", 16#e9/utf8, 16#1F600/utf8>>},
                 ringbench_json:decode(<<"\"a \\\"b\\\" \\\\ c\\n\\/\\u00e9\\ud83d\\ude00\"">>)),
    ?assertEqual({ok, <<16#e9/utf8>>}, ringbench_json:decode(<<"\"", 16#e9/utf8, "\"">>)),
    ?assertEqual({ok, [[], #{}, -12, 1.5e3]}, ringbench_json:decode(<<"[[], {}, -12, 1.5e3]">>)).

decode_errors_test() ->
    {error, M1} = ringbench_json:decode(<<"{\"a\": 1,}">>),
    ?assertEqual("expected a string key at byte 8", M1),
    ?assertMatch({error, "trailing characters" ++ _}, ringbench_json:decode(<<"1 2">>)),
    ?assertMatch({error, "bad or unterminated string" ++ _}, ringbench_json:decode(<<"\"abc">>)),
    ?assertMatch({error, _}, ringbench_json:decode(<<"[1, 2">>)).

encode_floats_and_null_test() ->
    ?assertEqual(<<"{\"u\":0.25,\"x\":null}">>, json([{u, 0.25}, {x, null}])).
