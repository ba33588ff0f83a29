%% The verb `batch` (docs/driver-contract.md, section 2, feature "batch"):
%% many runs in one VM. Each line of stdin holds the arguments of one `run`,
%% separated by single TABs; the line is answered exactly as `run` would
%% answer it, then by {"type":"done","exit":E}. After E = 0 or 2 the next
%% line is read; after E = 1 or 3 (failure, limit) the VM exits with E; at
%% end of input it exits 0. ringbench:main/2 dispatches the verb and says
%% what one line does; this module holds the loop, the reading and splitting
%% of lines, and the isolation that keeps a line's processes from outliving
%% its `done`.
%%
%% Isolation: a line runs in a fresh process whose group leader is a relay
%% of its own (it forwards io requests to the VM's group leader, so records
%% go where they always go). Every process spawned from it, directly or
%% not, inherits that group leader, so when the line's process has ended
%% every process still holding the relay as its group leader is the line's:
%% all are killed and waited for before the line's status is returned (the
%% way OTP's application master ends an application's processes). A
%% successful iteration has already waited for its processes to exit (the
%% library's settle); what this reaches is a refusal's or a failure's
%% leftovers and continuous mode's ring, which a `run` leaves to the VM's
%% exit.
-module(ringbench_batch).
-export([loop/3, stdin/0, lines/1, split/1, isolated/1]).

%% A stream of lines: each call gives one line's arguments and the stream
%% of the rest, or eof.
-type read() :: fun(() -> {line, [string()], read()} | eof).
-type status() :: 0 | 1 | 2 | 3.
-export_type([read/0, status/0]).

%% Answers every line of Read with Line (which prints the line's records and
%% returns `run`'s exit status), then a `done` record by Emit. Returns the
%% status the VM exits with: 0 at end of input, or the 1 or 3 of the line
%% that ended the batch.
-spec loop(read(), fun(([string()]) -> status()), fun((ringbench_json:record()) -> ok)) ->
          0 | 1 | 3.
loop(Read, Line, Emit) ->
    case Read() of
        eof ->
            0;
        {line, Args, Rest} ->
            Status = Line(Args),
            ok = Emit([{type, done}, {exit, Status}]),
            case Status of
                0 -> loop(Rest, Line, Emit);
                2 -> loop(Rest, Line, Emit);
                1 -> 1;
                3 -> 3
            end
    end.

%% The lines of stdin (fd 0, which nothing else reads: the VM runs with
%% -noinput, as for perf's answers). To be called by the process that reads
%% the stream: the port's messages go to it. A last line without a newline
%% is still a line.
-spec stdin() -> read().
stdin() ->
    lines(open_port({fd, 0, 2}, [in, binary, {line, 65536}, eof])).

%% The lines of a port opened with [in, binary, {line, L}, eof], however
%% long each is.
-spec lines(port()) -> read().
lines(Port) ->
    fun() -> next_line(Port, []) end.

next_line(Port, Acc) ->
    receive
        {Port, {data, {noeol, Chunk}}} ->
            next_line(Port, [Chunk | Acc]);
        {Port, {data, {eol, Chunk}}} ->
            {line, split(iolist_to_binary(lists:reverse(Acc, [Chunk]))),
             fun() -> next_line(Port, []) end};
        {Port, eof} when Acc =:= [] ->
            eof;
        {Port, eof} ->
            {line, split(iolist_to_binary(lists:reverse(Acc))), fun() -> eof end}
    end.

%% One line's arguments: the fields between single TABs, each as a
%% command-line argument arrives (a list of characters, UTF-8 decoded; bytes
%% when the line is not UTF-8). An empty line is no argument at all, as
%% `run` alone; an empty field is an empty argument.
-spec split(binary()) -> [string()].
split(<<>>) ->
    [];
split(Line) ->
    [chars(Field) || Field <- binary:split(Line, <<"\t">>, [global])].

chars(Bin) ->
    case unicode:characters_to_list(Bin) of
        Chars when is_list(Chars) -> Chars;
        _ -> binary_to_list(Bin)
    end.

%% Runs Fun in a fresh process under a group leader of its own; when it has
%% ended, kills every process that still has that group leader and waits
%% until each is gone. {ok, Value}: Fun returned Value; {died, Reason}: the
%% process ended otherwise (killed from outside, say, with an error record
%% as its reason: ringbench_nodes:watch/1).
-spec isolated(fun(() -> term())) -> {ok, term()} | {died, term()}.
isolated(Fun) ->
    Upstream = group_leader(),
    Relay = spawn(fun() -> relay(Upstream) end),
    {Pid, Ref} = spawn_monitor(fun() ->
                                       true = group_leader(Relay, self()),
                                       exit({?MODULE, Fun()})
                               end),
    Outcome = receive
                  {'DOWN', Ref, process, Pid, {?MODULE, Value}} -> {ok, Value};
                  {'DOWN', Ref, process, Pid, Reason} -> {died, Reason}
              end,
    release(Relay),
    end_process(Relay),
    Outcome.

%% The io requests of a line's processes, forwarded as they are (the reply
%% goes from the group leader to the requester).
relay(Upstream) ->
    receive
        Msg -> Upstream ! Msg, relay(Upstream)
    end.

%% Until no process but the relay has the relay as its group leader (one
%% being killed may have spawned another meanwhile).
release(Relay) ->
    case [P || P <- erlang:processes(), P =/= Relay, leader_of(P) =:= Relay] of
        [] -> ok;
        Pids ->
            Refs = [erlang:monitor(process, P) || P <- Pids],
            lists:foreach(fun(P) -> exit(P, kill) end, Pids),
            lists:foreach(fun(R) -> receive {'DOWN', R, process, _, _} -> ok end end, Refs),
            release(Relay)
    end.

leader_of(Pid) ->
    case erlang:process_info(Pid, group_leader) of
        {group_leader, Leader} -> Leader;
        undefined -> none
    end.

end_process(Pid) ->
    Ref = erlang:monitor(process, Pid),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, _} -> ok end.
