#!/bin/sh
# Dialyzer's PLT of erts, kernel, stdlib and crypto for check.sh, kept in
# bin/ (git-ignored) under the exact OTP version it was built from (patch
# releases included), so that an upgrade builds a new one. Builds it when
# missing (about a minute; build.sh runs this, so the set-up leaves it built),
# then prints its path. Dialyzer checks the PLT against the installed OTP
# again each time check.sh uses it.
set -eu
cd "$(dirname "$0")"
OTP=$(erl -noshell -noinput -eval '
    {ok, V} = file:read_file(filename:join([code:root_dir(), "releases",
                                            erlang:system_info(otp_release), "OTP_VERSION"])),
    io:format("~s", [string:trim(V)]), halt().')
PLT=bin/dialyzer-otp$OTP.plt
if [ ! -f "$PLT" ]; then
    mkdir -p bin
    echo "erlang: building Dialyzer's PLT of OTP $OTP into $PLT (once, about a minute)" >&2
    dialyzer --quiet --build_plt --output_plt "$PLT.tmp" --apps erts kernel stdlib crypto
    mv "$PLT.tmp" "$PLT"
fi
echo "$PLT"
