%% The protocol of a BEAM driver (docs/driver-contract.md): the verbs, the
%% --variant= option, the iteration loop and its clocks, the memory rule, the
%% count check, continuous sampling, and the records on stdout. A driver
%% module implements this behaviour with its workloads and starts it with
%%
%%     erl ... -s <module> main -extra [--variant=<name>] describe | run ... | batch
%%
%% where <module>:main/0 calls ringbench:main(?MODULE). An Elixir driver does
%% the same from an Elixir module (its funs are ordinary BEAM funs).
%%
%% One iteration, as this module runs it (section 3):
%%
%%   memory before     untimed (the first iteration only; later ones echo it)
%%   setup()           timed: setup_ns, setup_cpu_ns (and setup_vcsw, setup_ivcsw,
%%                     read outside the clocks); returns {Ready, State}
%%   memory after      untimed (idle kind: every process ready)
%%   run(State)        timed: run_ns, run_cpu_ns (and run_vcsw, run_ivcsw);
%%                     returns State
%%   stats snapshot    untimed (stats=1)
%%   proof(State)      untimed: the count, checked against the contract's
%%
%% A workload without a setup (tree) reports setup_ns = 0 and no ready; one
%% without a run (spawn) reports run_ns = 0. Nothing of this module runs
%% inside a timed phase but the clock reads that bound it.
-module(ringbench).
-export([main/1, main/2, fail/3, otp_version/0, collector/0]).

-type workload() :: ringbench_params:workload().
-type params() :: ringbench_params:params().
-type kind() :: warmup | measured.
-type info() :: #{name := binary(),          % the folder name, as describe says it
                  runtime := binary(),       % e.g. <<"Erlang/OTP">>
                  version => binary(),       % default: otp_version()
                  workloads := [workload()],
                  %% batch is the library's, listed by describe for every driver
                  features := [tokens | continuous | stats | nodes | perf | batch],
                  variants := [atom()]}.     % [] when the driver has none
-type phases() :: #{setup => fun(() -> {Ready :: non_neg_integer(), State :: term()}),
                    run => fun((State :: term()) -> State :: term()),
                    proof := fun((State :: term()) -> Count :: non_neg_integer()
                                                     | {non_neg_integer(), #{atom() => integer()}})}.
-export_type([info/0, phases/0, kind/0]).

%% What the driver tells about itself.
-callback info() -> info().
%% The phases of one iteration of a workload (Kind: a warm-up prints nothing
%% of its own, which only trace needs to know).
-callback phases(workload(), params(), kind()) -> phases().
%% Continuous mode (section 5): build the ring and wait until it is ready,
%% with p0 adding one to Laps (atomics index 1) per lap; return the fun that
%% injects the tokens.
-callback continuous(params(), Laps :: atomics:atomics_ref()) -> fun(() -> ok).
%% Perf (section 11) in a language other than Erlang: how its snippets are
%% compiled and its exceptions worded (ringbench_perf:language()). A driver
%% with the feature perf and without this callback runs Erlang snippets.
-callback perf_language() -> ringbench_perf:language().
-optional_callbacks([continuous/2, perf_language/0]).

-record(driver, {module :: module(), info :: info(), variant :: atom()}).
-record(sampling, {samples :: pos_integer(), every_ms :: pos_integer(),
                   start_ms :: integer(), start_ns :: integer(),
                   laps :: atomics:atomics_ref(), n :: pos_integer(), printer :: pid(),
                   view :: ringbench_nodes:cluster() | none}).

%% ---------------------------------------------------------------------------
%% Entry point

%% The driver's arguments are erl's plain arguments (after -extra).
-spec main(module()) -> no_return().
main(Module) ->
    log_to_stderr(),
    main(Module, init:get_plain_arguments()).

%% stdout carries only records: OTP's own reports (a warning of the
%% distribution when a ring spans nodes, say) go to stderr. Elixir's Logger
%% does the same for the Elixir driver (which enters through main/2).
log_to_stderr() ->
    _ = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}}).

%% For a launcher that passes the arguments itself (an Elixir script's
%% System.argv(), say): [--variant=<name>] describe | run <workload> ... | batch
-spec main(module(), [string()]) -> no_return().
%% The spawned fun halts the VM, by design: it never returns (for Dialyzer).
-dialyzer({no_return, main/2}).
main(Module, Args) ->
    %% A fresh process (not the one init uses for -s): nothing of the boot
    %% sequence shares its heap or mailbox.
    {Pid, Ref} = spawn_monitor(fun() -> serve(Module, Args) end),
    receive
        %% Ended from outside with a reason that is an error record (a node
        %% of the ring went down: ringbench_nodes:watch/1).
        {'DOWN', Ref, process, Pid, {ringbench_error, Kind, Msg}} ->
            finish_error(Kind, Msg);
        {'DOWN', Ref, process, Pid, Reason} ->
            finish_error(failure, fmt("driver process died: ~0p", [Reason]))
    end.

-spec serve(module(), [string()]) -> no_return().
serve(Module, Args) ->
    Outcome = attempt(fun() ->
                              Info = Module:info(),
                              {Variant, Verb} = variant(Info, Args),
                              check_variant(Variant),
                              verb(#driver{module = Module, info = Info, variant = Variant}, Verb)
                      end),
    case Outcome of
        ok -> halt_flush(0);
        {error, Kind, Msg, Extra} -> finish_error(Kind, Msg, Extra)
    end.

%% ok, or the error that ends the verb: {error, Kind, Message, Extra}.
attempt(Fun) ->
    try
        _ = Fun(),
        ok
    catch
        throw:{ringbench_error, Kind, Msg} ->
            {error, Kind, Msg, []};
        throw:{ringbench_error, Kind, Msg, Extra} ->
            {error, Kind, Msg, Extra};
        error:system_limit ->
            %% The one limit the VM reports as an exception rather than by
            %% dying: a full process table (or, rarely, another table).
            {error, limit, system_limit_message(), []};
        Class:Reason:Stack ->
            {error, failure, fmt("~p:~0p at ~0p", [Class, Reason, Stack]), []}
    end.

%% Ends the driver with an error record (section 4); Kind is one of
%% bad_param, unknown_workload, unsupported, limit, failure.
-spec fail(atom(), io:format(), [term()]) -> no_return().
fail(Kind, Fmt, Args) ->
    throw({ringbench_error, Kind, fmt(Fmt, Args)}).

-spec finish_error(atom(), unicode:chardata()) -> no_return().
finish_error(Kind, Msg) ->
    finish_error(Kind, Msg, []).

%% Extra: more fields of the error record (perf: the snippet and its phase).
-spec finish_error(atom(), unicode:chardata(), list()) -> no_return().
finish_error(Kind, Msg, Extra) ->
    error_record(Kind, Msg, Extra),
    halt_flush(exit_code(Kind)).

error_record(Kind, Msg, Extra) ->
    ringbench_json:emit([{type, error}, {kind, Kind}] ++ Extra ++
                            [{message, unicode:characters_to_binary(Msg)}]).

exit_code(bad_param) -> 2;
exit_code(unknown_workload) -> 2;
exit_code(unsupported) -> 2;
exit_code(limit) -> 3;
exit_code(failure) -> 1.

%% halt/2 with flush drains the stdout port before the VM exits.
halt_flush(Code) ->
    erlang:halt(Code, [{flush, true}]).

system_limit_message() ->
    Count = erlang:system_info(process_count),
    Limit = erlang:system_info(process_limit),
    case Count >= Limit - 1 of
        true ->
            fmt("process limit: the BEAM process table is full (~p of ~p processes); "
                "erl +P raises it (driver.toml [limits.processes] does for cells that need more "
                "than the default)", [Count, Limit]);
        false ->
            fmt("a BEAM system limit was reached (processes ~p of ~p, ports ~p of ~p, atoms ~p of ~p)",
                [Count, Limit, erlang:system_info(port_count), erlang:system_info(port_limit),
                 erlang:system_info(atom_count), erlang:system_info(atom_limit)])
    end.

fmt(Fmt, Args) ->
    lists:flatten(io_lib:format(Fmt, Args)).

%% ---------------------------------------------------------------------------
%% The one option, --variant=<name>, before the verb

variant(#{variants := []}, ["--" ++ _ = Option | _]) ->
    fail(bad_param, "this driver has no variants; unknown option '~ts'", [Option]);
variant(#{variants := []}, Args) ->
    {none, Args};
variant(#{variants := Variants}, ["--variant=" ++ Name | Rest]) ->
    case [V || V <- Variants, atom_to_list(V) =:= Name] of
        [V] -> {V, no_option(Rest)};
        [] -> fail(bad_param, "unknown variant '~ts' (known: ~s)", [Name, names(Variants)])
    end;
variant(_Info, ["--" ++ _ = Option | _]) ->
    fail(bad_param, "unknown option '~ts' (the one option is --variant=<name>)", [Option]);
variant(#{variants := [Default | _]}, Args) ->
    {Default, Args}.

no_option(["--" ++ _ = Option | _]) ->
    fail(bad_param, "one option only, before the verb; got also '~ts'", [Option]);
no_option(Args) ->
    Args.

%% The tuned variant's settings are emulator flags (driver.toml puts them on
%% erl's command line); this proves they reached the VM. A stock run with a
%% tuning flag (from ERL_FLAGS, say) is named on stderr.
check_variant(tuned) ->
    tuning_flags() =/= [] orelse
        fail(bad_param, "variant tuned without its emulator flags (driver.toml [variants.tuned])", []),
    erlang:system_info(scheduler_bind_type) =/= unbound orelse
        fail(unsupported, "variant tuned binds schedulers (+stbt db) but no CPU topology was "
             "found here, so they run unbound; erlang:system_info(cpu_topology) says why", []),
    ok;
check_variant(_) ->
    case tuning_flags() of
        [] -> ok;
        Flags -> io:format(standard_error, "ringbench: emulator flags tune this run: ~ts~n",
                           [lists:join(" ", Flags)])
    end.

%% The emulator's own flags (erlexec turns +x into -x) that the contract
%% counts as tuning: scheduler binding, busy waiting and wake-up, heap sizes,
%% message queues, allocators.
tuning_flags() ->
    Emulator = lists:takewhile(fun(A) -> A =/= "--" end, tl(erlang:system_info(emu_args))),
    Tuning = ["-sbt", "-stbt", "-sct", "-sbwt", "-sbwtdcpu", "-sbwtdio", "-swt", "-swtdcpu",
              "-swtdio", "-sws", "-swct", "-scl", "-sub", "-sfwi", "-hms", "-hmbs", "-hmqd",
              "-hpds"],
    [A || A <- Emulator, lists:member(A, Tuning) orelse lists:prefix("-M", A)].

%% ---------------------------------------------------------------------------
%% Verbs

verb(_D, []) ->
    fail(bad_param, "usage: <command> [--variant=<name>] describe | run <workload> key=value ... "
         "| perf <job.json> | batch", []);
verb(D, ["describe"]) ->
    describe(D);
verb(_D, ["describe" | Extra]) ->
    fail(bad_param, "describe takes no arguments, got '~ts'", [lists:join(" ", Extra)]);
verb(D, ["run"]) ->
    fail(bad_param, "run needs a workload: one of ~s", [names(workloads(D))]);
verb(D, ["run", Name | Args]) ->
    run(D, workload(D, Name), Args);
verb(D, ["batch"]) ->
    Status = ringbench_batch:loop(ringbench_batch:stdin(), fun(Args) -> batch_line(D, Args) end,
                                  fun ringbench_json:emit/1),
    halt_flush(Status);
verb(_D, ["batch" | Extra]) ->
    fail(bad_param, "batch takes no arguments (each line of stdin holds a run's), got '~ts'",
         [lists:join(" ", Extra)]);
verb(#driver{module = Module, info = #{features := Features}}, ["perf" | Args]) ->
    lists:member(perf, Features) orelse
        fail(bad_param, "unknown verb 'perf': this driver runs no code of the user's (contract section 11)", []),
    Language = case erlang:function_exported(Module, perf_language, 0) of
                   true -> Module:perf_language();
                   false -> ringbench_perf:erlang()
               end,
    case Args of
        [Job] -> ringbench_perf:run(Job, Language);
        _ -> fail(bad_param, "usage: <command> [--variant=<name>] perf <job.json>", [])
    end;
verb(_D, [Verb | _]) ->
    fail(bad_param, "unknown verb '~ts' (expected describe, run, perf or batch)", [Verb]).

%% One line of a batch (ringbench_batch): what `run <Args>` does, in a fresh
%% process whose every process has ended when this returns, its error
%% record printed as `run` prints it; returns `run`'s exit status. The VM is
%% then put back as a fresh one has it: the schedulers online (cores=) and
%% no distribution (a ring across nodes stops it; this covers a line that
%% ended before its teardown).
batch_line(D, Args) ->
    Online = erlang:system_info(schedulers_online),
    Run = fun() -> attempt(fun() -> verb(D, ["run" | Args]) end) end,
    Outcome = case ringbench_batch:isolated(Run) of
                  {ok, Result} -> Result;
                  {died, {ringbench_error, Kind, Msg}} -> {error, Kind, Msg, []};
                  {died, Reason} ->
                      {error, failure, fmt("driver process died: ~0p", [Reason]), []}
              end,
    _ = erlang:system_info(schedulers_online) =:= Online orelse
        erlang:system_flag(schedulers_online, Online),
    _ = node() =:= nonode@nohost orelse net_kernel:stop(),
    case Outcome of
        ok ->
            0;
        {error, Kind1, Msg1, Extra} ->
            error_record(Kind1, Msg1, Extra),
            exit_code(Kind1)
    end.

describe(#driver{info = Info, variant = Variant}) ->
    ringbench_json:emit(
      [{type, describe}, {contract, 4}, {name, maps:get(name, Info)},
       {runtime, maps:get(runtime, Info)}, {version, maps:get(version, Info, otp_version())},
       {workloads, maps:get(workloads, Info)}, {features, features(Info)},
       {variant, case Variant of none -> <<>>; _ -> Variant end},
       {clock, ringbench_clock:describe()}, {collector, collector()}]).

%% The driver's features, and batch, which this library serves for every
%% driver (ringbench_batch).
features(#{features := Features}) ->
    Features ++ [batch || not lists:member(batch, Features)].

%% The collector of every BEAM process, by the runtime's own description
%% (each process has its own heap, collected on its own).
-spec collector() -> binary().
collector() -> <<"per-process generational copying">>.

-spec otp_version() -> binary().
otp_version() ->
    Release = erlang:system_info(otp_release),
    File = filename:join([code:root_dir(), "releases", Release, "OTP_VERSION"]),
    Otp = case file:read_file(File) of
              {ok, B} -> string:trim(binary_to_list(B));
              _ -> Release
          end,
    iolist_to_binary(io_lib:format("~s (erts-~s, ~p)", [Otp, erlang:system_info(version),
                                                        erlang:system_info(emu_flavor)])).

workloads(#driver{info = Info}) -> maps:get(workloads, Info).

workload(D, Name) ->
    case ringbench_params:workload(Name) of
        {ok, W} ->
            lists:member(W, workloads(D)) orelse
                fail(unknown_workload, "workload '~ts' is not one this driver runs (known: ~s)",
                     [Name, names(workloads(D))]),
            W;
        error ->
            fail(unknown_workload, "unknown workload '~ts' (known: ~s)", [Name, names(workloads(D))])
    end.

names(Atoms) -> lists:join(", ", [atom_to_list(A) || A <- Atoms]).

run(D, W, Args) ->
    P0 = case ringbench_params:parse(W, Args) of
             {ok, Parsed} -> Parsed;
             {error, Msg} -> fail(bad_param, "~ts", [Msg])
         end,
    check_features(D, W, P0),
    apply_cores(P0),
    %% Other nodes (nodes > 1) start before the first iteration and stop
    %% after the last, untimed (ringbench_nodes). While they run, a node that
    %% goes down ends this process at once with a failure naming it (the ring
    %% would otherwise wait for ever for a token that was on it).
    P = ringbench_nodes:watch(ringbench_nodes:setup(P0)),
    try
        case P of
            #{sample_ms := SampleMs} when SampleMs > 0 -> continuous(D, P);
            _ -> iterations(D, W, P)
        end
    after
        ringbench_nodes:teardown(P)
    end.

check_features(#driver{info = #{features := Features}}, W, P) ->
    Tokens = W =:= ring andalso maps:get(tokens, P) > 1,
    (Tokens andalso not lists:member(tokens, Features)) andalso
        fail(unsupported, "this driver runs one token at a time", []),
    (maps:get(sample_ms, P) > 0 andalso not lists:member(continuous, Features)) andalso
        fail(unsupported, "this driver has no continuous mode", []),
    (maps:get(nodes, P, 1) > 1 andalso not lists:member(nodes, Features)) andalso
        fail(unsupported, "this driver runs every process on one node", []),
    ok.

%% cores= is informational when +S already set the schedulers; when it asks
%% for fewer than are online (erl started without +S), follow it.
apply_cores(#{cores := undefined}) -> ok;
apply_cores(#{cores := Cores}) ->
    Online = erlang:system_info(schedulers_online),
    Max = erlang:system_info(schedulers),
    if
        Cores =/= Online, Cores =< Max ->
            _ = erlang:system_flag(schedulers_online, Cores),
            ok;
        Cores > Max ->
            io:format(standard_error,
                      "ringbench: cores=~p but the VM has ~p schedulers (start erl with +S ~p:~p)~n",
                      [Cores, Max, Cores, Cores]);
        true -> ok
    end.

%% ---------------------------------------------------------------------------
%% Iterations: the warm-ups, then the measured ones, each result printed as
%% its iteration ends. Memory holds the first iteration's memory fields.

iterations(D, W, #{warmup := Warmups, repeats := Repeats} = P) ->
    %% Probe the CPU clock's and the context switches' sources before any timing.
    _ = ringbench_clock:cpu_source(),
    _ = ringbench_clock:switches_source(),
    Memory = warm_up(D, W, P, Warmups, undefined),
    measure(D, W, P, {1, Repeats}, Memory).

warm_up(_D, _W, _P, 0, Memory) -> Memory;
warm_up(D, W, P, K, Memory) ->
    {_Result, _Stats, Memory1} = iteration(D, W, P, warmup, Memory),
    warm_up(D, W, P, K - 1, Memory1).

measure(_D, _W, _P, {I, Repeats}, _Memory) when I > Repeats -> ok;
measure(D, W, P, {I, Repeats}, Memory) ->
    {Result, Stats, Memory1} = iteration(D, W, P, measured, Memory),
    ringbench_json:emit([{type, result}, {workload, W}, {iteration, I}] ++ Result),
    case Stats of
        {Before, After} -> ringbench_json:emit(ringbench_stats:record(W, I, Before, After));
        none -> ok
    end,
    measure(D, W, P, {I + 1, Repeats}, Memory1).

iteration(#driver{module = Module}, W, P, Kind, First) ->
    Phases = #{proof := Proof} = Module:phases(W, P, Kind),
    Processes = erlang:system_info(process_count),
    Stats0 = stats_snapshot(P),
    {Times, Ready, State, Memory} = timed_phases(memory_kind(W), Phases, First),
    Stats1 = stats_snapshot(P),
    {Count, Proven} = case Proof(State) of
                          {C, #{} = Extra} -> {C, Extra};
                          C -> {C, #{}}
                      end,
    settle(Processes),
    Expected = ringbench_params:expected_count(W, P),
    Count =:= Expected orelse
        fail(failure, "~s: count ~p does not match the expected ~p", [W, Count, Expected]),
    %% Further counts a proof returns (a ring across nodes: cross_hops),
    %% each checked like the count.
    More = maps:to_list(ringbench_params:expected_more(W, P)),
    [maps:get(K, Proven, undefined) =:= V orelse
         fail(failure, "~s: ~s ~0p does not match the expected ~p", [W, K, maps:get(K, Proven, none), V])
     || {K, V} <- More],
    Echo = [{K, maps:get(K, P)} || K <- ringbench_params:echo_keys(W)],
    ReadyField = [{ready, Ready} || maps:is_key(setup, Phases)],
    Result = Echo ++ [{count, Count}] ++ More ++ ReadyField ++ Times ++ Memory,
    {Result, stats_pair(Stats0, Stats1), Memory}.

%% The tree's memory is its peak over the run; every other workload's is
%% what its processes hold once they are all ready.
memory_kind(tree) -> peak;
memory_kind(_) -> idle.

%% The two timed phases, with the memory read around the setup (idle) or
%% around both (peak: the tree has no setup).
timed_phases(idle, Phases, First) ->
    Probe = ringbench_mem:start(idle, First),
    {Setup, {Ready, State}} = timed(maps:get(setup, Phases, none), []),
    Memory = ringbench_mem:finish(Probe),
    {Run, State1} = timed(maps:get(run, Phases, none), [State]),
    {times(Setup, Run), Ready, State1, Memory};
timed_phases(peak, Phases, First) ->
    Probe = ringbench_mem:start(peak, First),
    {Setup, {Ready, State}} = timed(maps:get(setup, Phases, none), []),
    {Run, State1} = timed(maps:get(run, Phases, none), [State]),
    {times(Setup, Run), Ready, State1, ringbench_mem:finish(Probe)}.

times({SetupNs, SetupCpuNs, {SetupV, SetupI}}, {RunNs, RunCpuNs, {RunV, RunI}}) ->
    [{setup_ns, SetupNs}, {run_ns, RunNs}, {setup_cpu_ns, SetupCpuNs}, {run_cpu_ns, RunCpuNs},
     {setup_vcsw, SetupV}, {setup_ivcsw, SetupI}, {run_vcsw, RunV}, {run_ivcsw, RunI}].

%% {{WallNs, CpuNs, {VoluntarySwitches, InvoluntarySwitches}}, what the phase
%% returned}. A phase the workload does not have takes no time and switches
%% nothing; a missing setup leaves no arrivals and no state. The context
%% switches are read outside both clocks (first at the start, last at the
%% end), so their read is in neither figure.
timed(none, []) -> {{0, 0, {0, 0}}, {0, undefined}};
timed(none, [State]) -> {{0, 0, {0, 0}}, State};
timed(Phase, Args) ->
    {V0, I0} = ringbench_clock:context_switches(),
    C0 = ringbench_clock:cpu_ns(), T0 = ringbench_clock:now_ns(),
    Out = apply(Phase, Args),
    T1 = ringbench_clock:now_ns(), C1 = ringbench_clock:cpu_ns(),
    {V1, I1} = ringbench_clock:context_switches(),
    {{T1 - T0, C1 - C0, {V1 - V0, I1 - I0}}, Out}.

%% Untimed, after the proof: wait until the iteration's processes have
%% exited, so the next iteration starts as this one did. Bounded (5 s), in
%% case an unrelated VM process appeared meanwhile.
settle(Processes) ->
    settle(Processes, 100, ringbench_clock:now_ns() + 5000000000).

settle(Processes, Spins, Deadline) ->
    case erlang:system_info(process_count) =< Processes orelse
        ringbench_clock:now_ns() > Deadline of
        true -> ok;
        false when Spins > 0 -> erlang:yield(), settle(Processes, Spins - 1, Deadline);
        false -> receive after 1 -> settle(Processes, 0, Deadline) end
    end.

stats_snapshot(#{stats := 1}) -> ringbench_stats:snapshot();
stats_snapshot(_) -> none.

stats_pair(none, none) -> none;
stats_pair(Before, After) -> {Before, After}.

%% ---------------------------------------------------------------------------
%% Continuous mode (section 5): the ring runs for ever; main samples p0's
%% lap counter every sample_ms and prints it, then exits without teardown.

continuous(#driver{module = Module, info = #{features := Features}},
           #{n := N, sample_ms := EveryMs, samples := Samples} = P) ->
    %% Main sleeps between samples; high priority so that a busy ring
    %% (tokens=n keeps n processes runnable) cannot delay a sample much.
    process_flag(priority, high),
    Laps = atomics:new(1, [{signed, false}]),
    %% The cluster view (section 10): with stats=1, a driver that spreads
    %% rings over nodes reports each node after each sample.
    View = case maps:get(stats, P) =:= 1 andalso lists:member(nodes, Features) of
               true -> ringbench_nodes:start_view(P, Laps);
               false -> none
           end,
    Inject = Module:continuous(P, Laps),
    %% Printing goes through the io server, a normal-priority process that a
    %% busy ring can delay: a printer process takes the records, so main is
    %% never blocked and every sample is read on time. Linked: if main is
    %% ended from outside (a node went down), the printer ends with it, so
    %% no sample follows the error record.
    Printer = spawn_link(fun printer/0),
    T0 = ringbench_clock:now_ns(),
    Inject(),
    sample(1, #sampling{samples = Samples, every_ms = EveryMs, start_ms = ceil_ms(T0),
                        start_ns = T0, laps = Laps, n = N, printer = Printer, view = View}),
    Printer ! {flush, self()},
    receive flushed -> ok end.

%% Absolute deadlines (start + k * sample_ms), so the sampling does not drift.
sample(Seq, #sampling{samples = Samples}) when Seq > Samples -> ok;
sample(Seq, #sampling{every_ms = EveryMs, start_ms = StartMs} = S) ->
    erlang:start_timer(StartMs + Seq * EveryMs, self(), sample, [{abs, true}]),
    receive {timeout, _, sample} -> ok end,
    Now = ringbench_clock:now_ns(),
    Count = atomics:get(S#sampling.laps, 1) * S#sampling.n,
    S#sampling.printer ! {emit, [{type, sample}, {seq, Seq},
                                 {elapsed_ns, Now - S#sampling.start_ns}, {count, Count}]},
    case S#sampling.view of
        none -> ok;
        View -> [S#sampling.printer ! {emit, R} || R <- ringbench_nodes:view(View, Seq)]
    end,
    sample(Seq + 1, S).

%% The first whole millisecond at or after Ns (never sample early).
ceil_ms(Ns) ->
    case Ns rem 1000000 of
        R when R > 0 -> Ns div 1000000 + 1;
        _ -> Ns div 1000000    % div truncates: already the ceiling below 0
    end.

printer() ->
    receive
        {emit, Record} -> ringbench_json:emit(Record), printer();
        {flush, From} -> From ! flushed
    end.
