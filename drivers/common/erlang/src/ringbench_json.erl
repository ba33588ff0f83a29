%% JSON Lines on stdout (docs/driver-contract.md, section 4): one flat
%% object per line, written by the io server before emit/1 returns.
%%
%% A record is a list of {Key, Value} in the order it is printed. Keys are
%% atoms or binaries; values are integers, floats, binaries (UTF-8
%% strings), atoms (printed as strings; null as null) or lists of those.
%% Strings are escaped to ASCII.
%%
%% decode/1 reads a JSON document (a perf job, section 10; OTP 25 has no
%% json module): objects as maps with binary keys, arrays as lists, strings
%% as UTF-8 binaries, true, false and null as atoms.
-module(ringbench_json).
-export([emit/1, encode/1, decode/1, records/1]).

-type value() :: integer() | float() | binary() | atom() | [integer() | float() | binary() | atom()].
-type record() :: [{atom() | binary(), value()}].
-export_type([record/0]).

%% io:put_chars/2 returns when the io server has handed the line to the
%% port (or, after records/1, written it to the file), so each record is
%% out as soon as emit/1 returns.
-spec emit(record()) -> ok.
emit(Record) ->
    try io:put_chars(persistent_term:get({?MODULE, records}, standard_io), [encode(Record), $\n])
    catch _:_ ->
        %% stdout is gone (the reader closed the pipe): nothing can be reported
        erlang:halt(1)
    end.

%% Records from now on go to file descriptor Fd, inherited open from the
%% orchestrator (a perf job's `records`, contract section 11), rather than
%% to stdout, which a snippet's erlang:display/1 or io:format(user, ...)
%% writes to. The file's io server is linked to the caller, which lives as
%% long as the driver.
-spec records(pos_integer()) -> ok | {error, term()}.
records(Fd) ->
    case file:open("/dev/fd/" ++ integer_to_list(Fd), [write, binary]) of
        {ok, Device} -> persistent_term:put({?MODULE, records}, Device);
        {error, _} = Error -> Error
    end.

-spec encode(record()) -> iodata().
encode(Record) ->
    [${, lists:join($,, [[string(K), $:, value(V)] || {K, V} <- Record]), $}].

value(V) when is_integer(V) -> integer_to_binary(V);
value(V) when is_float(V) -> float_to_binary(V, [short]);
value(null) -> <<"null">>;
value(V) when is_list(V) -> [$[, lists:join($,, [value(X) || X <- V]), $]];
value(V) -> string(V).

string(A) when is_atom(A) -> string(atom_to_binary(A, utf8));
string(B) when is_binary(B) -> [$", escape(unicode:characters_to_list(B)), $"].

escape([]) -> [];
escape([$" | T]) -> [$\\, $" | escape(T)];
escape([$\\ | T]) -> [$\\, $\\ | escape(T)];
escape([C | T]) when C < 16#20; C >= 16#7f -> [u_escape(C) | escape(T)];
escape([C | T]) -> [C | escape(T)].

%% \uXXXX, as a surrogate pair beyond the Basic Multilingual Plane.
u_escape(C) when C > 16#FFFF ->
    D = C - 16#10000,
    [u_escape(16#D800 + (D bsr 10)), u_escape(16#DC00 + (D band 16#3FF))];
u_escape(C) ->
    io_lib:format("\\u~4.16.0b", [C]).

%% ---------------------------------------------------------------------------
%% Decoding

-type json() :: #{binary() => json()} | [json()] | binary() | number() | true | false | null.

%% {ok, Term} or {error, Message} naming the byte offset where it went wrong.
-spec decode(binary()) -> {ok, json()} | {error, string()}.
decode(Bin) when is_binary(Bin) ->
    try
        {V, Rest} = val(skip(Bin)),
        case skip(Rest) of
            <<>> -> {ok, V};
            More -> throw({json, byte_size(Bin) - byte_size(More), "trailing characters"})
        end
    catch
        throw:{json, At, What} -> {error, lists:flatten(io_lib:format("~s at byte ~b", [What, At]))};
        throw:{json_at, Rest1, What} ->
            {error, lists:flatten(io_lib:format("~s at byte ~b", [What, byte_size(Bin) - byte_size(Rest1)]))}
    end.

skip(<<C, R/binary>>) when C =:= $\s; C =:= $\t; C =:= $\n; C =:= $\r -> skip(R);
skip(B) -> B.

val(<<${, R/binary>>) -> object(skip(R), #{});
val(<<$[, R/binary>>) -> array(skip(R), []);
val(<<$", R/binary>>) -> str(R, []);
val(<<"true", R/binary>>) -> {true, R};
val(<<"false", R/binary>>) -> {false, R};
val(<<"null", R/binary>>) -> {null, R};
val(<<C, _/binary>> = B) when C =:= $-; C >= $0, C =< $9 -> number(B);
val(B) -> throw({json_at, B, "unexpected character"}).

object(<<$}, R/binary>>, Acc) when map_size(Acc) =:= 0 -> {Acc, R};
object(<<$", R/binary>>, Acc) ->
    {K, R1} = str(R, []),
    case skip(R1) of
        <<$:, R2/binary>> ->
            {V, R3} = val(skip(R2)),
            case skip(R3) of
                <<$,, R4/binary>> -> object(skip(R4), Acc#{K => V});
                <<$}, R4/binary>> -> {Acc#{K => V}, R4};
                R4 -> throw({json_at, R4, "expected , or }"})
            end;
        R2 -> throw({json_at, R2, "expected :"})
    end;
object(B, _) -> throw({json_at, B, "expected a string key"}).

array(<<$], R/binary>>, []) -> {[], R};
array(B, Acc) ->
    {V, R} = val(B),
    case skip(R) of
        <<$,, R1/binary>> -> array(skip(R1), [V | Acc]);
        <<$], R1/binary>> -> {lists:reverse([V | Acc]), R1};
        R1 -> throw({json_at, R1, "expected , or ]"})
    end.

str(<<$", R/binary>>, Acc) -> {unicode:characters_to_binary(lists:reverse(Acc)), R};
str(<<$\\, $u, H:4/binary, R/binary>> = B, Acc) ->
    case hex(H) of
        Hi when Hi >= 16#D800, Hi =< 16#DBFF ->
            case R of
                <<$\\, $u, L:4/binary, R1/binary>> ->
                    Lo = hex(L),
                    (Lo >= 16#DC00 andalso Lo =< 16#DFFF) orelse throw({json_at, B, "bad surrogate pair"}),
                    str(R1, [16#10000 + ((Hi - 16#D800) bsl 10) + (Lo - 16#DC00) | Acc]);
                _ -> throw({json_at, B, "lone surrogate"})
            end;
        C -> str(R, [C | Acc])
    end;
str(<<$\\, E, R/binary>> = B, Acc) ->
    C = case E of
            $" -> $"; $\\ -> $\\; $/ -> $/; $b -> $\b; $f -> $\f; $n -> $\n; $r -> $\r; $t -> $\t;
            _ -> throw({json_at, B, "bad escape"})
        end,
    str(R, [C | Acc]);
str(<<C/utf8, R/binary>>, Acc) when C >= 16#20 -> str(R, [C | Acc]);
str(B, _) -> throw({json_at, B, "bad or unterminated string"}).

hex(H) ->
    try binary_to_integer(H, 16)
    catch error:badarg -> throw({json_at, H, "bad \\u escape"})
    end.

number(B) ->
    {Text, R} = lists:splitwith(fun(C) -> lists:member(C, "+-0123456789.eE") end, binary_to_list(B)),
    Rest = list_to_binary(R),
    try {list_to_integer(Text), Rest}
    catch error:badarg ->
        try {list_to_float(Text), Rest}
        catch error:badarg -> throw({json_at, B, "bad number"})
        end
    end.
