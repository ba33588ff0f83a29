%% The memory rule (docs/driver-contract.md, section 3): memory is read
%% around the first iteration of the OS process (the warm-up's when there is
%% one) and every later iteration echoes those first figures, so no figure is
%% read after an earlier iteration let the VM reuse memory.
%%
%% Two kinds of reading:
%%   idle  - before spawning and once every process is ready (ring, spawn, ...):
%%           rss_before, rss_after, runtime_mem_before, runtime_mem_after
%%   peak  - around the tree's one timed phase: the kernel's peak-RSS mark is
%%           reset first (5 into /proc/self/clear_refs), and rss_peak (VmHWM)
%%           is read just after the phase, with rss_after
%%
%% rss_* are VmRSS / VmHWM of /proc/self/status; runtime_mem_* are
%% erlang:memory(processes), the VM's own count of process memory. BEAM has
%% no whole-VM collection (each process has its own heap, collected on its
%% own), so nothing is collected before a reading.
-module(ringbench_mem).
-export([start/2, finish/1, rss/0]).

-type kind() :: idle | peak.
-type fields() :: [{atom(), integer()}].
-opaque probe() :: {echo, fields()} | {fresh, kind(), integer(), integer()}.
-export_type([kind/0, fields/0, probe/0]).

%% Before the spawn (or the tree). First is undefined on the first iteration,
%% else the fields that iteration read.
-spec start(kind(), fields() | undefined) -> probe().
start(_Kind, First) when First =/= undefined -> {echo, First};
start(Kind, undefined) ->
    Kind =:= peak andalso reset_peak(),
    {fresh, Kind, rss(), erlang:memory(processes)}.

-spec finish(probe()) -> fields().
finish({echo, First}) -> First;
finish({fresh, Kind, RssBefore, MemBefore}) ->
    Status = status(),
    Peak = case Kind of
               %% At least rss_before: the kernel raises VmHWM from the RSS it sees on
               %% a read or an unmap, not when a page is given back with madvise, so
               %% memory the VM returns that way after rss_before was read can leave
               %% VmHWM below it.
               peak -> [{rss_peak, max(RssBefore, kb(Status, <<"VmHWM">>))}];
               idle -> []
           end,
    [{rss_before, RssBefore}, {rss_after, kb(Status, <<"VmRSS">>)}] ++ Peak ++
        [{runtime_mem_before, MemBefore}, {runtime_mem_after, erlang:memory(processes)}].

-spec rss() -> non_neg_integer().
rss() -> kb(status(), <<"VmRSS">>).

reset_peak() ->
    case file:write_file("/proc/self/clear_refs", <<"5">>) of
        ok -> ok;
        {error, Why} ->
            io:format(standard_error,
                      "ringbench: /proc/self/clear_refs refused (~p): rss_peak is the peak "
                      "since the VM started~n", [Why])
    end.

status() ->
    {ok, Bin} = file:read_file("/proc/self/status"),
    Bin.

%% A "Name:   1234 kB" line of /proc/self/status, in bytes.
kb(Status, Name) ->
    {match, [Kb]} = re:run(Status, [Name, <<":\\s+(\\d+) kB">>], [{capture, [1], binary}]),
    binary_to_integer(Kb) * 1024.
