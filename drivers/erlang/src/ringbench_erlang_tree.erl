%% tree, the "skynet" benchmark (docs/driver-contract.md, section 3): a
%% process per node. A process covering more than one leaf spawns fanout
%% children, each covering an equal, contiguous part of its leaves, receives
%% their fanout sums (a bare integer each, in whatever order they come), and
%% sends the total to its parent; a leaf sends its ordinal. Every process
%% exits once it has sent. Spawning, messages and exits interleave in the one
%% timed phase; main spawns the root and waits for its sum.
-module(ringbench_erlang_tree).
-export([tree/1]).
%% Spawned by module, function and arguments, as the ring processes are.
-export([subtree/4]).

-spec tree(ringbench_params:params()) -> ringbench:phases().
tree(#{n := N, fanout := Fanout}) ->
    #{run => fun(undefined) ->
                     spawn(?MODULE, subtree, [self(), 0, N, Fanout]),
                     receive Sum when is_integer(Sum) -> Sum end
             end,
      proof => fun(Sum) -> Sum end}.

%% The process covering leaves First ... First + Leaves - 1.
subtree(Parent, First, 1, _Fanout) ->
    Parent ! First;
subtree(Parent, First, Leaves, Fanout) ->
    Each = Leaves div Fanout,
    Self = self(),
    _ = [spawn(?MODULE, subtree, [Self, First + K * Each, Each, Fanout])
         || K <- lists:seq(0, Fanout - 1)],
    Parent ! sum_of(Fanout, 0).

sum_of(0, Sum) -> Sum;
sum_of(K, Sum) -> receive S -> sum_of(K - 1, Sum + S) end.
