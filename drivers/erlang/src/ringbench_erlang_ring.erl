%% The ring (Armstrong's exercise) and the two workloads built on it:
%% continuous mode (docs/driver-contract.md, section 5) and trace.
%%
%% Main spawns p(n-1) first, then p(n-2) ... p0, so each process gets its
%% successor's pid at birth; p(n-1), spawned before p0 exists, gets p0's pid
%% in one set-up message. Every process signals ready on a shared counter
%% (ringbench_ready) immediately before its first receive of the ring loop.
-module(ringbench_erlang_ring).
-export([ring/1, continuous/2, trace/2]).
%% Spawned by module, function and arguments, not from a fun.
-export([ring_enter/2, ring_last/1]).

%% Main's registered name for the ring processes (ring_loop/2).
-define(MAIN, ringbench_ring_main).

%% A built ring: p0, and the pid each token goes in at, in token order.
-record(ring, {first :: pid(), entries :: [pid()], ready :: pos_integer()}).

%% ---------------------------------------------------------------------------
%% ring

-spec ring(ringbench_params:params()) -> ringbench:phases().
ring(#{n := N, m := M, tokens := Tokens, burst := Burst}) ->
    Starts = ringbench_params:token_starts(N, Tokens, Burst),
    #{setup => fun() ->
                       register_main(),
                       Ring = build(N, Starts, fun spawn_ring_process/3),
                       {Ring#ring.ready, Ring}
               end,
      run => fun(Ring) ->
                     inject(Ring#ring.entries, N * M),
                     wait_done(Tokens),
                     Ring
             end,
      proof => fun proof/1}.

%% The ring processes reach main by a registered name instead of holding its
%% pid: main is needed only on a token's last hop and in the proof, and a pid
%% kept in the loop would cost every hop a stack word saved across the
%% receive. The name is main's for the life of the driver.
register_main() ->
    Main = self(),
    case whereis(?MAIN) of
        Main -> ok;
        undefined -> true = register(?MAIN, Main), ok
    end.

spawn_ring_process(_I, last, Ready) -> spawn(?MODULE, ring_last, [Ready]);
spawn_ring_process(_I, Next, Ready) -> spawn(?MODULE, ring_enter, [Next, Ready]).

ring_enter(Next, Ready) ->
    ringbench_ready:signal(Ready),
    ring_loop(Next, 0).

ring_last(Ready) ->
    receive
        {next, First} ->
            ringbench_ready:signal(Ready),
            ring_loop(First, 0)
    end.

%% One ring process: it knows its successor and counts its receipts; nothing
%% else is live across the receive (two stack words, Next and C). One hop is
%% the first clause: take a bare integer (an immediate: the send copies and
%% allocates no term, so no hop ever starts a collection), send V - 1, loop
%% with the count + 1. The seeds' loop and the Benchmarks Game thread-ring
%% loop, plus the receipt count the proof needs.
ring_loop(Next, C) ->
    receive
        V when is_integer(V), V > 1 ->
            Next ! V - 1,
            ring_loop(Next, C + 1);
        1 ->
            ?MAIN ! done,
            ring_loop(Next, C + 1);
        {stop, Sum, First} when Next =:= First ->
            ?MAIN ! {count, Sum + C};
        {stop, Sum, First} ->
            Next ! {stop, Sum + C, First}
    end.

%% ---------------------------------------------------------------------------
%% Building, feeding and proving a ring (the three workloads share it)

%% Spawns p(n-1), then p(n-2) ... p0, and closes the ring; returns it once
%% every process has signalled ready. Spawn(I, Next, Ready) spawns p(I) with
%% its successor (Next = last for p(n-1), which is told p0 afterwards).
%% Starts: the index each token goes in at (ringbench_params:token_starts/3).
build(N, Starts, Spawn) ->
    Ready = ringbench_ready:counter(N),
    Last = Spawn(N - 1, last, Ready),
    {Starts1, Entries} = entries(N - 1, Last, lists:reverse(Starts), []),
    {First, AllEntries} = spawn_down(N - 2, Last, fun(I, Next) -> Spawn(I, Next, Ready) end,
                                     Starts1, Entries),
    Last ! {next, First},
    #ring{first = First, entries = AllEntries, ready = ringbench_ready:await(Ready)}.

%% Spawns p(I), p(I-1) ... p0; Starts is descending, Entries in token order.
spawn_down(I, Next, _Spawn, _Starts, Entries) when I < 0 ->
    {Next, Entries};
spawn_down(I, Next, Spawn, Starts, Entries) ->
    P = Spawn(I, Next),
    {Starts1, Entries1} = entries(I, P, Starts, Entries),
    spawn_down(I - 1, P, Spawn, Starts1, Entries1).

%% p(I)'s pid once for each token that goes in at I.
entries(I, P, [I | Starts], Entries) -> entries(I, P, Starts, [P | Entries]);
entries(_I, _P, Starts, Entries) -> {Starts, Entries}.

inject([], _Token) -> ok;
inject([P | Ps], Token) -> P ! Token, inject(Ps, Token).

wait_done(0) -> ok;
wait_done(K) -> receive done -> wait_done(K - 1) end.

%% Untimed: a stop message goes round once from p0; every process adds its
%% receipt count, forwards it and exits; the last one reports the sum.
proof(#ring{first = First}) ->
    First ! {stop, 0, First},
    receive {count, C} -> C end.

%% ---------------------------------------------------------------------------
%% Continuous mode: the ring with tokens that never finish; p0 counts laps.

-spec continuous(ringbench_params:params(), atomics:atomics_ref()) -> fun(() -> ok).
continuous(#{n := N, tokens := Tokens, burst := Burst}, Laps) ->
    Spawn = fun(I, last, Ready) ->
                    spawn(fun() -> receive {next, First} -> go_on(I, First, Laps, Ready) end end);
               (I, Next, Ready) ->
                    spawn(fun() -> go_on(I, Next, Laps, Ready) end)
            end,
    Ring = build(N, ringbench_params:token_starts(N, Tokens, Burst), Spawn),
    fun() -> inject(Ring#ring.entries, tok) end.

go_on(0, Next, Laps, Ready) -> ringbench_ready:signal(Ready), lap_loop(Next, Laps);
go_on(_I, Next, _Laps, Ready) -> ringbench_ready:signal(Ready), forward_loop(Next).

forward_loop(Next) ->
    receive tok -> Next ! tok, forward_loop(Next) end.

%% p0: one atomic add per lap, the only shared state.
lap_loop(Next, Laps) ->
    receive
        tok ->
            atomics:add(Laps, 1, 1),
            Next ! tok,
            lap_loop(Next, Laps)
    end.

%% ---------------------------------------------------------------------------
%% trace: the ring with one token {tok, Hop, SenderIndex}, hop counted up
%% (hop = n*m - v + 1 of ring's countdown); each process prints its hop
%% itself before forwarding. io:put_chars is synchronous, so the lines come
%% out in hop order. A warm-up runs the same ring and prints nothing.

-record(tracer, {index :: non_neg_integer(), n :: pos_integer(), hops :: pos_integer(),
                 main :: pid(), print :: boolean()}).

-spec trace(ringbench_params:params(), ringbench:kind()) -> ringbench:phases().
trace(#{n := N, m := M}, Kind) ->
    Main = self(),
    Tracer = fun(I) -> #tracer{index = I, n = N, hops = N * M, main = Main,
                               print = Kind =:= measured} end,
    Spawn = fun(I, last, Ready) ->
                    spawn(fun() -> receive {next, First} -> trace_on(Tracer(I), First, Ready) end end);
               (I, Next, Ready) ->
                    spawn(fun() -> trace_on(Tracer(I), Next, Ready) end)
            end,
    #{setup => fun() ->
                       Ring = build(N, [0], Spawn),
                       {Ring#ring.ready, Ring}
               end,
      run => fun(Ring) ->
                     inject(Ring#ring.entries, {tok, 1, -1}),
                     receive done -> Ring end
             end,
      proof => fun proof/1}.

trace_on(Tracer, Next, Ready) ->
    ringbench_ready:signal(Ready),
    trace_loop(Tracer, Next, 0).

trace_loop(#tracer{index = I, n = N, hops = Hops, main = Main} = T, Next, C) ->
    receive
        {tok, Hop, From} ->
            T#tracer.print andalso
                ringbench_json:emit([{type, hop}, {hop, Hop}, {lap, (Hop - 1) div N + 1},
                                     {from, From}, {to, I}]),
            case Hop < Hops of
                true -> Next ! {tok, Hop + 1, I};
                false -> Main ! done
            end,
            trace_loop(T, Next, C + 1);
        {stop, Sum, First} when Next =:= First ->
            Main ! {count, Sum + C};
        {stop, Sum, First} ->
            Next ! {stop, Sum + C, First}
    end.
