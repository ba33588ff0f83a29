%% The parameters of a run (docs/driver-contract.md, sections 2, 3 and 6):
%% which keys each workload takes, their defaults and bounds, and the checks
%% that join two keys. Pure functions: ringbench calls parse/2 once per run,
%% and test/ringbench_params_tests.erl tries every bound.
%%
%% Parameters are an atom-keyed map: #{n => 1000, m => 10, tokens => 1, ...}.
%% Every key of the workload and every common key is present after parse/2
%% (defaults filled in); cores is undefined when not given.
-module(ringbench_params).
-export([workloads/0, workload/1, parse/2, echo_keys/1, expected_count/2,
         expected_more/2, token_starts/3]).
-export_type([workload/0, params/0]).

-type workload() :: ring | spawn | pingpong | fanin | selective | tree | trace.
%% Integers (undefined where a key has no default); `cluster` is added by
%% ringbench_nodes:setup/1 when the run spans nodes.
-type params() :: #{cluster => ringbench_nodes:cluster(), atom() => integer() | undefined}.

-define(MAX_N, 100000000).
-define(MAX_M, 1000000000).
-define(MAX_REPEATS, 1000000).
-define(MAX_TRACE, 100).
-define(MAX_NODES, 256).
-define(LIMIT_2_62, (1 bsl 62)).

%% One key: its name, its default (or required), and its bounds.
-record(key, {name :: atom(), default :: integer() | required | undefined,
              min :: integer(), max :: integer()}).

%% The workloads of the contract, in the order describe lists them.
-spec workloads() -> [workload()].
workloads() -> [ring, spawn, pingpong, fanin, selective, tree, trace].

%% The workload named on the command line, never a new atom.
-spec workload(string()) -> {ok, workload()} | error.
workload(Name) ->
    case [W || W <- workloads(), atom_to_list(W) =:= Name] of
        [W] -> {ok, W};
        [] -> error
    end.

%% The workload's own keys, in the order a result echoes them.
keys(ring) ->
    %% m is required except in continuous mode (cross_check/2)
    [#key{name = n, default = required, min = 1, max = ?MAX_N},
     #key{name = m, default = undefined, min = 1, max = ?MAX_M},
     #key{name = tokens, default = 1, min = 1, max = ?MAX_N},
     #key{name = burst, default = 0, min = 0, max = 1} | node_keys()];
keys(spawn) -> [#key{name = n, default = required, min = 1, max = ?MAX_N}];
keys(pingpong) -> [#key{name = m, default = required, min = 1, max = ?MAX_M}];
keys(fanin) ->
    [#key{name = n, default = required, min = 1, max = ?MAX_N},
     #key{name = m, default = required, min = 1, max = ?MAX_M}];
keys(selective) ->
    [#key{name = n, default = required, min = 1, max = ?MAX_N},
     #key{name = m, default = required, min = 1, max = ?MAX_M},
     #key{name = reverse, default = 0, min = 0, max = 1}];
keys(tree) ->
    [#key{name = n, default = required, min = 1, max = ?MAX_N},
     #key{name = fanout, default = 10, min = 2, max = 1000}];
keys(trace) ->
    [#key{name = n, default = required, min = 1, max = ?MAX_TRACE},
     #key{name = m, default = required, min = 1, max = ?MAX_TRACE} | node_keys()].

%% A ring across BEAM nodes (section 10): how many, and how the processes are
%% laid out over them (0 contiguous blocks, 1 interleaved).
node_keys() ->
    [#key{name = nodes, default = 1, min = 1, max = ?MAX_NODES},
     #key{name = node_placement, default = 0, min = 0, max = 1}].

common_keys() ->
    [#key{name = repeats, default = 1, min = 1, max = ?MAX_REPEATS},
     #key{name = warmup, default = 0, min = 0, max = ?MAX_REPEATS},
     #key{name = cores, default = undefined, min = 1, max = 1024},
     #key{name = sample_ms, default = 0, min = 0, max = 86400000},
     #key{name = samples, default = 3, min = 1, max = 1000000},
     #key{name = stats, default = 0, min = 0, max = 1}].

%% The keys a result record echoes, in order.
-spec echo_keys(workload()) -> [atom()].
echo_keys(W) -> [K#key.name || K <- keys(W)].

%% The count a workload must prove (section 3).
-spec expected_count(workload(), params()) -> non_neg_integer().
expected_count(ring, #{n := N, m := M, tokens := T}) -> N * M * T;
expected_count(trace, #{n := N, m := M}) -> N * M;
expected_count(spawn, #{n := N}) -> N;
expected_count(pingpong, #{m := M}) -> M;
expected_count(fanin, #{n := N, m := M}) -> N * M;
expected_count(selective, #{n := N, m := M}) -> N * M;
expected_count(tree, #{n := N}) -> N * (N - 1) div 2.

%% Counts a proof returns beside `count` (section 10): a ring across nodes
%% proves its cross-node hops, the receipts of the processes whose
%% predecessor is on another node: each lap of each token crosses every
%% boundary once.
-spec expected_more(workload(), params()) -> #{atom() => non_neg_integer()}.
expected_more(ring, #{nodes := K, n := N, m := M, tokens := T, node_placement := Pl}) when K > 1 ->
    #{cross_hops => ringbench_nodes:cross_per_lap(N, K, Pl) * M * T};
expected_more(trace, #{nodes := K, n := N, m := M, node_placement := Pl}) when K > 1 ->
    #{cross_hops => ringbench_nodes:cross_per_lap(N, K, Pl) * M};
expected_more(_W, _P) ->
    #{}.

%% Where the ring's tokens go in (section 3, ring): with burst = 0 token j at
%% p(j*n div tokens), ascending; with burst = 1 every token at p0.
-spec token_starts(pos_integer(), pos_integer(), 0 | 1) -> [non_neg_integer()].
token_starts(N, Tokens, 0) -> [J * N div Tokens || J <- lists:seq(0, Tokens - 1)];
token_starts(_N, Tokens, 1) -> lists:duplicate(Tokens, 0).

%% parse(Workload, ["key=value", ...]) -> {ok, Params} | {error, Message}.
%% Every error is the contract's bad_param.
-spec parse(workload(), [string()]) -> {ok, params()} | {error, string()}.
parse(W, Args) ->
    try
        Specs = keys(W) ++ common_keys(),
        Given = given(W, Args, Specs, #{}),
        Params = maps:from_list([{K#key.name, value(W, K, Given)} || K <- Specs]),
        {ok, cross_check(W, Params)}
    catch
        throw:{bad_param, Msg} -> {error, Msg}
    end.

given(_W, [], _Specs, Acc) -> Acc;
given(W, [Arg | Rest], Specs, Acc) ->
    {Name, Text} = split(Arg),
    K = find(W, Name, Specs),
    maps:is_key(K#key.name, Acc) andalso bad("key ~s given twice", [Name]),
    given(W, Rest, Specs, Acc#{K#key.name => integer(K, Text)}).

split(Arg) ->
    case string:split(Arg, "=") of
        [Name, Text] -> {Name, Text};
        _ -> bad("argument '~ts' is not key=value", [Arg])
    end.

find(W, Name, Specs) ->
    case [K || K <- Specs, atom_to_list(K#key.name) =:= Name] of
        [K] -> K;
        [] -> bad("unknown key '~ts' for workload ~s (known: ~s)",
                  [Name, W, lists:join(", ", [atom_to_list(K#key.name) || K <- Specs])])
    end.

value(W, #key{name = Name, default = required}, Given) ->
    case maps:find(Name, Given) of
        {ok, V} -> V;
        error -> bad("missing required key ~s for workload ~s", [Name, W])
    end;
value(_W, #key{name = Name, default = Default}, Given) ->
    maps:get(Name, Given, Default).

%% ASCII digits only: no sign, no blank, not empty; inside the bounds.
integer(K, Text) ->
    case Text =/= [] andalso lists:all(fun(C) -> C >= $0 andalso C =< $9 end, Text) of
        true ->
            V = list_to_integer(Text),
            (V >= K#key.min andalso V =< K#key.max) orelse out_of_bounds(K, Text),
            V;
        false ->
            out_of_bounds(K, Text)
    end.

-spec out_of_bounds(#key{}, string()) -> no_return().
out_of_bounds(#key{name = Name, min = Min, max = Max}, Text) ->
    bad("~s must be an integer between ~p and ~p, got '~ts'", [Name, Min, Max, Text]).

%% The checks that join two keys.
cross_check(ring, #{n := N, m := M0, tokens := T, sample_ms := S} = P) ->
    M = case M0 of
            undefined when S > 0 -> 1;   % continuous mode ignores m
            undefined -> bad("missing required key m for workload ring", []);
            _ -> M0
        end,
    T =< N orelse bad("tokens must be an integer between 1 and n (~p), got '~p'", [N, T]),
    N * M * T < ?LIMIT_2_62 orelse bad("n*m*tokens must be < 2^62, got ~p", [N * M * T]),
    nodes_fit(P),
    P#{m := M};
cross_check(trace, P) ->
    nodes_fit(P),
    P;
cross_check(W, #{sample_ms := S}) when S > 0 ->
    bad("sample_ms > 0 (continuous mode) is only defined for workload ring, not ~s", [W]);
cross_check(W, #{n := N, m := M}) when (W =:= fanin orelse W =:= selective),
                                       N * M >= ?LIMIT_2_62 ->
    bad("n*m must be < 2^62, got ~p", [N * M]);
cross_check(tree, #{n := N, fanout := F} = P) ->
    is_power(N, F) orelse
        bad("n must be a power of fanout (~p^k), got ~p; the nearest are ~p and ~p",
            [F, N, power_below(N, F, 1), power_below(N, F, 1) * F]),
    P;
cross_check(_W, P) ->
    P.

nodes_fit(#{nodes := K, n := N}) ->
    K =< N orelse bad("nodes must be an integer between 1 and n (~p): one process per node at "
                      "least, got '~p'", [N, K]).

is_power(1, _F) -> true;
is_power(N, F) when N rem F =:= 0 -> is_power(N div F, F);
is_power(_N, _F) -> false.

%% The largest power of F not above N (N >= 1).
power_below(N, F, P) when P * F =< N -> power_below(N, F, P * F);
power_below(_N, _F, P) -> P.

bad(Fmt, Args) ->
    throw({bad_param, lists:flatten(io_lib:format(Fmt, Args))}).
