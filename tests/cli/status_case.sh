#!/bin/sh
# One `kite status -ads` case: runs the command line recorded on the first line of an observed
# condor_status output (`$ condor_status ARGS`) as `kite status -ads ADS ARGS` and compares the
# output byte for byte with the rest of that file (only its first LINES lines when given, for
# files that hold the head of the output).
# usage: status_case.sh KITE ADS EXPECTED [LINES]
set -u
kite=$1 ads=$2 expected=$3 lines=${4:-}
first=$(head -n 1 "$expected")
case $first in
  '$ condor_status'*) args=${first#'$ condor_status'} ;;
  *) echo "status_case: $expected:1: expected '\$ condor_status ...', got '$first'" >&2; exit 2 ;;
esac
want=$(mktemp) got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
tail -n +2 "$expected" > "$want"
# The recorded arguments keep their shell quoting ('%s ', 'Cpus > 0'); eval honours it.
eval "set -- $args"
TZ=UTC "$kite" status -ads "$ads" "$@" > "$got"
rc=$?
if [ $rc -ne 0 ]; then echo "status_case: kite status exited $rc" >&2; exit 1; fi
if [ -n "$lines" ]; then head -n "$lines" "$got" > "$got.head" && mv "$got.head" "$got"; fi
if ! cmp -s "$want" "$got"; then
  echo "status_case: output differs from $expected (- expected, + kite):" >&2
  diff -u "$want" "$got" | sed -n '3,80p' >&2
  exit 1
fi
