#!/bin/sh
# One `kite status -ads` case: runs the command line recorded on the first line of an observed
# condor_status output (`$ condor_status ARGS`) as `kite status -ads ADS ARGS` and compares the
# output byte for byte with the rest of that file (only its first LINES lines when given, for
# files that hold the head of the output).
# Each EDIT `NAME:Attr=value` sets Attr in the ad named NAME ("*": every ad) before the run, so
# that one set of ads serves outputs recorded a few seconds (or one drain) apart.
# usage: status_case.sh KITE ADS EXPECTED [LINES|-] [EDIT...]
set -u
kite=$1 ads=$2 expected=$3 lines=${4:--}
shift 3; [ $# -gt 0 ] && shift
first=$(head -n 1 "$expected")
case $first in
  '$ condor_status'*) args=${first#'$ condor_status'} ;;
  *) echo "status_case: $expected:1: expected '\$ condor_status ...', got '$first'" >&2; exit 2 ;;
esac
want=$(mktemp) got=$(mktemp) input=$(mktemp)
trap 'rm -f "$want" "$got" "$input"' EXIT
cp "$ads" "$input"
for edit in "$@"; do
  name=${edit%%:*} rest=${edit#*:}
  attr=${rest%%=*} value=${rest#*=}
  awk -v RS= -v ORS='\n\n' -v name="$name" -v attr="$attr" -v value="$value" '
    index("\n" $0 "\n", "\nName = \"" name "\"\n") || name == "*" {
      n = split($0, l, "\n"); out = ""; done = 0
      for (i = 1; i <= n; i++) {
        if (index(l[i], attr " = ") == 1) { l[i] = attr " = " value; done = 1 }
        out = out (i > 1 ? "\n" : "") l[i]
      }
      if (!done) out = out "\n" attr " = " value
      $0 = out
    }
    { print }' "$input" > "$input.new" && mv "$input.new" "$input"
done
tail -n +2 "$expected" > "$want"
# The recorded arguments keep their shell quoting ('%s ', 'Cpus > 0'); eval honours it.
eval "set -- $args"
# $kite may carry an emulator in front of the binary (cross builds): split on blanks.
# shellcheck disable=SC2086
TZ=UTC $kite status -ads "$input" "$@" > "$got"
rc=$?
if [ $rc -ne 0 ]; then echo "status_case: kite status exited $rc" >&2; exit 1; fi
if [ "$lines" != - ]; then head -n "$lines" "$got" > "$got.head" && mv "$got.head" "$got"; fi
if ! cmp -s "$want" "$got"; then
  echo "status_case: output differs from $expected (- expected, + kite):" >&2
  diff -u "$want" "$got" | sed -n '3,80p' >&2
  exit 1
fi
