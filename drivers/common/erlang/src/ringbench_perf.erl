%% Perf (docs/driver-contract.md, section 11): the user's own Erlang code
%% run in a tight loop by BEAM processes, erlperf's way.
%%
%%     erl ... -extra [--variant=<name>] perf /tmp/job.json
%%
%% Each snippet becomes a module of its own, compiled from its source
%% (runner, init, init_runner, done) and loaded. The runner is inlined in a
%% generated tail-recursive loop exactly as erlperf generates it
%% (ringbench_perf_loop/0,1,2 for continuous and squeeze, ringbench_perf_timed
%% counting down for timed), and iterations are counted as erlperf counts
%% them: call-count tracing of the loop function (erlang:trace_pattern with
%% call_count), one count per call, nothing added to the loop's body.
%%
%% Processes of one snippet: the job (runs init, lives until done has
%% returned, so that what init creates, an ETS table or a server, lives as
%% long), the workers (each runs init_runner, then the loop), and the
%% driver's own process, which starts them, samples the count on absolute
%% deadlines at high priority, reads the orchestrator's answers (more or
%% enough) from stdin, stops the workers (killed) and prints every record.
%% What a snippet prints goes to stderr: its processes' group leader is the
%% standard_error server. The records go to the job's `records` descriptor
%% (ringbench_json:records/1), which erlang:display/1 or io:format(user, ...)
%% cannot reach: those write to stdout, which the orchestrator passes on.
%%
%% The language of the snippets is the one thing a driver may change
%% (run/2, a language() map; run/1 is Erlang's, erlang/0): `compile` reads
%% a snippet's code, `exception` words what the code raised. Everything
%% else (the job, the arity rules, the workers, the modes, the counting,
%% the records) is this module's for every BEAM language. A compile fun
%%
%%     Compile(K, #{runner := Text, init := Text | none,
%%                  init_runner := Text | none, done := Text | none})
%%         -> {#{runner := Arity, init := none | Arity,
%%               init_runner := none | Arity, done := none | Arity}, Build}
%%
%% (Text a UTF-8 binary) parses every piece, reporting code that does not
%% parse with ringbench:fail(bad_param, ...), and says each piece's arity
%% (an expression: 0); this module checks the arities against erlperf's
%% rules, then calls Build(Mod), which compiles and loads the module Mod
%% with the functions the workers and the job call: ringbench_perf_loop/RA
%% (the runner in an endless tail-recursive loop, RA the runner's arity;
%% arity 2: ringbench_perf_loop(A, S) calls ringbench_perf_loop(A, run(A, S))),
%% ringbench_perf_timed/RA+1 (the same loop counting down from its first
%% argument, returning at 0), and ringbench_perf_init/0,
%% ringbench_perf_init_runner/0,1 and ringbench_perf_done/0,1 for the hooks
%% given, of their arities. Iterations are counted by call-count tracing of
%% ringbench_perf_loop, whatever language built it.
-module(ringbench_perf).
-export([run/1, run/2, erlang/0]).
%% Called on each node by erpc (a sample across nodes).
-export([node_count/2]).
-export_type([language/0]).

-type piece_arity() :: non_neg_integer().
-type language() ::
        #{compile := fun((pos_integer(), #{atom() => binary() | none}) ->
                                {#{atom() => piece_arity() | none}, fun((module()) -> ok)}),
          exception := fun((atom(), term(), list()) -> string())}.

-record(job, {mode :: continuous | timed | squeeze | check,
              snippets :: [map()],
              concurrency :: pos_integer(),
              loop :: non_neg_integer(),
              samples :: pos_integer(),
              sample_ms :: pos_integer(),
              warmup :: non_neg_integer(),
              ask :: boolean(),
              max_samples :: pos_integer(),
              min :: pos_integer(),
              max :: pos_integer(),
              stats :: boolean(),
              nodes = 1 :: pos_integer(),
              code_path = [] :: [string()]}).

%% A compiled snippet.
-record(snip, {k :: pos_integer(),
               mod :: module(),
               exception :: fun((atom(), term(), list()) -> string()),
               runner_arity :: 0..2,
               init :: boolean(),
               init_runner :: none | 0 | 1,
               done :: none | 0 | 1,
               build :: fun((module()) -> ok)}).

-define(KEYS, [<<"perf">>, <<"mode">>, <<"snippets">>, <<"concurrency">>, <<"loop">>, <<"samples">>,
               <<"sample_ms">>, <<"warmup">>, <<"ask">>, <<"max_samples">>, <<"min">>, <<"max">>,
               <<"processes">>, <<"code_path">>, <<"stats">>, <<"cores">>]).
%% Optional (contract section 11): `nodes` sent only with K > 1 ("Across
%% nodes"); `records`, the descriptor the records go to (stdout without it).
-define(OPTIONAL_KEYS, [<<"nodes">>, <<"records">>]).
-define(SNIPPET_KEYS, [<<"snippet">>, <<"runner">>, <<"init">>, <<"init_runner">>, <<"done">>,
                       <<"file">>]).
-define(LOOP, ringbench_perf_loop).
-define(TIMED, ringbench_perf_timed).

%% ---------------------------------------------------------------------------
%% Entry

-spec run(string()) -> ok.
run(Path) ->
    run(Path, erlang()).

%% Snippets in another BEAM language (an Elixir driver's).
-spec run(string(), language()) -> ok.
run(Path, Language) ->
    Job = read_job(Path),
    Compiled = [compile_snippet(Language, S) || S <- Job#job.snippets],
    case Job#job.mode of
        check ->
            emit_ready(Compiled);
        _ ->
            %% Across nodes: the other nodes start (ringbench_nodes, as for a
            %% ring) and every snippet's module is built on each before
            %% `ready`; they stop after the last snippet.
            P = ringbench_nodes:setup(#{nodes => Job#job.nodes, n => Job#job.nodes, node_placement => 0}),
            try
                Nodes = cluster_nodes(P),
                prepare_nodes(Job, Compiled, Nodes),
                emit_ready(Compiled),
                process_flag(priority, high),
                process_flag(trap_exit, false),
                [measure(Job, S, Nodes) || S <- Compiled],
                ok
            after
                ringbench_nodes:teardown(P)
            end
    end.

emit_ready(Compiled) ->
    ringbench_json:emit([{type, ready}, {snippets, length(Compiled)},
                         {runner_arity, [S#snip.runner_arity || S <- Compiled]}]).

cluster_nodes(#{cluster := C}) -> ringbench_nodes:members(C);
cluster_nodes(_) -> [node()].

%% Every other node gets the job's code path, the applications this node
%% runs that it lacks (Elixir's, for Elixir snippets), and each snippet's
%% module, built there by the language's own build fun.
prepare_nodes(_Job, _Compiled, [_]) -> ok;
prepare_nodes(Job, Compiled, [_ | Others]) ->
    Apps = [A || {A, _, _} <- application:which_applications(), A =:= elixir],
    [begin
         [erpc:call(Node, code, add_patha, [Dir]) || Dir <- Job#job.code_path],
         [{ok, _} = erpc:call(Node, application, ensure_all_started, [A]) || A <- Apps],
         [ok = erpc:call(Node, fun() -> Build(Mod) end, 60000) || #snip{mod = Mod, build = Build} <- Compiled]
     end || Node <- Others],
    ok.

%% ---------------------------------------------------------------------------
%% The job file

read_job(Path) ->
    Bin = case file:read_file(Path) of
              {ok, B} -> B;
              {error, Why} -> bad("cannot read the job file ~ts: ~ts", [Path, file:format_error(Why)])
          end,
    J = case ringbench_json:decode(Bin) of
            {ok, #{} = M} -> M;
            {ok, _} -> bad("the job file is not a JSON object", []);
            {error, Msg} -> bad("the job file is not JSON: ~ts", [Msg])
        end,
    exact_keys(maps:without(?OPTIONAL_KEYS, J), ?KEYS, "the job"),
    int(J, <<"perf">>, 1, 1),
    Mode = case maps:get(<<"mode">>, J) of
               <<"continuous">> -> continuous;
               <<"timed">> -> timed;
               <<"squeeze">> -> squeeze;
               <<"check">> -> check;
               Other -> bad("unknown mode ~0p (continuous, timed, squeeze or check)", [Other])
           end,
    bool(J, <<"processes">>) andalso
        ringbench:fail(unsupported, "BEAM workers are BEAM processes: there are no OS-process workers "
                       "(processes: true is for runtimes whose threads share one lock)", []),
    Paths = case maps:get(<<"code_path">>, J) of
                L when is_list(L) -> [text(P, "code_path") || P <- L];
                _ -> bad("code_path must be a list of strings", [])
            end,
    [case code:add_patha(P) of
         true -> ok;
         {error, _} -> bad("code path ~ts is not a folder", [P])
     end || P <- Paths],
    Snippets = case maps:get(<<"snippets">>, J) of
                   [_ | _] = Ss -> [snippet(S) || S <- Ss];
                   _ -> bad("snippets must be a non-empty list", [])
               end,
    Nodes = case maps:is_key(<<"nodes">>, J) of
                true -> int(J, <<"nodes">>, 1, 256);
                false -> 1
            end,
    Mode =:= squeeze andalso Nodes > 1 andalso
        bad("squeeze runs on one node: its steps add one worker to one VM (nodes must be 1)", []),
    case maps:is_key(<<"records">>, J) of
        true ->
            Fd = int(J, <<"records">>, 3, 1 bsl 20),
            case ringbench_json:records(Fd) of
                ok -> ok;
                {error, Reason} ->
                    bad("records: descriptor ~b cannot be written: ~ts", [Fd, file:format_error(Reason)])
            end;
        false -> ok
    end,
    #job{mode = Mode, snippets = Snippets,
         concurrency = int(J, <<"concurrency">>, 1, 1 bsl 27),
         loop = int(J, <<"loop">>, 0, 1 bsl 62),
         samples = int(J, <<"samples">>, 1, 1000000),
         sample_ms = int(J, <<"sample_ms">>, 1, 86400000),
         warmup = int(J, <<"warmup">>, 0, 1000000),
         ask = bool(J, <<"ask">>),
         max_samples = int(J, <<"max_samples">>, 1, 1000000),
         min = int(J, <<"min">>, 1, 1 bsl 27),
         max = int(J, <<"max">>, 1, 1 bsl 27),
         stats = bool(J, <<"stats">>),
         nodes = Nodes,
         code_path = Paths}.

snippet(#{} = S) ->
    exact_keys(S, ?SNIPPET_KEYS, "a snippet"),
    K = int(S, <<"snippet">>, 1, 1000000),
    Code = fun(Key) ->
                   case maps:get(Key, S) of
                       null when Key =/= <<"runner">> -> none;
                       V when is_binary(V) -> V;
                       _ -> bad("snippet ~b: ~ts must be a string", [K, Key])
                   end
           end,
    #{k => K, runner => Code(<<"runner">>), init => Code(<<"init">>),
      init_runner => Code(<<"init_runner">>), done => Code(<<"done">>)};
snippet(_) ->
    bad("each snippet must be a JSON object", []).

exact_keys(M, Keys, What) ->
    Missing = [K || K <- Keys, not maps:is_key(K, M)],
    Unknown = [K || K <- maps:keys(M), not lists:member(K, Keys)],
    Missing =:= [] orelse bad("~s has no key ~ts", [What, hd(Missing)]),
    Unknown =:= [] orelse bad("~s has an unknown key ~ts", [What, hd(Unknown)]),
    ok.

int(M, K, Lo, Hi) ->
    case maps:get(K, M) of
        V when is_integer(V), V >= Lo, V =< Hi -> V;
        V -> bad("~ts must be an integer in ~b..~b, got ~ts", [K, Lo, Hi, ringbench_json:encode([{v, V}])])
    end.

bool(M, K) ->
    case maps:get(K, M) of
        V when is_boolean(V) -> V;
        _ -> bad("~ts must be true or false", [K])
    end.

text(V, _) when is_binary(V) -> binary_to_list(V);
text(_, What) -> bad("~s must be a list of strings", [What]).

-spec bad(io:format(), [term()]) -> no_return().
bad(Fmt, Args) ->
    ringbench:fail(bad_param, Fmt, Args).

%% ---------------------------------------------------------------------------
%% Compiling a snippet: its runner and hooks into one module

%% What a piece of code is: a sequence of expressions, function definitions
%% (the first is the one meant), or a reference to an existing function.
parse(K, What, Text) ->
    Trimmed = string:trim(Text),
    case reference(Trimmed) of
        {ok, Ref} -> Ref;
        none -> forms(K, What, Trimmed)
    end.

%% {M, F, Args} (erlperf's MFA) or M:F/Arity.
reference("{" ++ _ = T) ->
    case lists:last(T) of
        $} ->
            case erl_scan:string(T ++ ".") of
                {ok, Tokens, _} ->
                    case erl_parse:parse_term(Tokens) of
                        {ok, {M, F, A}} when is_atom(M), is_atom(F), is_list(A) -> {ok, {mfa, M, F, A}};
                        _ -> none
                    end;
                _ -> none
            end;
        _ -> none
    end;
reference(T) ->
    case re:run(T, "^([a-z][A-Za-z0-9_@]*):([a-z][A-Za-z0-9_@]*)/([0-9]+)$", [{capture, all_but_first, list}]) of
        {match, [M, F, A]} -> {ok, {ref, list_to_atom(M), list_to_atom(F), list_to_integer(A)}};
        nomatch -> none
    end.

forms(K, What, Text0) ->
    %% erlperf asks for the final full stop; it is added when left out.
    Text = case lists:last(Text0) of $. -> Text0; _ -> Text0 ++ "." end,
    Tokens = case erl_scan:string(Text, 1) of
                 {ok, T, _} -> T;
                 {error, {Line, Mod, Err}, _} ->
                     bad("snippet ~b, ~s: line ~p: ~ts", [K, What, Line, Mod:format_error(Err)])
             end,
    case split_forms(Tokens, [], []) of
        [First | _] = All ->
            case erl_parse:parse_form(First) of
                {ok, {function, _, Name, Arity, _}} ->
                    Funs = [case erl_parse:parse_form(F) of
                                {ok, {function, _, _, _, _} = Fun} -> Fun;
                                {ok, {attribute, _, _, _} = Attr} -> Attr;
                                {error, {L, M, E}} -> bad("snippet ~b, ~s: line ~p: ~ts", [K, What, L, M:format_error(E)])
                            end || F <- All],
                    {funs, Name, Arity, Funs};
                _ when length(All) > 1 ->
                    bad("snippet ~b, ~s: more than one expression sequence (end the code with one full stop)",
                        [K, What]);
                _ ->
                    case erl_parse:parse_exprs(First) of
                        {ok, Exprs} -> {exprs, Exprs};
                        {error, {L, M, E}} -> bad("snippet ~b, ~s: line ~p: ~ts", [K, What, L, M:format_error(E)])
                    end
            end;
        [] ->
            bad("snippet ~b, ~s: no code", [K, What])
    end.

split_forms([], [], Acc) -> lists:reverse(Acc);
split_forms([], Cur, Acc) -> lists:reverse([lists:reverse(Cur) | Acc]);
split_forms([{dot, _} = Dot | T], Cur, Acc) -> split_forms(T, [], [lists:reverse([Dot | Cur]) | Acc]);
split_forms([Tok | T], Cur, Acc) -> split_forms(T, [Tok | Cur], Acc).

arity({exprs, _}) -> 0;
arity({funs, _, A, _}) -> A;
arity({mfa, _, _, _}) -> 0;
arity({ref, _, _, A}) -> A.

%% The language's compile fun reads every piece; the arities are checked
%% here, the same for every language; then the module is built and loaded.
compile_snippet(#{compile := Compile, exception := Exception}, #{k := K} = S) ->
    Code = maps:with([runner, init, init_runner, done], S),
    {Arities, Build} = Compile(K, Code),
    #{runner := RA, init := Init, init_runner := IR, done := Done} = Arities,
    check_arities(K, RA, Init, IR, Done),
    Mod = list_to_atom("ringbench_perf_snippet_" ++ integer_to_list(K)),
    ok = Build(Mod),
    #snip{k = K, mod = Mod, exception = Exception, runner_arity = RA, init = Init =/= none,
          init_runner = IR, done = Done, build = Build}.

%% ---------------------------------------------------------------------------
%% Erlang, the language of run/1

-spec erlang() -> language().
erlang() ->
    #{compile => fun erlang_compile/2, exception => fun exception_text/3}.

erlang_compile(K, Code) ->
    Piece = fun(Name) ->
                    case maps:get(Name, Code) of
                        none -> none;
                        Text -> parse(K, atom_to_list(Name), binary_to_list(Text))
                    end
            end,
    [Runner, Init, InitRunner, Done] = [Piece(P) || P <- [runner, init, init_runner, done]],
    RA = arity(Runner),
    Arity = fun(none) -> none; (C) -> arity(C) end,
    Arities = #{runner => RA, init => Arity(Init), init_runner => Arity(InitRunner),
                done => Arity(Done)},
    {Arities, fun(Mod) -> erlang_build(K, Mod, Runner, Init, InitRunner, Done) end}.

erlang_build(K, Mod, Runner, Init, InitRunner, Done) ->
    Forms = [{attribute, 1, module, Mod}]
        ++ user_forms([Runner, Init, InitRunner, Done])
        ++ hook_fun(init, Init) ++ hook_fun(init_runner, InitRunner) ++ hook_fun(done, Done)
        ++ loops(Runner, arity(Runner)),
    Bin = case compile:forms(Forms, [binary, return_errors, export_all, nowarn_export_all,
                                     no_spawn_compiler_process]) of
              {ok, Mod, B} -> B;
              {ok, Mod, B, _Warnings} -> B;
              {error, Errors, _} -> bad("snippet ~b: ~ts", [K, compile_errors(Errors)])
          end,
    {module, Mod} = code:load_binary(Mod, "snippet " ++ integer_to_list(K), Bin),
    ok.

check_arities(K, RA, Init, IR, Done) ->
    RA > 2 andalso bad("snippet ~b: the runner takes ~b arguments; it may take 0, 1 (init_runner's value) "
                       "or 2 (that value and the state)", [K, RA]),
    RA > 0 andalso IR =:= none andalso
        bad("snippet ~b: runner/~b requires init_runner (it is given init_runner's value)", [K, RA]),
    Init =/= none andalso Init > 0 andalso bad("snippet ~b: init takes no arguments (init/~b)", [K, Init]),
    IR =/= none andalso IR > 1 andalso
        bad("snippet ~b: init_runner takes 0 or 1 argument (init's value), not ~b", [K, IR]),
    IR =:= 1 andalso Init =:= none andalso
        bad("snippet ~b: init_runner/1 requires init (it is given init's value)", [K]),
    Done =/= none andalso Done > 1 andalso
        bad("snippet ~b: done takes 0 or 1 argument (init's value), not ~b", [K, Done]),
    Done =:= 1 andalso Init =:= none andalso
        bad("snippet ~b: done/1 requires init (it is given init's value)", [K]),
    ok.

compile_errors(Errors) ->
    lists:join("; ", [io_lib:format("line ~p: ~ts", [line(Loc), M:format_error(E)])
                      || {_File, Es} <- Errors, {Loc, M, E} <- Es]).

line({L, _Col}) -> L;
line(L) -> L.

user_forms(Parsed) ->
    lists:append([Fs || {funs, _, _, Fs} <- Parsed]).

%% Each hook becomes ringbench_perf_<hook>/0 or /1: expressions inlined, a
%% function or a reference called; so the job and the workers call
%% Mod:ringbench_perf_<hook>(...) whatever the user wrote.
hook_fun(_Name, none) ->
    [];
hook_fun(Name, {exprs, Exprs}) ->
    [fn(hook_name(Name), [], Exprs)];
hook_fun(Name, Parsed) ->
    Args = [{var, 1, 'RingbenchPerfI'} || arity(Parsed) =:= 1],
    [fn(hook_name(Name), Args, [call(Parsed, Args)])].

hook_name(init) -> ringbench_perf_init;
hook_name(init_runner) -> ringbench_perf_init_runner;
hook_name(done) -> ringbench_perf_done.

%% The runner's loops, erlperf's shapes: the continuous one counted by its
%% calls, the timed one counting down (arity: the runner's, plus the count).
loops(Runner, RA) ->
    [A, S, N] = [{var, 1, 'RingbenchPerfA'}, {var, 1, 'RingbenchPerfS'}, {var, 1, 'RingbenchPerfN'}],
    Minus = {op, 1, '-', N, {integer, 1, 1}},
    Under = {var, 1, '_'},
    case RA of
        2 ->
            Call = call(Runner, [A, S]),
            [fn(?LOOP, [A, S], [{call, 1, {atom, 1, ?LOOP}, [A, Call]}]),
             {function, 1, ?TIMED, 3,
              [{clause, 1, [{integer, 1, 0}, Under, S], [], [S]},
               {clause, 1, [N, A, S], [], [{call, 1, {atom, 1, ?TIMED}, [Minus, A, Call]}]}]}];
        _ ->
            Args = [A || RA =:= 1],
            Body = body(Runner, call(Runner, Args)),
            [fn(?LOOP, Args, Body ++ [{call, 1, {atom, 1, ?LOOP}, Args}]),
             {function, 1, ?TIMED, RA + 1,
              [{clause, 1, [{integer, 1, 0} | [Under || RA =:= 1]], [], [{atom, 1, ok}]},
               {clause, 1, [N | Args], [], Body ++ [{call, 1, {atom, 1, ?TIMED}, [Minus | Args]}]}]}]
    end.

fn(Name, Args, Body) ->
    {function, 1, Name, length(Args), [{clause, 1, Args, [], Body}]}.

%% An expression runner is inlined; anything else is called.
body({exprs, Exprs}, none) -> Exprs;
body(_, Call) -> [Call].

call({exprs, _}, _) -> none;
call({funs, Name, _, _}, Args) -> {call, 1, {atom, 1, Name}, Args};
call({mfa, M, F, A}, []) ->
    {call, 1, {remote, 1, {atom, 1, erlang}, {atom, 1, apply}}, [{atom, 1, M}, {atom, 1, F}, erl_parse:abstract(A)]};
call({ref, M, F, _}, Args) -> {call, 1, {remote, 1, {atom, 1, M}, {atom, 1, F}}, Args}.

%% ---------------------------------------------------------------------------
%% Measuring one snippet
%%
%% On K nodes (the job's `nodes`), all of it runs on every node at once: a
%% job per node (init once per node, so that what it makes, an ETS table or
%% a counter, is that node's; done once per node with that node's value),
%% the workers on every node (Concurrency each, init_runner in each), and
%% the call-count tracing of the loop, enabled and read on each node (a
%% count is per node). A sample reads every node's count at once (erpc's
%% multicall) and prints a record per node, then their sum. With one node
%% everything stays in this VM and the records are those of a single node.

measure(Job, S, Nodes) ->
    phase(S, init),
    Jobs = [start_job(S, Node) || Node <- Nodes],
    Is = [receive
              {init_done, JobPid, Value} -> Value;
              {'DOWN', _, process, JobPid, Why} -> failed(S, Why)
          end || JobPid <- Jobs],
    case Job#job.mode of
        timed -> timed(Job, S, Nodes, Is);
        continuous -> sampled(Job, S, Nodes, Is, [Job#job.concurrency]);
        squeeze -> sampled(Job, S, Nodes, Is, lists:seq(Job#job.min, Job#job.max))
    end,
    phase(S, done),
    [JobPid ! {done, self()} || JobPid <- Jobs],
    [receive
         {done_ok, JobPid} -> ok;
         {'DOWN', _, process, JobPid, Why2} -> failed(S, Why2)
     end || JobPid <- Jobs],
    [trace(S, Node, false) || Node <- Nodes],
    ringbench_json:emit([{type, finished}, {snippet, S#snip.k}]).

phase(#snip{k = K}, Phase) ->
    ringbench_json:emit([{type, phase}, {snippet, K}, {phase, Phase}]).

%% The job on Node: init, then wait; done when asked. Monitored by the driver.
start_job(S, Node) ->
    Ctl = self(),
    {Pid, _} = spawn_monitor(
                 Node,
                 fun() ->
                         quiet(),
                         I = guarded(init, fun() -> call_init(S) end),
                         Ctl ! {init_done, self(), I},
                         receive {done, Ctl} -> ok end,
                         guarded(done, fun() -> call_done(S, I) end),
                         Ctl ! {done_ok, self()}
                 end),
    Pid.

call_init(#snip{init = false}) -> undefined;
call_init(#snip{mod = Mod}) -> Mod:ringbench_perf_init().

call_init_runner(#snip{init_runner = none}, _I) -> undefined;
call_init_runner(#snip{mod = Mod, init_runner = 0}, _I) -> Mod:ringbench_perf_init_runner();
call_init_runner(#snip{mod = Mod, init_runner = 1}, I) -> Mod:ringbench_perf_init_runner(I).

call_done(#snip{done = none}, _I) -> ok;
call_done(#snip{mod = Mod, done = 0}, _I) -> Mod:ringbench_perf_done();
call_done(#snip{mod = Mod, done = 1}, I) -> Mod:ringbench_perf_done(I).

%% What a snippet prints goes to stderr: stdout carries only records. (On
%% another local node: that node's stderr, which is the driver's.)
quiet() ->
    case whereis(standard_error) of
        undefined -> ok;
        Err -> group_leader(Err, self())
    end.

%% A hook or the runner that raises ends its process with the phase and the
%% exception, which the driver reports.
guarded(Phase, Fun) ->
    try Fun()
    catch Class:Reason:Stack -> exit({ringbench_perf, Phase, Class, Reason, Stack})
    end.

-spec failed(#snip{}, term()) -> no_return().
failed(#snip{k = K, exception = Text}, {ringbench_perf, Phase, Class, Reason, Stack}) ->
    throw({ringbench_error, failure, Text(Class, Reason, Stack), [{snippet, K}, {phase, Phase}]});
failed(#snip{k = K}, Why) ->
    throw({ringbench_error, failure, lists:flatten(io_lib:format("a process of the snippet died: ~0p", [Why])),
           [{snippet, K}, {phase, runner}]}).

%% The runtime's own words, without the driver's frames: the first lines of
%% erl_error's text, up to the first "in call from".
exception_text(Class, Reason, Stack) ->
    Text = unicode:characters_to_list(erl_error:format_exception(Class, Reason, Stack)),
    Lines = [string:trim(L) || L <- string:split(Text, "\n", all), string:trim(L) =/= ""],
    Kept = lists:takewhile(fun(L) -> not lists:prefix("in call from", L) end, Lines),
    lists:flatten(lists:join("; ", lists:sublist(Kept, 3))).

%% Workers: N on each node (given that node's init value); each runs
%% init_runner, says so, waits for go, loops.
start_workers(S, NodeIs, N, PerNode) ->
    Ctl = self(),
    Mod = S#snip.mod,
    Workers = [spawn_opt(
                 Node,
                 fun() ->
                         quiet(),
                         A = guarded(init_runner, fun() -> call_init_runner(S, I) end),
                         Ctl ! {ready, self()},
                         receive go -> ok end,
                         guarded(runner, fun() ->
                                                 case S#snip.runner_arity of
                                                     0 -> Mod:?LOOP();
                                                     1 -> Mod:?LOOP(A);
                                                     2 -> Mod:?LOOP(A, A)
                                                 end
                                         end)
                 end, worker_options(PerNode)) || {Node, I} <- NodeIs, _ <- lists:seq(1, N)],
    [receive
         {ready, Pid} -> ok;
         {'DOWN', _, process, Pid, Why} -> failed(S, Why)
     end || {Pid, _} <- Workers],
    Workers.

%% A worker's heap starts at ?WORKER_HEAP words, not at a fresh process's
%% 233: with 233 a snippet that allocates collects every few iterations
%% (rand:uniform(): a minor collection every 15), which a loop in a shell
%% or `erl -eval` process (987 words when it starts, grown since) does
%% not: 643,000 collections in 10M rand:uniform() calls at 233 words,
%% 52,000 at 1,598, and 9 ns an iteration between them. Up to
%% ?HEAP_WORKERS workers a node (12.5 MB of heaps); more keep the default.
%% A snippet wanting erlperf's fresh heap says so in init_runner
%% (process_flag(min_heap_size, 233)).
-define(WORKER_HEAP, 1598).
-define(HEAP_WORKERS, 1000).

worker_options(PerNode) when PerNode =< ?HEAP_WORKERS -> [monitor, {min_heap_size, ?WORKER_HEAP}];
worker_options(_) -> [monitor].

release(Workers) ->
    [Pid ! go || {Pid, _} <- Workers],
    ok.

stop(Workers) ->
    [begin demonitor(Ref, [flush]), exit(Pid, kill) end || {Pid, Ref} <- Workers],
    [begin
         Ref = monitor(process, Pid),
         receive {'DOWN', Ref, process, Pid, _} -> ok end
     end || {Pid, _} <- Workers],
    ok.

%% Call-count tracing of the loop on Node (on or off).
trace(#snip{mod = Mod, runner_arity = RA}, Node, On) when Node =:= node() ->
    erlang:trace_pattern({Mod, ?LOOP, RA}, On, [local, call_count]);
trace(#snip{mod = Mod, runner_arity = RA}, Node, On) ->
    erpc:call(Node, erlang, trace_pattern, [{Mod, ?LOOP, RA}, On, [local, call_count]]).

-spec node_count(module(), 0..2) -> {integer(), non_neg_integer()}.
node_count(Mod, RA) ->
    Now = ringbench_clock:now_ns(),
    {Now, loop_count(Mod, RA)}.

loop_count(Mod, RA) ->
    case erlang:trace_info({Mod, ?LOOP, RA}, call_count) of
        {call_count, N} when is_integer(N) -> N;
        _ -> 0
    end.

%% Each node's clock (ns) and count, read at once (one node: this VM's).
counts(#snip{mod = Mod, runner_arity = RA}, [Node]) when Node =:= node() ->
    [node_count(Mod, RA)];
counts(#snip{mod = Mod, runner_arity = RA}, Nodes) ->
    [case R of
         {ok, V} -> V;
         {Class, Reason} -> ringbench:fail(failure, "could not read a node's count: ~p:~0p", [Class, Reason])
     end || R <- erpc:multicall(Nodes, ?MODULE, node_count, [Mod, RA], 10000)].

%% Continuous (one step of Concurrency workers a node) and squeeze (a step
%% for each worker count, workers added to the running ones).
sampled(Job, S, Nodes, Is, Steps) ->
    [1 = trace(S, Node, true) || Node <- Nodes],
    Stats = stats_start(Job),
    T0s = [T || {T, _} <- counts(S, Nodes)],
    Workers = sampled_steps(Job, S, lists:zip(Nodes, Is), Steps, 1, [], T0s, Stats),
    stop(Workers),
    Counts = [C || {_, C} <- counts(S, Nodes)],
    %% A call is counted when it starts: each stopped worker was in one
    %% that had not returned (a runner that never returns: its one call).
    PerNode = length(Workers) div length(Nodes),
    emit_totals(S, Nodes, Counts, [min(C, PerNode) || C <- Counts]).

sampled_steps(_Job, _S, _NodeIs, [], _Step, Workers, _T0s, _Stats) ->
    Workers;
sampled_steps(Job, S, NodeIs, [Want | More], Step, Workers, T0s, Stats) ->
    phase(S, init_runner),
    New = start_workers(S, NodeIs, Want - length(Workers) div length(NodeIs), Want),
    All = Workers ++ New,
    phase(S, running),
    release(New),
    Nodes = [N || {N, _} <- NodeIs],
    [{Start, _} | _] = Counts = counts(S, Nodes),
    emit_samples(S, Step, Want, 0, Counts, T0s),
    Stats1 = take_samples(Job, S, Step, Want, All, {Nodes, T0s}, Start, Stats),
    case More of
        [] -> All;
        _ ->
            ringbench_json:emit([{type, step}, {snippet, S#snip.k}, {step, Step}, {concurrency, Want}]),
            case answer(All, S) of
                more -> sampled_steps(Job, S, NodeIs, More, Step + 1, All, T0s, Stats1);
                enough -> All
            end
    end.

%% Warm-ups and counted samples on absolute deadlines from Start; with ask,
%% after each counted sample from the samples-th on, the orchestrator says
%% whether to go on (never beyond max_samples).
take_samples(Job, S, Step, Conc, Workers, Clocks, Start, Stats) ->
    #job{samples = N, warmup = W, ask = Ask, max_samples = Max, sample_ms = Ms} = Job,
    Last = case Ask of true -> W + max(N, Max); false -> W + N end,
    take(1, Job, S, Step, Conc, Workers, Clocks, Start, Stats, {W, N, Ask, Last, Ms}).

take(Seq, Job, S, Step, Conc, Workers, {Nodes, T0s} = Clocks, Start, Stats, {W, N, Ask, Last, Ms} = Plan) ->
    wait_until(Start + Seq * Ms * 1000000, Workers, S),
    emit_samples(S, Step, Conc, Seq, counts(S, Nodes), T0s),
    Stats1 = stats_sample(Job, S, Step, Seq, Stats),
    Counted = Seq - W,
    if
        Seq >= Last -> Stats1;
        Ask, Counted >= N ->
            case answer(Workers, S) of
                more -> take(Seq + 1, Job, S, Step, Conc, Workers, Clocks, Start, Stats1, Plan);
                enough -> Stats1
            end;
        true -> take(Seq + 1, Job, S, Step, Conc, Workers, Clocks, Start, Stats1, Plan)
    end.

%% One node: its sample. Several: a sample per node (its own clock since
%% its own start, its own count, its workers), then their sum (node 0's
%% clock, every worker).
emit_samples(S, Step, Conc, Seq, [{Now, Count}], [T0]) ->
    emit_sample(S, Step, Conc, Seq, Now - T0, Count, []);
emit_samples(S, Step, Conc, Seq, Counts, T0s) ->
    Js = lists:seq(0, length(Counts) - 1),
    [emit_sample(S, Step, Conc, Seq, Now - T0, C, [{node, J}])
     || {J, {Now, C}, T0} <- lists:zip3(Js, Counts, T0s)],
    [{Now0, _} | _] = Counts,
    emit_sample(S, Step, Conc * length(Counts), Seq, Now0 - hd(T0s), lists:sum([C || {_, C} <- Counts]), []).

emit_sample(S, Step, Conc, Seq, Elapsed, Count, Node) ->
    ringbench_json:emit([{type, sample}, {snippet, S#snip.k}, {step, Step}, {concurrency, Conc},
                         {seq, Seq}, {elapsed_ns, Elapsed}, {count, Count}] ++ Node).

%% The iterations in all: one node's; or each node's (with its name), then
%% their sum. Unfinished: of those, the calls under way when the workers
%% were stopped (counted, never returned), where there are any.
emit_totals(S, Nodes, Counts) ->
    emit_totals(S, Nodes, Counts, [0 || _ <- Counts]).

emit_totals(S, [_], [Count], [U]) ->
    ringbench_json:emit([{type, total}, {snippet, S#snip.k}, {count, Count}] ++ unfinished(U));
emit_totals(S, Nodes, Counts, Us) ->
    Js = lists:seq(0, length(Nodes) - 1),
    [ringbench_json:emit([{type, total}, {snippet, S#snip.k}, {count, C}, {node, J},
                          {name, atom_to_binary(Node, utf8)}] ++ unfinished(U))
     || {J, Node, {C, U}} <- lists:zip3(Js, Nodes, lists:zip(Counts, Us))],
    ringbench_json:emit([{type, total}, {snippet, S#snip.k}, {count, lists:sum(Counts)}]
                        ++ unfinished(lists:sum(Us))).

unfinished(0) -> [];
unfinished(U) -> [{unfinished, U}].

%% Sleep until the deadline (ns, monotonic), or fail at once if a worker died.
wait_until(DeadlineNs, Workers, S) ->
    Ms = (DeadlineNs - ringbench_clock:now_ns() + 999999) div 1000000,
    Pids = [P || {P, _} <- Workers],
    receive
        {'DOWN', _, process, Pid, Why} ->
            case lists:member(Pid, Pids) of
                true -> failed(S, Why);
                false -> wait_until(DeadlineNs, Workers, S)
            end
    after max(Ms, 0) ->
            case ringbench_clock:now_ns() < DeadlineNs of
                true -> wait_until(DeadlineNs, Workers, S);
                false -> ok
            end
    end.

%% One line of stdin: more, or enough (end of file too).
answer(Workers, S) ->
    Port = stdin(),
    Pids = [P || {P, _} <- Workers],
    receive
        {Port, {data, {eol, <<"more">>}}} -> more;
        {Port, {data, {eol, <<"enough">>}}} -> enough;
        {Port, {data, {eol, Other}}} ->
            ringbench:fail(bad_param, "expected more or enough on stdin, got ~0p", [Other]);
        {Port, {data, {noeol, _}}} -> answer(Workers, S);
        {Port, eof} -> enough;
        {'DOWN', _, process, Pid, Why} ->
            case lists:member(Pid, Pids) of
                true -> failed(S, Why);
                false -> answer(Workers, S)
            end
    end.

%% erl runs with -noinput: nothing else reads fd 0.
stdin() ->
    case get(ringbench_perf_stdin) of
        undefined ->
            Port = open_port({fd, 0, 2}, [in, binary, {line, 256}, eof]),
            put(ringbench_perf_stdin, Port),
            Port;
        Port -> Port
    end.

%% Timed: one worker a node; warm-ups untimed, then each sample of exactly
%% Loop iterations timed in the worker and reported by the driver. The
%% nodes' workers run each sample together: all are told to go, and the
%% next sample starts once every one has reported (one node: the same,
%% with the one worker).
timed(Job, S, Nodes, Is) ->
    #job{loop = Loop, samples = N, warmup = W} = Job,
    Ctl = self(),
    Mod = S#snip.mod,
    RA = S#snip.runner_arity,
    phase(S, init_runner),
    Workers = [spawn_opt(
                 Node,
                 fun() ->
                         quiet(),
                         A = guarded(init_runner, fun() -> call_init_runner(S, I) end),
                         _ = ringbench_clock:cpu_source(),
                         Ctl ! {ready, self()},
                         guarded(runner, fun() -> timed_samples(Ctl, Mod, RA, Loop, A) end)
                 end, worker_options(1)) || {Node, I} <- lists:zip(Nodes, Is)],
    [receive
         {ready, Pid} -> ok;
         {'DOWN', _, process, Pid, Why} -> failed(S, Why)
     end || {Pid, _} <- Workers],
    phase(S, running),
    _ = ringbench_clock:cpu_source(),
    lists:foreach(
      fun(It) ->
              [Pid ! {go, Ctl} || {Pid, _} <- Workers],
              Got = [receive
                         {timed, Pid, Ns, CpuNs} -> {Ns, CpuNs};
                         {'DOWN', _, process, Pid, Why2} -> failed(S, Why2)
                     end || {Pid, _} <- Workers],
              It > W andalso emit_results(S, It - W, Loop, Got)
      end, lists:seq(1, W + N)),
    [Pid ! {stop, Ctl} || {Pid, _} <- Workers],
    [receive {'DOWN', _, process, Pid, _} -> ok end || {Pid, _} <- Workers],
    emit_totals(S, Nodes, [Loop * (W + N) || _ <- Nodes]).

emit_results(S, It, Loop, [{Ns, CpuNs}]) ->
    emit_result(S, It, Loop, Ns, CpuNs, []);
emit_results(S, It, Loop, Got) ->
    [emit_result(S, It, Loop, Ns, CpuNs, [{node, J}])
     || {J, {Ns, CpuNs}} <- lists:zip(lists:seq(0, length(Got) - 1), Got)],
    true.

emit_result(S, It, Loop, Ns, CpuNs, Node) ->
    ringbench_json:emit([{type, result}, {workload, perf}, {snippet, S#snip.k}, {iteration, It},
                         {loop, Loop}, {count, Loop}, {run_ns, Ns}, {run_cpu_ns, CpuNs}] ++ Node),
    true.

%% Each sample (told by the driver) starts runner/2's state from
%% init_runner's value, as erlperf's timed samples do (each is a fresh
%% sample worker there).
timed_samples(Ctl, Mod, RA, Loop, A) ->
    receive
        {go, Ctl} ->
            C0 = ringbench_clock:cpu_ns(),
            T0 = ringbench_clock:now_ns(),
            _ = case RA of
                    0 -> Mod:?TIMED(Loop);
                    1 -> Mod:?TIMED(Loop, A);
                    2 -> Mod:?TIMED(Loop, A, A)
                end,
            T1 = ringbench_clock:now_ns(),
            C1 = ringbench_clock:cpu_ns(),
            Ctl ! {timed, self(), T1 - T0, C1 - C0},
            timed_samples(Ctl, Mod, RA, Loop, A);
        {stop, Ctl} ->
            ok
    end.

%% ---------------------------------------------------------------------------
%% -v: what the VM tells cheaply, after each sample

stats_start(#job{stats = false}) -> none;
stats_start(#job{stats = true}) ->
    erlang:system_flag(scheduler_wall_time, true),
    stats_now().

stats_now() ->
    {Reductions, _} = erlang:statistics(reductions),
    {Collections, _, _} = erlang:statistics(garbage_collection),
    #{reductions => Reductions, gc_count => Collections,
      wall => lists:sort(erlang:statistics(scheduler_wall_time))}.

stats_sample(#job{stats = false}, _S, _Step, _Seq, none) -> none;
stats_sample(_Job, S, Step, Seq, Before) ->
    After = stats_now(),
    Pairs = lists:zip(maps:get(wall, Before), maps:get(wall, After)),
    Normal = erlang:system_info(schedulers),
    {Active, Total} = lists:foldl(
                        fun({{Id, A0, T0}, {Id, A1, T1}}, {AA, TT}) when Id =< Normal -> {AA + A1 - A0, TT + T1 - T0};
                           (_, Acc) -> Acc
                        end, {0, 0}, Pairs),
    Util = case Total of 0 -> 0.0; _ -> round(Active / Total * 10000) / 100 end,
    ringbench_json:emit(
      [{type, stats}, {workload, perf}, {snippet, S#snip.k}, {step, Step}, {seq, Seq},
       {reductions, maps:get(reductions, After) - maps:get(reductions, Before)},
       {gc_count, maps:get(gc_count, After) - maps:get(gc_count, Before)},
       {scheduler_utilisation_pct, Util},
       {process_count, erlang:system_info(process_count)},
       {run_queue, erlang:statistics(total_run_queue_lengths_all)},
       {memory_total, erlang:memory(total)}, {memory_processes, erlang:memory(processes)},
       {memory_ets, erlang:memory(ets)}]),
    After.
