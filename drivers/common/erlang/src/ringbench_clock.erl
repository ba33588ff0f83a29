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
-module(ringbench_clock).
-export([now_ns/0, cpu_ns/0, cpu_source/0, describe/0, process_cpu_ns/0]).
-on_load(load_nif/0).

-type source() :: nif | schedstat | runtime.

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

%% The clocks in a few words, for describe.
-spec describe() -> binary().
describe() ->
    Cpu = case cpu_source() of
              nif -> "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) by NIF";
              schedstat -> "/proc/self/task/*/schedstat";
              runtime -> "erlang:statistics(runtime), user time in ms"
          end,
    Wall = proplists:get_value(clock_id, erlang:system_info(os_monotonic_time_source),
                               os_monotonic),
    iolist_to_binary(io_lib:format("erlang:monotonic_time (~s); CPU: ~s", [Wall, Cpu])).

%% Replaced by the NIF when it loads.
-spec process_cpu_ns() -> integer().
process_cpu_ns() ->
    erlang:nif_error(nif_not_loaded).

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
