%% The clocks every *_ns figure is read from (docs/driver-contract.md, 4).
%%
%% Wall time: erlang:monotonic_time(nanosecond), the VM's monotonic clock
%% (on Linux clock_gettime(CLOCK_MONOTONIC), 1 ns resolution).
%%
%% CPU time (user + system of every thread): clock_gettime
%% (CLOCK_PROCESS_CPUTIME_ID) through a three-line NIF (c_src/ringbench_clock.c).
%% erlang:statistics(runtime) is user time only, in milliseconds, so it is
%% the last resort. Without the NIF (no C compiler, no erl_nif.h) the kernel's
%% per-thread accounting in /proc/self/task/*/schedstat is summed instead
%% (same quantity, ns resolution, but a read costs about a millisecond).
%%
%% Context switches (voluntary, involuntary) of the whole VM: getrusage
%% (RUSAGE_SELF) by the same NIF, every thread's, those that have ended
%% included. Without the NIF the voluntary_ctxt_switches and
%% nonvoluntary_ctxt_switches of /proc/self/task/*/status are summed: the
%% threads alive at the read only (BEAM's schedulers and its other threads
%% live as long as the VM, so in practice the same figure).
-module(ringbench_clock).
-export([now_ns/0, cpu_ns/0, cpu_source/0, describe/0, process_cpu_ns/0,
         context_switches/0, context_switches/1, switches_source/0, process_context_switches/0]).
-on_load(load_nif/0).

-type source() :: nif | schedstat | runtime.
-type switches_source() :: nif | proc.

load_nif() ->
    Ebin = filename:dirname(code:which(?MODULE)),
    Lib = filename:join([filename:dirname(Ebin), "priv", "ringbench_clock"]),
    _ = erlang:load_nif(Lib, 0),   % without it cpu_ns/0 falls back (above)
    ok.

-spec now_ns() -> integer().
now_ns() -> erlang:monotonic_time(nanosecond).

-spec cpu_ns() -> integer().
cpu_ns() ->
    case cpu_source() of
        nif -> process_cpu_ns();
        schedstat -> schedstat_ns();
        runtime ->
            {Ms, _} = erlang:statistics(runtime),
            Ms * 1000000
    end.

%% {Voluntary, Involuntary} context switches of the VM process so far.
-spec context_switches() -> {non_neg_integer(), non_neg_integer()}.
context_switches() ->
    context_switches(switches_source()).

%% The same from a given source (the tests compare the two).
-spec context_switches(switches_source()) -> {non_neg_integer(), non_neg_integer()}.
context_switches(nif) -> process_context_switches();
context_switches(proc) -> proc_switches().

%% The clocks in a few words, for describe.
-spec describe() -> binary().
describe() ->
    Cpu = case cpu_source() of
              nif -> "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) by NIF";
              schedstat -> "/proc/self/task/*/schedstat";
              runtime -> "erlang:statistics(runtime), user time in ms"
          end,
    Switches = case switches_source() of
                   nif -> "getrusage(RUSAGE_SELF) by NIF";
                   proc -> "/proc/self/task/*/status, live threads only"
               end,
    Wall = proplists:get_value(clock_id, erlang:system_info(os_monotonic_time_source),
                               os_monotonic),
    iolist_to_binary(io_lib:format("erlang:monotonic_time (~s); CPU: ~s; context switches: ~s",
                                   [Wall, Cpu, Switches])).

%% Replaced by the NIF when it loads.
-spec process_cpu_ns() -> integer().
process_cpu_ns() ->
    erlang:nif_error(nif_not_loaded).

%% Replaced by the NIF when it loads.
-spec process_context_switches() -> {non_neg_integer(), non_neg_integer()}.
process_context_switches() ->
    erlang:nif_error(nif_not_loaded).

%% Where context_switches/0 reads from, probed once.
-spec switches_source() -> switches_source().
switches_source() ->
    case persistent_term:get({?MODULE, switches}, undefined) of
        undefined ->
            S = try process_context_switches() of
                    {V, I} when is_integer(V), is_integer(I) -> nif
                catch _:_ -> proc
                end,
            persistent_term:put({?MODULE, switches}, S),
            S;
        S -> S
    end.

%% Which CPU clock cpu_ns/0 reads, probed once.
-spec cpu_source() -> source().
cpu_source() ->
    case persistent_term:get({?MODULE, source}, undefined) of
        undefined ->
            S = probe(),
            persistent_term:put({?MODULE, source}, S),
            S;
        S -> S
    end.

probe() ->
    try process_cpu_ns() of
        N when is_integer(N) -> nif
    catch _:_ ->
        case schedstat_ns() of
            N when is_integer(N) -> schedstat;
            error -> runtime
        end
    end.

schedstat_ns() ->
    case file:list_dir("/proc/self/task") of
        {ok, Tids} -> lists:sum([thread_ns(Tid) || Tid <- Tids]);
        _ -> error
    end.

thread_ns(Tid) ->
    case file:read_file("/proc/self/task/" ++ Tid ++ "/schedstat") of
        {ok, Bin} ->
            [Ns | _] = binary:split(Bin, <<" ">>),
            binary_to_integer(Ns);
        _ ->
            0   % a thread that ended between list_dir and read
    end.

proc_switches() ->
    {ok, Tids} = file:list_dir("/proc/self/task"),
    lists:foldl(fun(Tid, {V, I}) ->
                        {V1, I1} = thread_switches(Tid),
                        {V + V1, I + I1}
                end, {0, 0}, Tids).

thread_switches(Tid) ->
    case file:read_file("/proc/self/task/" ++ Tid ++ "/status") of
        {ok, Bin} ->
            {status_field(Bin, <<"voluntary_ctxt_switches:">>),
             status_field(Bin, <<"nonvoluntary_ctxt_switches:">>)};
        _ ->
            {0, 0}   % a thread that ended between list_dir and read
    end.

%% The integer after Key at the start of a line of a status file.
status_field(Bin, Key) ->
    case binary:match(Bin, <<"\n", Key/binary>>) of
        {Pos, Len} ->
            Rest = binary:part(Bin, Pos + Len, byte_size(Bin) - Pos - Len),
            [Value | _] = binary:split(Rest, <<"\n">>),
            binary_to_integer(string:trim(Value));
        nomatch ->
            0
    end.
