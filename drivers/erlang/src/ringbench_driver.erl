%% ringbench driver for Erlang/OTP: Joe Armstrong's process ring and friends.
%%
%% Invocation (see docs/driver-contract.md):
%%   erl ... -s ringbench_driver main -extra describe
%%   erl ... -s ringbench_driver main -extra run <workload> key=value ...
%%
%% Every concurrent entity is a plain BEAM process running a tail-recursive
%% receive loop; every message is a real send (Pid ! Msg). Timed phases touch
%% nothing but the workload: the clocks (monotonic ns, process CPU ns) are read
%% at the phase boundaries, RSS and the VM's memory accounting outside them.
-module(ringbench_driver).
-export([main/0]).
%% Spawned by module, function and arguments, not from a fun (ring).
-export([ring_enter/2, ring_last/1]).

-define(RING_MAIN, ringbench_ring_main).
-define(MAX_N, 100000000).
-define(MAX_M, 1000000000).
-define(MAX_REPEATS, 1000000).
-define(MAX_TRACE, 100).
-define(MAX_SAMPLE_MS, 86400000).
-define(MAX_SAMPLES, 1000000).
-define(MAX_CORES, 1024).
-define(LIMIT_2_62, (1 bsl 62)).

-define(WORKLOADS, ["ring", "spawn", "pingpong", "fanin", "selective", "trace"]).

%% ---------------------------------------------------------------------------
%% Entry point

main() ->
    Args = init:get_plain_arguments(),
    %% Run in a fresh process (not the one init uses for -s), so that nothing
    %% of the boot sequence shares our heap or mailbox.
    {Pid, Ref} = spawn_monitor(fun() -> run_main(Args) end),
    receive
        {'DOWN', Ref, process, Pid, Reason} ->
            finish_error(failure, fmt("driver process died: ~0p", [Reason]))
    end.

run_main(Args) ->
    try
        dispatch(Args),
        halt_flush(0)
    catch
        throw:{rb_error, Kind, Msg} ->
            finish_error(Kind, Msg);
        error:system_limit ->
            %% The one limit the VM reports as an exception rather than by
            %% dying: a full process table (or, rarely, another table).
            finish_error(limit, system_limit_message());
        Class:Reason:Stack ->
            finish_error(failure, fmt("~p:~0p at ~0p", [Class, Reason, Stack]))
    end.

finish_error(Kind, Msg) ->
    emit([{"type", "error"}, {"kind", atom_to_list(Kind)}, {"message", Msg}]),
    halt_flush(exit_code(Kind)).

exit_code(bad_param) -> 2;
exit_code(unknown_workload) -> 2;
exit_code(unsupported) -> 2;
exit_code(limit) -> 3;
exit_code(failure) -> 1.

%% io:put_chars/1 is synchronous (the io server has handed the bytes to the
%% port when it returns); halt/2 with flush drains the port before exiting.
halt_flush(Code) ->
    erlang:halt(Code, [{flush, true}]).

system_limit_message() ->
    Count = erlang:system_info(process_count),
    Limit = erlang:system_info(process_limit),
    case Count >= Limit - 1 of
        true ->
            fmt("process limit: the BEAM process table is full (~p of ~p processes); "
                "raise it with erl +P (the manifest passes +P {max_procs})", [Count, Limit]);
        false ->
            fmt("a BEAM system limit was reached (processes ~p of ~p, ports ~p of ~p, atoms ~p of ~p)",
                [Count, Limit, erlang:system_info(port_count), erlang:system_info(port_limit),
                 erlang:system_info(atom_count), erlang:system_info(atom_limit)])
    end.

fail(Kind, Fmt, Args) ->
    throw({rb_error, Kind, fmt(Fmt, Args)}).

fmt(Fmt, Args) ->
    lists:flatten(io_lib:format(Fmt, Args)).

%% ---------------------------------------------------------------------------
%% Command line

dispatch([]) ->
    fail(bad_param, "usage: <command> describe | run <workload> key=value ...", []);
dispatch(["describe"]) ->
    describe();
dispatch(["describe" | Extra]) ->
    fail(bad_param, "describe takes no arguments, got '~ts'", [lists:join(" ", Extra)]);
dispatch(["run"]) ->
    fail(bad_param, "run needs a workload: one of ~ts", [lists:join(", ", ?WORKLOADS)]);
dispatch(["run", Workload | KVs]) ->
    case lists:member(Workload, ?WORKLOADS) of
        false ->
            fail(unknown_workload, "unknown workload '~ts' (known: ~ts)",
                 [Workload, lists:join(", ", ?WORKLOADS)]);
        true ->
            P = parse_params(Workload, KVs),
            apply_cores(P),
            run_workload(Workload, P)
    end;
dispatch([Verb | _]) ->
    fail(bad_param, "unknown verb '~ts' (expected describe or run)", [Verb]).

describe() ->
    emit([{"type", "describe"}, {"contract", 2}, {"name", "erlang"},
          {"runtime", "Erlang/OTP"}, {"version", version()},
          {"workloads", {list, ?WORKLOADS}},
          {"features", {list, ["tokens", "continuous", "stats"]}},
          {"variant", ""}]).

version() ->
    Rel = erlang:system_info(otp_release),
    File = filename:join([code:root_dir(), "releases", Rel, "OTP_VERSION"]),
    Otp = case file:read_file(File) of
              {ok, B} -> string:trim(binary_to_list(B));
              _ -> Rel
          end,
    fmt("~s (erts-~s, ~p)", [Otp, erlang:system_info(version),
                            erlang:system_info(emu_flavor)]).

%% Key specs: {Key, Default | required, Min, Max}.
common_keys() ->
    [{"repeats", 1, 1, ?MAX_REPEATS},
     {"warmup", 0, 0, ?MAX_REPEATS},
     {"cores", undefined, 1, ?MAX_CORES},
     {"sample_ms", 0, 0, ?MAX_SAMPLE_MS},
     {"samples", 3, 1, ?MAX_SAMPLES},
     {"stats", 0, 0, 1}].

workload_keys("ring") ->
    %% m is required except in continuous mode (checked below)
    [{"n", required, 1, ?MAX_N}, {"m", undefined, 1, ?MAX_M},
     {"tokens", 1, 1, ?MAX_N}, {"burst", 0, 0, 1}];
workload_keys("spawn") -> [{"n", required, 1, ?MAX_N}];
workload_keys("pingpong") -> [{"m", required, 1, ?MAX_M}];
workload_keys("fanin") -> [{"n", required, 1, ?MAX_N}, {"m", required, 1, ?MAX_M}];
workload_keys("selective") ->
    [{"n", required, 1, ?MAX_N}, {"m", required, 1, ?MAX_M}, {"reverse", 0, 0, 1}];
workload_keys("trace") ->
    [{"n", required, 1, ?MAX_TRACE}, {"m", required, 1, ?MAX_TRACE}].

parse_params(W, KVs) ->
    Specs = workload_keys(W) ++ common_keys(),
    Given = parse_kvs(W, KVs, Specs, #{}),
    P0 = maps:from_list(
           [{K, case maps:find(K, Given) of
                    {ok, V} -> V;
                    error when Def =:= required ->
                        fail(bad_param, "missing required key ~s for workload ~s", [K, W]);
                    error -> Def
                end} || {K, Def, _, _} <- Specs]),
    cross_checks(W, P0).

parse_kvs(_W, [], _Specs, Acc) -> Acc;
parse_kvs(W, [Arg | Rest], Specs, Acc) ->
    {K, VStr} = case string:split(Arg, "=") of
                    [K0, V0] -> {K0, V0};
                    _ -> fail(bad_param, "argument '~ts' is not key=value", [Arg])
                end,
    case lists:keyfind(K, 1, Specs) of
        false ->
            fail(bad_param, "unknown key '~ts' for workload ~s (known: ~s)",
                 [K, W, lists:join(", ", [Kn || {Kn, _, _, _} <- Specs])]);
        {K, _, Min, Max} ->
            case maps:is_key(K, Acc) of
                true -> fail(bad_param, "key ~s given twice", [K]);
                false -> ok
            end,
            V = parse_int(K, VStr, Min, Max),
            parse_kvs(W, Rest, Specs, Acc#{K => V})
    end.

parse_int(K, S, Min, Max) ->
    case is_decimal(S) of
        true ->
            V = list_to_integer(S),
            if
                V < Min; V > Max -> bound_error(K, S, Min, Max);
                true -> V
            end;
        false ->
            bound_error(K, S, Min, Max)
    end.

bound_error(K, S, Min, Max) when Max >= 1 bsl 40 ->
    fail(bad_param, "~s must be an integer >= ~p, got '~ts'", [K, Min, S]);
bound_error(K, S, Min, Max) ->
    fail(bad_param, "~s must be an integer between ~p and ~p, got '~ts'", [K, Min, Max, S]).

%% ASCII digits only: no sign, no blanks, not empty.
is_decimal([]) -> false;
is_decimal(Ds) -> lists:all(fun(C) -> C >= $0 andalso C =< $9 end, Ds).

cross_checks("ring", #{"n" := N, "m" := M0, "tokens" := T, "sample_ms" := S} = P) ->
    M = case M0 of
            undefined when S > 0 -> 1;   % continuous mode ignores m
            undefined -> fail(bad_param, "missing required key m for workload ring", []);
            _ -> M0
        end,
    T =< N orelse
        fail(bad_param, "tokens must be an integer between 1 and n (~p), got '~p'", [N, T]),
    N * M * T < ?LIMIT_2_62 orelse
        fail(bad_param, "n*m*tokens must be < 2^62, got ~p", [N * M * T]),
    P#{"m" := M};
cross_checks("fanin", #{"n" := N, "m" := M}) when N * M >= ?LIMIT_2_62 ->
    fail(bad_param, "n*m must be < 2^62, got ~p", [N * M]);
cross_checks(W, #{"sample_ms" := S} = P) ->
    S =:= 0 orelse
        fail(bad_param, "sample_ms > 0 (continuous mode) is only defined for workload ring, not ~s", [W]),
    P.

%% cores= is informational when +S already set the schedulers; when it asks
%% for fewer schedulers than are online (erl started without +S), follow it.
apply_cores(#{"cores" := undefined}) -> ok;
apply_cores(#{"cores" := C}) ->
    Online = erlang:system_info(schedulers_online),
    Max = erlang:system_info(schedulers),
    if
        C =/= Online, C =< Max ->
            erlang:system_flag(schedulers_online, C), ok;
        C > Max ->
            io:format(standard_error,
                      "ringbench erlang: cores=~p but the VM has ~p schedulers (start erl with +S ~p:~p)~n",
                      [C, Max, C, C]);
        true -> ok
    end.

%% ---------------------------------------------------------------------------
%% Iterations

%% No memory check here: the orchestrator checks the manifest's
%% bytes_per_process before launch, and a full process table is reported by
%% spawn itself (error:system_limit, answered as kind limit in run_main).
run_workload(W, P) ->
    case P of
        #{"sample_ms" := S} when S > 0 -> continuous(P);
        #{"warmup" := Warm, "repeats" := Reps} ->
            _ = ringbench_cpu:source(),   % probe the clock before any timing
            [iteration(W, P, warmup) || _ <- lists:seq(1, Warm)],
            lists:foreach(fun(I) -> measured(W, P, I) end, lists:seq(1, Reps))
    end.

measured(W, P, I) ->
    Stats = maps:get("stats", P) =:= 1,
    S0 = stats_snapshot(Stats),
    {R, S1} = iteration(W, P, measured),
    Echo = [{K, maps:get(K, P)} || K <- echo_keys(W)],
    emit([{"type", "result"}, {"workload", W}, {"iteration", I}] ++ Echo ++ R),
    Stats andalso emit([{"type", "stats"}, {"iteration", I} | stats_record(S0, S1)]).

echo_keys("ring") -> ["n", "m", "tokens", "burst"];
echo_keys("spawn") -> ["n"];
echo_keys("pingpong") -> ["m"];
echo_keys("fanin") -> ["n", "m"];
echo_keys("selective") -> ["n", "m", "reverse"];
echo_keys("trace") -> ["n", "m"].

%% Each returns {ResultFields, StatsAfterRun}. Kind is warmup or measured;
%% only trace cares (a warm-up prints no hops).
iteration("ring", #{"n" := N, "m" := M, "tokens" := T, "burst" := B, "stats" := St}, _) ->
    ring_iteration(N, M, T, B, St);
iteration("trace", #{"n" := N, "m" := M, "stats" := St}, Kind) ->
    trace_iteration(N, M, St, Kind =:= measured);
iteration("spawn", #{"n" := N, "stats" := St}, _) ->
    spawn_iteration(N, St);
iteration("pingpong", #{"m" := M, "stats" := St}, _) ->
    pingpong_iteration(M, St);
iteration("fanin", #{"n" := N, "m" := M, "stats" := St}, _) ->
    fanin_iteration(N, M, St);
iteration("selective", #{"n" := N, "m" := M, "reverse" := Rev, "stats" := St}, _) ->
    selective_iteration(N, M, Rev, St).

now_ns() -> erlang:monotonic_time(nanosecond).
cpu_ns() -> ringbench_cpu:cpu_ns().

timings(T0, T1, T2, T3, C0, C1, C2, C3) ->
    [{"setup_ns", T1 - T0}, {"run_ns", T3 - T2},
     {"setup_cpu_ns", C1 - C0}, {"run_cpu_ns", C3 - C2}].

check_count(What, Got, Want) ->
    Got =:= Want orelse
        fail(failure, "~s: count ~p does not match the expected ~p", [What, Got, Want]).

%% ---------------------------------------------------------------------------
%% Ready signals: every process sends `ready` to main immediately before its
%% first blocking receive; the spawn phase ends when main has counted them all.

%% Take the ready messages that have already arrived, after each spawn, so
%% main's mailbox stays short while it spawns (a million queued messages
%% would be memory that rss_after counts).
drain_ready(Got) ->
    receive ready -> drain_ready(Got + 1)
    after 0 -> Got
    end.

wait_ready(Got, N) when Got >= N -> Got;
wait_ready(Got, N) -> receive ready -> wait_ready(Got + 1, N) end.

%% The rings (ring, its continuous mode, trace) count their ready signals on
%% a shared counter instead, the contract's other form of the signal: each
%% process adds one immediately before its first receive, and the one that
%% completes the count sends main the phase's only message. With a message
%% per process and processes spawned from funs, the ring ran ~9 % slower a
%% hop at N = 1,000,000 than spawned by spawn/3 without the messages
%% (README, "What the side-by-side tables show").
ready_counter(N) -> {atomics:new(1, [{signed, false}]), N, self()}.

ready({Counter, N, Main}) ->
    case atomics:add_get(Counter, 1, 1) of
        N -> Main ! all_ready;
        _ -> ok
    end.

await_ready({Counter, _N, _Main}) ->
    receive all_ready -> atomics:get(Counter, 1) end.

%% ---------------------------------------------------------------------------
%% Memory (contract section 3): read around the first spawn phase of this OS
%% process (the warm-up's when there is one), after every process is ready.
%% BEAM has no single call for a full collection (each process has its own
%% heap and is collected on its own), so nothing is collected in between.
%% Later iterations echo the first values: a later spawn reuses memory the
%% first one made the VM map.

mem_before(Runtime) ->
    case get(rb_first_mem) of
        undefined ->
            MemB = case Runtime of true -> erlang:memory(processes); false -> 0 end,
            {fresh, rss(), MemB};
        Fields -> {echo, Fields}
    end.

mem_after({echo, Fields}, _Runtime) -> Fields;
mem_after({fresh, RssB, MemB}, Runtime) ->
    RssA = rss(),
    Fields = [{"rss_before", RssB}, {"rss_after", RssA}] ++
        case Runtime of
            true -> [{"runtime_mem_before", MemB},
                     {"runtime_mem_after", erlang:memory(processes)}];
            false -> []
        end,
    put(rb_first_mem, Fields),
    Fields.

%% ---------------------------------------------------------------------------
%% ring

ring_iteration(N, M, T, Burst, St) ->
    name_ring_main(),
    Mem0 = mem_before(true),
    C0 = cpu_ns(), T0 = now_ns(),
    %% ----- spawn phase
    {First, Injects, Ready} =
        build_ring(N, T, Burst,
                   fun(_I, Next, R) -> spawn(?MODULE, ring_enter, [Next, R]) end,
                   fun(_I, R) -> spawn(?MODULE, ring_last, [R]) end),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, true),
    C2 = cpu_ns(), T2 = now_ns(),
    %% ----- message phase
    inject(Injects, N * M),
    wait_done(T),
    T3 = now_ns(), C3 = cpu_ns(),
    %% ----- untimed
    S1 = stats_snapshot(St =:= 1),
    Count = ring_proof(First),
    check_count("ring", Count, N * M * T),
    {[{"count", Count}, {"ready", Ready} | timings(T0, T1, T2, T3, C0, C1, C2, C3)] ++ Mem,
     S1}.

%% The ring processes reach main through a registered name instead of
%% holding its pid: main is needed only on a lap's last hop (done) and in the
%% proof, so keeping it in the loop would cost every hop a stack word saved
%% across the receive and moved back for the tail call. The name is main's for
%% the life of the driver process.
name_ring_main() ->
    Self = self(),
    case whereis(?RING_MAIN) of
        Self -> ok;
        undefined -> register(?RING_MAIN, Self)
    end.

%% A ring process: it knows its successor and counts its receipts; nothing
%% else is live across the receive (two stack words: Next and C). One hop is
%% the first clause: take a bare integer (an immediate: the send copies
%% nothing and allocates nothing, so no hop ever triggers a garbage
%% collection), send V-1, loop with the count + 1. The same shape as the
%% seeds' rings and the Benchmarks Game thread-ring program (whose loop also
%% keeps two values, its id and its successor), plus the receipt count the
%% proof needs (one add on a register).
ring_loop(Next, C) ->
    receive
        V when is_integer(V), V > 1 ->
            Next ! V - 1,
            ring_loop(Next, C + 1);
        1 ->
            ?RING_MAIN ! done,
            ring_loop(Next, C + 1);
        {stop, Sum, First} when Next =:= First ->
            ?RING_MAIN ! {count, Sum + C};
        {stop, Sum, First} ->
            Next ! {stop, Sum + C, First}
    end.

ring_enter(Next, Ready) ->
    ready(Ready),
    ring_loop(Next, 0).

%% p(n-1) is spawned first, before its successor p0 exists: its one set-up
%% message is p0's pid; it signals ready once it has it, immediately before
%% its first receive of the ring loop.
ring_last(Ready) ->
    receive
        {next, First} ->
            ready(Ready),
            ring_loop(First, 0)
    end.

%% Spawn p(n-1) ... p0 (each knows its successor at birth), close the ring,
%% wait until all n have signalled ready, and collect the pids where the
%% tokens go in: spread (Burst = 0), token j enters at p(j*n div tokens);
%% burst (Burst = 1), all tokens enter at p0, back to back. Spawn(I, Next,
%% Ready) and SpawnLast(I, Ready) spawn process I, which signals on Ready. Returns {P0, Injection, Ready}, where
%% Injection is {spread, Pids} (one pid per token) or {burst, P0, Tokens}.
build_ring(N, T, Burst, Spawn0, SpawnLast) ->
    R = ready_counter(N),
    Spawn = fun(I, Next) -> Spawn0(I, Next, R) end,
    Spread = case Burst of 0 -> T; 1 -> 1 end,
    Last = SpawnLast(N - 1, R),
    {Acc, J} = case next_inject(Spread - 1, N, Spread) of
                   Ix when Ix =:= N - 1 -> {[Last], Spread - 2};
                   _ -> {[], Spread - 1}
               end,
    {First, Injects} =
        build_ring(N - 2, Last, Spawn, Acc, J, next_inject(J, N, Spread), N, Spread),
    Last ! {next, First},
    Ready = await_ready(R),
    case Burst of
        0 -> {First, {spread, Injects}, Ready};
        1 -> {First, {burst, First, T}, Ready}
    end.

build_ring(I, Next, _Spawn, Acc, _J, _Nx, _N, _T) when I < 0 ->
    {Next, Acc};
build_ring(I, Next, Spawn, Acc, J, I, N, T) ->
    P = Spawn(I, Next),
    build_ring(I - 1, P, Spawn, [P | Acc], J - 1, next_inject(J - 1, N, T), N, T);
build_ring(I, Next, Spawn, Acc, J, Nx, N, T) ->
    P = Spawn(I, Next),
    build_ring(I - 1, P, Spawn, Acc, J, Nx, N, T).

next_inject(J, _N, _T) when J < 0 -> -1;
next_inject(J, N, T) -> J * N div T.

inject({spread, Pids}, V) -> inject_each(Pids, V);
inject({burst, P0, T}, V) -> inject_n(P0, V, T).

inject_each([], _V) -> ok;
inject_each([P | Ps], V) -> P ! V, inject_each(Ps, V).

inject_n(_P0, _V, 0) -> ok;
inject_n(P0, V, K) -> P0 ! V, inject_n(P0, V, K - 1).

wait_done(0) -> ok;
wait_done(K) -> receive done -> wait_done(K - 1) end.

%% Untimed proof: a stop message goes round once from p0; every process adds
%% its receipt count, forwards, and exits; the last one reports to main.
ring_proof(First) ->
    First ! {stop, 0, First},
    receive {count, C} -> C end.

%% ---------------------------------------------------------------------------
%% ring, continuous mode

continuous(#{"n" := N, "tokens" := T, "burst" := Burst, "sample_ms" := SampleMs,
             "samples" := Samples}) ->
    %% Main sleeps between samples; high priority so that a busy ring
    %% (tokens=n keeps n processes runnable) cannot delay a sample much.
    process_flag(priority, high),
    Laps = atomics:new(1, [{signed, false}]),
    {_First, Injects, _Ready} =
        build_ring(N, T, Burst,
                   fun(I, Next, R) -> spawn(fun() -> ready(R), cont_enter(I, Next, Laps) end) end,
                   fun(I, R) -> spawn(fun() -> cont_last(I, Laps, R) end) end),
    %% Printing goes through the io server, a normal-priority process that a
    %% busy ring can delay: a printer process takes the records, so main is
    %% never blocked and every sample is read on time.
    Printer = spawn(fun printer/0),
    T0 = now_ns(),
    TMs = ceil_ms(T0),   % never sample early
    inject(Injects, tok),
    sample_loop(1, Samples, TMs, SampleMs, T0, Laps, N, Printer),
    Printer ! {flush, self()},
    receive flushed -> ok end,
    halt_flush(0).

ceil_ms(Ns) ->
    case Ns rem 1000000 of
        R when R > 0 -> Ns div 1000000 + 1;
        _ -> Ns div 1000000    % div truncates: already the ceiling below 0
    end.

printer() ->
    receive
        {emit, Fields} -> emit(Fields), printer();
        {flush, From} -> From ! flushed
    end.

cont_last(I, Laps, Ready) ->
    receive {next, First} -> ready(Ready), cont_enter(I, First, Laps) end.

%% p0 counts laps (one atomic add per n hops); the others only forward.
cont_enter(0, Next, Laps) -> cont_p0(Next, Laps);
cont_enter(_, Next, _Laps) -> cont_loop(Next).

cont_loop(Next) ->
    receive tok -> Next ! tok, cont_loop(Next) end.

cont_p0(Next, Laps) ->
    receive
        tok ->
            atomics:add(Laps, 1, 1),
            Next ! tok,
            cont_p0(Next, Laps)
    end.

%% Absolute deadlines (start + k*sample_ms), so the sampling does not drift.
sample_loop(Seq, Samples, _TMs, _SampleMs, _T0, _Laps, _N, _Pr) when Seq > Samples -> ok;
sample_loop(Seq, Samples, TMs, SampleMs, T0, Laps, N, Printer) ->
    erlang:start_timer(TMs + Seq * SampleMs, self(), sample, [{abs, true}]),
    receive {timeout, _, sample} -> ok end,
    Now = now_ns(),
    Count = atomics:get(Laps, 1) * N,
    Printer ! {emit, [{"type", "sample"}, {"seq", Seq}, {"elapsed_ns", Now - T0},
                      {"count", Count}]},
    sample_loop(Seq + 1, Samples, TMs, SampleMs, T0, Laps, N, Printer).

%% ---------------------------------------------------------------------------
%% trace: the ring with one token that also carries its sender's index

trace_iteration(N, M, St, Print) ->
    Main = self(),
    Total = N * M,
    Mem0 = mem_before(false),
    C0 = cpu_ns(), T0 = now_ns(),
    {First, Injection, Ready} =
        build_ring(N, 1, 0,
                   fun(I, Next, R) ->
                           spawn(fun() -> ready(R),
                                          trace_loop(I, N, Total, Next, Main, Print, 0) end)
                   end,
                   fun(I, R) -> spawn(fun() -> trace_last(I, N, Total, Main, Print, R) end) end),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, false),
    C2 = cpu_ns(), T2 = now_ns(),
    inject(Injection, {tok, 1, -1}),
    wait_done(1),
    T3 = now_ns(), C3 = cpu_ns(),
    S1 = stats_snapshot(St =:= 1),
    Count = ring_proof(First),
    check_count("trace", Count, Total),
    {[{"count", Count}, {"ready", Ready} | timings(T0, T1, T2, T3, C0, C1, C2, C3)] ++ Mem,
     S1}.

trace_last(I, N, Total, Main, Print, Ready) ->
    receive
        {next, First} ->
            ready(Ready),
            trace_loop(I, N, Total, First, Main, Print, 0)
    end.

%% The token is {tok, Hop, SenderIndex}: the same countdown as ring, counted
%% upwards (Hop = n*m - V + 1) so the receiver can print it directly.
%% io:put_chars is synchronous, so the lines come out in hop order.
trace_loop(I, N, Total, Next, Main, Print, C) ->
    receive
        {tok, Hop, From} ->
            Print andalso emit([{"type", "hop"}, {"hop", Hop}, {"lap", (Hop - 1) div N + 1},
                                {"from", From}, {"to", I}]),
            if
                Hop < Total -> Next ! {tok, Hop + 1, I};
                true -> Main ! done
            end,
            trace_loop(I, N, Total, Next, Main, Print, C + 1);
        {stop, Sum, First} when Next =:= First ->
            Main ! {count, Sum + C};
        {stop, Sum, First} ->
            Next ! {stop, Sum + C, First}
    end.

%% ---------------------------------------------------------------------------
%% spawn: n idle processes

spawn_iteration(N, St) ->
    Main = self(),
    Base = erlang:system_info(process_count),
    Mem0 = mem_before(true),
    C0 = cpu_ns(), T0 = now_ns(),
    {Tail, Got} = spawn_idle(N, Main, 0),
    Count = wait_ready(Got, N),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, true),
    S1 = stats_snapshot(St =:= 1),
    %% untimed release: a release message walks the chain back to main
    Tail ! release,
    receive release -> ok end,
    wait_exited(Base),
    check_count("spawn", Count, N),
    {[{"count", Count}, {"ready", Count}, {"setup_ns", T1 - T0}, {"run_ns", 0},
      {"setup_cpu_ns", C1 - C0}, {"run_cpu_ns", 0}] ++ Mem,
     S1}.

%% Each process knows only the one spawned before it (Prev), so releasing
%% needs no list of n pids in main.
spawn_idle(0, Prev, Got) -> {Prev, Got};
spawn_idle(K, Prev, Got) ->
    Main = self(),
    P = spawn(fun() -> idle(Main, Prev) end),
    spawn_idle(K - 1, P, drain_ready(Got)).

idle(Main, Prev) ->
    Main ! ready,
    receive release -> Prev ! release end.

%% Wait (untimed) until the processes of the iteration have exited.
%% Bounded (5 s), in case some unrelated VM process appeared meanwhile.
wait_exited(Base) ->
    wait_exited(Base, now_ns() + 5000000000).

wait_exited(Base, Deadline) ->
    case erlang:system_info(process_count) =< Base orelse now_ns() > Deadline of
        true -> ok;
        false -> receive after 1 -> wait_exited(Base, Deadline) end
    end.

%% ---------------------------------------------------------------------------
%% pingpong

%% A is spawned first and learns B's pid from the start message, so neither
%% process needs a set-up message: each signals ready and blocks at once.
pingpong_iteration(M, St) ->
    Main = self(),
    Mem0 = mem_before(false),
    C0 = cpu_ns(), T0 = now_ns(),
    A = spawn(fun() -> Main ! ready, receive {go, B} -> pp_a(B, M, Main) end end),
    B = spawn(fun() -> Main ! ready, pp_b(A, 0) end),
    Ready = wait_ready(0, 2),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, false),
    C2 = cpu_ns(), T2 = now_ns(),
    A ! {go, B},
    receive pp_done -> ok end,
    T3 = now_ns(), C3 = cpu_ns(),
    S1 = stats_snapshot(St =:= 1),
    B ! {count, Main},
    Count = receive {count, C} -> C end,
    check_count("pingpong", Count, M),
    {[{"count", Count}, {"ready", Ready} | timings(T0, T1, T2, T3, C0, C1, C2, C3)] ++ Mem,
     S1}.

pp_a(_B, 0, Main) -> Main ! pp_done;
pp_a(B, K, Main) ->
    B ! ping,
    receive pong -> pp_a(B, K - 1, Main) end.

pp_b(A, C) ->
    receive
        ping -> A ! pong, pp_b(A, C + 1);
        {count, From} -> From ! {count, C}
    end.

%% ---------------------------------------------------------------------------
%% fanin

fanin_iteration(N, M, St) ->
    Main = self(),
    Base = erlang:system_info(process_count),
    Mem0 = mem_before(false),
    C0 = cpu_ns(), T0 = now_ns(),
    %% A many-to-one hot mailbox is the case off_heap message queues exist
    %% for (see README.md): senders append without taking the receiver's
    %% main lock, and the receiver's collections do not copy its queue.
    R = spawn_opt(fun() -> Main ! ready, fanin_recv(N * M, 0, Main) end,
                  [{message_queue_data, off_heap}]),
    {Senders, Got} = spawn_senders(N, R, M, Main, [], 0),
    Ready = wait_ready(Got, N + 1),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, false),
    C2 = cpu_ns(), T2 = now_ns(),
    go(Senders),
    Count = receive {fanin_done, C} -> C end,
    T3 = now_ns(), C3 = cpu_ns(),
    S1 = stats_snapshot(St =:= 1),
    wait_exited(Base),
    check_count("fanin", Count, N * M),
    {[{"count", Count}, {"ready", Ready} | timings(T0, T1, T2, T3, C0, C1, C2, C3)] ++ Mem,
     S1}.

spawn_senders(0, _R, _M, _Main, Acc, Got) -> {Acc, Got};
spawn_senders(K, R, M, Main, Acc, Got) ->
    P = spawn(fun() -> Main ! ready, receive go -> send_n(R, M) end end),
    spawn_senders(K - 1, R, M, Main, [P | Acc], drain_ready(Got)).

go([]) -> ok;
go([P | Ps]) -> P ! go, go(Ps).

send_n(_R, 0) -> ok;
send_n(R, K) -> R ! msg, send_n(R, K - 1).

fanin_recv(Left, C, Main) when Left =:= 0 -> Main ! {fanin_done, C};
fanin_recv(Left, C, Main) ->
    receive msg -> fanin_recv(Left - 1, C + 1, Main) end.

%% ---------------------------------------------------------------------------
%% selective

selective_iteration(N, M, Rev, St) ->
    Main = self(),
    Base = erlang:system_info(process_count),
    Mem0 = mem_before(false),
    C0 = cpu_ns(), T0 = now_ns(),
    {Workers, Got} = spawn_workers(N - 1, Main, [], 0),   % in worker order 0 .. n-1
    Ready = wait_ready(Got, N),
    T1 = now_ns(), C1 = cpu_ns(),
    Mem = mem_after(Mem0, false),
    C2 = cpu_ns(), T2 = now_ns(),
    Count = sel_rounds(M, Workers, N, Rev, 0),
    T3 = now_ns(), C3 = cpu_ns(),
    S1 = stats_snapshot(St =:= 1),
    [W ! stop || W <- Workers],
    wait_exited(Base),
    check_count("selective", Count, N * M),
    {[{"count", Count}, {"ready", Ready} | timings(T0, T1, T2, T3, C0, C1, C2, C3)] ++ Mem,
     S1}.

spawn_workers(I, _Main, Acc, Got) when I < 0 -> {Acc, Got};
spawn_workers(I, Main, Acc, Got) ->
    P = spawn(fun() -> Main ! ready, worker(I, Main) end),
    spawn_workers(I - 1, Main, [P | Acc], drain_ready(Got)).

worker(I, Main) ->
    receive
        req -> Main ! {reply, I}, worker(I, Main);
        stop -> ok
    end.

sel_rounds(0, _Ws, _N, _Rev, Count) -> Count;
sel_rounds(K, Ws, N, Rev, Count) ->
    request(Ws),
    C = case Rev of
            0 -> collect_up(0, N, Count);
            1 -> collect_down(N - 1, Count)
        end,
    sel_rounds(K - 1, Ws, N, Rev, C).

request([]) -> ok;
request([W | Ws]) -> W ! req, request(Ws).

%% The receive matches worker I's reply only (I is bound): in order it takes
%% the first message; in reverse it scans past every reply still waiting.
collect_up(I, N, Count) when I >= N -> Count;
collect_up(I, N, Count) ->
    receive {reply, I} -> collect_up(I + 1, N, Count + 1) end.

collect_down(I, Count) when I < 0 -> Count;
collect_down(I, Count) ->
    receive {reply, I} -> collect_down(I - 1, Count + 1) end.

%% ---------------------------------------------------------------------------
%% stats (stats=1): cheap VM counters, deltas over the iteration

stats_snapshot(false) -> undefined;
stats_snapshot(true) ->
    {GcN, GcW, _} = erlang:statistics(garbage_collection),
    {Reds, _} = erlang:statistics(reductions),
    {Cs, _} = erlang:statistics(context_switches),
    #{gc_count => GcN, gc_words_reclaimed => GcW, reductions => Reds,
      context_switches => Cs,
      run_queue => erlang:statistics(total_run_queue_lengths_all),
      process_count => erlang:system_info(process_count),
      memory => erlang:memory()}.

stats_record(S0, S1) ->
    Delta = [{atom_to_list(K), maps:get(K, S1) - maps:get(K, S0)}
             || K <- [gc_count, gc_words_reclaimed, reductions, context_switches]],
    Mem = [{"memory_" ++ atom_to_list(K), V} || {K, V} <- maps:get(memory, S1)],
    Delta ++
        [{"run_queue", maps:get(run_queue, S1)},
         {"process_count", maps:get(process_count, S1)},
         {"schedulers_online", erlang:system_info(schedulers_online)}] ++ Mem.

%% ---------------------------------------------------------------------------
%% RSS

rss() ->
    {ok, B} = file:read_file("/proc/self/status"),
    {match, [Kb]} = re:run(B, "VmRSS:\\s+(\\d+) kB", [{capture, [1], list}]),
    list_to_integer(Kb) * 1024.

%% ---------------------------------------------------------------------------
%% JSON Lines output: flat objects of integers, strings and string lists

emit(Fields) ->
    try io:put_chars(standard_io, [${, join_fields(Fields), $}, $\n])
    catch _:_ ->
        %% stdout is gone (reader closed the pipe): nothing can be reported
        erlang:halt(1)
    end.

join_fields(Fields) ->
    lists:join($,, [[json_str(K), $:, json_val(V)] || {K, V} <- Fields]).

json_val(V) when is_integer(V) -> integer_to_list(V);
json_val({list, L}) -> [$[, lists:join($,, [json_str(S) || S <- L]), $]];
json_val(S) when is_list(S) -> json_str(S).

json_str(S) -> [$", esc(S), $"].

esc([]) -> [];
esc([$" | T]) -> [$\\, $" | esc(T)];
esc([$\\ | T]) -> [$\\, $\\ | esc(T)];
esc([C | T]) when C < 16#20; C >= 16#7f -> [uesc(C) | esc(T)];
esc([C | T]) -> [C | esc(T)].

uesc(C) when C > 16#FFFF ->
    C1 = C - 16#10000,
    [uesc(16#D800 + (C1 bsr 10)), uesc(16#DC00 + (C1 band 16#3FF))];
uesc(C) ->
    io_lib:format("\\u~4.16.0b", [C]).
