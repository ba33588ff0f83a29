%% The stats record (stats=1; docs/driver-contract.md, section 4): what the
%% VM tells cheaply, as deltas over one iteration (collections, words
%% reclaimed, reductions, context switches) and levels at the end of its
%% run phase (run queue, process count, erlang:memory/0). Scheduler
%% utilisation is left out: it must be switched on and costs in the timed
%% phase.
-module(ringbench_stats).
-export([snapshot/0, record/4]).

-opaque snapshot() :: #{atom() => term()}.
-export_type([snapshot/0]).

-spec snapshot() -> snapshot().
snapshot() ->
    {Collections, Reclaimed, _} = erlang:statistics(garbage_collection),
    {Reductions, _} = erlang:statistics(reductions),
    {Switches, _} = erlang:statistics(context_switches),
    #{gc_count => Collections, gc_words_reclaimed => Reclaimed,
      reductions => Reductions, context_switches => Switches,
      run_queue => erlang:statistics(total_run_queue_lengths_all),
      process_count => erlang:system_info(process_count),
      memory => erlang:memory()}.

%% The record that follows the iteration's result.
-spec record(atom(), pos_integer(), snapshot(), snapshot()) -> ringbench_json:record().
record(Workload, Iteration, Before, After) ->
    Deltas = [{K, maps:get(K, After) - maps:get(K, Before)}
              || K <- [gc_count, gc_words_reclaimed, reductions, context_switches]],
    Memory = [{<<"memory_", (atom_to_binary(K, utf8))/binary>>, V}
              || {K, V} <- maps:get(memory, After)],
    [{type, stats}, {workload, Workload}, {iteration, Iteration}] ++ Deltas ++
        [{run_queue, maps:get(run_queue, After)},
         {process_count, maps:get(process_count, After)},
         {schedulers_online, erlang:system_info(schedulers_online)}] ++ Memory.
