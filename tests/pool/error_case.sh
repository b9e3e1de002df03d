#!/bin/sh
# Runs a bad pool scenario: it must exit 2 and name the file and line its first line's comment
# gives ("# want: LINE TEXT"; "FILE:LINE:" for steps, "FILE, line LINE:" for configuration),
# without crashing or hanging.
kite=$1 file=$2
want=$(sed -n '1s/^# want: //p' "$file")
line=${want%% *} text=${want#* }
out=$(timeout 20 "$kite" pool simulate "$file" 2>&1)
rc=$?
if [ "$rc" -ne 2 ]; then echo "exit $rc, want 2: $out"; exit 1; fi
case "$out" in
  *"$file:$line: "*"$text"* | *"$file, line $line: "*"$text"*) exit 0 ;;
esac
echo "want '$file:$line: ... $text', got: $out"
exit 1
