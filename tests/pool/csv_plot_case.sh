#!/bin/sh
# `kite pool simulate --csv` writes its header and one row per cycle and submitter, and
# scripts/plot-pool turns the file into a PNG (skipped, exit 77, without gnuplot).
kite=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$kite" pool simulate -q "$src/tests/pool/machine_off.pool" --csv "$dir/out.csv" >/dev/null || exit 1
head -n 1 "$dir/out.csv" | grep -qx 'time,name,kind,running,idle,rup,eup,quota' || {
  echo "bad header: $(head -n 1 "$dir/out.csv")"; exit 1; }
# t=0: alice's 4 jobs run, none idle; a new submitter's RUP is 0.5, EUP 0.5 x 1000.
grep -qx '0,alice,submitter,4,0,0.5,500,' "$dir/out.csv" || { cat "$dir/out.csv"; exit 1; }
grep -qx '60,alice,submitter,4,0,.*' "$dir/out.csv" || { cat "$dir/out.csv"; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot not installed"; exit 77; }
"$src/scripts/plot-pool" "$dir/out.csv" "$dir/out.png" || exit 1
[ "$(head -c 4 "$dir/out.png" | tail -c 3)" = "PNG" ] || { echo "not a PNG"; exit 1; }
