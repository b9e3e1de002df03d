#!/bin/sh
# `kite pool simulate` speed: a week of a 1,000-slot pool with 20 submitters in 6 groups,
# concurrency limits and 60 s cycles, generated here; PASS when it runs in under 10 s.
# usage: tests/bench/pool_bench.sh KITE [DAYS]
set -eu
kite=$1
days=${2:-7}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
scn="$dir/week.pool"
{
  echo "NEGOTIATOR_INTERVAL = 60"
  echo "GROUP_NAMES = g1, g2, g3, g4, g5, g6"
  for g in 1 2 3 4 5 6; do echo "GROUP_QUOTA_DYNAMIC_g$g = 0.16"; done
  echo "GROUP_ACCEPT_SURPLUS = True"
  echo "LIC_LIMIT = 120"
  echo "DB_LIMIT = 300"
  echo "---"
  echo "machine node[1-1000]"
  d=0
  while [ "$d" -lt "$days" ]; do
    u=1
    while [ "$u" -le 20 ]; do
      g=$(( (u - 1) % 6 + 1 ))
      rt=$(( 1800 + (u * 271) % 5400 ))
      case $(( u % 4 )) in
        0) lim='; ConcurrencyLimits = "LIC"' ;;
        1) lim='; ConcurrencyLimits = "DB:2"' ;;
        *) lim='' ;;
      esac
      echo "at ${d}d submit u$u 1300 runtime $rt [AccountingGroup = \"g$g.u$u\"$lim]"
      u=$((u + 1))
    done
    d=$((d + 1))
  done
  echo "at ${days}d expect limit LIC 0..120"
  echo "at ${days}d expect limit DB 0..300"
} > "$scn"
start=$(date +%s.%N)
# CPU time too: on a loaded machine the wall time says more about the other processes.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "%U %S" -o "$dir/cpu" "$kite" pool simulate -q "$scn" > "$dir/out" ||
    { cat "$dir/out"; echo "pool bench: FAIL (exit $?)"; exit 1; }
else
  "$kite" pool simulate -q "$scn" > "$dir/out" || { cat "$dir/out"; echo "pool bench: FAIL (exit $?)"; exit 1; }
fi
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc)
cycles=$(( days * 1440 ))
cpu=""
[ -s "$dir/cpu" ] && cpu=" (CPU $(awk '{print $1 + $2}' "$dir/cpu") s)"
echo "pool bench: $days days, 1000 slots, 20 submitters in 6 groups, $cycles cycles: ${secs} s wall$cpu"
if [ "$(echo "$secs < 10" | bc)" = 1 ]; then echo "pool bench: PASS (< 10 s)"; else echo "pool bench: FAIL (>= 10 s)"; exit 1; fi
