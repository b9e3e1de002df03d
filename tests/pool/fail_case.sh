#!/bin/sh
# A scenario whose expectations do not all hold: `kite pool simulate` exits 1, prints a FAIL
# line naming the file, line and time of each failed one and the `N passed, M failed` summary;
# the same with -q; and one that holds exits 0.
kite=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/s.pool" <<'POOL'
---
machine node[1-2]
at 0    submit a 3
at 0    expect running a 2
at 0    expect running a 3
at 60   expect idle a 5
POOL
out=$(timeout 20 "$kite" pool simulate "$dir/s.pool" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1: $out"; exit 1; }
echo "$out" | grep -qx "FAIL $dir/s.pool:5: t=0 expect running a: want 3, got 2" || { echo "$out"; exit 1; }
echo "$out" | grep -qx "FAIL $dir/s.pool:6: t=60 expect idle a: want 5, got 1" || { echo "$out"; exit 1; }
echo "$out" | grep -qx "1 passed, 2 failed" || { echo "$out"; exit 1; }
echo "$out" | grep -q "^t=0 matches=2 preemptions=0 a=2/1$" || { echo "$out"; exit 1; }
out=$(timeout 20 "$kite" pool simulate -q "$dir/s.pool" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "-q: exit $rc, want 1"; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 3 ] || { echo "-q prints only failures and the summary: $out"; exit 1; }
sed -i '/want\|running a 3\|idle a 5/d' "$dir/s.pool"
out=$(timeout 20 "$kite" pool simulate -q "$dir/s.pool" 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "exit $rc, want 0: $out"; exit 1; }
echo "$out" | grep -qx "1 passed, 0 failed" || { echo "$out"; exit 1; }
