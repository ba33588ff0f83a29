%% JSON Lines on stdout (docs/driver-contract.md, section 4): one flat
%% object per line, written by the io server before emit/1 returns.
%%
%% A record is a list of {Key, Value} in the order it is printed. Keys are
%% atoms or binaries; values are integers, binaries (UTF-8 strings), atoms
%% (printed as strings) or lists of those. Strings are escaped to ASCII.
-module(ringbench_json).
-export([emit/1, encode/1]).

-type value() :: integer() | binary() | atom() | [integer() | binary() | atom()].
-type record() :: [{atom() | binary(), value()}].
-export_type([record/0]).

%% io:put_chars/2 returns when the io server has handed the line to the
%% port, so each record is out as soon as emit/1 returns.
-spec emit(record()) -> ok.
emit(Record) ->
    try io:put_chars(standard_io, [encode(Record), $\n])
    catch _:_ ->
        %% stdout is gone (the reader closed the pipe): nothing can be reported
        erlang:halt(1)
    end.

-spec encode(record()) -> iodata().
encode(Record) ->
    [${, lists:join($,, [[string(K), $:, value(V)] || {K, V} <- Record]), $}].

value(V) when is_integer(V) -> integer_to_binary(V);
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
